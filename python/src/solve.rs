//! `mate` and `mate_many`: the solver of `posfilter mate`, one position or many on a
//! thread pool, each answer the object `posfilter mate --json` prints.
//!
//! # Contract
//! - Each position starts on a fresh table generation, so an answer depends on the position
//!   and the limits only, never on the thread count or on earlier calls.
//! - Every position is parsed (or decoded) and checked before any is searched: a bad one
//!   raises `ValueError` naming its index and the reason, and nothing is solved.
//! - Solvers (and their tables) are kept between calls for the last `table_mb` used, at
//!   most one per core, so a loop of small calls does not allocate a table each time.

use crate::convert::{self, bad_value};
use crate::interrupt::interruptible;
use numpy::PyReadonlyArray1;
use posfilter::codec;
use posfilter::mate::{Limits, Solver, Verdict};
use posfilter::pipeline::{config::MAX_MIB, preflight};
use posfilter::shogi::Position;
use pyo3::prelude::*;
use pyo3::types::PyList;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The search limits and resources of one call.
pub struct SolveOptions {
    /// Node budget per position (at least 1).
    pub nodes: u64,
    /// Table per solver, MiB (1 to 65,536).
    pub table_mb: usize,
    /// Nodes spent looking for a shorter mate, as a multiple of the proof's.
    pub shorten: u32,
    /// Longest mate looked for, plies (0 = no limit).
    pub max_plies: u32,
    /// Threads (resolved: at least 1).
    pub threads: usize,
}

impl SolveOptions {
    /// Checks the values; `threads` 0 means every core.
    pub fn new(
        nodes: u64,
        table_mb: usize,
        shorten: u32,
        max_plies: u32,
        threads: usize,
    ) -> PyResult<SolveOptions> {
        if nodes == 0 {
            return Err(bad_value("nodes must be at least 1".into()));
        }
        if !(1..=MAX_MIB).contains(&table_mb) {
            return Err(bad_value(format!(
                "table_mb must be from 1 to {MAX_MIB}, not {table_mb}"
            )));
        }
        let threads = convert::threads(threads);
        let need = preflight::solver_bytes(threads, table_mb, 0);
        if let Some(available) = preflight::available_memory().filter(|&a| need > a) {
            return Err(bad_value(format!(
                "{threads} thread(s) × {table_mb} MiB tables need {need} bytes and this \
                 machine has {available} available; use fewer threads or a smaller table_mb"
            )));
        }
        Ok(SolveOptions {
            nodes,
            table_mb,
            shorten,
            max_plies,
            threads,
        })
    }

    fn limits(&self) -> Limits {
        Limits {
            nodes: self.nodes,
            max_plies: (self.max_plies > 0).then_some(self.max_plies),
            time: None,
            shorten: self.shorten,
        }
    }
}

/// Idle solvers of one table size, kept between calls.
struct Idle {
    table_mb: usize,
    solvers: Vec<Solver>,
}

static IDLE: Mutex<Idle> = Mutex::new(Idle {
    table_mb: 0,
    solvers: Vec::new(),
});

/// Solves `pos` with an idle solver of `table_mb` (or a new one) that stops when `abort`
/// is set; returns the verdict and the seconds the search took, or why the position is
/// impossible.
fn solve(pos: &mut Position, o: &SolveOptions, abort: &Arc<AtomicBool>) -> Answer {
    let taken = IDLE.lock().ok().and_then(|mut idle| {
        (idle.table_mb == o.table_mb)
            .then(|| idle.solvers.pop())
            .flatten()
    });
    let mut solver = taken.unwrap_or_else(|| Solver::new(o.table_mb));
    solver.set_abort(Some(abort.clone()));
    let start = Instant::now();
    let verdict = solver.solve(pos, &o.limits());
    let seconds = start.elapsed().as_secs_f64();
    solver.set_abort(None);
    if let Ok(mut idle) = IDLE.lock() {
        if idle.table_mb != o.table_mb {
            idle.table_mb = o.table_mb;
            idle.solvers.clear();
        }
        if idle.solvers.len() < convert::threads(0) {
            idle.solvers.push(solver);
        }
    }
    verdict
        .map(|v| (v, seconds))
        .map_err(|e| format!("impossible position: {e}"))
}

/// A verdict and its seconds, or why the position could not be searched.
type Answer = Result<(Verdict, f64), String>;

/// Solves every position on `o.threads` threads, interruptibly; answers in input order. An
/// impossible position raises `ValueError` naming `label` and its index.
fn solve_all(
    py: Python<'_>,
    mut positions: Vec<Position>,
    o: &SolveOptions,
    label: &str,
) -> PyResult<Vec<(Verdict, f64)>> {
    let abort = Arc::new(AtomicBool::new(false));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(o.threads)
        .stack_size(64 << 20)
        .build()
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("thread pool: {e}")))?;
    let work = || {
        pool.install(|| {
            positions
                .par_iter_mut()
                .with_max_len(1)
                .map(|pos| {
                    if abort.load(Ordering::Relaxed) {
                        // The call raises the interrupt; this answer is never seen.
                        return Err("stopped".to_string());
                    }
                    solve(pos, o, &abort)
                })
                .collect::<Vec<Answer>>()
        })
    };
    let stop = || abort.store(true, Ordering::SeqCst);
    let answers = interruptible(py, stop, |_| Ok(()), work)?;
    answers
        .into_iter()
        .enumerate()
        .map(|(i, a)| a.map_err(|why| bad_value(format!("{label} {i}: {why}"))))
        .collect()
}

/// The answers as a list of dicts (`mate --json`'s objects).
fn answers<'py>(py: Python<'py>, verdicts: &[(Verdict, f64)]) -> PyResult<Bound<'py, PyList>> {
    let items = verdicts
        .iter()
        .map(|(v, seconds)| convert::json_to_py(py, &v.to_json(*seconds)))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// `posfilter.mate`: one position (SFEN or USI position with moves).
#[pyfunction]
#[pyo3(signature = (position, nodes, table_mb, shorten, max_plies))]
pub fn mate<'py>(
    py: Python<'py>,
    position: &str,
    nodes: u64,
    table_mb: usize,
    shorten: u32,
    max_plies: u32,
) -> PyResult<Bound<'py, PyAny>> {
    let o = SolveOptions::new(nodes, table_mb, shorten, max_plies, 1)?;
    let pos = parse(position).map_err(bad_value)?;
    let verdicts = solve_all(py, vec![pos], &o, "position")?;
    let (v, seconds) = &verdicts[0];
    convert::json_to_py(py, &v.to_json(*seconds))
}

/// `posfilter.mate_many` over text positions.
#[pyfunction]
#[pyo3(signature = (positions, nodes, table_mb, shorten, max_plies, threads))]
pub fn mate_many_text<'py>(
    py: Python<'py>,
    positions: Vec<String>,
    nodes: u64,
    table_mb: usize,
    shorten: u32,
    max_plies: u32,
    threads: usize,
) -> PyResult<Bound<'py, PyList>> {
    let o = SolveOptions::new(nodes, table_mb, shorten, max_plies, threads)?;
    let parsed = positions
        .iter()
        .enumerate()
        .map(|(i, text)| parse(text).map_err(|why| bad_value(format!("position {i}: {why}"))))
        .collect::<PyResult<Vec<_>>>()?;
    let verdicts = solve_all(py, parsed, &o, "position")?;
    answers(py, &verdicts)
}

/// `posfilter.mate_many` over binary records (`data`: the records' bytes, back to back).
#[pyfunction]
#[pyo3(signature = (data, format, nodes, table_mb, shorten, max_plies, threads))]
#[allow(clippy::too_many_arguments)]
pub fn mate_many_records<'py>(
    py: Python<'py>,
    data: PyReadonlyArray1<'py, u8>,
    format: &str,
    nodes: u64,
    table_mb: usize,
    shorten: u32,
    max_plies: u32,
    threads: usize,
) -> PyResult<Bound<'py, PyList>> {
    let o = SolveOptions::new(nodes, table_mb, shorten, max_plies, threads)?;
    let (format, bytes) = convert::records(&data, format)?;
    let width = format.record_size().unwrap_or(1);
    let decoded = bytes
        .chunks_exact(width)
        .enumerate()
        .map(|(i, record)| {
            codec::decode(format, record)
                .map(|d| d.position)
                .map_err(|e| bad_value(format!("record {i}: does not decode as {format}: {e}")))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let verdicts = solve_all(py, decoded, &o, "record")?;
    answers(py, &verdicts)
}

/// A typed position, or why it is not one (quoting it).
fn parse(text: &str) -> Result<Position, String> {
    codec::text::parse_position(text).map_err(|e| format!("bad position {:?}: {e}", text.trim()))
}

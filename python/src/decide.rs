//! `posfilter.decide` and `posfilter.Decider`: the stages of `posfilter run` on records held
//! in numpy arrays, one row of columns per record, through the library's [`Decider`] (the
//! run's batches, workers and ordered dedup; the calls of one decider are the files of one
//! run).
//!
//! # Contract
//! - One row per record, in input order; a record that does not decode is a `rejected` row,
//!   never an error of the call. A bad setting raises `ValueError` before any work.
//! - Decision codes: 0 `keep`, then the drop reasons in report order ([`DropReason::ALL`],
//!   the keys of report.json's `records.dropped`), then `rejected` ([`decision_names`]).
//! - The records are copied once before the GIL is released, so other Python threads may
//!   go on using (or changing) the array while the call works.

use crate::convert;
use crate::interrupt::interruptible;
use crate::overrides;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use posfilter::filter::{Decision, DropReason};
use posfilter::pipeline::{Decider, RecordOutcome};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Mutex, TryLockError};

/// The name of each decision code, in code order (the Python `DECISIONS`).
#[pyfunction]
pub fn decision_names() -> Vec<&'static str> {
    let drops = DropReason::ALL.iter().map(|r| r.name());
    std::iter::once("keep")
        .chain(drops)
        .chain(std::iter::once("rejected"))
        .collect()
}

/// The code of a decision (see the module contract).
fn code(decision: &Decision) -> u8 {
    match decision {
        Decision::Keep => 0,
        Decision::Drop(reason) => 1 + *reason as u8,
        Decision::Reject(_) => 1 + DropReason::ALL.len() as u8,
    }
}

/// The result columns, one entry per record.
#[derive(Default)]
struct Columns {
    keep: Vec<bool>,
    decision: Vec<u8>,
    plies: Vec<u32>,
    nodes: Vec<u64>,
    unknown: Vec<bool>,
}

impl Columns {
    fn with_capacity(n: usize) -> Columns {
        Columns {
            keep: Vec::with_capacity(n),
            decision: Vec::with_capacity(n),
            plies: Vec::with_capacity(n),
            nodes: Vec::with_capacity(n),
            unknown: Vec::with_capacity(n),
        }
    }

    fn push(&mut self, r: &RecordOutcome) {
        let decision = r.decision();
        // Only the terminal drops carry a mate length (0 for checkmated / no legal moves).
        let plies = match decision {
            Decision::Drop(
                DropReason::Mate
                | DropReason::Mated
                | DropReason::Checkmated
                | DropReason::NoLegalMoves,
            ) => r
                .detail()
                .get("plies")
                .and_then(|p| p.as_u64())
                .unwrap_or(0),
            _ => 0,
        };
        self.keep.push(decision.is_keep());
        self.decision.push(code(decision));
        self.plies.push(u32::try_from(plies).unwrap_or(u32::MAX));
        self.nodes.push(r.nodes());
        self.unknown.push(r.is_unknown());
    }
}

/// The columns `keep`, `decision`, `plies`, `nodes`, `unknown` as numpy arrays.
type Arrays<'py> = (
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<bool>>,
);

/// A [`Decider`] for Python: records of many calls decided as the files of one run.
#[pyclass(name = "Decider", module = "posfilter._native")]
pub struct PyDecider {
    inner: Mutex<Decider>,
}

#[pymethods]
impl PyDecider {
    /// A decider with the config made of `settings` (dotted keys and values set on an empty
    /// config: `[filter]`, `[workers]`); `ValueError` names a bad key or value.
    #[new]
    fn new(settings: Vec<(String, Bound<'_, PyAny>)>) -> PyResult<PyDecider> {
        let raw = overrides::apply("", Path::new("settings"), &settings)?;
        let decider = Decider::new(&raw).map_err(|e| overrides::refused(e, &settings))?;
        Ok(PyDecider {
            inner: Mutex::new(decider),
        })
    }

    /// Decides the records of `format` in `data` (their bytes back to back); returns the
    /// columns.
    fn decide<'py>(
        &self,
        py: Python<'py>,
        data: PyReadonlyArray1<'py, u8>,
        format: &str,
    ) -> PyResult<Arrays<'py>> {
        let (format, bytes) = convert::records(&data, format)?;
        let bytes = bytes.to_vec();
        drop(data);
        let mut guard = match self.inner.try_lock() {
            Ok(guard) => guard,
            // Only a panic on the calling thread poisons it (the work runs under
            // catch_unwind): its state is that of the last committed batch.
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => {
                return Err(PyRuntimeError::new_err(
                    "this Decider is busy in another thread",
                ))
            }
        };
        let decider: &mut Decider = &mut guard;
        let stop_flag = decider.stop_flag();
        // A call interrupted before left it set.
        stop_flag.store(false, Ordering::SeqCst);
        let width = format.record_size().unwrap_or(1);
        let records: Vec<&[u8]> = bytes.chunks_exact(width).collect();
        let mut columns = Columns::with_capacity(records.len());
        let stop = || stop_flag.store(true, Ordering::SeqCst);
        let work = || decider.decide_each(format, &records, |r| columns.push(&r));
        let decided = interruptible(py, stop, |_| Ok(()), work)?;
        decided.map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        let c = columns;
        Ok((
            c.keep.into_pyarray(py),
            c.decision.into_pyarray(py),
            c.plies.into_pyarray(py),
            c.nodes.into_pyarray(py),
            c.unknown.into_pyarray(py),
        ))
    }
}

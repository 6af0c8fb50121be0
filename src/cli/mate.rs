//! `posfilter mate`: solve one position, or every position of a file, one per line.

use super::common::parse_position;
use anyhow::{Context, Result};
use indicatif::BinaryBytes;
use posfilter::mate::{Limits, MateResult, Solver, Verdict};
use posfilter::pipeline::preflight;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// Where the positions come from: one given on the command line, or a file (`-` = stdin)
/// with one per line.
pub enum Source<'a> {
    /// A single position (SFEN or USI position).
    One(&'a str),
    /// A file of positions, one per line; blank lines and `#` comments are skipped.
    File(&'a Path),
}

/// What to solve with and how to print.
pub struct Settings {
    /// Node budget per position.
    pub nodes: u64,
    /// Nodes spent after a proof looking for a shorter mate, as a multiple of the proof's
    /// ([`Limits::shorten`]).
    pub shorten: u32,
    /// Longest mate to look for ([`Limits::max_plies`]).
    pub max_plies: Option<u32>,
    /// Table size in MB of each solver (one per thread, reused; each position starts on a
    /// fresh table generation).
    pub table_mb: usize,
    /// One JSON object per position on stdout instead of a text line.
    pub json: bool,
    /// Threads for a file (`>= 1`).
    pub threads: usize,
}

/// Solves the positions of `source` and prints one verdict each.
pub fn run(source: Source<'_>, settings: &Settings) -> Result<ExitCode> {
    // Every solver allocates and touches its whole table: refuse what cannot fit rather than
    // be killed for it.
    let need = preflight::solver_bytes(settings.threads, settings.table_mb, 0);
    if let Some(available) = preflight::available_memory().filter(|&a| need > a) {
        anyhow::bail!(
            "{} thread(s) × {} MB tables need {}, and this machine has {} available; use \
             fewer --threads or a smaller --table-mb",
            settings.threads,
            settings.table_mb,
            BinaryBytes(need),
            BinaryBytes(available)
        );
    }
    let mut solver = Solver::new(settings.table_mb);
    match source {
        Source::One(text) => {
            let mut pos = parse_position(text)?;
            let (v, seconds) = solve(&mut solver, &mut pos, &settings.limits())?;
            if settings.json {
                println!("{}", v.to_json(seconds));
            } else {
                eprintln!("{} nodes in {seconds:.3} s", v.nodes);
                println!("{}", verdict_text(&v));
            }
        }
        Source::File(path) => run_file(path, solver, settings)?,
    }
    Ok(ExitCode::SUCCESS)
}

impl Settings {
    /// The solver limits these settings ask for.
    fn limits(&self) -> Limits {
        Limits {
            nodes: self.nodes,
            max_plies: self.max_plies,
            time: None,
            shorten: self.shorten,
        }
    }
}

/// Solves `pos` within `limits`; returns the verdict and the seconds it took.
fn solve(
    solver: &mut Solver,
    pos: &mut posfilter::shogi::Position,
    limits: &Limits,
) -> Result<(Verdict, f64)> {
    let start = Instant::now();
    let v = solver
        .solve(pos, limits)
        .with_context(|| format!("impossible position {:?}", pos.to_sfen()))?;
    Ok((v, start.elapsed().as_secs_f64()))
}

fn usi_pv(v: &Verdict) -> Vec<String> {
    v.pv.iter().map(|m| m.to_usi()).collect()
}

/// `result` or `result plies pv...`.
fn verdict_text(v: &Verdict) -> String {
    if v.pv.is_empty() {
        v.result.as_str().to_string()
    } else {
        format!("{} {} {}", v.result.as_str(), v.plies, usi_pv(v).join(" "))
    }
}

/// Lines read and solved together: enough to keep every thread busy, few enough that
/// answers appear steadily.
const CHUNK_LINES: usize = 256;

/// One line of a positions file, read and parsed, then solved.
struct Line {
    number: u64,
    text: String,
    /// The position, or why the line is not one.
    parsed: Result<posfilter::shogi::Position>,
    /// The verdict and its seconds, once solved.
    answer: Option<(Verdict, f64)>,
}

/// Solvers lent to the worker threads (at most one per thread is ever created).
struct SolverPool {
    table_mb: usize,
    idle: std::sync::Mutex<Vec<Solver>>,
}

impl SolverPool {
    fn solve(
        &self,
        pos: &mut posfilter::shogi::Position,
        limits: &Limits,
    ) -> Result<(Verdict, f64)> {
        let taken = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let mut solver = taken.unwrap_or_else(|| Solver::new(self.table_mb));
        let answer = solve(&mut solver, pos, limits);
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(solver);
        }
        answer
    }
}

/// The file form: every line is solved (on `settings.threads` threads, each position on a fresh
/// table generation, so the answers do not depend on the thread count) and answered on
/// stdout in file order (JSON adds `line` and `position`); a line that is not a possible
/// position is reported with its number (JSON: an `error` object in its place) and the
/// rest still run. A summary goes to stderr.
fn run_file(path: &Path, solver: Solver, settings: &Settings) -> Result<()> {
    let threads = settings.threads.max(1);
    let stdin = path == Path::new("-");
    let name = if stdin {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    };
    let input: Box<dyn Read> = if stdin {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).with_context(|| format!("cannot open {name}"))?)
    };
    let mut reader = BufReader::new(input);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start the worker threads")?;
    let solvers = SolverPool {
        table_mb: settings.table_mb,
        idle: std::sync::Mutex::new(vec![solver]),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut counts: BTreeMap<&'static str, u64> = BTreeMap::new();
    let (mut bad, mut nodes) = (0u64, 0u64);
    let start = Instant::now();
    let mut number = 0u64;
    let mut done = false;
    while !done {
        let mut chunk = Vec::with_capacity(CHUNK_LINES);
        while chunk.len() < CHUNK_LINES {
            let mut bytes = Vec::new();
            let n = reader
                .read_until(b'\n', &mut bytes)
                .with_context(|| format!("{name}: cannot read line {}", number + 1))?;
            if n == 0 {
                done = true;
                break;
            }
            number += 1;
            let text = match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(e) => {
                    chunk.push(Line {
                        number,
                        text: String::from_utf8_lossy(e.as_bytes()).trim().to_string(),
                        parsed: Err(anyhow::anyhow!("not UTF-8 text")),
                        answer: None,
                    });
                    continue;
                }
            };
            let text = text.trim();
            if text.is_empty() || text.starts_with('#') {
                continue;
            }
            chunk.push(Line {
                number,
                text: text.to_string(),
                parsed: parse_position(text),
                answer: None,
            });
        }
        pool.install(|| {
            use rayon::prelude::*;
            chunk.par_iter_mut().with_max_len(1).for_each(|line| {
                let refused = match line.parsed.as_mut() {
                    Ok(pos) => match solvers.solve(pos, &settings.limits()) {
                        Ok(answer) => {
                            line.answer = Some(answer);
                            None
                        }
                        Err(e) => Some(e),
                    },
                    Err(_) => None,
                };
                if let Some(e) = refused {
                    line.parsed = Err(e);
                }
            });
        });
        for line in chunk {
            let number = line.number;
            match (line.parsed, line.answer) {
                (Ok(_), Some((v, seconds))) => {
                    *counts.entry(v.result.as_str()).or_default() += 1;
                    nodes += v.nodes;
                    if settings.json {
                        let mut j = v.to_json(seconds);
                        j["line"] = number.into();
                        j["position"] = line.text.into();
                        writeln!(out, "{j}")?;
                    } else {
                        writeln!(out, "{number}\t{}", verdict_text(&v))?;
                    }
                }
                (Ok(_), None) => anyhow::bail!("{name}:{number}: the position was not solved"),
                (Err(e), _) => {
                    bad += 1;
                    eprintln!("posfilter: {name}:{number}: {e:#}");
                    if settings.json {
                        let j = serde_json::json!({"line": number, "position": line.text,
                            "error": format!("{e:#}")});
                        writeln!(out, "{j}")?;
                    }
                }
            }
        }
        out.flush()?;
    }
    let solved: u64 = counts.values().sum();
    let tally: Vec<String> = MATE_RESULTS
        .iter()
        .filter_map(|r| {
            counts
                .get(r.as_str())
                .map(|n| format!("{n} {}", r.as_str()))
        })
        .collect();
    eprintln!(
        "posfilter: {solved} position(s) in {:.2} s on {threads} thread(s), {nodes} nodes: {}{}",
        start.elapsed().as_secs_f64(),
        if tally.is_empty() {
            "none".to_string()
        } else {
            tally.join(", ")
        },
        if bad > 0 {
            format!("; {bad} line(s) not a position")
        } else {
            String::new()
        }
    );
    Ok(())
}

/// Every answer, in the order the summary lists them.
const MATE_RESULTS: [MateResult; 6] = [
    MateResult::Mate,
    MateResult::Mated,
    MateResult::Checkmated,
    MateResult::NoMate,
    MateResult::NoLegalMoves,
    MateResult::Unknown,
];

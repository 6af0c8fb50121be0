//! `posfilter mate`: solve one position, or every position of a file, one per line.

use super::common::parse_position;
use anyhow::{Context, Result};
use posfilter::mate::{Limits, MateResult, Solver, Verdict};
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
    /// Table size in MB (one table, reused; each position starts on a fresh generation).
    pub table_mb: usize,
    /// One JSON object per position on stdout instead of a text line.
    pub json: bool,
}

/// Solves the positions of `source` and prints one verdict each.
pub fn run(source: Source<'_>, settings: &Settings) -> Result<ExitCode> {
    let mut solver = Solver::new(settings.table_mb);
    match source {
        Source::One(text) => {
            let mut pos = parse_position(text)?;
            let (v, seconds) = solve(&mut solver, &mut pos, settings.nodes);
            if settings.json {
                println!("{}", verdict_json(&v, seconds));
            } else {
                eprintln!("{} nodes in {seconds:.3} s", v.nodes);
                println!("{}", verdict_text(&v));
            }
        }
        Source::File(path) => run_file(path, &mut solver, settings)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Solves `pos` within `nodes`; returns the verdict and the seconds it took.
fn solve(solver: &mut Solver, pos: &mut posfilter::shogi::Position, nodes: u64) -> (Verdict, f64) {
    let start = Instant::now();
    let v = solver.solve(
        pos,
        &Limits {
            nodes,
            max_plies: None,
            time: None,
        },
    );
    (v, start.elapsed().as_secs_f64())
}

fn usi_pv(v: &Verdict) -> Vec<String> {
    v.pv.iter().map(|m| m.to_usi()).collect()
}

/// `{"result", "plies", "pv", "nodes", "seconds"}`.
fn verdict_json(v: &Verdict, seconds: f64) -> serde_json::Value {
    serde_json::json!({"result": v.result.as_str(), "plies": v.plies, "pv": usi_pv(v),
        "nodes": v.nodes, "seconds": seconds})
}

/// `result` or `result plies pv...`.
fn verdict_text(v: &Verdict) -> String {
    if v.pv.is_empty() {
        v.result.as_str().to_string()
    } else {
        format!("{} {} {}", v.result.as_str(), v.plies, usi_pv(v).join(" "))
    }
}

/// The file form: every line is solved in order and answered on stdout (JSON adds `line`
/// and `position`); a line that is not a possible position is reported with its number
/// (JSON: an `error` object in its place) and the rest still run. A summary goes to stderr.
fn run_file(path: &Path, solver: &mut Solver, settings: &Settings) -> Result<()> {
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
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut counts: BTreeMap<&'static str, u64> = BTreeMap::new();
    let (mut bad, mut nodes) = (0u64, 0u64);
    let start = Instant::now();
    let mut bytes = Vec::new();
    let mut number = 0u64;
    loop {
        bytes.clear();
        let n = reader
            .read_until(b'\n', &mut bytes)
            .with_context(|| format!("{name}: cannot read line {}", number + 1))?;
        if n == 0 {
            break;
        }
        number += 1;
        let parsed = std::str::from_utf8(&bytes)
            .map_err(|_| anyhow::anyhow!("not UTF-8 text"))
            .and_then(|line| {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    return Ok(None);
                }
                parse_position(line).map(|pos| Some((line.to_string(), pos)))
            });
        match parsed {
            Ok(None) => {}
            Ok(Some((line, mut pos))) => {
                let (v, seconds) = solve(solver, &mut pos, settings.nodes);
                *counts.entry(v.result.as_str()).or_default() += 1;
                nodes += v.nodes;
                if settings.json {
                    let mut j = verdict_json(&v, seconds);
                    j["line"] = number.into();
                    j["position"] = line.into();
                    writeln!(out, "{j}")?;
                } else {
                    writeln!(out, "{number}\t{}", verdict_text(&v))?;
                }
            }
            Err(e) => {
                bad += 1;
                let text = String::from_utf8_lossy(&bytes).trim().to_string();
                eprintln!("posfilter: {name}:{number}: {e:#}");
                if settings.json {
                    let j = serde_json::json!({"line": number, "position": text,
                        "error": format!("{e:#}")});
                    writeln!(out, "{j}")?;
                }
            }
        }
    }
    out.flush()?;
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
        "posfilter: {solved} position(s) in {:.2} s, {nodes} nodes: {}{}",
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

//! `posfilter mate`: solve one position, or every position of a file, one per line.

use super::common::parse_position;
use anyhow::{Context, Result};
use indicatif::BinaryBytes;
use posfilter::mate::{Limits, MateResult, Solver, Verdict};
use posfilter::pipeline::config::MAX_MIB;
use posfilter::pipeline::preflight;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// Where the positions come from: one given on the command line, or a file (`-` = stdin)
/// with one per line.
enum Source<'a> {
    /// A single position (SFEN or USI position).
    One(&'a str),
    /// A file of positions, one per line; blank lines and `#` comments are skipped.
    File(&'a Path),
}

/// The arguments of `posfilter mate`.
#[derive(clap::Args, Debug)]
pub struct MateArgs {
    /// Position: an SFEN, `startpos`, or a USI position with moves (`startpos moves
    /// 7g7f 3c3d`, `sfen <SFEN> moves ...`), replayed to its last position.
    #[arg(long, required_unless_present = "file", conflicts_with = "file")]
    sfen: Option<String>,
    /// Solve every position of this file instead (one per line, as for --sfen; blank
    /// lines and # comments skipped; `-` reads stdin): one answer line per position,
    /// with its line number, and a summary on stderr.
    #[arg(long)]
    file: Option<std::path::PathBuf>,
    /// Node budget.
    #[arg(long, default_value_t = Limits::default().nodes)]
    nodes: u64,
    /// After a proof, look for a shorter mate with up to this many times the nodes the
    /// proof took (within --nodes); 0 = report the first mate line found.
    #[arg(long, default_value_t = Limits::default().shorten)]
    shorten: u32,
    /// Longest mate to look for, in plies (as `mate.max_plies` in a pipeline); a longer
    /// mate, and a failure that rests on this cap, are `unknown`. 0 = no limit.
    #[arg(long, default_value_t = 0)]
    max_plies: u32,
    /// Transposition-table size in MB (per thread), 1 to 65536.
    #[arg(long, default_value_t = 16, value_parser = table_mb_in_range)]
    table_mb: usize,
    /// Threads for --file (0 = all cores); answers do not depend on it.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// One JSON object on stdout: {"result", "plies", "plies_exact", "pv", "nodes",
    /// "seconds"}; with --file one per line, adding "line" and "position" (or "error" for
    /// a line that is not a position).
    #[arg(long)]
    json: bool,
}

/// `--table-mb`: a size from 1 to [`MAX_MIB`] MiB (a typo of a few zeros would otherwise
/// abort on the allocation).
fn table_mb_in_range(text: &str) -> Result<usize, String> {
    let mb: usize = text
        .parse()
        .map_err(|_| format!("{text:?} is not a whole number of MB"))?;
    if (1..=MAX_MIB).contains(&mb) {
        Ok(mb)
    } else {
        Err(format!("{mb} is outside 1..={MAX_MIB}"))
    }
}

/// Runs `posfilter mate` with its arguments: the source `--sfen` / `--file` ask for (clap
/// makes them exclusive), on one thread for one position, else on `--threads` (0 = every
/// core).
pub fn run_args(args: MateArgs) -> Result<ExitCode> {
    let source = match (&args.sfen, &args.file) {
        (_, Some(path)) => Source::File(path),
        (Some(text), None) => Source::One(text),
        (None, None) => anyhow::bail!("give --sfen or --file"),
    };
    let settings = Settings {
        nodes: args.nodes,
        shorten: args.shorten,
        max_plies: (args.max_plies > 0).then_some(args.max_plies),
        table_mb: args.table_mb,
        json: args.json,
        threads: match (args.threads, &source) {
            // One position needs one solver, whatever --threads says.
            (_, Source::One(_)) => 1,
            (0, Source::File(_)) => std::thread::available_parallelism().map_or(1, |n| n.get()),
            (n, Source::File(_)) => n,
        },
    };
    run(source, &settings)
}

/// What to solve with and how to print.
struct Settings {
    /// Node budget per position.
    nodes: u64,
    /// Nodes spent after a proof looking for a shorter mate, as a multiple of the proof's
    /// ([`Limits::shorten`]).
    shorten: u32,
    /// Longest mate to look for ([`Limits::max_plies`]).
    max_plies: Option<u32>,
    /// Table size in MB of each solver (one per thread, reused; each position starts on a
    /// fresh table generation).
    table_mb: usize,
    /// One JSON object per position on stdout instead of a text line.
    json: bool,
    /// Threads for a file (`>= 1`).
    threads: usize,
}

/// Solves the positions of `source` and prints one verdict each.
fn run(source: Source<'_>, settings: &Settings) -> Result<ExitCode> {
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
        Source::File(path) => return run_file(path, solver, settings),
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
/// rest still run. A summary goes to stderr. Exit status 1 when a line was not a position
/// (every other line answered), as a run that rejected records.
fn run_file(path: &Path, solver: Solver, settings: &Settings) -> Result<ExitCode> {
    let threads = settings.threads.max(1);
    let mut lines = PositionLines::open(path)?;
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
    let mut tally = Tally::default();
    let start = Instant::now();
    while !lines.done {
        let mut chunk = lines.next_chunk()?;
        pool.install(|| solve_chunk(&mut chunk, &solvers, &settings.limits()));
        for line in chunk {
            tally.answer(line, &lines.name, settings.json, &mut out)?;
        }
        out.flush()?;
    }
    eprintln!(
        "posfilter: {}",
        tally.summary(start.elapsed().as_secs_f64(), threads)
    );
    Ok(match tally.bad {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}

/// The lines of a positions file (`-` = stdin), read [`CHUNK_LINES`] at a time.
struct PositionLines {
    /// The file's name in messages (`<stdin>` for stdin).
    name: String,
    reader: BufReader<Box<dyn Read>>,
    /// The number of the last line read (1-based).
    number: u64,
    /// Set once the end of the input is reached.
    done: bool,
}

impl PositionLines {
    fn open(path: &Path) -> Result<PositionLines> {
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
        Ok(PositionLines {
            name,
            reader: BufReader::new(input),
            number: 0,
            done: false,
        })
    }

    /// Up to [`CHUNK_LINES`] lines that hold a position or fail to (blank lines and `#`
    /// comments skipped), each parsed; fewer at the end of the input, which sets `done`.
    fn next_chunk(&mut self) -> Result<Vec<Line>> {
        let mut chunk = Vec::with_capacity(CHUNK_LINES);
        while chunk.len() < CHUNK_LINES {
            let mut bytes = Vec::new();
            let n = self
                .reader
                .read_until(b'\n', &mut bytes)
                .with_context(|| format!("{}: cannot read line {}", self.name, self.number + 1))?;
            if n == 0 {
                self.done = true;
                break;
            }
            self.number += 1;
            let text = match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(e) => {
                    chunk.push(Line {
                        number: self.number,
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
                number: self.number,
                text: text.to_string(),
                parsed: parse_position(text),
                answer: None,
            });
        }
        Ok(chunk)
    }
}

/// Solves every parsed line of `chunk` on the current thread pool, one line per task; a
/// position the solver refuses becomes that line's error.
fn solve_chunk(chunk: &mut [Line], solvers: &SolverPool, limits: &Limits) {
    use rayon::prelude::*;
    chunk.par_iter_mut().with_max_len(1).for_each(|line| {
        let refused = match line.parsed.as_mut() {
            Ok(pos) => match solvers.solve(pos, limits) {
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
}

/// What the answered lines of a file added up to, for the summary.
#[derive(Default)]
struct Tally {
    /// Positions per answer ([`MateResult::as_str`]).
    counts: BTreeMap<&'static str, u64>,
    /// Lines that are not a position.
    bad: u64,
    /// Nodes over every position.
    nodes: u64,
}

impl Tally {
    /// Writes the answer of `line` (of the file `name`) to `out` and counts it; a line that
    /// is not a position is also reported on stderr.
    fn answer(&mut self, line: Line, name: &str, json: bool, out: &mut impl Write) -> Result<()> {
        let number = line.number;
        match (line.parsed, line.answer) {
            (Ok(_), Some((v, seconds))) => {
                *self.counts.entry(v.result.as_str()).or_default() += 1;
                self.nodes += v.nodes;
                if json {
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
                self.bad += 1;
                eprintln!("posfilter: {name}:{number}: {e:#}");
                if json {
                    let j = serde_json::json!({"line": number, "position": line.text,
                        "error": format!("{e:#}")});
                    writeln!(out, "{j}")?;
                }
            }
        }
        Ok(())
    }

    /// The summary line: positions, seconds, threads, nodes, the count of each answer (in
    /// [`MATE_RESULTS`] order) and the lines that are not a position.
    fn summary(&self, seconds: f64, threads: usize) -> String {
        let tally: Vec<String> = MATE_RESULTS
            .iter()
            .filter_map(|r| {
                self.counts
                    .get(r.as_str())
                    .map(|n| format!("{n} {}", r.as_str()))
            })
            .collect();
        format!(
            "{} position(s) in {seconds:.2} s on {threads} thread(s), {} nodes: {}{}",
            self.counts.values().sum::<u64>(),
            self.nodes,
            if tally.is_empty() {
                "none".to_string()
            } else {
                tally.join(", ")
            },
            if self.bad > 0 {
                format!("; {} line(s) not a position", self.bad)
            } else {
                String::new()
            }
        )
    }
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

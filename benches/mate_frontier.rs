//! Mate-solver frontier: for each peer point (a peer at a node budget), the smallest
//! posfilter budget that proves at least as many mates on the same positions, the time it
//! takes, and the ratio of the peer's time to ours. Node budgets of different solvers count
//! different things; the frontier compares what users get for their time.
//!
//! Peers: cshogi 1.1.0's DfPn (`benches/mate_peer.py`, pip `cshogi==1.1.0`) at 10,000 /
//! 30,000 / 100,000 nodes, and, when `MATE_TANUKI` names its binary, YaneuraOu's tanuki-
//! mate engine driven over USI (`go mate infinite nodes N`, one process for the whole set,
//! `USI_Hash` = the table size, a new table generation per position as the engine does) at
//! the same budgets. Build it from YaneuraOu's public sources (docs/performance.md gives the
//! command line and the patch); it is not part of this repository. Unpatched, tanuki- 9.70
//! never counts a node, so `nodes N` does not stop it and every budget is its unbounded
//! search; the patch in docs/performance.md counts one node per df-pn visit. (`go mate
//! infinite` does not wait for `stop`: the `mate` parser takes `infinite` as its argument.)
//!
//! Each peer answers its own question, and our mates are counted on that question: cshogi
//! as in `benches/mate.rs` (`search` for a root not in check: our `mate`; `search_andnode`
//! for a root in check: our `mated` or `checkmated`); tanuki- searches a mate for the side
//! to move on every root (our `mate`, roots in check included).
//!
//! 1. A ladder pass counts our mates at every budget of `MATE_FRONTIER_LADDER` (default
//!    500 ... 100,000; counts are deterministic), and each peer point's mates once.
//! 2. `MATE_BENCH_REPEAT` (default 3) timed rounds: every peer point, then the budget of
//!    ours that reaches its mates, one after the other in the same process, so that both
//!    see the same load. Medians are printed with `/proc/loadavg` before and after.
//!
//! `MATE_BENCH_FILE` picks the positions (one SFEN per line; default the 2,000 of
//! benches/data/dfpn_bench.sfen; `benches/fresh_positions.py SEED COUNT` makes fresh
//! ones); `MATE_TABLE_MB` the table size (default 16); `MATE_FRONTIER_PEER_NODES` the peer
//! budgets (default 10000,30000,100000); `MATE_BENCH_NO_PEER=1` skips cshogi;
//! `MATE_FRONTIER_SHORTEN` our `shorten` (default: the library default).

use posfilter::codec::text::parse_sfen_line;
use posfilter::mate::{Limits, MateResult, Solver};
use posfilter::shogi::Position;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn env_list(name: &str, default: &[u64]) -> Vec<u64> {
    std::env::var(name)
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

fn position_file() -> PathBuf {
    std::env::var_os("MATE_BENCH_FILE").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/data/dfpn_bench.sfen"),
        PathBuf::from,
    )
}

/// The positions of the bench file; a line that is no valid position stops the bench.
fn positions() -> Vec<Position> {
    let path = position_file();
    let text = std::fs::read_to_string(&path).expect("bench positions");
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            parse_sfen_line(l).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Which question a peer answers for each root.
#[derive(Clone, Copy, PartialEq)]
enum Question {
    /// cshogi: mate for the side to move when not in check, mated when in check.
    Cshogi,
    /// tanuki-: mate for the side to move, in check or not.
    SideToMove,
}

/// Our mates on `question`: `results[i]` is our verdict on root `i`.
fn our_mates(set: &[Position], results: &[MateResult], question: Question) -> usize {
    set.iter()
        .zip(results)
        .filter(|(p, r)| match (question, p.in_check()) {
            (Question::Cshogi, true) => matches!(r, MateResult::Mated | MateResult::Checkmated),
            _ => **r == MateResult::Mate,
        })
        .count()
}

/// One pass of ours at `nodes`: verdicts and seconds.
fn run_ours(set: &mut [Position], nodes: u64) -> (Vec<MateResult>, f64) {
    let mut solver = Solver::new(env_or("MATE_TABLE_MB", 16));
    let limits = Limits {
        nodes,
        shorten: env_or("MATE_FRONTIER_SHORTEN", Limits::default().shorten),
        ..Limits::default()
    };
    let start = Instant::now();
    let results = set
        .iter_mut()
        .map(|p| {
            solver
                .solve(p, &limits)
                .expect("valid bench position")
                .result
        })
        .collect();
    (results, start.elapsed().as_secs_f64())
}

/// A peer's answer for one pass: mates and seconds.
type PeerRun = (usize, f64);

/// cshogi through `benches/mate_peer.py`.
fn run_cshogi(nodes: u64) -> Option<PeerRun> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/mate_peer.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(position_file())
        .arg(nodes.to_string())
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "cshogi peer failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    Some((v["mates"].as_u64()? as usize, v["seconds"].as_f64()?))
}

/// A running USI mate engine (tanuki-).
struct Usi {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Usi {
    fn start(path: &str, hash_mb: usize) -> Usi {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {path}: {e}"));
        let input = child.stdin.take().expect("piped stdin");
        let output = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut usi = Usi {
            child,
            input,
            output,
        };
        usi.send("usi");
        usi.wait_for("usiok");
        usi.send(&format!("setoption name USI_Hash value {hash_mb}"));
        usi.send("isready");
        usi.wait_for("readyok");
        usi
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").expect("engine stdin");
        self.input.flush().expect("engine stdin");
    }

    /// Reads lines until one starts with `prefix`; returns it.
    fn wait_for(&mut self, prefix: &str) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.output.read_line(&mut line).expect("engine stdout");
            assert!(n > 0, "the engine closed its output");
            if line.starts_with(prefix) {
                return line.trim().to_string();
            }
        }
    }

    /// Whether the engine finds a mate for the side to move of `sfen` within `nodes`.
    fn mate(&mut self, sfen: &str, nodes: u64) -> bool {
        self.send(&format!("position sfen {sfen}"));
        self.send(&format!("go mate infinite nodes {nodes}"));
        let answer = self.wait_for("checkmate");
        !matches!(answer.as_str(), "checkmate nomate" | "checkmate timeout")
    }
}

impl Drop for Usi {
    fn drop(&mut self) {
        self.send("quit");
        let _ = self.child.wait();
    }
}

/// tanuki- over USI on `sfens` at `nodes` (the clock covers the solving loop only).
fn run_tanuki(usi: &mut Usi, sfens: &[String], nodes: u64) -> PeerRun {
    let start = Instant::now();
    let mates = sfens.iter().filter(|s| usi.mate(s, nodes)).count();
    (mates, start.elapsed().as_secs_f64())
}

/// One peer point: who, at what budget, on which question.
struct PeerPoint {
    peer: &'static str,
    nodes: u64,
    question: Question,
    mates: usize,
    seconds: Vec<f64>,
    /// Our smallest ladder budget reaching `mates`, its mates and our seconds there.
    ours: Option<(u64, usize)>,
    our_seconds: Vec<f64>,
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is read from the command line.
    let mut set = positions();
    let sfens: Vec<String> = set.iter().map(Position::to_sfen).collect();
    let ladder = env_list(
        "MATE_FRONTIER_LADDER",
        &[
            500, 1_000, 1_500, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 10_000, 12_000,
            15_000, 20_000, 25_000, 30_000, 40_000, 50_000, 60_000, 70_000, 85_000, 100_000,
        ],
    );
    let peer_nodes = env_list("MATE_FRONTIER_PEER_NODES", &[10_000, 30_000, 100_000]);
    let repeat: usize = env_or("MATE_BENCH_REPEAT", 3usize).max(1);
    let mut tanuki = std::env::var("MATE_TANUKI")
        .ok()
        .map(|p| Usi::start(&p, env_or("MATE_TABLE_MB", 16)));
    println!(
        "frontier on {} ({} positions), load {}",
        position_file().display(),
        set.len(),
        loadavg()
    );
    // 1. The ladder: our mates per budget on each question.
    let mut counts = Vec::new();
    for &nodes in &ladder {
        let (results, secs) = run_ours(&mut set, nodes);
        let c = our_mates(&set, &results, Question::Cshogi);
        let t = our_mates(&set, &results, Question::SideToMove);
        println!(
            "ours   @{nodes:>7}: {secs:7.2} s, mates {c} (cshogi's question), {t} (side to move)"
        );
        counts.push((nodes, c, t));
    }
    // The peer points, each run once for its mates.
    let mut points = Vec::new();
    for &nodes in &peer_nodes {
        if std::env::var_os("MATE_BENCH_NO_PEER").is_none() {
            if let Some((mates, secs)) = run_cshogi(nodes) {
                points.push(peer_point("cshogi", nodes, Question::Cshogi, mates, secs));
            }
        }
        if let Some(usi) = tanuki.as_mut() {
            let (mates, secs) = run_tanuki(usi, &sfens, nodes);
            points.push(peer_point(
                "tanuki-",
                nodes,
                Question::SideToMove,
                mates,
                secs,
            ));
        }
    }
    for p in &mut points {
        p.ours = counts
            .iter()
            .map(|&(n, c, t)| (n, if p.question == Question::Cshogi { c } else { t }))
            .find(|&(_, m)| m >= p.mates);
    }
    // 2. Timed rounds, each peer point next to our budget that reaches it.
    for round in 0..repeat {
        for p in &mut points {
            let (_, secs) = match p.peer {
                "cshogi" => run_cshogi(p.nodes).unwrap_or((0, f64::NAN)),
                _ => match tanuki.as_mut() {
                    Some(usi) => run_tanuki(usi, &sfens, p.nodes),
                    None => continue,
                },
            };
            p.seconds.push(secs);
            if let Some((nodes, _)) = p.ours {
                p.our_seconds.push(run_ours(&mut set, nodes).1);
            }
        }
        eprintln!("round {} of {repeat} done, load {}", round + 1, loadavg());
    }
    println!("load after: {}", loadavg());
    println!(
        "{:<8} {:>7} {:>6} {:>9} | {:>7} {:>6} {:>9} | {:>6}",
        "peer", "nodes", "mates", "seconds", "ours@", "mates", "seconds", "ratio"
    );
    for p in &points {
        let peer_s = median(p.seconds.clone());
        match p.ours {
            Some((nodes, mates)) => {
                let ours_s = median(p.our_seconds.clone());
                println!(
                    "{:<8} {:>7} {:>6} {:>9.2} | {:>7} {:>6} {:>9.2} | {:>5.2}x",
                    p.peer,
                    p.nodes,
                    p.mates,
                    peer_s,
                    nodes,
                    mates,
                    ours_s,
                    peer_s / ours_s
                );
            }
            None => println!(
                "{:<8} {:>7} {:>6} {:>9.2} | not reached by the ladder",
                p.peer, p.nodes, p.mates, peer_s
            ),
        }
    }
}

fn peer_point(
    peer: &'static str,
    nodes: u64,
    question: Question,
    mates: usize,
    secs: f64,
) -> PeerPoint {
    println!("{peer:<7}@{nodes:>7}: {secs:7.2} s, mates {mates}");
    PeerPoint {
        peer,
        nodes,
        question,
        mates,
        seconds: Vec::new(),
        ours: None,
        our_seconds: Vec::new(),
    }
}

//! Mate-solver benchmark: our solver and cshogi's DfPn (benches/mate_peer.py, pip cshogi
//! 1.1.0) on the same 2,000 positions (benches/data/dfpn_bench.sfen) in the same run, at
//! 10,000 and 100,000 nodes; the seed-003 positions (docs/references.md); table clearing by
//! generation vs zeroing.
//!
//! First a side-by-side summary is printed (one timed pass each: positions/s, mates (ours
//! count mate, mated and checkmated, as cshogi's count does), nodes, nodes/s, conflicts
//! (each one listed with its SFEN), ratios, and the time both spend on the positions that
//! both run out of budget on, against the rest); then criterion measures our solver. A
//! conflict where cshogi claims a mate we do not is audited by
//! `benches/cshogi_line_audit.py`: a defence along cshogi's line that its search never
//! tries (a non-promotion) and that its own search then finds no mate against.
//! `MATE_BENCH_SUMMARY_ONLY=1` stops after the summary; `MATE_BENCH_NO_PEER=1` skips cshogi;
//! `MATE_BENCH_NODES=10000` picks the summary budgets; `MATE_BENCH_REPEAT=3` runs each
//! budget's pair of passes three times, one after the other, and prints the median ratio
//! (cshogi's own time moves by a fifth between passes on a shared VM); `MATE_SKIP_SEEDS=1`
//! skips the seed positions of the summary; `MATE_TABLE_MB=1` sets the table size (default
//! 16);
//! `MATE_BENCH_FILE=positions.sfen` runs both solvers on another set (one SFEN per line),
//! `MATE_BENCH_FRESH=SEED` on a fresh playout set (`common/mod.rs`);
//! `MATE_BENCH_TWO_PLY=0` turns the 2-ply test of new AND children off (to measure what it
//! costs and buys, see docs/experiments.md). `MATE_BENCH_MISSES=misses.sfen` appends the
//! positions cshogi proves and we do not to that file, one SFEN per line with the budget
//! after a tab (to study them with `posfilter mate`).

mod common;

use common::{position_file, positions};
use criterion::{BenchmarkId, Criterion};
use posfilter::mate::table::Table;
use posfilter::mate::{Limits, MateResult, Solver};
use posfilter::shogi::Position;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn table_mb() -> usize {
    std::env::var("MATE_TABLE_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16)
}

/// A solver with the bench's table size and 2-ply setting.
fn solver() -> Solver {
    let mut s = Solver::new(table_mb());
    s.set_two_ply(std::env::var("MATE_BENCH_TWO_PLY").map_or(true, |v| v != "0"));
    s
}

/// One timed pass of our solver over `set`.
struct OursRun {
    seconds: f64,
    results: Vec<MateResult>,
    /// Seconds per position.
    times: Vec<f64>,
    nodes: u64,
}

fn run_ours(set: &mut [Position], nodes: u64) -> OursRun {
    let mut solver = solver();
    let lim = Limits {
        nodes,
        max_plies: None,
        time: None,
        shorten: 1,
    };
    let start = Instant::now();
    let mut results = Vec::with_capacity(set.len());
    let mut times = Vec::with_capacity(set.len());
    let mut total = 0;
    for p in set.iter_mut() {
        let t = Instant::now();
        let v = solver.solve(p, &lim).expect("bench positions are valid");
        times.push(t.elapsed().as_secs_f64());
        total += v.nodes;
        results.push(v.result);
    }
    OursRun {
        seconds: start.elapsed().as_secs_f64(),
        results,
        times,
        nodes: total,
    }
}

fn run_peer(nodes: u64) -> Option<serde_json::Value> {
    if std::env::var_os("MATE_BENCH_NO_PEER").is_some() {
        return None;
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/mate_peer.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(position_file())
        .arg(nodes.to_string())
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!("peer failed: {}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    serde_json::from_slice(&out.stdout).ok()
}

/// For positions cshogi calls mate and we do not: what `benches/cshogi_line_audit.py` finds
/// along cshogi's line (a defence its search never tries that escapes), one line each.
fn audit_cshogi_lines(nodes: u64, sfens: &[String]) -> Vec<String> {
    if sfens.is_empty() {
        return Vec::new();
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/cshogi_line_audit.py");
    match Command::new("python3")
        .arg(script)
        .arg(nodes.to_string())
        .args(sfens)
        .output()
    {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect(),
        Ok(out) => vec![format!("failed: {}", String::from_utf8_lossy(&out.stderr))],
        Err(e) => vec![format!("failed: {e}")],
    }
}

/// Whether our answer is the one cshogi reports as a mate: mate, mated, or already
/// checkmated (its `search_andnode` answers true for a checkmated root).
fn is_mate(r: MateResult) -> bool {
    matches!(
        r,
        MateResult::Mate | MateResult::Mated | MateResult::Checkmated
    )
}

/// One pass of ours and then cshogi at `nodes`: prints both, the ratio, the conflicts and
/// (with `details`) the cshogi-only mates, and splits the time between the positions both
/// solvers run out of budget on (both visit the same number of nodes there, so the ratio
/// there is the ratio of node rates) and the rest. Returns our positions/s over cshogi's,
/// if the peer ran.
fn compare(set: &mut [Position], nodes: u64, details: bool) -> Option<f64> {
    let ours = run_ours(set, nodes);
    let secs = ours.seconds;
    let res = &ours.results;
    let mates = res.iter().filter(|r| is_mate(**r)).count();
    let unknown = res.iter().filter(|r| **r == MateResult::Unknown).count();
    let pps = set.len() as f64 / secs;
    println!(
        "ours   @{nodes:>6}: {secs:7.2} s  {pps:8.1} pos/s  mates {mates}  unknown {unknown}  nodes {}  {:.2} M nodes/s",
        ours.nodes,
        ours.nodes as f64 / secs / 1e6
    );
    let peer = run_peer(nodes)?;
    let psecs = peer["seconds"].as_f64().unwrap_or(f64::NAN);
    let pm = peer["mates"].as_u64().unwrap_or(0);
    let pn = peer["nodes"].as_u64().unwrap_or(0);
    let pres = peer["results"].as_array().cloned().unwrap_or_default();
    let ptimes: Vec<f64> = peer["times"]
        .as_array()
        .map(|a| a.iter().map(|t| t.as_f64().unwrap_or(0.0)).collect())
        .unwrap_or_default();
    let mut conflicts = 0;
    let mut they_only = 0;
    let mut misses = String::new();
    let mut conflict_lines = String::new();
    let mut false_mate_suspects = Vec::new();
    // Positions both run out of budget on: count, our seconds, cshogi's seconds.
    let mut both_out = (0, 0.0, 0.0);
    for (i, ((r, p), pos)) in res.iter().zip(&pres).zip(set.iter()).enumerate() {
        let pmate = p[0].as_bool().unwrap_or(false);
        let pexh = p[1].as_bool().unwrap_or(true);
        let ours_mate = is_mate(*r);
        if (ours_mate && !pmate && !pexh) || (pmate && *r == MateResult::NoMate) {
            conflicts += 1;
            // Rare, and each one needs a look: say which position and who said what.
            let theirs = if pmate { "mate" } else { "no mate" };
            conflict_lines.push_str(&format!(
                "conflict @{nodes:>6}: ours {r:?}, cshogi {theirs}: {}\n",
                pos.to_sfen()
            ));
            if pmate {
                false_mate_suspects.push(pos.to_sfen());
            }
        }
        if pmate && !ours_mate {
            they_only += 1;
            misses.push_str(&format!("{}\t{nodes}\n", pos.to_sfen()));
        }
        if pexh && *r == MateResult::Unknown {
            both_out.0 += 1;
            both_out.1 += ours.times[i];
            both_out.2 += ptimes.get(i).copied().unwrap_or(0.0);
        }
    }
    if details {
        if let Some(path) = std::env::var_os("MATE_BENCH_MISSES") {
            let mut text = std::fs::read_to_string(&path).unwrap_or_default();
            text.push_str(&misses);
            std::fs::write(&path, text).expect("MATE_BENCH_MISSES file");
        }
    }
    let ppps = set.len() as f64 / psecs;
    println!(
        "cshogi @{nodes:>6}: {psecs:7.2} s  {ppps:8.1} pos/s  mates {pm}  nodes {pn}  {:.2} M nodes/s",
        pn as f64 / psecs / 1e6
    );
    let ratio = pps / ppps;
    println!(
        "ratio  @{nodes:>6}: {ratio:.2}x positions/s, mates {mates} vs {pm} (cshogi-only {they_only}), conflicts {conflicts}"
    );
    let (n, o, c) = both_out;
    if ptimes.len() == set.len() && n > 0 {
        println!(
            "split  @{nodes:>6}: {n} positions out of budget for both: ours {o:.2} s, cshogi {c:.2} s ({:.2}x); the other {}: ours {:.2} s, cshogi {:.2} s ({:.2}x)",
            c / o,
            set.len() - n,
            secs - o,
            psecs - c,
            (psecs - c) / (secs - o)
        );
    }
    print!("{conflict_lines}");
    if details {
        for line in audit_cshogi_lines(nodes, &false_mate_suspects) {
            println!("  cshogi line audit: {line}");
        }
    }
    Some(ratio)
}

fn summary(set: &mut [Position]) {
    let budgets: Vec<u64> = std::env::var("MATE_BENCH_NODES")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 100_000]);
    let repeat: usize = std::env::var("MATE_BENCH_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    for nodes in budgets {
        let mut ratios = Vec::new();
        for pass in 0..repeat {
            if let Some(r) = compare(set, nodes, pass == 0) {
                ratios.push(r);
            }
        }
        if ratios.len() > 1 {
            let shown: Vec<String> = ratios.iter().map(|r| format!("{r:.2}x")).collect();
            ratios.sort_by(f64::total_cmp);
            println!(
                "ratio  @{nodes:>6}: {} passes, one after the other: {}; median {:.2}x",
                ratios.len(),
                shown.join(" "),
                ratios[ratios.len() / 2]
            );
        }
    }
    for (name, sfen) in SEEDS
        .iter()
        .filter(|_| std::env::var_os("MATE_SKIP_SEEDS").is_none())
    {
        let mut p = Position::from_sfen(sfen).expect("seed SFEN");
        let mut solver = solver();
        let start = Instant::now();
        let v = solver
            .solve(
                &mut p,
                &Limits {
                    nodes: 2_000_000,
                    max_plies: None,
                    time: None,
                    shorten: 1,
                },
            )
            .expect("seed positions are valid");
        println!(
            "seed {name}: {} {} plies, {} nodes, {:.3} s",
            v.result.as_str(),
            v.plies,
            v.nodes,
            start.elapsed().as_secs_f64()
        );
    }
}

const SEEDS: [(&str, &str); 5] = [
    (
        "003a",
        "1n1g3+Pl/k1p1s4/1ng5p/pSP1p1pp1/1n3p3/P1K3P1P/1P7/9/L1G5L b 2R2BG2SL5Pn 161",
    ),
    (
        "003b",
        "7n1/+R5glK/n4s1p1/p4pkl1/2s3n2/P3PP2P/1P+pG5/2P6/9 b R2B2G2S2L8Pn 1",
    ),
    (
        "003c",
        "l2+S1p2K/1B4G2/p4+N1p1/3+B3sk/5P1s1/P1G3p1p/2P1Pr1+n1/9/LNS5L b R2GL8Pnp 1",
    ),
    (
        "003d",
        "lnl5l/2b6/ppk6/3p1p2p/Ps2p1bP1/1NP3g1K/LP6P/9/1N6+p b R3G2SN2Prs4p 1",
    ),
    (
        "003e",
        "+B+R5n1/5gk2/p1pps1gp1/4ppnsK/6pP1/1PPSP3L/PR1P1PP2/6S2/L2G1G3 w B2N2LP2p 1",
    ),
];

fn bench(c: &mut Criterion) {
    let mut set = positions();
    summary(&mut set);
    if std::env::var_os("MATE_BENCH_SUMMARY_ONLY").is_some() {
        return;
    }
    let mut g = c.benchmark_group("dfpn_bench");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    for nodes in [10_000u64, 100_000] {
        g.bench_with_input(BenchmarkId::new("ours", nodes), &nodes, |b, &n| {
            b.iter(|| run_ours(&mut set, n).nodes)
        });
    }
    g.finish();
    let mut g = c.benchmark_group("seed003a");
    g.sample_size(20);
    g.bench_function("solve", |b| {
        let mut solver = solver();
        let mut p = Position::from_sfen(SEEDS[0].1).expect("seed");
        b.iter(|| solver.solve(&mut p, &Limits::default()).map(|v| v.nodes))
    });
    g.finish();
    let mut g = c.benchmark_group("table_clear_16mb");
    let mut t = Table::new(table_mb());
    g.bench_function("new_generation", |b| b.iter(|| t.new_generation()));
    g.bench_function("zero", |b| b.iter(|| t.clear()));
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}

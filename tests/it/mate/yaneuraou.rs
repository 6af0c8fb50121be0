//! The solver against YaneuraOu's real-game mate problems (tests/data/mate/yaneuraou.py):
//! 3,000 problems of 3 to 11 plies whose shortest mate is known (about 600 per length),
//! and about 200 where the side to move is in check and mates, starting with an evasion
//! that gives check. The published length is a lower bound no reported line may break; a
//! line marked `plies_exact` must have exactly that length (a shorter one would be a false
//! disproof of ours, or a wrong oracle: either is a bug to find).

use super::solve_checked_with;
use crate::support::data;
use posfilter::mate::{Limits, MateResult, Solver, Verdict};
use posfilter::shogi::Position;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::time::Duration;

/// One problem: set name (`mate3` ... `mate11`), SFEN, published length, and whether the
/// side to move is in check.
pub(crate) struct Problem {
    pub(crate) set: String,
    pub(crate) sfen: String,
    pub(crate) plies: u32,
    pub(crate) check: bool,
}

/// The problems of tests/data/mate/yaneuraou.jsonl.zst, in file order.
pub(crate) fn problems() -> Vec<Problem> {
    let file = std::fs::File::open(data("mate/yaneuraou.jsonl.zst")).expect("test data");
    let text = String::from_utf8(zstd::decode_all(file).expect("zstd")).expect("UTF-8");
    text.lines()
        .map(|l| {
            let r: serde_json::Value = serde_json::from_str(l).expect("JSON line");
            Problem {
                set: r["set"].as_str().expect("set").to_string(),
                sfen: r["sfen"].as_str().expect("sfen").to_string(),
                plies: r["plies"].as_u64().expect("plies") as u32,
                check: r["check"].as_bool().expect("check"),
            }
        })
        .collect()
}

/// Every problem solved at `limits` (several threads, one solver each; answers do not
/// depend on the thread, see `verdicts_do_not_depend_on_history`).
fn solve_all(problems: &[Problem], limits: &Limits) -> Vec<Verdict> {
    problems
        .par_iter()
        .map_init(
            || Solver::new(16),
            |solver, p| solve_checked_with(solver, &p.sfen, limits),
        )
        .collect()
}

/// The example of issue 35 (a mate in 3 for the side in check: 3e4e, 5e6f, 4e5f), and
/// every problem of the set whose side to move is in check: `mate`, with a verified PV
/// (`solve_checked_with`), never shorter than the published length. Before the OR search
/// of roots in check, each of these was `no_mate` after one node.
#[test]
fn a_side_in_check_that_mates_is_mate() {
    let limits = Limits::default();
    let example = "8l/3+N1g3/7B1/p3p3p/1n1Skb+R2/1SP2l2P/P5PK1/3+r1g1L1/6G1L b G2S2N5P6p 121";
    let v = solve_checked_with(&mut Solver::new(16), example, &limits);
    let pv: Vec<String> = v.pv.iter().map(|m| m.to_usi()).collect();
    assert_eq!((v.result, v.plies_exact), (MateResult::Mate, true));
    assert_eq!(pv, ["3e4e", "5e6f", "4e5f"]);
    let in_check: Vec<Problem> = problems().into_iter().filter(|p| p.check).collect();
    assert!(in_check.len() >= 200, "{}", in_check.len());
    let verdicts = solve_all(&in_check, &limits);
    let mut exact = 0;
    for (p, v) in in_check.iter().zip(&verdicts) {
        assert!(Position::from_sfen(&p.sfen).expect("sfen").in_check());
        assert_eq!(v.result, MateResult::Mate, "{}", p.sfen);
        assert!(v.plies >= p.plies, "{}: {} < {}", p.sfen, v.plies, p.plies);
        assert!(!v.plies_exact || v.plies == p.plies, "{}", p.sfen);
        exact += (v.plies == p.plies) as usize;
    }
    // Measured: 205 of 206 at the published length.
    assert!(
        exact * 100 >= in_check.len() * 98,
        "{exact} of {}",
        in_check.len()
    );
}

/// Mate lengths users can trust: at the default limits the reported line has the published
/// (shortest) length for at least 99 % of the problems of 3 to 11 plies (measured: 2,985
/// of 2,994), and for at least 98 % of those of each length (mate11: 592 of 600), never
/// less; a line marked exact has exactly that length.
#[test]
fn default_settings_report_the_shortest_mate() {
    let sample: Vec<Problem> = problems().into_iter().filter(|p| !p.check).collect();
    assert!(sample.len() >= 2_900, "{}", sample.len());
    let verdicts = solve_all(&sample, &Limits::default());
    // Per set: problems, lines of the published length, lines marked exact.
    let mut tally: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for (p, v) in sample.iter().zip(&verdicts) {
        assert_eq!(v.result, MateResult::Mate, "{}", p.sfen);
        assert!(v.plies >= p.plies, "{}: {} < {}", p.sfen, v.plies, p.plies);
        assert!(
            !v.plies_exact || v.plies == p.plies,
            "{}: {} plies marked exact, published {}",
            p.sfen,
            v.plies,
            p.plies
        );
        let t = tally.entry(&p.set).or_default();
        t.0 += 1;
        t.1 += (v.plies == p.plies) as usize;
        t.2 += v.plies_exact as usize;
    }
    eprintln!("(problems, shortest, exact) per set: {tally:?}");
    let (n, shortest) = tally.values().fold((0, 0), |(n, s), t| (n + t.0, s + t.1));
    assert!(shortest * 100 >= n * 99, "{shortest} of {n}");
    for (set, (n, shortest, _)) in &tally {
        assert!(shortest * 100 >= n * 98, "{set}: {shortest} of {n}");
    }
}

/// The wall-time guard cannot change a proven mate (issue 33, item 2): with a guard that
/// has already expired, every search stops at its first clock check (node 1,024); a mate
/// proven before that is the same verdict (line, exactness, node count) as with no guard,
/// although its shortening runs past that node. Before the guard was lifted after the
/// proof, the shortening stopped there and reported longer lines.
#[test]
fn the_wall_time_guard_cannot_change_a_proven_mate() {
    let sample: Vec<Problem> = problems()
        .into_iter()
        .filter(|p| p.plies >= 9 && !p.check)
        .take(400)
        .collect();
    let open = solve_all(&sample, &Limits::default());
    let expired = Limits {
        time: Some(Duration::ZERO),
        ..Limits::default()
    };
    let guarded: Vec<Verdict> = sample
        .par_iter()
        .map_init(
            || Solver::new(16),
            |solver, p| {
                let mut pos = Position::from_sfen(&p.sfen).expect("sfen");
                solver.solve(&mut pos, &expired).expect("valid position")
            },
        )
        .collect();
    let mut past_the_clock = 0;
    for ((p, a), b) in sample.iter().zip(&open).zip(&guarded) {
        match b.result {
            MateResult::Mate => {
                assert_eq!(a, b, "{}", p.sfen);
                past_the_clock += (b.nodes > 1024) as usize;
            }
            MateResult::Unknown => assert!(b.timed_out, "{}", p.sfen),
            other => panic!("{}: {other:?}", p.sfen),
        }
    }
    assert!(past_the_clock >= 50, "{past_the_clock}");
}

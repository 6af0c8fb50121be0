//! The mate solver against independent truth: cshogi's DfPn labels (tests/data/mate,
//! extracted from the corpus labels), brute-force mate-in-1 labels, our own brute-force
//! mate-in-≤3 search, the tsume problems with known lengths and the seed-003 positions.
//!
//! Conflicts are counted in both directions; a conflict where we claim a mate the oracle
//! disproved, or any PV that fails verification, fails the test.

use crate::support::jsonl;
use posfilter::mate::{pv, Limits, MateResult, Solver, Verdict};
use posfilter::shogi::mate1::mate1_all;
use posfilter::shogi::movegen::generate_legal;
use posfilter::shogi::{Move, MoveList, Position};
use std::collections::BTreeSet;

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

fn limits(nodes: u64) -> Limits {
    Limits {
        nodes,
        max_plies: None,
        time: None,
    }
}

/// Solves and re-verifies the PV independently of the solver.
fn solve_checked(solver: &mut Solver, sfen: &str, nodes: u64) -> Verdict {
    let mut p = pos(sfen);
    let before = p.to_sfen();
    let v = solver.solve(&mut p, &limits(nodes));
    assert_eq!(p.to_sfen(), before, "position not restored: {sfen}");
    match v.result {
        MateResult::Mate | MateResult::Mated => {
            let or_root = v.result == MateResult::Mate;
            assert!(
                pv::verify(&mut p, &v.pv, or_root),
                "PV fails verification: {sfen} {:?}",
                v.pv
            );
            assert_eq!(v.plies as usize, v.pv.len());
            assert_eq!(v.plies % 2, if or_root { 1 } else { 0 }, "{sfen}");
        }
        _ => assert!(v.pv.is_empty()),
    }
    v
}

#[derive(Default, Debug)]
struct Tally {
    both_mate: usize,
    we_miss: Vec<usize>,
    we_extra: usize,
    conflicts: Vec<usize>,
    nodes: u64,
}

/// Runs the solver on labelled positions `filter` selects and compares with cshogi.
fn run_labels(nodes: u64, every: usize) -> Tally {
    let mut solver = Solver::new(16);
    let mut t = Tally::default();
    for (i, r) in jsonl("mate/labels.jsonl").iter().enumerate() {
        if i % every != 0 {
            continue;
        }
        let sfen = r["sfen"].as_str().unwrap();
        let v = solve_checked(&mut solver, sfen, nodes);
        t.nodes += v.nodes;
        if r["checkmated"].as_bool().unwrap() {
            assert_eq!(v.result, MateResult::Checkmated, "{sfen}");
            continue;
        }
        if r["check"].as_bool().unwrap() {
            let oracle = r["andnode"].as_str().unwrap();
            match (oracle, v.result) {
                ("mated", MateResult::Mated) => t.both_mate += 1,
                ("mated", _) => t.we_miss.push(i),
                ("not_mated", MateResult::Mated) | ("mated", MateResult::NoMate) => {
                    t.conflicts.push(i)
                }
                (_, MateResult::Mated) => t.we_extra += 1,
                _ => {}
            }
            assert_ne!(v.result, MateResult::Mate, "{sfen}");
        } else {
            let oracle = r["dfpn"].as_str().unwrap();
            match (oracle, v.result) {
                ("mate", MateResult::Mate) => t.both_mate += 1,
                ("mate", MateResult::NoMate) | ("no_mate", MateResult::Mate) => t.conflicts.push(i),
                ("mate", _) => t.we_miss.push(i),
                (_, MateResult::Mate) => t.we_extra += 1,
                _ => {}
            }
            assert_ne!(v.result, MateResult::Mated, "{sfen}");
        }
    }
    t
}

#[test]
fn labels_sample_agrees_with_cshogi_at_100k() {
    let t = run_labels(100_000, 10);
    eprintln!("{t:?}");
    assert!(
        t.conflicts.is_empty(),
        "conflicts with cshogi: {:?}",
        t.conflicts
    );
    assert!(
        t.we_miss.is_empty(),
        "cshogi mates we miss at 100k: {:?}",
        t.we_miss
    );
    assert!(t.both_mate > 100);
}

#[test]
#[ignore = "slow: all 20,000 labelled positions at 100,000 nodes; run with just test-slow"]
fn labels_all_agree_with_cshogi_at_100k() {
    let t = run_labels(100_000, 1);
    eprintln!("{t:?}");
    assert!(
        t.conflicts.is_empty(),
        "conflicts with cshogi: {:?}",
        t.conflicts
    );
    assert!(
        t.we_miss.is_empty(),
        "cshogi mates we miss at 100k: {:?}",
        t.we_miss
    );
}

#[test]
fn mate1_is_exact_on_all_labelled_positions() {
    let mut checked = 0;
    let mut with_mate = 0;
    for r in jsonl("mate/labels.jsonl") {
        let sfen = r["sfen"].as_str().unwrap();
        let mut p = pos(sfen);
        let ours: BTreeSet<String> = mate1_all(&mut p).iter().map(|m| m.to_usi()).collect();
        let truth: BTreeSet<String> = r["mate1_all"]
            .as_array()
            .map(|a| a.iter().map(|m| m.as_str().unwrap().to_string()).collect())
            .unwrap_or_default();
        assert_eq!(ours, truth, "{sfen}");
        with_mate += !truth.is_empty() as usize;
        checked += 1;
    }
    assert_eq!(checked, 20_000);
    assert_eq!(with_mate, 522);
}

/// The solver's fast generators against the reference ones on every labelled position and
/// on every child of every 4th: checking moves as a set, evasion existence as a boolean.
#[test]
fn fast_generators_equal_reference() {
    use posfilter::shogi::checks::generate_checks_fast;
    use posfilter::shogi::mate1::has_evasion;
    use posfilter::shogi::movegen::{generate_checks, has_legal_move};
    fn same(p: &Position) -> bool {
        let (mut a, mut b) = (MoveList::new(), MoveList::new());
        generate_checks_fast(p, &mut a);
        generate_checks(p, &mut b);
        let mut a: Vec<u16> = a.iter().map(|m| m.raw()).collect();
        let mut b: Vec<u16> = b.iter().map(|m| m.raw()).collect();
        a.sort_unstable();
        b.sort_unstable();
        a == b && (!p.in_check() || has_evasion(p) == has_legal_move(p))
    }
    let mut n = 0;
    for (i, r) in jsonl("mate/labels.jsonl").iter().enumerate() {
        let mut p = pos(r["sfen"].as_str().unwrap());
        assert!(same(&p), "{}", p.to_sfen());
        n += 1;
        if i % 4 == 0 {
            let mut legal = MoveList::new();
            generate_legal(&p, &mut legal);
            for &m in &legal {
                p.do_move(m);
                assert!(same(&p), "{}", p.to_sfen());
                p.undo_move();
                n += 1;
            }
        }
    }
    assert!(n > 300_000, "{n}");
}

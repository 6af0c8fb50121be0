//! The mate solver against independent truth: cshogi's DfPn labels (tests/data/mate,
//! extracted from the corpus labels), brute-force mate-in-1 labels, our own brute-force
//! mate-in-≤3 search, the tsume problems with known lengths and the seed-003 positions
//! (docs/references.md).
//!
//! Conflicts are counted in both directions; a conflict where we claim a mate the oracle
//! disproved, or any PV that fails verification, fails the test.

pub(crate) mod yaneuraou;

use crate::support::jsonl;
use posfilter::mate::{pv, Limits, MateResult, Solver, Verdict};
use posfilter::shogi::mate1::mate1_all;
use posfilter::shogi::movegen::{generate_checks, generate_legal};
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
        shorten: 1,
    }
}

/// Solves and re-verifies the PV independently of the solver.
pub(crate) fn solve_checked(solver: &mut Solver, sfen: &str, nodes: u64) -> Verdict {
    solve_checked_with(solver, sfen, &limits(nodes))
}

/// [`solve_checked`] with explicit limits.
pub(crate) fn solve_checked_with(solver: &mut Solver, sfen: &str, limits: &Limits) -> Verdict {
    let nodes = limits.nodes;
    let mut p = pos(sfen);
    let before = p.to_sfen();
    let v = solver.solve(&mut p, limits).expect("valid position");
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
        MateResult::Unknown => {
            // No time limit here, and these sets never reach the depth cap: without a
            // length cap, `unknown` means the budget ran out. Earlier, a proof whose PV
            // could not be extracted or verified was turned into `unknown` (release builds
            // do not stop on the solver's debug assertion).
            assert!(
                limits.max_plies.is_some() || v.nodes >= nodes,
                "unknown after {} of {nodes} nodes: {sfen}",
                v.nodes
            );
            assert!(v.pv.is_empty());
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
            // cshogi's `search_andnode` only asks whether the side in check is mated; a
            // side in check that mates (ours: `mate`) is `not_mated` there.
            let oracle = r["andnode"].as_str().unwrap();
            match (oracle, v.result) {
                ("mated", MateResult::Mated) => t.both_mate += 1,
                ("not_mated", MateResult::Mated)
                | ("mated", MateResult::NoMate | MateResult::Mate) => t.conflicts.push(i),
                ("mated", _) => t.we_miss.push(i),
                (_, MateResult::Mated) => t.we_extra += 1,
                _ => {}
            }
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

/// Runs [`run_labels`] on every `every`-th position and asserts zero conflicts and no
/// cshogi mate missed beyond `known_misses` (label indices).
fn check_labels(every: usize, known_misses: &[usize]) -> Tally {
    let t = run_labels(100_000, every);
    eprintln!("{t:?}");
    assert!(
        t.conflicts.is_empty(),
        "conflicts with cshogi: {:?}",
        t.conflicts
    );
    let new: Vec<usize> = t
        .we_miss
        .iter()
        .copied()
        .filter(|i| !known_misses.contains(i))
        .collect();
    assert!(new.is_empty(), "cshogi mates we miss at 100k: {new:?}");
    t
}

#[test]
fn labels_sample_agrees_with_cshogi_at_100k() {
    assert!(check_labels(10, &[]).both_mate > 100);
}

/// Known misses, each a mate cshogi proves that needs more than 100,000 nodes here:
/// - label 19323 (cshogi: 29 plies, 21,588 nodes): 146,270 nodes (175,347 before the
///   delayed non-promotions, 121,015 before the hand floors of the first estimates);
/// - label 9963 (cshogi: 29 plies): 101,319 nodes since the delayed non-promotions (59,606
///   before). Over all 20,000 labels that change found 4 mates cshogi does not (12
///   against 8), lost this one, and took 2.2 % off the nodes (50.0 M against 51.1 M).
///
/// Any other miss fails. (Labels 3131 and 3597, the misses before the initial numbers
/// changed to the full evasion count and a dn cap of 16, are found with about 30,000.)
#[test]
#[ignore = "slow: all 20,000 labelled positions at 100,000 nodes; run with just test-slow"]
fn labels_all_agree_with_cshogi_at_100k() {
    assert!(check_labels(1, &[9963, 19323]).both_mate > 2000);
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
    use posfilter::shogi::movegen::has_legal_move;
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

/// `contact_mate` / `contact_evasions` (decided without playing the move) against playing
/// the move and testing for an evasion / counting evasion classes, for every contact check of every labelled position and of every child
/// of every 4th.
#[test]
fn contact_mate_equals_played_test() {
    use posfilter::shogi::attacks;
    use posfilter::shogi::checks::generate_checks_fast;
    use posfilter::shogi::mate1::{contact_evasions, contact_mate, evasion_classes, has_evasion};
    fn check(p: &mut Position, decided: &mut usize, mates: &mut usize) {
        if p.in_check() {
            return;
        }
        let us = p.side_to_move();
        let ek = p.king_square(us.flip());
        let discover = p.blockers(us, ek) & p.pieces_of(us);
        let mut checks = MoveList::new();
        generate_checks_fast(p, &mut checks);
        for &m in &checks {
            if !attacks::king(ek).has(m.to()) {
                continue;
            }
            let fast = contact_mate(p, m, discover);
            let count = contact_evasions(p, m, discover, false);
            p.do_move(m);
            let played = !has_evasion(p);
            let classes = evasion_classes(p, false);
            let sfen = p.to_sfen();
            p.undo_move();
            assert_eq!(fast.is_some(), count.is_some());
            if let Some(f) = fast {
                assert_eq!(f, played, "{} {m} -> {sfen}", p.to_sfen());
                assert_eq!(count, Some(classes), "{} {m} -> {sfen}", p.to_sfen());
                *decided += 1;
                *mates += f as usize;
            }
        }
    }
    let (mut decided, mut mates) = (0, 0);
    for (i, r) in jsonl("mate/labels.jsonl").iter().enumerate() {
        let mut p = pos(r["sfen"].as_str().unwrap());
        check(&mut p, &mut decided, &mut mates);
        if i % 4 == 0 {
            let mut legal = MoveList::new();
            generate_legal(&p, &mut legal);
            for &m in &legal {
                p.do_move(m);
                check(&mut p, &mut decided, &mut mates);
                p.undo_move();
            }
        }
    }
    assert!(decided > 100_000 && mates > 1_000, "{decided} {mates}");
}

/// The five positions quoted in seed article 003 with their known verdicts (the loop case
/// `e` is a 3-ply mate for White that a loop bug once reported as no mate).
#[test]
fn seed_003_positions() {
    let mut solver = Solver::new(16);
    for r in jsonl("mate/tsume.jsonl") {
        let name = r["name"].as_str().unwrap();
        if !name.starts_with("seed003") {
            continue;
        }
        let sfen = r["sfen"].as_str().unwrap();
        // The nodes of the proof alone, as cshogi counts them: no shortening.
        let lim = Limits {
            shorten: 0,
            ..limits(2_000_000)
        };
        let v = solve_checked_with(&mut solver, sfen, &lim);
        let expected = r["expected"].as_str().unwrap();
        assert_eq!(v.result.as_str(), expected, "{name}");
        if let Some(k) = r["known_mate_plies"].as_u64() {
            assert!(
                v.plies as u64 >= k,
                "{name}: PV {} shorter than the known {k}",
                v.plies
            );
        }
        if name == "seed003_a" {
            // cshogi needs 5,966 nodes here.
            assert!(v.nodes < 5_966, "{name}: {} nodes", v.nodes);
        }
        if name == "seed003_e" {
            assert_eq!(v.plies, 3);
        }
    }
}

/// Positions where a non-promotion is the only way (tests/data/mate/nonpromotion.jsonl):
/// the only mating check of an OR root, or the only escape of an AND root, because with the
/// promotion a later pawn drop would be (or would no longer be) pawn-drop mate, or because
/// the promoted piece could take that pawn (one case where cshogi's search, which never
/// tries the escape, reports a false mate). The solver
/// holds a non-promotion back until its promotion is settled, so a lost reveal would leave
/// these unsolved. Every child's verdict is compared with cshogi's, and brute force finds
/// no mate shorter than an OR root's PV within 5 plies (so the 7-ply one is the shortest).
#[test]
fn non_promotion_is_the_only_way() {
    let mut solver = Solver::new(16);
    let rows = jsonl("mate/nonpromotion.jsonl");
    let mut kinds = BTreeSet::new();
    for r in rows {
        let sfen = r["sfen"].as_str().unwrap();
        let only = r["only"].as_str().unwrap();
        let mut p = pos(sfen);
        let or_root = !p.in_check();
        kinds.insert(or_root);
        let v = solve_checked(&mut solver, sfen, 100_000);
        if or_root {
            assert_eq!(v.result, MateResult::Mate, "{sfen}");
            assert_eq!(v.pv[0].to_usi(), only, "{sfen}");
        } else {
            assert_eq!(v.result, MateResult::NoMate, "{sfen}");
        }
        // An OR root's children are its checks, an AND root's are all its (evasion) moves.
        let mut children = MoveList::new();
        if or_root {
            generate_checks(&p, &mut children);
        } else {
            generate_legal(&p, &mut children);
        }
        let ours: BTreeSet<String> = children.iter().map(|m| m.to_usi()).collect();
        let oracle = r["children"].as_object().unwrap();
        assert_eq!(ours, oracle.keys().cloned().collect(), "{sfen}: children");
        for &m in children.iter() {
            p.do_move(m);
            let child = solve_checked(&mut solver, &p.to_sfen(), 1_000_000);
            p.undo_move();
            let expected = match oracle[&m.to_usi()].as_str().unwrap() {
                "mated" => MateResult::Mated,
                "mate" => MateResult::Mate,
                "not_mated" | "no_mate" => MateResult::NoMate,
                other => panic!("{sfen}: oracle verdict {other}"),
            };
            let got = match child.result {
                MateResult::Checkmated => MateResult::Mated,
                other => other,
            };
            assert_eq!(got, expected, "{sfen} after {m}");
        }
        if or_root {
            assert_eq!(
                brute_mate(&mut p, v.plies.saturating_sub(2).min(5)),
                None,
                "{sfen}"
            );
        }
    }
    assert_eq!(kinds.len(), 2, "both an OR and an AND root");
}

/// Bench positions whose cheap disproof runs through lines that come back to a board on
/// the path with less in the attacker's hand (tests/data/mate/inferior.py): cutting those
/// lines (`src/mate/path.rs`) disproves each within 10,000 nodes, where without the cut
/// every one stayed `unknown`; cshogi proves each no mate, with 27,895–79,815 nodes.
#[test]
fn lines_back_to_an_inferior_board_are_cut() {
    let mut solver = Solver::new(16);
    let rows = jsonl("mate/inferior.jsonl");
    assert_eq!(rows.len(), 11);
    for r in rows {
        let sfen = r["sfen"].as_str().unwrap();
        assert_eq!(r["cshogi"], "no_mate", "{sfen}");
        assert!(r["cshogi_nodes"].as_u64().unwrap() > 10_000, "{sfen}");
        let v = solve_checked(&mut solver, sfen, 10_000);
        assert_eq!(v.result, MateResult::NoMate, "{sfen} ({} nodes)", v.nodes);
    }
}

/// Bench positions that neither solver settles at 100,000 nodes, against cshogi at 3 M
/// (tests/data/mate/hard.py): every no-mate cshogi proves we disprove too within 1.5 M nodes,
/// and the long mate (39–41 plies, by table size) that cshogi's root search misses we prove,
/// its first move being the check after which cshogi proves the defender mated (and so do
/// we, from that AND root).
#[test]
fn hard_positions_past_the_bench_budget() {
    let mut solver = Solver::new(64);
    let (mut no_mates, mut mates) = (0, 0);
    for r in jsonl("mate/hard.jsonl") {
        let sfen = r["sfen"].as_str().unwrap();
        let v = solve_checked(&mut solver, sfen, 1_500_000);
        match (r["cshogi"].as_str().unwrap(), r.get("child")) {
            ("no_mate", None) => {
                assert_eq!(v.result, MateResult::NoMate, "{sfen}");
                no_mates += 1;
            }
            (_, Some(child)) => {
                assert_eq!(child["cshogi"].as_str(), Some("mated"), "{sfen}");
                let first = child["move"].as_str().unwrap();
                assert_eq!(v.result, MateResult::Mate, "{sfen}");
                assert_eq!(v.pv[0].to_usi(), first, "{sfen}");
                let mut p = pos(sfen);
                p.do_move(v.pv[0]);
                let after = solve_checked(&mut solver, &p.to_sfen(), 1_500_000);
                assert_eq!(after.result, MateResult::Mated, "{sfen} after {first}");
                mates += 1;
            }
            (other, None) => panic!("{sfen}: unexpected row {other}"),
        }
    }
    assert!(
        no_mates >= 15 && mates == 1,
        "{no_mates} no-mates, {mates} mates"
    );
}

/// The mates cshogi proves at 100,000 nodes on the fresh differential sets
/// (tests/data/mate/fresh_misses.py: 184 positions of seeds 7331, 2611, 9001, 5150, 8123,
/// 3907, 4711, 1357, 6029, 2718, 4242, 5555, 8642 and 9753) where our search ran out at that
/// budget: with a larger budget we prove every one, mate at an OR root and mated at an AND
/// root, with a verified PV. (One of seed 8123 is proven in 11 k nodes but its PV needs
/// nodes re-proved after their children were evicted: see `pv.rs`.) Measured when they
/// were collected: 100–745 k nodes at 16 MB, so the 1 M budget leaves room for search-order
/// changes, not for a solver that cannot prove them. (Two misses of seed 5150 are left out,
/// and the script says why.)
#[test]
fn fresh_mates_cshogi_proves_are_proven_with_a_larger_budget() {
    let mut solver = Solver::new(16);
    let mut proven = 0;
    // Proving is the point here: no nodes spent on shorter lines.
    let lim = Limits {
        shorten: 0,
        ..limits(1_000_000)
    };
    for r in jsonl("mate/fresh_misses.jsonl") {
        let sfen = r["sfen"].as_str().unwrap();
        let v = solve_checked_with(&mut solver, sfen, &lim);
        let expected = match r["cshogi"].as_str().unwrap() {
            "mate" => MateResult::Mate,
            "mated" => MateResult::Mated,
            other => panic!("{sfen}: unexpected verdict {other}"),
        };
        assert_eq!(v.result, expected, "{sfen}: {} nodes", v.nodes);
        proven += 1;
    }
    assert_eq!(proven, 184);
}

/// Tsume problems and engine test positions: never a PV shorter than the published mate,
/// never a verdict that contradicts a cshogi proof (mate vs no_mate) at 1M nodes.
#[test]
fn tsume_lengths_and_verdicts() {
    let mut solver = Solver::new(16);
    let mut mates = 0;
    for r in jsonl("mate/tsume.jsonl") {
        let name = r["name"].as_str().unwrap();
        let sfen = r["sfen"].as_str().unwrap();
        let v = solve_checked(&mut solver, sfen, 200_000);
        let oracle = r["dfpn_1m"]["result"].as_str().unwrap_or("unknown");
        match (oracle, v.result) {
            ("mate", MateResult::NoMate) | ("no_mate", MateResult::Mate) => {
                panic!("{name}: we say {:?}, cshogi {oracle}", v.result)
            }
            _ => {}
        }
        if r["expected"] == "mate" {
            assert_ne!(v.result, MateResult::NoMate, "{name}");
        }
        if v.result == MateResult::Mate {
            mates += 1;
            // The published length bounds ours from below, unless the attacker king the
            // corpus added opens a shorter mate that cshogi proves (`dfpn_3m`, see
            // tests/data/README.md).
            let published = r["known_mate_plies"].as_u64();
            let shorter = r["dfpn_3m"]["pv_plies"].as_u64();
            if let Some(k) = published.filter(|&k| shorter.is_none_or(|s| s >= k)) {
                assert!(v.plies as u64 >= k, "{name}: PV {} < known {k}", v.plies);
            }
        }
        if r["dfpn_100k"]["result"] == "mate" {
            assert_eq!(
                v.result,
                MateResult::Mate,
                "{name}: cshogi proves it at 100k"
            );
        }
    }
    assert!(mates >= 7, "{mates}");
}

/// The mate-length cap at the published length of each tsume problem cshogi proves at
/// 100,000 nodes: capped at that length we prove the mate in exactly that many plies, and
/// capped two plies shorter we never answer mate. Exercises the cap at its edge, where
/// children past it fail without a visit (`expand.rs`, `past_cap`).
#[test]
fn a_cap_at_the_published_length_finds_the_mate_and_two_plies_less_does_not() {
    let mut solver = Solver::new(16);
    let mut checked = 0;
    for r in jsonl("mate/tsume.jsonl") {
        let name = r["name"].as_str().unwrap();
        let (Some(known), "mate") = (
            r["known_mate_plies"].as_u64(),
            r["dfpn_100k"]["result"].as_str().unwrap_or(""),
        ) else {
            continue;
        };
        let sfen = r["sfen"].as_str().unwrap();
        let capped = |plies: u64, nodes: u64| Limits {
            max_plies: Some(plies as u32),
            ..limits(nodes)
        };
        let v = solve_checked_with(&mut solver, sfen, &capped(known, 200_000));
        assert_eq!(
            (v.result, v.plies as u64),
            (MateResult::Mate, known),
            "{name}"
        );
        if known >= 3 {
            let v = solve_checked_with(&mut solver, sfen, &capped(known - 2, 20_000));
            assert_ne!(v.result, MateResult::Mate, "{name}: {} plies", v.plies);
        }
        checked += 1;
    }
    assert!(checked >= 5, "{checked}");
}

/// Brute-force AND/OR search to a fixed depth: `Some(plies)` of the shortest forced mate
/// within `max` plies (odd), from an OR position.
pub(crate) fn brute_mate(p: &mut Position, max: u32) -> Option<u32> {
    fn or(p: &mut Position, left: u32) -> bool {
        let mut checks = MoveList::new();
        generate_checks(p, &mut checks);
        for &m in &checks {
            p.do_move(m);
            let ok = and(p, left - 1);
            p.undo_move();
            if ok {
                return true;
            }
        }
        false
    }
    fn and(p: &mut Position, left: u32) -> bool {
        let mut ev = MoveList::new();
        generate_legal(p, &mut ev);
        if ev.is_empty() {
            return true;
        }
        if left == 0 {
            return false;
        }
        for &m in &ev {
            p.do_move(m);
            let ok = or(p, left - 1);
            p.undo_move();
            if !ok {
                return false;
            }
        }
        true
    }
    (1..=max).step_by(2).find(|&d| or(p, d))
}

/// Our solver against a brute-force mate-in-≤3 search on a sample of positions not in
/// check: a brute-force mate must be found, and our PV is never shorter than it.
#[test]
fn brute_force_mate_in_3_sample() {
    let mut solver = Solver::new(16);
    let (mut n, mut mates) = (0, 0);
    for (i, r) in jsonl("mate/labels.jsonl").iter().enumerate() {
        if r["check"].as_bool().unwrap() || r["checkmated"].as_bool().unwrap() {
            continue;
        }
        // Every near-mate candidate (cshogi mate) and a thin slice of the rest.
        let interesting = r["dfpn"] == "mate";
        if !(interesting && i % 3 == 0 || i % 97 == 0) {
            continue;
        }
        let sfen = r["sfen"].as_str().unwrap();
        let mut p = pos(sfen);
        let brute = brute_mate(&mut p, 3);
        let v = solve_checked(&mut solver, sfen, 100_000);
        if let Some(d) = brute {
            mates += 1;
            assert_eq!(
                v.result,
                MateResult::Mate,
                "{sfen}: brute force mates in {d}"
            );
            assert!(
                v.plies >= d,
                "{sfen}: PV {} shorter than the shortest mate {d}",
                v.plies
            );
        } else if v.result == MateResult::Mate {
            assert!(
                v.plies > 3,
                "{sfen}: we claim a {}-ply mate brute force denies",
                v.plies
            );
        }
        n += 1;
    }
    assert!(n > 300 && mates > 100, "{n} {mates}");
}

/// The dominance table and an exact-match table agree wherever both decide.
#[test]
fn dominance_and_exact_tables_agree() {
    let mut dom = Solver::new(16);
    let mut exact = Solver::new(16);
    exact.set_dominance(false);
    let mut both = 0;
    for (i, r) in jsonl("mate/labels.jsonl").iter().enumerate() {
        if i % 25 != 0 || r["checkmated"].as_bool().unwrap() {
            continue;
        }
        let sfen = r["sfen"].as_str().unwrap();
        let a = solve_checked(&mut dom, sfen, 30_000);
        let b = solve_checked(&mut exact, sfen, 30_000);
        if a.result != MateResult::Unknown && b.result != MateResult::Unknown {
            assert_eq!(a.result, b.result, "{sfen}");
            both += 1;
        }
    }
    assert!(both > 600, "{both}");
}

/// The verdict (and node count) of a position does not depend on what the solver saw
/// before: a fresh generation per root.
#[test]
fn verdicts_do_not_depend_on_history() {
    let rows = jsonl("mate/labels.jsonl");
    let sample: Vec<&str> = rows
        .iter()
        .enumerate()
        .filter(|(i, r)| i % 101 == 0 && r["dfpn"] != "no_mate")
        .map(|(_, r)| r["sfen"].as_str().unwrap())
        .collect();
    let mut warm = Solver::new(4);
    let forward: Vec<Verdict> = sample
        .iter()
        .map(|s| solve_checked(&mut warm, s, 20_000))
        .collect();
    for (s, f) in sample.iter().zip(&forward).rev() {
        let mut fresh = Solver::new(4);
        assert_eq!(&solve_checked(&mut fresh, s, 20_000), f, "{s}");
        assert_eq!(&solve_checked(&mut warm, s, 20_000), f, "{s}");
    }
}

#[test]
fn roots_without_search() {
    let mut solver = Solver::new(1);
    // The checkmated and stalemate-like roots answer without nodes.
    for r in jsonl("mate/labels.jsonl")
        .iter()
        .filter(|r| r["checkmated"] == true)
        .take(20)
    {
        let v = solve_checked(&mut solver, r["sfen"].as_str().unwrap(), 1000);
        assert_eq!((v.result, v.nodes), (MateResult::Checkmated, 0));
    }
    // A bare king boxed in by its own pawns is not in check and has no move.
    let v = solve_checked(&mut solver, "k8/P8/1P7/9/9/9/9/9/8K w - 1", 1000);
    assert!(matches!(
        v.result,
        MateResult::NoLegalMoves | MateResult::NoMate | MateResult::Unknown
    ));
}

#[test]
fn limit_exhaustion_is_unknown_and_max_plies_is_respected() {
    let mut solver = Solver::new(4);
    let sfen = "1n1g3+Pl/k1p1s4/1ng5p/pSP1p1pp1/1n3p3/P1K3P1P/1P7/9/L1G5L b 2R2BG2SL5Pn 161";
    let mut p = pos(sfen);
    let v = solver.solve(&mut p, &limits(50)).expect("valid position");
    assert_eq!(v.result, MateResult::Unknown);
    let lim = Limits {
        nodes: 1_000_000,
        max_plies: Some(9),
        time: None,
        shorten: 1,
    };
    let v = solver.solve(&mut p, &lim).expect("valid position");
    assert_eq!(
        v.result,
        MateResult::Unknown,
        "no mate within 9 plies is known here"
    );
    let lim = Limits {
        nodes: 1_000_000,
        max_plies: Some(3),
        time: None,
        shorten: 1,
    };
    let e = "+B+R5n1/5gk2/p1pps1gp1/4ppnsK/6pP1/1PPSP3L/PR1P1PP2/6S2/L2G1G3 w B2N2LP2p 1";
    let v = solver.solve(&mut pos(e), &lim).expect("valid position");
    assert_eq!((v.result, v.plies), (MateResult::Mate, 3));
}

#[test]
fn cli_json() {
    let out = std::process::Command::new(crate::support::bin())
        .args([
            "mate",
            "--sfen",
            "+B+R5n1/5gk2/p1pps1gp1/4ppnsK/6pP1/1PPSP3L/PR1P1PP2/6S2/L2G1G3 w B2N2LP2p 1",
            "--nodes",
            "10000",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"], "mate");
    assert_eq!(v["plies"], 3);
    assert_eq!(v["pv"].as_array().unwrap().len(), 3);
    assert_eq!(v["pv"][0], "2d2e");
    assert!(v["nodes"].as_u64().unwrap() > 0 && v["seconds"].is_number());
    // The same mate in 3 under a cap of 1 ply: no mate within the cap is `unknown`.
    let (ok, out, err) = crate::support::run_bin(&[
        "mate",
        "--sfen",
        "+B+R5n1/5gk2/p1pps1gp1/4ppnsK/6pP1/1PPSP3L/PR1P1PP2/6S2/L2G1G3 w B2N2LP2p 1",
        "--max-plies",
        "1",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["result"], "unknown");
    let _ = Move::NONE;
}

/// Table sizes a machine cannot hold are refused with a message, never an abort on the
/// allocation: `--table-mb` outside 1..=65536, and threads × tables beyond the available
/// memory (a million threads × 64 GiB is more than any machine has).
#[test]
fn cli_refuses_tables_that_cannot_be_allocated() {
    use crate::support::run_bin;
    for mb in ["0", "65537", "lots"] {
        let (ok, _, err) = run_bin(&["mate", "--sfen", "startpos", "--table-mb", mb]);
        assert!(!ok && err.contains("--table-mb"), "{mb}: {err}");
    }
    let dir = crate::support::TempDir::new("mate-memory");
    let file = dir.join("one.sfen");
    std::fs::write(&file, "startpos\n").unwrap();
    let (ok, out, err) = run_bin(&[
        "mate",
        "--file",
        file.to_str().unwrap(),
        "--threads",
        "1000000",
        "--table-mb",
        "65536",
    ]);
    assert!(!ok && out.is_empty(), "{out}");
    assert!(
        err.contains("1000000 thread(s) × 65536 MB tables need 61.04 PiB")
            && err.contains("available"),
        "{err}"
    );
}

/// `--sfen` also takes a USI position with moves, as engine logs print it: the answer is
/// the answer for the position the moves reach (given as an SFEN), and an illegal move is
/// an error naming it.
#[test]
fn cli_accepts_usi_positions_with_moves() {
    let mate = |position: &str| {
        std::process::Command::new(crate::support::bin())
            .args(["mate", "--sfen", position, "--nodes", "10000", "--json"])
            .output()
            .unwrap()
    };
    let json = |out: std::process::Output| -> serde_json::Value {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let start = "+B+R5n1/5gk2/p1pps1gp1/4ppnsK/6pP1/1PPSP3L/PR1P1PP2/6S2/L2G1G3 w B2N2LP2p 1";
    for (moves, result, plies) in [("2d2e", "mated", 2), ("2d2e 1d1e", "mate", 1)] {
        let mut p = pos(start);
        for m in moves.split(' ') {
            p.do_move(Move::from_usi(m).unwrap());
        }
        let by_sfen = json(mate(&p.to_sfen()));
        for usi in [
            format!("sfen {start} moves {moves}"),
            format!("position sfen {start} moves {moves}"),
        ] {
            let by_usi = json(mate(&usi));
            assert_eq!(by_usi["result"], result, "{usi}");
            assert_eq!(by_usi["plies"], plies, "{usi}");
            assert_eq!(by_usi["pv"], by_sfen["pv"], "{usi}");
        }
    }
    let out = mate("startpos moves 7g7f 7g7f");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("move 2 7g7f is illegal"), "{err}");
}

/// `posfilter mate --file`: 400 labelled positions (every 50th), with a comment, a blank
/// line and a line that is not a position. One answer per position, in file order with its
/// line number; each agrees with cshogi's label and is the answer (result, nodes, PV) a fresh
/// solver gives that position alone, so neither the reused tables nor the 2 threads change
/// anything; the bad line is
/// reported by number on stderr and as an `error` line, the rest still run, and the exit
/// status is 1.
#[test]
fn cli_file_solves_every_line_like_single_positions() {
    let dir = crate::support::TempDir::new("mate-file");
    let labels: Vec<serde_json::Value> =
        jsonl("mate/labels.jsonl").into_iter().step_by(50).collect();
    let mut text = String::from("# every 50th labelled position\n\n");
    let mut line_of = Vec::new();
    for (k, r) in labels.iter().enumerate() {
        if k == 7 {
            text.push_str("9/9/9 b - 1\n");
        }
        text.push_str(r["sfen"].as_str().unwrap());
        text.push('\n');
        line_of.push(text.lines().count() as u64);
    }
    let path = dir.join("positions.sfen");
    std::fs::write(&path, text).unwrap();
    let out = std::process::Command::new(crate::support::bin())
        .args(["mate", "--file", path.to_str().unwrap()])
        .args(["--nodes", "100000", "--threads", "2", "--json"])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    // Every position answered, and status 1 for the line that is not one (it was 0).
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let answers: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), labels.len() + 1);
    let bad = &answers[7];
    assert_eq!(
        (bad["line"].as_u64(), bad["position"].as_str()),
        (Some(10), Some("9/9/9 b - 1"))
    );
    assert!(bad["error"].as_str().unwrap().contains("bad SFEN"), "{bad}");
    assert!(stderr.contains("positions.sfen:10: bad SFEN"), "{stderr}");
    assert!(
        stderr.contains(&format!("{} position(s)", labels.len()))
            && stderr.contains("1 line(s) not a position"),
        "{stderr}"
    );
    let answers: Vec<&serde_json::Value> =
        answers.iter().filter(|a| a["error"].is_null()).collect();
    let (mut mates, mut mated) = (0, 0);
    for ((r, a), line) in labels.iter().zip(answers).zip(&line_of) {
        let sfen = r["sfen"].as_str().unwrap();
        assert_eq!(
            (a["line"].as_u64(), a["position"].as_str()),
            (Some(*line), Some(sfen))
        );
        let result = a["result"].as_str().unwrap();
        if r["checkmated"].as_bool().unwrap() {
            assert_eq!(result, "checkmated", "{sfen}");
        } else if r["check"].as_bool().unwrap() {
            match r["andnode"].as_str().unwrap() {
                "mated" => assert_eq!(result, "mated", "{sfen}"),
                "not_mated" => assert_ne!(result, "mated", "{sfen}"),
                _ => {}
            }
            mated += (result == "mated") as usize;
        } else {
            match r["dfpn"].as_str().unwrap() {
                "mate" => assert_eq!(result, "mate", "{sfen}"),
                "no_mate" => assert_ne!(result, "mate", "{sfen}"),
                _ => {}
            }
            mates += (result == "mate") as usize;
        }
        let alone = Solver::new(16)
            .solve(&mut pos(sfen), &limits(100_000))
            .expect("valid position");
        assert_eq!(result, alone.result.as_str(), "{sfen}");
        assert_eq!(a["nodes"].as_u64(), Some(alone.nodes), "{sfen}");
        let pv: Vec<String> = alone.pv.iter().map(|m| m.to_usi()).collect();
        assert_eq!(a["pv"], serde_json::json!(pv), "{sfen}");
    }
    assert!(mates > 20 && mated > 3, "{mates} mates, {mated} mated");
}

/// Deep searches fit a small thread stack (the recursion keeps move lists out of its
/// frames): the 117-ply problem at 300,000 nodes on a 512 KiB stack.
#[test]
fn deep_search_fits_a_small_stack() {
    let sfen = jsonl("mate/tsume.jsonl")
        .into_iter()
        .find(|r| r["name"] == "kanju-kemuri")
        .map(|r| r["sfen"].as_str().unwrap().to_string())
        .unwrap();
    let h = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(move || {
            let mut solver = Solver::new(8);
            let lim = Limits {
                nodes: 300_000,
                max_plies: None,
                time: None,
                shorten: 1,
            };
            solver
                .solve(&mut pos(&sfen), &lim)
                .expect("valid position")
                .result
        })
        .unwrap();
    let r = h.join().unwrap();
    assert_ne!(r, MateResult::NoMate);
}

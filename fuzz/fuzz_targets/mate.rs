//! The mate solver on fuzzer-made positions (`shape.rs`): an impossible root is refused
//! with the reason `validate` gives, never searched; a valid one is solved with a small
//! node budget and checked against what can be decided without the solver: the PV of
//! every mate replays as a mate line; a root without legal moves is `checkmated` exactly
//! when in check; a mate in 1 (brute force over every legal check) is always found; a root
//! in check that is mated in 2 by brute force is `mated`, and one that is not but has an
//! evasion that mates at once is `mate` in 1 (the OR search of roots in check); the solver with
//! dominance lookups off, or without the 2-ply test, never proves the opposite verdict;
//! and solving again gives the same verdict and node count.
#![no_main]

#[path = "shape.rs"]
mod shape;

use libfuzzer_sys::fuzz_target;
use posfilter::mate::{pv, Limits, MateResult, Solver};
use posfilter::shogi::mate1::{mate1_all, mated_in_2};
use posfilter::shogi::Position;
use std::cell::RefCell;

const NODES: u64 = 3_000;

thread_local! {
    static SOLVERS: RefCell<[Solver; 3]> =
        RefCell::new([Solver::new(4), Solver::new(4), Solver::new(4)]);
}

/// Whether some legal move (an evasion, when in check) leaves the opponent checkmated: a
/// mate in 1 by brute force, for roots in check too.
fn mates_at_once(pos: &mut Position) -> bool {
    pos.legal_moves().iter().any(|&m| {
        pos.do_move(m);
        let mated = pos.is_checkmated();
        pos.undo_move();
        mated
    })
}

/// Whether one verdict proves what the other disproves.
fn conflict(a: MateResult, b: MateResult) -> bool {
    let decided = |r| matches!(r, MateResult::Mate | MateResult::Mated);
    (decided(a) && b == MateResult::NoMate) || (decided(b) && a == MateResult::NoMate)
}

fuzz_target!(|data: &[u8]| {
    // Impossible positions (from an inventory of two sets) are refused, not searched.
    if let Some(mut any) = shape::any_position(data, 2) {
        let sfen = any.to_sfen();
        if let Err(why) = any.validate() {
            let refused = SOLVERS.with(|s| s.borrow_mut()[0].solve(&mut any, &Limits::default()));
            assert_eq!(refused, Err(why), "{sfen}");
            assert_eq!(any.to_sfen(), sfen);
        }
    }
    let Some(mut pos) = shape::position(data) else {
        return;
    };
    let sfen = pos.to_sfen();
    let limits = Limits {
        nodes: NODES,
        ..Limits::default()
    };
    SOLVERS.with(|s| {
        let [main, no_dominance, no_two_ply] = &mut *s.borrow_mut();
        no_dominance.set_dominance(false);
        no_two_ply.set_two_ply(false);
        let v = main
            .solve(&mut pos, &limits)
            .expect("a valid position is solved");
        assert_eq!(pos.to_sfen(), sfen, "position not restored");
        match v.result {
            MateResult::Mate | MateResult::Mated => {
                let or_root = v.result == MateResult::Mate;
                assert!(
                    pv::verify(&mut pos, &v.pv, or_root),
                    "bad PV at {sfen}: {:?}",
                    v.pv
                );
                assert_eq!(v.plies as usize, v.pv.len());
            }
            _ => assert!(v.pv.is_empty()),
        }
        let legal = pos.legal_moves();
        if legal.is_empty() {
            let expected = if pos.in_check() {
                MateResult::Checkmated
            } else {
                MateResult::NoLegalMoves
            };
            assert_eq!(v.result, expected, "{sfen}");
        } else if !pos.in_check() {
            if !mate1_all(&mut pos).is_empty() {
                assert_eq!(v.result, MateResult::Mate, "mate in 1 missed at {sfen}");
                assert_eq!(v.plies, 1, "{sfen}");
            }
        } else if mated_in_2(&mut pos) {
            assert_eq!(v.result, MateResult::Mated, "mated in 2 missed at {sfen}");
        } else if mates_at_once(&mut pos) {
            // In check, not mated, and an evasion that gives check mates at once.
            assert_eq!(v.result, MateResult::Mate, "mate in 1 from check missed at {sfen}");
            assert_eq!(v.plies, 1, "{sfen}");
        }
        for other in [no_dominance, no_two_ply] {
            let w = other.solve(&mut pos, &limits).expect("valid");
            assert!(
                !conflict(v.result, w.result),
                "{sfen}: {:?} vs {:?}",
                v.result,
                w.result
            );
        }
        let again = main.solve(&mut pos, &limits).expect("valid");
        assert_eq!(
            (again.result, again.nodes),
            (v.result, v.nodes),
            "not deterministic: {sfen}"
        );
    });
});

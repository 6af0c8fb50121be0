//! The mate solver: dominance-aware df-pn with proof and disproof pieces, sound with loops.
//!
//! # Terms
//! - *attacker*: the side giving check; at an *OR node* the attacker is to move and plays
//!   checks only; at an *AND node* the defender is to move and plays every legal evasion.
//! - *pn* / *dn*: proof and disproof numbers (`pndn.rs`); 0 means proven / disproven.
//! - *proof hand* / *disproof hand*: the generalisation of a result over the attacker's
//!   hand (証明駒 / 反証駒, `proof_hand.rs`).
//!
//! # Design
//! - `search.rs`: df-pn with local expansion; the exact 1-ply mate test is part of every OR
//!   expansion and the 2-ply test part of every AND expansion (seed 003,
//!   docs/references.md).
//! - `table.rs` / `entry.rs`: one fixed-size table per solver, clusters by board key,
//!   entries keyed by the attacker's hand, dominance on lookup, replacement that keeps
//!   final and expensive entries, O(1) clearing by generation.
//! - `path.rs`: on-path repetition, and a return to a board on the path with less in the
//!   attacker's hand, are failures of the attacker on that path only;
//!   path-dependent disproofs are never stored (graph-history interaction).
//! - `pv.rs`: the mate line, shortest found preferred, replayed and verified.
//! - `cache.rs`: verdicts shared by the solvers of one run, so a repeated position is
//!   searched once.
//!
//! - `root.rs`: the searches one root gets, in order, and the verdict they make.
//!
//! # Contract of [`Solver::solve`]
//! - Not in check: OR root (the side to move attacks), `Mate` or `NoMate`.
//! - In check: first the AND root (is the side to move mated?), then, unless mated, the OR
//!   root (does it mate, starting with an evasion that gives check?): `Mated`, `Mate` or
//!   `NoMate`, within one node budget.
//! - No legal move: `Checkmated` (in check) or `NoLegalMoves`, without search.
//! - `NoMate` means what was shown: the side to move has no forced mate, and (in check) is
//!   not mated either. A limit (nodes, time) in any search gives `Unknown`, never `NoMate`;
//!   with `max_plies`, a failure that depends on the cap and a mate longer than the cap
//!   are `Unknown` too.
//! - Every `Mate`/`Mated` carries a PV that passed [`pv::verify`]; a PV that cannot be
//!   extracted or verified turns the answer into `Unknown`.
//! - With [`Limits::shorten`] (default 1), a proven root is searched again with the mate
//!   length capped two plies below its best line, for as long as that proves a shorter mate
//!   and the extra nodes last; the reported line is the shortest verified one, `nodes`
//!   counts these searches too, and [`Verdict::plies_exact`] says whether a capped search
//!   proved that no shorter mate exists. The verdict never changes, only the line.
//! - The wall-time guard ([`Limits::time`]) can only turn a search into `Unknown`: once a
//!   root is proven it no longer applies, so the line, its length and the node count of a
//!   mate never depend on the clock (the shortening is bounded by nodes).
//! - Deterministic: each root starts on a fresh table generation unless
//!   [`Solver::set_reuse`] opted into reuse, so the verdict does not depend on earlier roots.
//! - The position is restored before returning (its history is untouched).

pub mod cache;
pub mod check_cache;
pub mod entry;
pub mod path;
pub mod pndn;
pub mod proof_hand;
pub mod pv;
mod root;
pub mod search;
pub mod table;
mod verdict;

use crate::shogi::movegen::has_legal_move;
use crate::shogi::{Invalid, Position};
use search::Searcher;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
pub use verdict::{Limits, MateResult, Verdict};

/// A mate solver with its own table; reuse one per worker thread.
pub struct Solver {
    searcher: Searcher,
    reuse: bool,
}

impl Solver {
    /// A solver with a table of about `table_mb` megabytes.
    pub fn new(table_mb: usize) -> Solver {
        Solver {
            searcher: Searcher::new(table_mb),
            reuse: false,
        }
    }

    /// Keeps the table between roots (faster on related positions, but the verdict may then
    /// depend on the roots solved before). Off by default.
    pub fn set_reuse(&mut self, reuse: bool) {
        self.reuse = reuse;
    }

    /// Forgets every entry of the table, in O(1). With [`Solver::set_reuse`] on, the caller
    /// decides when the table starts over (the pipeline: at each batch).
    pub fn forget(&mut self) {
        self.searcher.table_mut().new_generation();
    }

    /// Stops every search of this solver soon after `flag` is set (checked every 1,024
    /// nodes, with the wall-time guard): the answer is then `Unknown`, and the caller that
    /// set the flag knows to discard it. `None` (the default): only the limits stop it.
    pub fn set_abort(&mut self, flag: Option<Arc<AtomicBool>>) {
        self.searcher.set_abort(flag);
    }

    /// Dominance lookups on (default) or off (exact hand match; for tests).
    pub fn set_dominance(&mut self, on: bool) {
        self.searcher.table_mut().set_dominance(on);
    }

    /// The 2-ply test at new AND nodes on (default) or off (for measurement).
    pub fn set_two_ply(&mut self, on: bool) {
        self.searcher.set_two_ply(on);
    }

    /// Solves `pos` within `limits`. The position is restored before returning.
    ///
    /// An impossible position (one that fails [`Position::validate`]) is refused: its moves
    /// could capture a king or fill a hand past the pieces that exist. Every decoder and
    /// line parser of the crate validates what it returns; [`Position::from_sfen`] and
    /// [`Position::from_parts`] do not, which is what this check is for.
    pub fn solve(&mut self, pos: &mut Position, limits: &Limits) -> Result<Verdict, Invalid> {
        pos.validate()?;
        Ok(self.solve_valid(pos, limits))
    }

    /// [`Solver::solve`] for a position known to pass [`Position::validate`]: for the
    /// pipeline, whose decoders validate every position they return, so that the check is
    /// not made twice per record.
    pub(crate) fn solve_valid(&mut self, pos: &mut Position, limits: &Limits) -> Verdict {
        if !has_legal_move(pos) {
            let result = if pos.in_check() {
                MateResult::Checkmated
            } else {
                MateResult::NoLegalMoves
            };
            return Verdict {
                result,
                plies: 0,
                plies_exact: false,
                pv: Vec::new(),
                nodes: 0,
                timed_out: false,
            };
        }
        if !self.reuse {
            self.searcher.table_mut().new_generation();
        }
        root::solve_root(&mut self.searcher, pos, limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mate::table::Probe;
    use crate::shogi::{Color, PieceType};

    /// A rook (with a bishop or a few pieces in hand) against a bare king: every line is a
    /// chase that either lets the king go or repeats a position of the same line. The
    /// root's disproof meets repetitions only inside its own subtree, so it is the root's
    /// own value: it is stored, with a disproof hand that covers the root's hand
    /// (`path.rs`). Before loop heads, such a root was never stored.
    #[test]
    fn disproof_with_internal_loops_only_is_stored() {
        for sfen in [
            "8k/9/9/9/9/9/9/9/K3R4 b - 1",
            "9/9/9/9/3k5/9/9/9/K3R3B b G 1",
            "3k5/9/9/9/9/9/9/9/K3R4 b GS 1",
        ] {
            let mut pos = Position::from_sfen(sfen).expect("test SFEN");
            let mut solver = Solver::new(1);
            let limits = Limits {
                nodes: 1_000_000,
                max_plies: None,
                time: None,
                shorten: 1,
            };
            let v = solver
                .solve(&mut pos, &limits)
                .expect("valid test position");
            assert_eq!(v.result, MateResult::NoMate, "{sfen}");
            let hand = pos.hand(Color::Black);
            match solver.searcher.probe(&pos) {
                Probe::Disproven { hand: dh } => assert!(dh.is_equal_or_superior(hand), "{sfen}"),
                other => panic!("root of {sfen} not stored as disproven: {other:?}"),
            }
        }
    }

    /// Impossible positions that `Position::from_sfen` builds are refused with the reason,
    /// not searched: kings next to each other (the side to move could capture the other
    /// king), and a third rook that a capture would put into a hand already holding two
    /// (the fuzzer found both as panics before the check).
    #[test]
    fn impossible_roots_are_refused() {
        let limits = Limits {
            nodes: 1_000,
            max_plies: None,
            time: None,
            shorten: 1,
        };
        let mut solver = Solver::new(1);
        for (sfen, why) in [
            (
                "k8/1K7/9/9/9/9/9/9/9 b - 1",
                Invalid::OpponentInCheck(Color::White),
            ),
            (
                "4k4/9/9/9/9/9/9/4r4/R3K4 b 2R 1",
                Invalid::TooMany {
                    kind: PieceType::Rook,
                    count: 4,
                    max: 2,
                },
            ),
        ] {
            let mut pos = Position::from_sfen(sfen).expect("parses");
            assert_eq!(solver.solve(&mut pos, &limits), Err(why), "{sfen}");
            assert_eq!(pos.to_sfen(), sfen);
        }
        // The solver still works afterwards.
        let mut pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").expect("parses");
        assert_eq!(
            solver.solve(&mut pos, &limits).map(|v| v.result),
            Ok(MateResult::Mate)
        );
    }
}

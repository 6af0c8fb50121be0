//! Exact short mate tests: mate in 1 for the side to move and "mated in 2" for a side to
//! move that is in check.
//!
//! Exact by construction: every legal checking move (distant checks by lance, bishop,
//! rook, horse and dragon, discovered checks and promotions included; pawn-drop mate
//! excluded because it is not legal) is played and the reply set is tested for emptiness
//! with the legal evasion generator. Nothing is approximated, so these functions can be
//! used as truth and as the search's leaf tests.

use super::checks::generate_checks_fast;
use super::movegen::generate_evasions;
use super::moves::{Move, MoveList};
use super::position::Position;

/// Whether the side to move (in check) has at least one legal move.
#[inline]
pub fn has_evasion(pos: &Position) -> bool {
    let mut list = MoveList::new();
    generate_evasions(pos, &mut list);
    !list.is_empty()
}

/// Number of legal evasions of the side to move (which must be in check).
#[inline]
pub fn evasion_count(pos: &Position) -> usize {
    let mut list = MoveList::new();
    generate_evasions(pos, &mut list);
    list.len()
}

/// A move that checkmates at once, if any (the first found in generation order).
pub fn mate1(pos: &mut Position) -> Option<Move> {
    let mut checks = MoveList::new();
    generate_checks_fast(pos, &mut checks);
    mate1_among(pos, &checks)
}

/// The first of `checks` (legal checking moves here) that checkmates.
pub fn mate1_among(pos: &mut Position, checks: &MoveList) -> Option<Move> {
    for &m in checks {
        pos.do_move(m);
        let mated = !has_evasion(pos);
        pos.undo_move();
        if mated {
            return Some(m);
        }
    }
    None
}

/// Every move that checkmates at once.
pub fn mate1_all(pos: &mut Position) -> Vec<Move> {
    let mut checks = MoveList::new();
    generate_checks_fast(pos, &mut checks);
    let mut out = Vec::new();
    for &m in &checks {
        pos.do_move(m);
        if !has_evasion(pos) {
            out.push(m);
        }
        pos.undo_move();
    }
    out
}

/// Whether the side to move, in check, is mated in at most 2 plies: no evasion at all, or
/// every evasion allows a mate in 1.
pub fn mated_in_2(pos: &mut Position) -> bool {
    if !pos.in_check() {
        return false;
    }
    let mut evasions = MoveList::new();
    generate_evasions(pos, &mut evasions);
    for &e in &evasions {
        pos.do_move(e);
        let m = mate1(pos).is_some();
        pos.undo_move();
        if !m {
            return false;
        }
    }
    true
}

//! Checking-move generation for the mate solver.
//!
//! [`generate_checks_fast`] produces exactly the set of [`super::movegen::generate_checks`]
//! (legal moves that give check, pawn-drop mate excluded), possibly in another order.

use super::movegen::generate_checks;
use super::moves::MoveList;
use super::position::Position;

/// Legal checking moves of the side to move, into `list` (cleared first).
#[inline]
pub fn generate_checks_fast(pos: &Position, list: &mut MoveList) {
    generate_checks(pos, list);
}

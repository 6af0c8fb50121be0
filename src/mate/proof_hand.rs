//! Proof pieces and disproof pieces (証明駒 / 反証駒).
//!
//! A *proof hand* `ph` of a proven node says: with the same board and side to move, every
//! attacker hand `h ≥ ph` is also a forced mate. A *disproof hand* `dh` of a disproven node
//! says: every attacker hand `h ≤ dh` is also not a mate. Hands are always the attacker's
//! (the side giving check), at OR and AND nodes alike. The defender's hand is implied by
//! the board and the attacker's hand within one search (pieces only move between the board
//! and the hands; the table salts keys per root so this stays true across roots).
//!
//! # Rules (after Nagai's and KomoringHeights' formulation)
//! - OR node proven through move `m` with child proof hand `c`: a drop of `X` needs one
//!   more `X` (`c + X`); a capture of `X` brings one (`c - X`, floored at zero).
//! - AND node proven: the per-kind maximum of the children's proof hands. If the check can
//!   be blocked (a distant single check), the proof also relied on the defender having no
//!   piece to drop in between: for every kind the defender lacks and could legally drop on
//!   a square in between (dead ranks and two-pawn files excluded), the proof hand takes
//!   all the attacker holds (with fewer, the defender would hold some and could
//!   interpose). A checkmated AND node starts from the empty hand and gets the same
//!   adjustment.
//! - OR node disproven: the per-kind minimum of the children's disproof hands taken back
//!   through each move (drop `X`: `+X`; capture of `X`: `-X`), then zero for every kind the
//!   attacker does not hold and could drop with check here (with one, new checking drops
//!   would appear; a kind with no empty check square adds none and keeps the children's
//!   bound). With no checking move at all the minimum starts from the full hand
//!   ([`full_hand`]).
//! - AND node disproven through evasion `e` with child disproof hand `c`: `c`, but if `e`
//!   is a drop of `X` the attacker may not hold more `X` than now (the defender needs one).

use crate::shogi::{Hand, Move, PieceType};

/// Every kind at its total count: the neutral element of [`Hand::min`].
pub fn full_hand() -> Hand {
    let mut h = Hand::EMPTY;
    for pt in PieceType::HAND {
        h = h.with_count(pt, pt.max_count()).unwrap_or(h);
    }
    h
}

#[inline]
fn plus(h: Hand, pt: PieceType) -> Hand {
    h.with_count(pt, (h.count(pt) + 1).min(pt.max_count()))
        .unwrap_or(h)
}

#[inline]
fn minus(h: Hand, pt: PieceType) -> Hand {
    h.with_count(pt, h.count(pt).saturating_sub(1)).unwrap_or(h)
}

/// The OR node's proof hand when move `m` (capturing `captured`, a base kind) leads to a
/// child with proof hand `child`.
pub fn before_move_proof(child: Hand, m: Move, captured: Option<PieceType>) -> Hand {
    if m.is_drop() {
        plus(child, m.drop_piece())
    } else if let Some(c) = captured {
        minus(child, c)
    } else {
        child
    }
}

/// The OR node's disproof-hand contribution of move `m` (capturing `captured`) whose
/// child has disproof hand `child`.
pub fn before_move_disproof(child: Hand, m: Move, captured: Option<PieceType>) -> Hand {
    // The same algebra: the parent holds one more of a dropped kind and one fewer of a
    // captured kind than the child.
    before_move_proof(child, m, captured)
}

/// AND-node adjustment of a proof hand `ph` (max of the children, or empty when
/// checkmated): for every kind the defender lacks but could drop between king and checker
/// (`interposable`, bit `i` for `PieceType::HAND[i]`; 0 when the check cannot be blocked),
/// the attacker's full count (with fewer, the defender would hold one and could
/// interpose). `ph` never exceeds `attacker`.
pub fn and_proof_adjust(ph: Hand, attacker: Hand, defender: Hand, interposable: u8) -> Hand {
    let mut out = ph;
    for (i, pt) in PieceType::HAND.into_iter().enumerate() {
        if interposable & (1 << i) != 0 && defender.count(pt) == 0 {
            out = out.with_count(pt, attacker.count(pt)).unwrap_or(out);
        }
    }
    out
}

/// OR-node finish of a disproof hand (the minimum over the children, or [`full_hand`]):
/// kinds the attacker does not hold become zero, unless no drop of that kind could give
/// check here (`drop_checks`, bit `i` for `PieceType::HAND[i]`, from
/// `checks::drop_check_kinds`). Holding such a kind adds no checking move, and the
/// children's disproof hands already bound what it may be below, so the kind keeps the
/// children's bound.
pub fn or_disproof_finish(dh: Hand, attacker: Hand, drop_checks: u8) -> Hand {
    let mut out = dh;
    for (i, pt) in PieceType::HAND.into_iter().enumerate() {
        if attacker.count(pt) == 0 && drop_checks & (1 << i) != 0 {
            out = out.with_count(pt, 0).unwrap_or(out);
        }
    }
    out
}

/// AND-node disproof hand through evasion `e` whose child has disproof hand `child`.
pub fn and_disproof(child: Hand, e: Move, attacker: Hand) -> Hand {
    if e.is_drop() {
        let pt = e.drop_piece();
        let n = child.count(pt).min(attacker.count(pt));
        child.with_count(pt, n).unwrap_or(child)
    } else {
        child
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::Square;

    #[test]
    fn move_algebra() {
        let h = Hand::EMPTY.with_count(PieceType::Gold, 1).unwrap();
        let drop = Move::drop(PieceType::Gold, Square::SQ_1A);
        assert_eq!(before_move_proof(Hand::EMPTY, drop, None), h);
        let mv = Move::new(Square::from_index(10), Square::from_index(11), false);
        assert_eq!(before_move_proof(h, mv, Some(PieceType::Gold)), Hand::EMPTY);
        assert_eq!(
            before_move_proof(Hand::EMPTY, mv, Some(PieceType::Gold)),
            Hand::EMPTY
        );
        let att = Hand::EMPTY.with_count(PieceType::Pawn, 3).unwrap();
        let ph = and_proof_adjust(Hand::EMPTY, att, Hand::EMPTY, 0x7f);
        assert_eq!(ph, att);
        assert_eq!(and_proof_adjust(Hand::EMPTY, att, att, 0x7f), Hand::EMPTY);
        assert_eq!(
            and_proof_adjust(Hand::EMPTY, att, Hand::EMPTY, 0),
            Hand::EMPTY
        );
        // Pawns cannot be interposed (bit 0 clear): no pawn is needed.
        assert_eq!(
            and_proof_adjust(Hand::EMPTY, att, Hand::EMPTY, 0x7e),
            Hand::EMPTY
        );
        let dh = or_disproof_finish(full_hand(), att, 0x7f);
        assert_eq!(dh.count(PieceType::Pawn), 18);
        assert_eq!(dh.count(PieceType::Gold), 0);
        // Gold cannot check by a drop here (bit 6 clear): it keeps the full count.
        let dh = or_disproof_finish(full_hand(), att, 0x3f);
        assert_eq!(dh.count(PieceType::Gold), 4);
        assert_eq!(dh.count(PieceType::Rook), 0);
    }
}

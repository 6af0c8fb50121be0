//! Exact short mate tests: mate in 1 for the side to move and "mated in 2" for a side to
//! move that is in check.
//!
//! Exact by construction: every legal checking move (distant checks by lance, bishop,
//! rook, horse and dragon, discovered checks and promotions included; pawn-drop mate
//! excluded because it is not legal) is played and the reply set is tested for emptiness
//! with the legal evasion generator. Nothing is approximated, so these functions can be
//! used as truth and as the search's leaf tests.

use super::attacks;
use super::bitboard::Bitboard;
use super::checks::generate_checks_fast;
use super::movegen::{drop_squares, generate_evasions, is_pawn_drop_mate};
use super::moves::{Move, MoveList};
use super::position::attack::{is_attacked, is_attacked_by, sliders_attack};
use super::position::Position;
use super::types::{PieceType, Square};

/// Whether the legal checking move `m` of the side to move, whose destination is next to
/// the enemy king (a contact check), checkmates; decided without playing it. `discover` is
/// `pos.blockers(us, enemy king) & pos.pieces_of(us)`. `None` when the move is not a
/// plain direct contact check (a king move or a discovered check): the caller then plays
/// it. `m` must give check: a move that gives none may come back `Some(false)`, never
/// `Some(true)`.
#[inline]
pub fn contact_mate(pos: &Position, m: Move, discover: Bitboard) -> Option<bool> {
    contact_evasions(pos, m, discover, true).map(|n| n == 0)
}

/// [`evasion_classes`] of the position after the contact check `m`, computed without
/// playing it (same value; with `first`, 0 or 1). `discover` and `None` as in
/// [`contact_mate`].
///
/// Exact: after a single adjacent check the defender's only evasions are king moves
/// (capturing the checker included) and captures of the checker; nothing can be
/// interposed. King squares are tested against the attacker's pieces after the move with
/// the king lifted; a capture by another piece is legal unless it opens a line from one of
/// the attacker's sliders to the king (no step piece can attack the king: the moved piece
/// was the only checker), which is the pin test of [`evasion_classes`].
pub fn contact_evasions(pos: &Position, m: Move, discover: Bitboard, first: bool) -> Option<u32> {
    let us = pos.side_to_move();
    let them = us.flip();
    let ek = pos.king_square(them);
    let to = m.to();
    let occ = pos.occupied();
    let (placed, own, occ_after) = if m.is_drop() {
        (m.drop_piece(), pos.pieces_of(us), occ.with(to))
    } else {
        let from = m.from();
        let p = pos.piece_on(from)?;
        if p.piece_type() == PieceType::King
            || (discover.has(from) && !attacks::line(ek, from).has(to))
        {
            return None;
        }
        let pt = if m.is_promotion() {
            p.piece_type().promote()
        } else {
            p.piece_type()
        };
        (
            pt,
            pos.pieces_of(us).without(from),
            occ.without(from).with(to),
        )
    };
    if !attacks::king(ek).has(to) {
        return None;
    }
    // `own`: the attacker's other pieces (the moved one, now on `to`, is `reach`).
    let occ_k = occ_after.without(ek);
    // The likeliest escape first, before the checker's reach is computed: the king takes
    // an unprotected checker (about three tests in four end here in the solver). A checking
    // move that passed the tests above is a direct check, so this answer is exact.
    if first && !is_attacked_by(pos, us, own, to, occ_k) {
        return Some(1);
    }
    let reach = attacks::piece(us, placed, to, occ_k);
    if !reach.has(ek) {
        return None;
    }
    let theirs = pos.pieces_of(them).without(to);
    let mut king_squares = attacks::king(ek).and_not(theirs);
    if first {
        // Settled above: the checker is protected.
        king_squares = king_squares.without(to);
    }
    let mut n = 0;
    for s in king_squares {
        if !reach.has(s) && !is_attacked_by(pos, us, own, s, occ_k) {
            if first {
                return Some(1);
            }
            n += 1;
        }
    }
    let capturers = (pos.attackers_to(them, to, occ_after) & theirs).without(ek);
    for f in capturers {
        if !sliders_attack(pos, them, own, ek, occ_after.without(f)) {
            if first {
                return Some(1);
            }
            n += 1;
        }
    }
    Some(n)
}

/// Whether the side to move, in check, has at least one legal move. Answers without
/// generating the moves: a safe king step, a capture of a single checker by a free piece,
/// a board move or a legal drop onto a square between king and checker.
#[inline]
pub fn has_evasion(pos: &Position) -> bool {
    evasion_classes(pos, true) != 0
}

/// A cheap size estimate of the evasion set of the side to move (in check): safe king
/// squares, free capturers of a single checker, and squares between king and checker
/// that some move or drop can block. Zero exactly when there is no legal evasion. With
/// `first`, stops at the first class found (returns 1).
pub fn evasion_classes(pos: &Position, first: bool) -> u32 {
    let us = pos.side_to_move();
    let them = us.flip();
    let ksq = pos.king_square(us);
    let occ = pos.occupied();
    let occ_no_king = occ.without(ksq);
    let mut n = 0;
    for to in attacks::king(ksq).and_not(pos.pieces_of(us)) {
        if !is_attacked(pos, them, to, occ_no_king) {
            if first {
                return 1;
            }
            n += 1;
        }
    }
    let checkers = pos.checkers();
    if checkers.more_than_one() {
        return n;
    }
    let Some(checker) = checkers.lsb() else {
        // Not in check: any legal move will do.
        return super::movegen::has_legal_move(pos) as u32;
    };
    let pinned = pos.pinned(us);
    // Every piece that attacks a square can move there (a forced promotion is a move).
    let free = |from: Square, to: Square| !pinned.has(from) || attacks::line(ksq, from).has(to);
    for f in pos.attackers_to(us, checker, occ).without(ksq) {
        if free(f, checker) {
            if first {
                return 1;
            }
            n += 1;
        }
    }
    let between = attacks::between(ksq, checker);
    if between.is_empty() {
        return n;
    }
    let hand = pos.hand(us);
    let any_drop = [
        PieceType::Silver,
        PieceType::Gold,
        PieceType::Bishop,
        PieceType::Rook,
    ]
    .into_iter()
    .any(|pt| hand.has(pt));
    let droppable = |pt| {
        if hand.has(pt) {
            drop_squares(pos, us, pt)
        } else {
            Bitboard::EMPTY
        }
    };
    let lance_ok = droppable(PieceType::Lance);
    let knight_ok = droppable(PieceType::Knight);
    let pawn_ok = droppable(PieceType::Pawn);
    let front = attacks::pawn(them, pos.king_square(them));
    for sq in between {
        let blocked = any_drop
            || lance_ok.has(sq)
            || knight_ok.has(sq)
            || (pawn_ok.has(sq) && !(front.has(sq) && is_pawn_drop_mate(pos, sq)))
            || pos
                .attackers_to(us, sq, occ)
                .without(ksq)
                .into_iter()
                .any(|f| free(f, sq));
        if blocked {
            if first {
                return 1;
            }
            n += 1;
        }
    }
    n
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

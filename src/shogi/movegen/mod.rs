//! Legal move generation: all legal moves, evasions, captures and checking moves, plus
//! [`Position::is_legal`] for moves that come from files.
//!
//! # Rules implemented
//! - Every non-promotion is generated where it is legal (pawn, lance, bishop, rook
//!   non-promotions inside the zone included): this is the truth for perft and legality.
//!   Pawns and lances cannot stay unpromoted on the last rank, knights on the last two.
//! - Drops: pawns only on files without an own unpromoted pawn (the free-files mask comes
//!   from [`Bitboard::pawn_free_files`], no per-square loop), never on the last rank; lances
//!   not on the last rank, knights not on the last two.
//! - Pawn-drop mate (打ち歩詰め) is illegal. It can only be a drop on the one square in
//!   front of the enemy king, so the generator tests that one candidate when it appears
//!   ([`is_pawn_drop_mate`]), not every drop (seed 002, docs/references.md).
//! - Pins: a pinned piece moves only along the line through its king.
//!
//! Generation never allocates; moves go into a [`MoveList`].

mod legality;

use super::attacks;
use super::bitboard::Bitboard;
use super::moves::{Move, MoveList};
use super::position::Position;
use super::types::{Color, PieceType, Square};

/// Appends `from -> to` for every `to` in `targets`, with the promotion choices the rules
/// allow for a piece of kind `pt` of colour `us`.
#[inline(always)]
fn push_piece_moves(
    list: &mut MoveList,
    us: Color,
    pt: PieceType,
    from: Square,
    targets: Bitboard,
) {
    let zone = Bitboard::forward_ranks(us, 3);
    match pt {
        PieceType::Pawn | PieceType::Lance => {
            let last = Bitboard::forward_ranks(us, 1);
            for to in targets & zone {
                list.push(Move::new(from, to, true));
            }
            for to in targets.and_not(last) {
                list.push(Move::new(from, to, false));
            }
        }
        PieceType::Knight => {
            let last_two = Bitboard::forward_ranks(us, 2);
            for to in targets & zone {
                list.push(Move::new(from, to, true));
            }
            for to in targets.and_not(last_two) {
                list.push(Move::new(from, to, false));
            }
        }
        PieceType::Silver | PieceType::Bishop | PieceType::Rook => {
            let promotable = if zone.has(from) {
                targets
            } else {
                targets & zone
            };
            for to in promotable {
                list.push(Move::new(from, to, true));
            }
            for to in targets {
                list.push(Move::new(from, to, false));
            }
        }
        _ => {
            for to in targets {
                list.push(Move::new(from, to, false));
            }
        }
    }
}

/// Board moves of every non-king piece of the side to move into `target`, pins respected.
#[inline(always)]
fn push_board_moves(pos: &Position, list: &mut MoveList, target: Bitboard, pinned: Bitboard) {
    let us = pos.side_to_move();
    let ksq = pos.king_square(us);
    let occ = pos.occupied();
    push_board_moves_from(
        pos,
        list,
        target,
        pinned,
        pos.pieces_of(us).without(ksq),
        occ,
    );
}

/// [`push_board_moves`] for an evasion's few target squares (the checker and the squares
/// between it and the king): only the pieces that attack a target can move there, so they
/// are found by attacks *to* the targets; the same moves in the same order (by origin).
#[inline(always)]
fn push_board_moves_to_few(
    pos: &Position,
    list: &mut MoveList,
    target: Bitboard,
    pinned: Bitboard,
) {
    let us = pos.side_to_move();
    let ksq = pos.king_square(us);
    let occ = pos.occupied();
    let mut movers = Bitboard::EMPTY;
    for sq in target {
        movers |= pos.attackers_to(us, sq, occ);
    }
    push_board_moves_from(pos, list, target, pinned, movers.without(ksq), occ);
}

#[inline(always)]
fn push_board_moves_from(
    pos: &Position,
    list: &mut MoveList,
    target: Bitboard,
    pinned: Bitboard,
    movers: Bitboard,
    occ: Bitboard,
) {
    let us = pos.side_to_move();
    let ksq = pos.king_square(us);
    for from in movers {
        let Some(p) = pos.piece_on(from) else {
            continue;
        };
        let pt = p.piece_type();
        let mut targets = attacks::piece(us, pt, from, occ) & target;
        if pinned.has(from) {
            targets &= attacks::line(ksq, from);
        }
        if targets.is_nonempty() {
            push_piece_moves(list, us, pt, from, targets);
        }
    }
}

/// King moves of the side to move into `target` that do not walk into an attack.
#[inline(always)]
fn push_king_moves(pos: &Position, list: &mut MoveList, target: Bitboard) {
    let us = pos.side_to_move();
    let ksq = pos.king_square(us);
    let occ = pos.occupied().without(ksq);
    for to in attacks::king(ksq) & target {
        if !super::position::attack::is_attacked(pos, us.flip(), to, occ) {
            list.push(Move::new(ksq, to, false));
        }
    }
}

/// Squares where the side to move may drop a pawn (files, last rank), ignoring
/// pawn-drop mate.
#[inline(always)]
fn pawn_drop_squares(pos: &Position, us: Color) -> Bitboard {
    Bitboard::pawn_free_files(pos.pieces(us, PieceType::Pawn))
        .and_not(Bitboard::forward_ranks(us, 1))
}

/// Squares where `us` may drop a `pt` by the rank and two-pawn rules (occupancy and
/// pawn-drop mate ignored).
#[inline(always)]
pub(crate) fn drop_squares(pos: &Position, us: Color, pt: PieceType) -> Bitboard {
    match pt {
        PieceType::Pawn => pawn_drop_squares(pos, us),
        PieceType::Lance => Bitboard::ALL.and_not(Bitboard::forward_ranks(us, 1)),
        PieceType::Knight => Bitboard::ALL.and_not(Bitboard::forward_ranks(us, 2)),
        _ => Bitboard::ALL,
    }
}

/// Drops of the side to move onto `target` (a subset of the empty squares).
#[inline(always)]
fn push_drops(pos: &Position, list: &mut MoveList, target: Bitboard) {
    let us = pos.side_to_move();
    let hand = pos.hand(us);
    if hand.is_empty() || target.is_empty() {
        return;
    }
    if hand.has(PieceType::Pawn) {
        let mut squares = target & pawn_drop_squares(pos, us);
        let front = attacks::pawn(us.flip(), pos.king_square(us.flip()));
        if (squares & front).is_nonempty() {
            if let Some(sq) = front.lsb() {
                if is_pawn_drop_mate(pos, sq) {
                    squares = squares.without(sq);
                }
            }
        }
        for to in squares {
            list.push(Move::drop(PieceType::Pawn, to));
        }
    }
    if hand.has(PieceType::Lance) {
        for to in target.and_not(Bitboard::forward_ranks(us, 1)) {
            list.push(Move::drop(PieceType::Lance, to));
        }
    }
    if hand.has(PieceType::Knight) {
        for to in target.and_not(Bitboard::forward_ranks(us, 2)) {
            list.push(Move::drop(PieceType::Knight, to));
        }
    }
    for pt in [
        PieceType::Silver,
        PieceType::Gold,
        PieceType::Bishop,
        PieceType::Rook,
    ] {
        if hand.has(pt) {
            for to in target {
                list.push(Move::drop(pt, to));
            }
        }
    }
}

/// Whether dropping a pawn of the side to move on `to` (the square in front of the enemy
/// king, empty) would checkmate: no enemy piece can take it (the king only where `to` is not
/// defended) and the king has no other flight. Interposition is impossible: the check is
/// adjacent. The king taking an undefended pawn, the likeliest answer, is tested first.
pub fn is_pawn_drop_mate(pos: &Position, to: Square) -> bool {
    let us = pos.side_to_move();
    let them = us.flip();
    let eksq = pos.king_square(them);
    let occ = pos.occupied().with(to);
    let occ_no_king = occ.without(eksq);
    if !super::position::attack::is_attacked(pos, us, to, occ_no_king) {
        return false;
    }
    // Capture by a non-king piece that is free to move to `to`. Pins are computed without
    // the new pawn; adding a piece can only release pins, and a piece it releases stands on
    // the king's file beyond `to`, so its capture stays on its pin line anyway.
    let capturers = pos.attackers_to(them, to, occ).without(eksq);
    if capturers.is_nonempty() {
        let pinned = pos.pinned(them);
        for c in capturers {
            if !pinned.has(c) || attacks::line(eksq, c).has(to) {
                return false;
            }
        }
    }
    // Other king flights (the pawn itself attacks none of them).
    for s in attacks::king(eksq).and_not(pos.pieces_of(them)).without(to) {
        if !super::position::attack::is_attacked(pos, us, s, occ_no_king) {
            return false;
        }
    }
    true
}

/// All legal moves of the side to move, into `list` (cleared first).
pub fn generate_legal(pos: &Position, list: &mut MoveList) {
    list.clear();
    if pos.in_check() {
        generate_evasions(pos, list);
        return;
    }
    let us = pos.side_to_move();
    let pinned = pos.pinned(us);
    let target = !pos.pieces_of(us);
    push_board_moves(pos, list, target, pinned);
    push_king_moves(pos, list, target);
    push_drops(pos, list, !pos.occupied());
}

/// Number of moves [`push_piece_moves`] would append, by popcount instead of a loop.
#[inline(always)]
fn count_piece_moves(us: Color, pt: PieceType, from: Square, targets: Bitboard) -> u32 {
    let zone = Bitboard::forward_ranks(us, 3);
    match pt {
        PieceType::Pawn | PieceType::Lance => {
            (targets & zone).count() + targets.and_not(Bitboard::forward_ranks(us, 1)).count()
        }
        PieceType::Knight => {
            (targets & zone).count() + targets.and_not(Bitboard::forward_ranks(us, 2)).count()
        }
        PieceType::Silver | PieceType::Bishop | PieceType::Rook => {
            let promotable = if zone.has(from) {
                targets
            } else {
                targets & zone
            };
            promotable.count() + targets.count()
        }
        _ => targets.count(),
    }
}

/// Number of legal moves of the side to move, counted with popcounts where the generator
/// would loop (bulk perft). Always equals `generate_legal(..).len()` (tested by perft and the
/// differential tests).
pub fn count_legal(pos: &Position) -> u64 {
    let us = pos.side_to_move();
    let ksq = pos.king_square(us);
    let occ = pos.occupied();
    let own = pos.pieces_of(us);
    let mut n = 0u32;
    // King moves (at most 8, each needing its own attack test).
    for to in attacks::king(ksq).and_not(own) {
        if pos.attackers_to(us.flip(), to, occ.without(ksq)).is_empty() {
            n += 1;
        }
    }
    let checkers = pos.checkers();
    let (move_target, drop_target) = match checkers.lsb() {
        None => (!own, !occ),
        Some(_) if checkers.more_than_one() => return n as u64,
        Some(c) => {
            let between = attacks::between(ksq, c);
            (between.with(c), between)
        }
    };
    let pinned = pos.pinned(us);
    for from in own.without(ksq) {
        let Some(p) = pos.piece_on(from) else {
            continue;
        };
        let pt = p.piece_type();
        let mut targets = attacks::piece(us, pt, from, occ) & move_target;
        if pinned.has(from) {
            targets &= attacks::line(ksq, from);
        }
        n += count_piece_moves(us, pt, from, targets);
    }
    let hand = pos.hand(us);
    if !hand.is_empty() && drop_target.is_nonempty() {
        if hand.has(PieceType::Pawn) {
            let squares = drop_target & pawn_drop_squares(pos, us);
            n += squares.count();
            let front = attacks::pawn(us.flip(), pos.king_square(us.flip()));
            if let Some(sq) = (squares & front).lsb() {
                if is_pawn_drop_mate(pos, sq) {
                    n -= 1;
                }
            }
        }
        if hand.has(PieceType::Lance) {
            n += drop_target.and_not(Bitboard::forward_ranks(us, 1)).count();
        }
        if hand.has(PieceType::Knight) {
            n += drop_target.and_not(Bitboard::forward_ranks(us, 2)).count();
        }
        let others = [
            PieceType::Silver,
            PieceType::Gold,
            PieceType::Bishop,
            PieceType::Rook,
        ]
        .iter()
        .filter(|&&pt| hand.has(pt))
        .count() as u32;
        n += others * drop_target.count();
    }
    n as u64
}

/// Legal moves out of check (appended to `list`). The side to move must be in check.
pub fn generate_evasions(pos: &Position, list: &mut MoveList) {
    let us = pos.side_to_move();
    let ksq = pos.king_square(us);
    push_king_moves(pos, list, !pos.pieces_of(us));
    let checkers = pos.checkers();
    if checkers.more_than_one() {
        return;
    }
    let Some(checker) = checkers.lsb() else {
        return;
    };
    let between = attacks::between(ksq, checker);
    push_board_moves_to_few(pos, list, between.with(checker), pos.pinned(us));
    push_drops(pos, list, between);
}

/// Legal captures of the side to move, into `list` (cleared first).
pub fn generate_captures(pos: &Position, list: &mut MoveList) {
    let them = pos.pieces_of(pos.side_to_move().flip());
    generate_legal(pos, list);
    list.retain(|m| !m.is_drop() && them.has(m.to()));
}

/// Legal moves of the side to move that give check, into `list` (cleared first).
pub fn generate_checks(pos: &Position, list: &mut MoveList) {
    generate_legal(pos, list);
    list.retain(|m| pos.gives_check(m));
}

/// Whether the side to move has at least one legal move.
pub fn has_legal_move(pos: &Position) -> bool {
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    !list.is_empty()
}

/// The hand kinds (bit `i` for `PieceType::HAND[i]`) that the side to move, in check,
/// could drop between its king and a single distant checker if it held one: the squares in
/// between minus the dead ranks of pawn, lance and knight, and for pawns minus the files
/// that already hold one of its pawns. 0 when the check cannot be blocked. A superset of
/// the legal interposing drops (the pawn-drop-mate rule is ignored), so a kind outside it
/// never adds an evasion.
pub fn interposing_drop_kinds(pos: &Position) -> u8 {
    let c = pos.checkers();
    let us = pos.side_to_move();
    let between = match c.lsb() {
        Some(sq) if !c.more_than_one() => attacks::between(pos.king_square(us), sq),
        _ => return 0,
    };
    if between.is_empty() {
        return 0;
    }
    let mut out = 0;
    for (i, pt) in PieceType::HAND.into_iter().enumerate() {
        if (between & drop_squares(pos, us, pt)).is_nonempty() {
            out |= 1 << i;
        }
    }
    out
}

#[cfg(test)]
mod tests;

//! The legal-move order of sbinpack: a move is stored as its index among the legal moves of
//! the position, sorted by a fixed key (rsshogi's "sbinpack v1.0.0 ordering").
//!
//! # The key (compared in this order, each ascending)
//! 1. board move before drop; 2. non-capture before capture; 3. non-promotion before
//!    promotion;
//! 4. kind moved (the piece as it stands before the move, or the kind dropped): P L N S G B
//!    R K +P +L +N +S H D;
//! 5. destination rank, 6. destination file, 7. source rank, 8. source file — squares seen
//!    from the side to move (White's are rotated 180 degrees), ranks from the far side (a = 0),
//!    files centre first (5, 4, 6, 3, 7, 2, 8, 1, 9); a drop's source counts as rank and file
//!    9, after every square;
//! 9. the move's YaneuraOu Move16 bits.
//!
//! The legal moves are all of them, every non-promotion included (as [`Position::legal_moves`]
//! generates). Keys are distinct (the last field is the move itself), so the index of a move
//! is the number of legal moves with a smaller key: selecting and ranking take one pass over
//! the moves, with no sort.

use crate::shogi::moves::MAX_MOVES;
use crate::shogi::{Color, Move, MoveList, PieceType, Position, Square};

/// Priority of a file index (0 = file 1): the centre file first.
const FILE_PRIORITY: [u64; 9] = [7, 5, 3, 1, 0, 2, 4, 6, 8];

/// Priority of a kind, by `PieceType` index (P L N S B R G K +P +L +N +S H D).
const KIND_PRIORITY: [u64; 14] = [0, 1, 2, 3, 5, 6, 4, 7, 8, 9, 10, 11, 12, 13];

/// The sort key of legal move `m` in `pos`, packed into 39 bits in field order.
#[inline]
pub(crate) fn key(pos: &Position, m: Move) -> u64 {
    let us = pos.side_to_move();
    let view = |sq: Square| if us == Color::White { sq.flip() } else { sq };
    let to = view(m.to());
    let (kind, capture, from_rank, from_file) = if m.is_drop() {
        (m.drop_piece(), false, 9, 9)
    } else {
        let kind = pos
            .piece_on(m.from())
            .map_or(PieceType::King, |p| p.piece_type());
        let from = view(m.from());
        let capture = pos.piece_on(m.to()).is_some();
        (
            kind,
            capture,
            from.rank() as u64,
            FILE_PRIORITY[from.file() as usize],
        )
    };
    let mut k = m.is_drop() as u64;
    k = k << 1 | capture as u64;
    k = k << 1 | m.is_promotion() as u64;
    k = k << 4 | KIND_PRIORITY[kind.index()];
    k = k << 4 | to.rank() as u64;
    k = k << 4 | FILE_PRIORITY[to.file() as usize];
    k = k << 4 | from_rank;
    k = k << 4 | from_file;
    k << 16 | m.to_yo16() as u64
}

/// The legal moves of `pos` (generated into `list`), in an order the caller must not rely on.
#[inline]
fn legal(pos: &Position, list: &mut MoveList) {
    list.clear();
    crate::shogi::movegen::generate_legal(pos, list);
}

/// The legal move with index `index` in the sbinpack order, and the number of legal moves.
pub(crate) fn move_at(pos: &Position, index: u32, list: &mut MoveList) -> (Option<Move>, usize) {
    legal(pos, list);
    let n = list.len();
    if index as usize >= n {
        return (None, n);
    }
    let mut keys = [0u64; MAX_MOVES];
    let keys = &mut keys[..n];
    for (k, &m) in keys.iter_mut().zip(list.iter()) {
        *k = key(pos, m);
    }
    let (_, &mut nth, _) = keys.select_nth_unstable(index as usize);
    (Some(Move::from_yo16((nth & 0xffff) as u16)).flatten(), n)
}

/// The index of legal move `m` in the sbinpack order; `None` if `m` is not legal in `pos`.
pub(crate) fn index_of(pos: &Position, m: Move, list: &mut MoveList) -> Option<u32> {
    legal(pos, list);
    if !list.contains(m) {
        return None;
    }
    let mine = key(pos, m);
    Some(list.iter().filter(|&&o| key(pos, o) < mine).count() as u32)
}

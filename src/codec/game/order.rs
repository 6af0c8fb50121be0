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
//! 9. the move's YaneuraOu Move16 bits (which never decide: fields 1-8 already tell every
//!    legal move apart).
//!
//! The legal moves are all of them, every non-promotion included (as [`Position::legal_moves`]
//! generates). Keys are distinct (the last field is the move itself), so the index of a move
//! is the number of legal moves with a smaller key: selecting and ranking take one pass over
//! the moves, with no sort.

use crate::shogi::movegen::generate_legal;
use crate::shogi::moves::MAX_MOVES;
use crate::shogi::{Move, MoveList, PieceType, Position};

/// Priority of a file index (0 = file 1): the centre file first.
const FILE_PRIORITY: [u8; 9] = [7, 5, 3, 1, 0, 2, 4, 6, 8];

/// Priority of a kind, by `PieceType` index (P L N S B R G K +P +L +N +S H D).
const KIND_PRIORITY: [u64; 14] = [0, 1, 2, 3, 5, 6, 4, 7, 8, 9, 10, 11, 12, 13];

/// `rank << 4 | file priority` of each square seen from each side (White's rotated).
const SQUARE_KEY: [[u8; 81]; 2] = {
    let mut t = [[0u8; 81]; 2];
    let mut sq = 0;
    while sq < 81 {
        let (file, rank) = (sq / 9, sq % 9);
        t[0][sq] = (rank as u8) << 4 | FILE_PRIORITY[file];
        t[1][80 - sq] = t[0][sq];
        sq += 1;
    }
    t
};

/// A drop's source in the key: rank 9, file 9, after every square.
const DROP_SOURCE: u64 = 0x99;

/// The sort key of legal move `m` in `pos` without its last field, packed into 23 bits in
/// field order, shifted left by 16. The fields before the last already tell every legal
/// move apart (a board move is its source, destination and promotion; a drop its kind and
/// destination), so the last field (the Move16 bits) never decides and the caller may put
/// anything unique, such as the move's place in its list, into the low 16 bits.
#[inline(always)]
pub(crate) fn key(pos: &Position, m: Move) -> u64 {
    let us = pos.side_to_move().index();
    let to = m.to().index();
    let (kind, capture, from) = if m.is_drop() {
        (m.drop_piece(), false, DROP_SOURCE)
    } else {
        let kind = pos
            .piece_on(m.from())
            .map_or(PieceType::King, |p| p.piece_type());
        let capture = pos.piece_on(m.to()).is_some();
        (kind, capture, SQUARE_KEY[us][m.from().index()] as u64)
    };
    let mut k = m.is_drop() as u64;
    k = k << 1 | capture as u64;
    k = k << 1 | m.is_promotion() as u64;
    k = k << 4 | KIND_PRIORITY[kind.index()];
    k = k << 8 | SQUARE_KEY[us][to] as u64;
    k = k << 8 | from;
    k << 16
}

/// Scratch space for ordering the legal moves of one position after another (a move list
/// and its keys), reused so that no call allocates or clears a large buffer.
pub(crate) struct Order {
    list: MoveList,
    keys: Vec<u64>,
}

impl Order {
    /// Empty scratch space.
    pub fn new() -> Order {
        Order {
            list: MoveList::new(),
            keys: Vec::with_capacity(MAX_MOVES),
        }
    }

    /// The legal move with index `index` in the sbinpack order, and the number of legal
    /// moves.
    pub fn move_at(&mut self, pos: &Position, index: u32) -> (Option<Move>, usize) {
        generate_legal(pos, &mut self.list);
        let n = self.list.len();
        if index as usize >= n {
            return (None, n);
        }
        self.keys.clear();
        let keyed = self
            .list
            .iter()
            .enumerate()
            .map(|(i, &m)| key(pos, m) | i as u64);
        self.keys.extend(keyed);
        let (_, &mut nth, _) = self.keys.select_nth_unstable(index as usize);
        (
            self.list.as_slice().get((nth & 0xffff) as usize).copied(),
            n,
        )
    }

    /// The index of legal move `m` in the sbinpack order; `None` if `m` is not legal in `pos`.
    pub fn index_of(&mut self, pos: &Position, m: Move) -> Option<u32> {
        generate_legal(pos, &mut self.list);
        if !self.list.contains(m) {
            return None;
        }
        let mine = key(pos, m);
        Some(self.list.iter().filter(|&&o| key(pos, o) < mine).count() as u32)
    }
}

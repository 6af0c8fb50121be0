//! [`Move`] and its text and 16-bit encodings; [`MoveList`], a fixed-capacity move buffer.
//!
//! # Layout
//! A `Move` is 16 bits and is, by design, exactly the Apery / dlshogi / cshogi `move16`:
//! ```text
//! bits 0..7   destination square
//! bits 7..14  source square, or 81 + hand index for a drop (P 81, L 82, N 83, S 84,
//!             B 85, R 86, G 87)
//! bit  14     promotion
//! ```
//! YaneuraOu's Move16 (used by psv) differs: drops put the piece type (P 1 … R 6, G 7) in the
//! source field and set bit 14, and promotion is bit 15. [`Move::to_yo16`] and
//! [`Move::from_yo16`] convert.
//!
//! # Invariants
//! A `Move` built by the constructors has a destination `< 81`, and either a source `< 81`
//! or a drop code `81..=87` without the promotion bit. It is not necessarily legal in any
//! position: legality is [`Position::is_legal`](super::Position::is_legal)'s business.

use super::types::{PieceType, Square};
use std::fmt;

/// A move (board move or drop); see the module doc for the bit layout.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Move(u16);

const PROMOTE: u16 = 1 << 14;
const DROP_BASE: u16 = 81;

impl Move {
    /// The null move (all bits zero, which no real move has: it would be 1a to 1a).
    pub const NONE: Move = Move(0);

    /// A board move from `from` to `to`, promoting if `promote`.
    #[inline(always)]
    pub const fn new(from: Square, to: Square, promote: bool) -> Move {
        Move(to.index() as u16 | ((from.index() as u16) << 7) | if promote { PROMOTE } else { 0 })
    }

    /// A drop of hand kind `pt` (P L N S B R G) on `to`.
    #[inline(always)]
    pub const fn drop(pt: PieceType, to: Square) -> Move {
        debug_assert!(pt.index() < 7);
        Move(to.index() as u16 | ((DROP_BASE + pt.index() as u16) << 7))
    }

    /// The raw 16 bits, which are the Apery/cshogi move16.
    #[inline(always)]
    pub const fn raw(self) -> u16 {
        self.0
    }

    /// Whether this is [`Move::NONE`].
    #[inline(always)]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    /// Destination square.
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::from_index((self.0 & 0x7f) as usize)
    }

    /// Source field: a square index, or `81 + hand index` for a drop.
    #[inline(always)]
    const fn source_field(self) -> u16 {
        (self.0 >> 7) & 0x7f
    }

    /// Whether this is a drop.
    #[inline(always)]
    pub const fn is_drop(self) -> bool {
        self.source_field() >= DROP_BASE
    }

    /// Source square of a board move. For a drop the value is meaningless (square 0).
    #[inline(always)]
    pub const fn from(self) -> Square {
        let f = self.source_field();
        Square::from_index(if f < 81 { f as usize } else { 0 })
    }

    /// Kind dropped, for a drop; `Pawn` for a board move (check [`Move::is_drop`] first).
    #[inline(always)]
    pub const fn drop_piece(self) -> PieceType {
        let f = self.source_field();
        let i = if f >= DROP_BASE {
            (f - DROP_BASE) as usize
        } else {
            0
        };
        PieceType::HAND[if i < 7 { i } else { 0 }]
    }

    /// Whether the move promotes.
    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0 & PROMOTE != 0
    }

    /// From an Apery/cshogi/dlshogi move16; `None` if the bits describe no move shape.
    pub const fn from_apery16(raw: u16) -> Option<Move> {
        let m = Move(raw);
        let to = raw & 0x7f;
        let from = m.source_field();
        if raw & 0x8000 != 0 || to >= 81 || from >= DROP_BASE + 7 || raw == 0 {
            return None;
        }
        if from >= DROP_BASE && m.is_promotion() {
            return None;
        }
        if from < 81 && from == to {
            return None;
        }
        Some(m)
    }

    /// YaneuraOu Move16 (psv's move field).
    pub const fn to_yo16(self) -> u16 {
        let to = self.0 & 0x7f;
        if self.is_drop() {
            to | ((self.drop_piece().index() as u16 + 1) << 7) | (1 << 14)
        } else {
            to | (self.source_field() << 7) | if self.is_promotion() { 1 << 15 } else { 0 }
        }
    }

    /// From a YaneuraOu Move16; `None` if the bits describe no move shape.
    pub const fn from_yo16(raw: u16) -> Option<Move> {
        let to = raw & 0x7f;
        let from = (raw >> 7) & 0x7f;
        let drop = raw & (1 << 14) != 0;
        let promote = raw & (1 << 15) != 0;
        if to >= 81 || raw == 0 {
            return None;
        }
        if drop {
            if promote || from == 0 || from > 7 {
                return None;
            }
            Some(Move(to | ((DROP_BASE + from - 1) << 7)))
        } else {
            if from >= 81 || from == to {
                return None;
            }
            Some(Move(to | (from << 7) | if promote { PROMOTE } else { 0 }))
        }
    }

    /// Parses USI move text (`7g7f`, `2d2c+`, `P*5e`); checks the shape only.
    pub fn from_usi(text: &str) -> Option<Move> {
        let b = text.as_bytes();
        if b.len() == 4 && b[1] == b'*' {
            let pt = PieceType::from_letter(b[0])?;
            if pt == PieceType::King {
                return None;
            }
            return Some(Move::drop(pt, Square::from_usi(&b[2..4])?));
        }
        let promote = match b.len() {
            4 => false,
            5 if b[4] == b'+' => true,
            _ => return None,
        };
        let from = Square::from_usi(&b[0..2])?;
        let to = Square::from_usi(&b[2..4])?;
        (from != to).then(|| Move::new(from, to, promote))
    }

    /// USI text.
    pub fn to_usi(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Move {
    /// USI text; `none` for [`Move::NONE`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            return write!(f, "none");
        }
        if self.is_drop() {
            write!(
                f,
                "{}*{}",
                self.drop_piece().base_letter() as char,
                self.to()
            )
        } else {
            write!(
                f,
                "{}{}{}",
                self.from(),
                self.to(),
                if self.is_promotion() { "+" } else { "" }
            )
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Upper bound on legal moves in any position (the known maximum is 593).
pub const MAX_MOVES: usize = 600;

/// A fixed-capacity list of moves on the stack; no allocation.
///
/// # Invariants
/// `len <= MAX_MOVES`; `moves[..len]` are the stored moves.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl MoveList {
    /// An empty list.
    #[inline(always)]
    pub const fn new() -> MoveList {
        MoveList {
            moves: [Move::NONE; MAX_MOVES],
            len: 0,
        }
    }

    /// Appends a move. Move generation never produces more than [`MAX_MOVES`].
    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        debug_assert!(self.len < MAX_MOVES);
        if self.len < MAX_MOVES {
            self.moves[self.len] = m;
            self.len += 1;
        }
    }

    /// Number of moves.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Empties the list.
    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Keeps only the moves for which `keep` is true (order preserved).
    #[inline]
    pub fn retain(&mut self, mut keep: impl FnMut(Move) -> bool) {
        let mut w = 0;
        for r in 0..self.len {
            let m = self.moves[r];
            if keep(m) {
                self.moves[w] = m;
                w += 1;
            }
        }
        self.len = w;
    }

    /// The stored moves.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    /// The stored moves, mutable (for ordering).
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }

    /// Iterates over the moves.
    #[inline(always)]
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }

    /// Whether `m` is in the list.
    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_readme_examples() {
        // Values from the corpus README (cshogi's move16 / YaneuraOu's Move16).
        let m = Move::from_usi("7g7f").unwrap();
        assert_eq!(m.to_yo16(), 0x1e3b);
        let d = Move::from_usi("P*5e").unwrap();
        assert_eq!(d.to_yo16(), 0x40a8);
        assert_eq!(d.raw(), 0x28a8);
        let p = Move::from_usi("2d2c+").unwrap();
        assert_eq!(p.to_yo16(), 0x860b);
        assert_eq!(p.raw(), 0x460b);
        assert_eq!(Move::from_usi("G*1a").unwrap().to_yo16(), 0x4380);
        for m in [m, d, p] {
            assert_eq!(Move::from_yo16(m.to_yo16()), Some(m));
            assert_eq!(Move::from_apery16(m.raw()), Some(m));
            assert_eq!(Move::from_usi(&m.to_usi()), Some(m));
        }
    }

    #[test]
    fn rejects_bad_text_and_bits() {
        for bad in ["", "7g7g", "K*5e", "P*5", "7g7f=", "0a1a", "P*5j", "7g7f++"] {
            assert_eq!(Move::from_usi(bad), None, "{bad}");
        }
        assert_eq!(Move::from_yo16(0), None);
        assert_eq!(
            Move::from_yo16((1 << 14) | (8 << 7)),
            None,
            "drop of piece type 8"
        );
        assert_eq!(Move::from_apery16(0x8000 | 0x0100), None);
        assert_eq!(Move::from_apery16(((81 + 7) << 7) | 3), None);
    }
}

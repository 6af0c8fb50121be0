//! [`Bitboard`]: a set of squares held in the low 81 bits of a `u128`.
//!
//! # Invariants
//! Bit `i` is square index `i` (file-major, see [`Square`]); bits 81..128 are always zero.
//! Every constructor and operator keeps them zero (`!` masks with [`Bitboard::ALL`]).
//! File `f` occupies the contiguous bits `9f..9f+9`, which is what makes the pawn-file
//! tricks in [`Bitboard::pawn_free_files`] possible (seed 002, docs/references.md).
//!
//! A plain `u128` was chosen over a pair of `u64` halves: rustc lowers `u128` operations to
//! pairs of 64-bit instructions already, and `trailing_zeros` / `leading_zeros` on `u128`
//! compile to two `tzcnt`/`lzcnt` and a select, which the slider code in
//! [`attacks`](super::attacks) relies on.

use super::types::{Color, Square};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares. See the module doc for the bit layout.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub(crate) u128);

const ALL_BITS: u128 = (1u128 << 81) - 1;
/// One bit per file at the file's rank-a square.
const FILE_BASE: u128 = {
    let mut v = 0u128;
    let mut f = 0;
    while f < 9 {
        v |= 1u128 << (f * 9);
        f += 1;
    }
    v
};

/// `1 << sq` per square: a 128-bit shift by a variable amount is a shift pair and selects,
/// a table lookup is one load (the single-square operations below use it).
pub(crate) const SQUARE_BITS: [u128; 81] = {
    let mut t = [0u128; 81];
    let mut i = 0;
    while i < 81 {
        t[i] = 1 << i;
        i += 1;
    }
    t
};

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 81 squares.
    pub const ALL: Bitboard = Bitboard(ALL_BITS);

    /// The raw bits (only the low 81 may be set).
    #[inline(always)]
    pub const fn bits(self) -> u128 {
        self.0
    }

    /// From raw bits; bits above 80 are cleared.
    #[inline(always)]
    pub const fn from_bits(bits: u128) -> Bitboard {
        Bitboard(bits & ALL_BITS)
    }

    /// The set holding just `sq`.
    #[inline(always)]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(SQUARE_BITS[sq.index()])
    }

    /// Whether `sq` is in the set.
    #[inline(always)]
    pub const fn has(self, sq: Square) -> bool {
        self.0 & SQUARE_BITS[sq.index()] != 0
    }

    /// Whether the set is empty.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set is non-empty.
    #[inline(always)]
    pub const fn is_nonempty(self) -> bool {
        self.0 != 0
    }

    /// Number of squares in the set.
    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set holds two or more squares.
    #[inline(always)]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square, if any.
    #[inline(always)]
    pub const fn lsb(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index(self.0.trailing_zeros() as usize))
        }
    }

    /// The lowest square; the caller guarantees the set is non-empty.
    #[inline(always)]
    pub const fn lsb_unchecked(self) -> Square {
        debug_assert!(self.0 != 0);
        Square::from_index(self.0.trailing_zeros() as usize)
    }

    /// Removes and returns the lowest square.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = Square::from_index(self.0.trailing_zeros() as usize);
        self.0 &= self.0 - 1;
        Some(sq)
    }

    /// With `sq` added.
    #[inline(always)]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | SQUARE_BITS[sq.index()])
    }

    /// With `sq` removed.
    #[inline(always)]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !SQUARE_BITS[sq.index()])
    }

    /// Set difference `self \ other`.
    #[inline(always)]
    pub const fn and_not(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 & !other.0)
    }

    /// All squares of file `file` (0-based).
    #[inline(always)]
    pub const fn file(file: u8) -> Bitboard {
        Bitboard(0x1ffu128 << (file as u32 * 9))
    }

    /// All squares of rank `rank` (0-based, 0 = rank a).
    #[inline(always)]
    pub const fn rank(rank: u8) -> Bitboard {
        Bitboard(FILE_BASE << rank)
    }

    /// The ranks `relative_rank < n` seen from `color` (n = 3 is the promotion zone).
    #[inline(always)]
    pub const fn forward_ranks(color: Color, n: u8) -> Bitboard {
        let mut mask = 0u128;
        let mut r = 0;
        while r < n {
            let rank = match color {
                Color::Black => r,
                Color::White => 8 - r,
            };
            mask |= FILE_BASE << rank;
            r += 1;
        }
        Bitboard(mask)
    }

    /// Squares on files that hold none of the pawns in `pawns` (seed 002,
    /// docs/references.md): a pawn anywhere in a 9-bit file carries into that file's bit 9
    /// when 0x1ff is added per file, which is then spread back over the file. No per-square
    /// loop.
    #[inline(always)]
    pub const fn pawn_free_files(pawns: Bitboard) -> Bitboard {
        // Per file: (x + 0x1ff) sets bit 9 of the file iff x != 0. Fields are 9 bits wide and
        // adjacent, so spread to 10-bit lanes is not needed: work on even and odd files
        // separately so carries land in the gap of the other parity.
        const EVEN: u128 = {
            let mut v = 0u128;
            let mut f = 0;
            while f < 9 {
                v |= 0x1ffu128 << (f * 9);
                f += 2;
            }
            v
        };
        const ODD: u128 = EVEN ^ ALL_BITS;
        const EVEN_TOP: u128 = FILE_BASE_EVEN << 9;
        const ODD_TOP: u128 = FILE_BASE_ODD << 9;
        const FILE_BASE_EVEN: u128 = {
            let mut v = 0u128;
            let mut f = 0;
            while f < 9 {
                v |= 1u128 << (f * 9);
                f += 2;
            }
            v
        };
        const FILE_BASE_ODD: u128 = FILE_BASE ^ FILE_BASE_EVEN;
        let even = ((pawns.0 & EVEN) + EVEN) & EVEN_TOP;
        let odd = ((pawns.0 & ODD) + ODD) & ODD_TOP;
        // `occupied_tops` has bit 9f+9 set iff file f holds a pawn.
        let occupied_tops = even | odd;
        // Spread each top bit over its file: (top >> 9) * 0x1ff fills bits 9f..9f+8.
        let occupied = (occupied_tops >> 9) * 0x1ff;
        Bitboard(!occupied & ALL_BITS)
    }

    /// The left-right mirror image (file 1 <-> file 9).
    pub fn mirror(self) -> Bitboard {
        let mut out = 0u128;
        for f in 0..9u32 {
            let bits = (self.0 >> (f * 9)) & 0x1ff;
            out |= bits << ((8 - f) * 9);
        }
        Bitboard(out)
    }

    /// Iterates over the squares in index order.
    #[inline(always)]
    pub fn iter(self) -> BitboardIter {
        BitboardIter(self.0)
    }
}

/// Iterator over the squares of a [`Bitboard`], lowest first.
pub struct BitboardIter(u128);

impl Iterator for BitboardIter {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = Square::from_index(self.0.trailing_zeros() as usize);
        self.0 &= self.0 - 1;
        Some(sq)
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = BitboardIter;
    #[inline(always)]
    fn into_iter(self) -> BitboardIter {
        BitboardIter(self.0)
    }
}

macro_rules! bit_op {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tra for Bitboard {
            #[inline(always)]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & ALL_BITS)
    }
}

impl std::fmt::Debug for Bitboard {
    /// Nine rows, rank a first, file 9 on the left as in a printed board.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f)?;
        for rank in 0..9u8 {
            for file in (0..9u8).rev() {
                let sq = Square::from_file_rank(file, rank);
                write!(f, "{}", if self.has(sq) { 'x' } else { '.' })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: a file is free iff no square of it is in the set.
    fn pawn_free_files_slow(pawns: Bitboard) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for f in 0..9 {
            if (pawns & Bitboard::file(f)).is_empty() {
                out |= Bitboard::file(f);
            }
        }
        out
    }

    #[test]
    fn pawn_free_files_matches_reference() {
        // Empty, full, every single pawn, every single full file, and a pseudo-random sweep.
        assert_eq!(Bitboard::pawn_free_files(Bitboard::EMPTY), Bitboard::ALL);
        assert_eq!(Bitboard::pawn_free_files(Bitboard::ALL), Bitboard::EMPTY);
        for sq in Square::all() {
            let b = Bitboard::from_square(sq);
            assert_eq!(
                Bitboard::pawn_free_files(b),
                pawn_free_files_slow(b),
                "{sq}"
            );
        }
        for f in 0..9 {
            let b = Bitboard::file(f);
            assert_eq!(Bitboard::pawn_free_files(b), !b);
        }
        let mut x: u128 = 0x1234_5678_9abc_def0_0fed_cba9_8765_4321;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Sparse sets, like real pawn sets, and dense ones.
            let sparse = Bitboard::from_bits(x & (x >> 3) & (x >> 5));
            let dense = Bitboard::from_bits(x);
            for b in [sparse, dense] {
                assert_eq!(Bitboard::pawn_free_files(b), pawn_free_files_slow(b));
            }
        }
    }

    #[test]
    fn ranks_and_zones() {
        assert_eq!(Bitboard::rank(0).count(), 9);
        assert_eq!(Bitboard::forward_ranks(Color::Black, 3).count(), 27);
        assert!(Bitboard::forward_ranks(Color::White, 1).has(Square::from_file_rank(4, 8)));
        assert!(Bitboard::forward_ranks(Color::Black, 1).has(Square::from_file_rank(4, 0)));
        assert_eq!(Bitboard::ALL.mirror(), Bitboard::ALL);
        assert_eq!(Bitboard::file(0).mirror(), Bitboard::file(8));
    }
}

//! [`Hand`]: the pieces one side holds, packed into a `u32` (seed 000, docs/references.md).
//!
//! # Layout
//! ```text
//! bit   0..5  pawns   (0..=18)   bit  5 borrow
//! bit   6..9  lances  (0..=4)    bit  9 borrow
//! bit  10..13 knights (0..=4)    bit 13 borrow
//! bit  14..17 silvers (0..=4)    bit 17 borrow
//! bit  18..20 bishops (0..=2)    bit 20 borrow
//! bit  21..23 rooks   (0..=2)    bit 23 borrow
//! bit  24..27 golds   (0..=4)    bit 27 borrow
//! ```
//! Each count field has one spare bit above it. Subtracting two hands whose fields hold
//! valid counts borrows into that spare bit exactly for the fields where the subtrahend is
//! larger, so `((a - b) & HAND_BORROW_MASK) == 0` says "a holds at least as many of every
//! kind as b" in one subtraction.
//!
//! # Invariants
//! Every field holds at most its kind's total (18 pawns, 4 of L/N/S/G, 2 of B/R); the borrow
//! bits are always zero in a stored hand.

use super::types::PieceType;

/// Bit offset of each hand kind, in hand-index order (P L N S B R G).
const SHIFT: [u32; 7] = [0, 6, 10, 14, 18, 21, 24];
/// Width of each field in bits (without the borrow bit).
const WIDTH: [u32; 7] = [5, 3, 3, 3, 2, 2, 3];

const fn build_bit_mask() -> u32 {
    let mut m = 0;
    let mut i = 0;
    while i < 7 {
        m |= ((1u32 << WIDTH[i]) - 1) << SHIFT[i];
        i += 1;
    }
    m
}

/// All count bits of every field.
pub const HAND_BIT_MASK: u32 = build_bit_mask();
/// The spare bit just above every field (seed 000's formula, docs/references.md).
pub const HAND_BORROW_MASK: u32 = (HAND_BIT_MASK << 1) & !HAND_BIT_MASK;

/// How two hands compare, kind by kind. "Not superior" is *not* "inferior": two hands where
/// each has more of some kind are [`HandRelation::Incomparable`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum HandRelation {
    /// Same count of every kind.
    Equal,
    /// At least as many of every kind, more of at least one.
    Superior,
    /// At most as many of every kind, fewer of at least one.
    Inferior,
    /// More of one kind and fewer of another.
    Incomparable,
}

/// Pieces in one side's hand. See the module doc for the layout and invariants.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug, PartialOrd, Ord)]
pub struct Hand(u32);

impl Hand {
    /// No pieces.
    pub const EMPTY: Hand = Hand(0);

    /// The raw packed value (for table entries).
    #[inline(always)]
    pub const fn raw(self) -> u32 {
        self.0
    }

    /// From a raw packed value; `None` if a borrow bit is set or a count exceeds its kind's
    /// total.
    pub fn from_raw(raw: u32) -> Option<Hand> {
        if raw & !HAND_BIT_MASK != 0 {
            return None;
        }
        let h = Hand(raw);
        PieceType::HAND
            .iter()
            .all(|&pt| h.count(pt) <= pt.max_count())
            .then_some(h)
    }

    /// From a value previously returned by [`Hand::raw`] (e.g. a table entry), without the
    /// checks of [`Hand::from_raw`]. A value that did not come from `raw` gives meaningless
    /// counts (never undefined behaviour).
    #[inline(always)]
    pub const fn from_raw_trusted(raw: u32) -> Hand {
        Hand(raw)
    }

    /// Count of `pt` (an unpromoted hand kind; anything else returns 0).
    #[inline(always)]
    pub const fn count(self, pt: PieceType) -> u8 {
        let i = pt.index();
        if i >= 7 {
            return 0;
        }
        ((self.0 >> SHIFT[i]) & ((1 << WIDTH[i]) - 1)) as u8
    }

    /// Whether at least one `pt` is held.
    #[inline(always)]
    pub const fn has(self, pt: PieceType) -> bool {
        self.count(pt) != 0
    }

    /// One more `pt`. The caller keeps the count within the kind's total.
    #[inline(always)]
    pub fn add(&mut self, pt: PieceType) {
        debug_assert!(pt.index() < 7 && self.count(pt) < pt.max_count());
        self.0 += 1 << SHIFT[pt.index()];
    }

    /// One fewer `pt`. The caller guarantees one is held.
    #[inline(always)]
    pub fn remove(&mut self, pt: PieceType) {
        debug_assert!(self.has(pt));
        self.0 -= 1 << SHIFT[pt.index()];
    }

    /// With `n` of `pt` set; `None` if `n` exceeds the kind's total or `pt` is no hand kind.
    pub fn with_count(self, pt: PieceType, n: u8) -> Option<Hand> {
        let i = pt.index();
        if i >= 7 || n > pt.max_count() {
            return None;
        }
        let field = ((1u32 << WIDTH[i]) - 1) << SHIFT[i];
        Some(Hand((self.0 & !field) | ((n as u32) << SHIFT[i])))
    }

    /// Whether no piece is held.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Total number of pieces held.
    pub fn total(self) -> u32 {
        PieceType::HAND
            .iter()
            .map(|&pt| self.count(pt) as u32)
            .sum()
    }

    /// Whether `self` holds at least as many of every kind as `other` (one subtraction).
    #[inline(always)]
    pub const fn is_equal_or_superior(self, other: Hand) -> bool {
        (self.0.wrapping_sub(other.0) & HAND_BORROW_MASK) == 0
    }

    /// The relation of `self` to `other`.
    #[inline]
    pub const fn relation(self, other: Hand) -> HandRelation {
        if self.0 == other.0 {
            HandRelation::Equal
        } else if self.is_equal_or_superior(other) {
            HandRelation::Superior
        } else if other.is_equal_or_superior(self) {
            HandRelation::Inferior
        } else {
            HandRelation::Incomparable
        }
    }

    /// Per kind, the smaller count of the two hands.
    pub fn min(self, other: Hand) -> Hand {
        let mut out = Hand::EMPTY;
        for pt in PieceType::HAND {
            out = out
                .with_count(pt, self.count(pt).min(other.count(pt)))
                .unwrap_or(out);
        }
        out
    }

    /// Per kind, the larger count of the two hands.
    pub fn max(self, other: Hand) -> Hand {
        let mut out = Hand::EMPTY;
        for pt in PieceType::HAND {
            out = out
                .with_count(pt, self.count(pt).max(other.count(pt)))
                .unwrap_or(out);
        }
        out
    }

    /// SFEN hand text for this side (`2P`, `RG`, …) in the order R B G S N L P, letters
    /// upper-case; the caller lower-cases White's.
    pub fn sfen_part(self) -> String {
        let mut s = String::new();
        for pt in [
            PieceType::Rook,
            PieceType::Bishop,
            PieceType::Gold,
            PieceType::Silver,
            PieceType::Knight,
            PieceType::Lance,
            PieceType::Pawn,
        ] {
            let n = self.count(pt);
            if n > 1 {
                s.push_str(&n.to_string());
            }
            if n > 0 {
                s.push(pt.base_letter() as char);
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference relation, kind by kind.
    fn slow_relation(a: Hand, b: Hand) -> HandRelation {
        let ge = PieceType::HAND.iter().all(|&pt| a.count(pt) >= b.count(pt));
        let le = PieceType::HAND.iter().all(|&pt| a.count(pt) <= b.count(pt));
        match (ge, le) {
            (true, true) => HandRelation::Equal,
            (true, false) => HandRelation::Superior,
            (false, true) => HandRelation::Inferior,
            (false, false) => HandRelation::Incomparable,
        }
    }

    fn hand(counts: [u8; 7]) -> Hand {
        let mut h = Hand::EMPTY;
        for (pt, n) in PieceType::HAND.iter().zip(counts) {
            h = h.with_count(*pt, n).unwrap();
        }
        h
    }

    #[test]
    fn borrow_mask_is_the_bit_above_each_field() {
        assert_eq!(
            HAND_BORROW_MASK,
            (1 << 5) | (1 << 9) | (1 << 13) | (1 << 17) | (1 << 20) | (1 << 23) | (1 << 27)
        );
        assert_eq!(HAND_BIT_MASK & HAND_BORROW_MASK, 0);
    }

    #[test]
    fn four_relations() {
        let a = hand([1, 0, 0, 0, 0, 0, 0]);
        let b = hand([0, 0, 0, 0, 0, 0, 1]);
        let c = hand([2, 0, 0, 0, 0, 0, 1]);
        assert_eq!(a.relation(a), HandRelation::Equal);
        assert_eq!(c.relation(a), HandRelation::Superior);
        assert_eq!(a.relation(c), HandRelation::Inferior);
        // Not superior, yet not inferior either.
        assert_eq!(a.relation(b), HandRelation::Incomparable);
        assert!(!a.is_equal_or_superior(b) && !b.is_equal_or_superior(a));
        // Full fields: 18 pawns against 17, every kind at its maximum.
        let full = hand([18, 4, 4, 4, 2, 2, 4]);
        let less = hand([17, 4, 4, 4, 2, 2, 4]);
        assert_eq!(full.relation(less), HandRelation::Superior);
        assert_eq!(Hand::EMPTY.relation(full), HandRelation::Inferior);
    }

    #[test]
    fn relation_matches_per_kind_comparison() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |max: u8| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Bias toward small counts so equal fields are common.
            ((x % (max as u64 + 1)) as u8).min(((x >> 20) % 3) as u8 * max / 2)
        };
        for _ in 0..100_000 {
            let counts_a: [u8; 7] = std::array::from_fn(|i| next(PieceType::HAND[i].max_count()));
            let counts_b: [u8; 7] = std::array::from_fn(|i| next(PieceType::HAND[i].max_count()));
            let (a, b) = (hand(counts_a), hand(counts_b));
            assert_eq!(
                a.relation(b),
                slow_relation(a, b),
                "{counts_a:?} {counts_b:?}"
            );
        }
    }

    #[test]
    fn add_remove_and_raw() {
        let mut h = Hand::EMPTY;
        for _ in 0..18 {
            h.add(PieceType::Pawn);
        }
        h.add(PieceType::Rook);
        assert_eq!(h.count(PieceType::Pawn), 18);
        assert_eq!(h.sfen_part(), "R18P");
        h.remove(PieceType::Pawn);
        assert_eq!(h.count(PieceType::Pawn), 17);
        assert_eq!(Hand::from_raw(h.raw()), Some(h));
        assert_eq!(Hand::from_raw(HAND_BORROW_MASK), None);
        assert_eq!(Hand::from_raw(3 << 18), None, "three bishops");
    }
}

//! Basic value types: [`Color`], [`Square`], [`PieceType`], [`Piece`].
//!
//! # Invariants
//! - Squares are file-major: `index = (file - 1) * 9 + (rank - 1)`, so 1a = 0, 1i = 8,
//!   2a = 9, 9i = 80. This is the order of cshogi, YaneuraOu and Apery, so the codecs need no
//!   conversion.
//! - Piece types are numbered so that `promoted = base + 8` for P, L, N, S, B, R and the first
//!   seven (P L N S B R G) are exactly the kinds that can be held in hand.

use std::fmt;

/// The side to move or the owner of a piece. Black (先手, sente) moves first.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// Sente, moves first, upper-case letters in SFEN.
    Black = 0,
    /// Gote, lower-case letters in SFEN.
    White = 1,
}

impl Color {
    /// Both colours, Black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The other side.
    #[inline(always)]
    pub const fn flip(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `'b'` or `'w'` as in SFEN.
    pub const fn sfen_char(self) -> char {
        match self {
            Color::Black => 'b',
            Color::White => 'w',
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline(always)]
    fn not(self) -> Color {
        self.flip()
    }
}

/// One of the 81 squares; always `< 81`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Number of squares.
    pub const NUM: usize = 81;
    /// 1a, the square with index 0.
    pub const SQ_1A: Square = Square(0);

    /// The square with this index, if `index < 81`.
    #[inline(always)]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 81 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square with this index. The caller guarantees `index < 81` (checked in debug builds).
    #[inline(always)]
    pub const fn from_index(index: usize) -> Square {
        debug_assert!(index < 81);
        Square(index as u8)
    }

    /// The square on `file` (0 = file 1 … 8 = file 9) and `rank` (0 = rank a … 8 = rank i).
    #[inline(always)]
    pub const fn from_file_rank(file: u8, rank: u8) -> Square {
        debug_assert!(file < 9 && rank < 9);
        Square(file * 9 + rank)
    }

    /// The index `0..81`.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// 0-based file (0 = the file USI calls 1).
    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 / 9
    }

    /// 0-based rank (0 = rank a, the far side for Black).
    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 % 9
    }

    /// The same square seen from the other side (rotated 180 degrees).
    #[inline(always)]
    pub const fn flip(self) -> Square {
        Square(80 - self.0)
    }

    /// The left-right mirror image (file 1 <-> file 9).
    #[inline(always)]
    pub const fn mirror(self) -> Square {
        Square((8 - self.file()) * 9 + self.rank())
    }

    /// Rank counted from `color`'s own side: 0 is the rank farthest from its start (rank a
    /// for Black, rank i for White).
    #[inline(always)]
    pub const fn relative_rank(self, color: Color) -> u8 {
        match color {
            Color::Black => self.rank(),
            Color::White => 8 - self.rank(),
        }
    }

    /// Whether the square is in `color`'s promotion zone (the three far ranks).
    #[inline(always)]
    pub const fn in_zone(self, color: Color) -> bool {
        self.relative_rank(color) < 3
    }

    /// Iterates over all 81 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..81u8).map(Square)
    }

    /// Parses USI square text like `7g`.
    pub fn from_usi(text: &[u8]) -> Option<Square> {
        if text.len() != 2 {
            return None;
        }
        let file = text[0].wrapping_sub(b'1');
        let rank = text[1].wrapping_sub(b'a');
        if file < 9 && rank < 9 {
            Some(Square::from_file_rank(file, rank))
        } else {
            None
        }
    }
}

impl fmt::Display for Square {
    /// USI text, e.g. `7g`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'1' + self.file()) as char,
            (b'a' + self.rank()) as char
        )
    }
}

/// Kind of piece, colourless, promoted kinds included.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[repr(u8)]
pub enum PieceType {
    /// 歩
    Pawn = 0,
    /// 香
    Lance = 1,
    /// 桂
    Knight = 2,
    /// 銀
    Silver = 3,
    /// 角
    Bishop = 4,
    /// 飛
    Rook = 5,
    /// 金
    Gold = 6,
    /// 玉
    King = 7,
    /// と
    ProPawn = 8,
    /// 成香
    ProLance = 9,
    /// 成桂
    ProKnight = 10,
    /// 成銀
    ProSilver = 11,
    /// 馬
    Horse = 12,
    /// 龍
    Dragon = 13,
}

impl PieceType {
    /// Number of piece types.
    pub const NUM: usize = 14;
    /// Every piece type in index order.
    pub const ALL: [PieceType; 14] = [
        PieceType::Pawn,
        PieceType::Lance,
        PieceType::Knight,
        PieceType::Silver,
        PieceType::Bishop,
        PieceType::Rook,
        PieceType::Gold,
        PieceType::King,
        PieceType::ProPawn,
        PieceType::ProLance,
        PieceType::ProKnight,
        PieceType::ProSilver,
        PieceType::Horse,
        PieceType::Dragon,
    ];
    /// The seven kinds that can be held in hand, in hand-index order (P L N S B R G).
    pub const HAND: [PieceType; 7] = [
        PieceType::Pawn,
        PieceType::Lance,
        PieceType::Knight,
        PieceType::Silver,
        PieceType::Bishop,
        PieceType::Rook,
        PieceType::Gold,
    ];

    /// The seven hand kinds in YaneuraOu's and Apery's order, gold before the sliders
    /// (P L N S G B R): PackedSfen's hand order, Apery's `ZobHand` rows.
    pub const HAND_GOLD_FIRST: [PieceType; 7] = [
        PieceType::Pawn,
        PieceType::Lance,
        PieceType::Knight,
        PieceType::Silver,
        PieceType::Gold,
        PieceType::Bishop,
        PieceType::Rook,
    ];

    /// The piece type with this index, if `< 14`.
    #[inline(always)]
    pub const fn from_index(index: usize) -> Option<PieceType> {
        if index < 14 {
            Some(Self::ALL[index])
        } else {
            None
        }
    }

    /// Index `0..14`.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Whether this kind can promote (P, L, N, S, B, R).
    #[inline(always)]
    pub const fn can_promote(self) -> bool {
        (self as u8) < 6
    }

    /// Whether this is a promoted kind.
    #[inline(always)]
    pub const fn is_promoted(self) -> bool {
        (self as u8) >= 8
    }

    /// The promoted kind; `self` if it cannot promote.
    #[inline(always)]
    pub const fn promote(self) -> PieceType {
        if self.can_promote() {
            Self::ALL[self as usize + 8]
        } else {
            self
        }
    }

    /// The unpromoted kind (what a captured piece becomes in hand); `self` if unpromoted.
    #[inline(always)]
    pub const fn unpromote(self) -> PieceType {
        if self.is_promoted() {
            Self::ALL[self as usize - 8]
        } else {
            self
        }
    }

    /// Upper-case SFEN letter of the unpromoted kind (`P`, `L`, … `K`).
    pub const fn base_letter(self) -> u8 {
        match self.unpromote() {
            PieceType::Pawn => b'P',
            PieceType::Lance => b'L',
            PieceType::Knight => b'N',
            PieceType::Silver => b'S',
            PieceType::Bishop => b'B',
            PieceType::Rook => b'R',
            PieceType::Gold => b'G',
            _ => b'K',
        }
    }

    /// The unpromoted kind for an upper-case SFEN letter.
    pub const fn from_letter(letter: u8) -> Option<PieceType> {
        Some(match letter {
            b'P' => PieceType::Pawn,
            b'L' => PieceType::Lance,
            b'N' => PieceType::Knight,
            b'S' => PieceType::Silver,
            b'B' => PieceType::Bishop,
            b'R' => PieceType::Rook,
            b'G' => PieceType::Gold,
            b'K' => PieceType::King,
            _ => return None,
        })
    }

    /// How many pieces of this unpromoted kind exist in a full set (P 18, L/N/S/G 4, B/R/K 2).
    pub const fn max_count(self) -> u8 {
        match self.unpromote() {
            PieceType::Pawn => 18,
            PieceType::Bishop | PieceType::Rook | PieceType::King => 2,
            _ => 4,
        }
    }
}

/// A coloured piece; the value is `color * 16 + piece_type + 1`, never zero, so
/// `Option<Piece>` is one byte.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece(std::num::NonZeroU8);

impl Piece {
    /// The piece of `color` and `piece_type`.
    #[inline(always)]
    pub const fn new(color: Color, piece_type: PieceType) -> Piece {
        match std::num::NonZeroU8::new(color as u8 * 16 + piece_type as u8 + 1) {
            Some(v) => Piece(v),
            None => unreachable!(),
        }
    }

    /// The owner.
    #[inline(always)]
    pub const fn color(self) -> Color {
        if self.0.get() >= 16 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The kind.
    #[inline(always)]
    pub const fn piece_type(self) -> PieceType {
        PieceType::ALL[((self.0.get() - 1) & 15) as usize]
    }

    /// A dense index `0..32` (`color * 16 + piece_type`), for tables.
    #[inline(always)]
    pub const fn index(self) -> usize {
        (self.0.get() - 1) as usize
    }

    /// SFEN text: `P`, `+r`, …
    pub fn sfen(self) -> String {
        let mut s = String::with_capacity(2);
        if self.piece_type().is_promoted() {
            s.push('+');
        }
        let letter = self.piece_type().base_letter();
        s.push(match self.color() {
            Color::Black => letter as char,
            Color::White => letter.to_ascii_lowercase() as char,
        });
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn niche_keeps_option_piece_one_byte() {
        assert_eq!(std::mem::size_of::<Option<Piece>>(), 1);
    }

    #[test]
    fn promotion_is_plus_eight() {
        for pt in PieceType::ALL {
            assert_eq!(pt.promote().unpromote(), pt.unpromote());
            if pt.can_promote() {
                assert_eq!(pt.promote().index(), pt.index() + 8);
            }
        }
        assert_eq!(PieceType::Bishop.promote(), PieceType::Horse);
        assert_eq!(PieceType::Rook.promote(), PieceType::Dragon);
        assert_eq!(PieceType::Gold.promote(), PieceType::Gold);
    }

    #[test]
    fn square_text_and_geometry() {
        let sq = Square::from_usi(b"7g").unwrap();
        assert_eq!(sq.index(), 6 * 9 + 6);
        assert_eq!(sq.to_string(), "7g");
        assert_eq!(sq.flip().to_string(), "3c");
        assert_eq!(sq.mirror().to_string(), "3g");
        assert!(Square::from_usi(b"0a").is_none());
        assert!(Square::from_usi(b"1j").is_none());
    }

    #[test]
    fn piece_roundtrip() {
        for c in Color::ALL {
            for pt in PieceType::ALL {
                let p = Piece::new(c, pt);
                assert_eq!(p.color(), c);
                assert_eq!(p.piece_type(), pt);
            }
        }
    }
}

//! Construction of a [`Position`]: from its parts ([`Position::from_parts`],
//! [`Position::from_piece_list`]) and in place for the binary decoders (the codecs' fast
//! path, below).
//!
//! A decoder starts a position with [`Position::decoding_restart`] (empty board, both kings),
//! places every other piece with [`Builder::place`] while it reads the bit stream, and ends
//! with [`Builder::finish`], which stores the bitboards and keys, sets the hands and the
//! checkers and validates the result. The position is built where it will be returned, with no
//! intermediate piece list and no copy of the ~400-byte struct per step; a caller that
//! decodes many records reuses one position (no copy per record either).
//!
//! # Invariants
//! - Between `decoding_restart` and `finish` the board array and the builder's per-piece
//!   bitboards and board key describe the same pieces (every `place` updates all three).
//! - `finish` returns `Ok` only for a position that [`Position::validate`] accepts;
//!   on any doubt it defers to `validate`, so its error is the one `validate` reports.

use super::validity::Invalid;
use super::Position;
use crate::shogi::attacks;
use crate::shogi::bitboard::{Bitboard, SQUARE_BITS};
use crate::shogi::hand::Hand;
use crate::shogi::types::{Color, Piece, PieceType, Square};
use crate::shogi::zobrist::{PRIMARY, SIDE};

/// Per file `f` of the even files 0, 2, 4, 6, 8: bit `9f` (the file's first square).
const EVEN_BASE: u128 = file_bits(0);
/// Per odd file: bit `9f`.
const ODD_BASE: u128 = file_bits(1);
/// All squares of the even files.
const EVEN_FILES: u128 = EVEN_BASE * 0x1ff;
/// All squares of the odd files.
const ODD_FILES: u128 = ODD_BASE * 0x1ff;

/// Bit `9f` for every file `f` of parity `first` (0 even, 1 odd).
const fn file_bits(first: u32) -> u128 {
    let mut v = 0u128;
    let mut f = first;
    while f < 9 {
        v |= 1u128 << (9 * f);
        f += 2;
    }
    v
}

/// Whether some file holds two or more squares of `set`, without a loop over files.
///
/// Within one file's 9-bit field `x`, `x & (x - 1)` is non-zero iff the field has two or more
/// bits. The subtraction is done for every file of one parity at once; a guard bit just above
/// each field (bit `9f + 9`, which belongs to a file of the other parity and is masked off)
/// absorbs the borrow of an empty field, so fields never disturb each other.
#[inline(always)]
pub(crate) fn two_on_a_file(set: Bitboard) -> bool {
    let even = set.bits() & EVEN_FILES;
    let odd = set.bits() & ODD_FILES;
    let even_rest = even & (even | EVEN_BASE << 9).wrapping_sub(EVEN_BASE);
    let odd_rest = odd & (odd | ODD_BASE << 9).wrapping_sub(ODD_BASE);
    (even_rest | odd_rest) != 0
}

impl Position {
    /// Builds a position from its parts and checks only what the type needs: exactly one
    /// king per side. Use [`Position::validate`] for the full validity check.
    pub fn from_parts(
        board: [Option<Piece>; 81],
        hands: [Hand; 2],
        side: Color,
        ply: u32,
    ) -> Result<Position, Invalid> {
        let pieces: Vec<(Square, Piece)> = Square::all()
            .filter_map(|sq| board[sq.index()].map(|p| (sq, p)))
            .collect();
        Position::from_piece_list(&pieces, hands, side, ply)
    }

    /// Builds a position from (square, piece) pairs on distinct squares, both kings included:
    /// the same position, keys and checkers as [`Position::from_parts`] on the equivalent
    /// board, in one pass over the pieces instead of passes over the 81 squares (the codecs'
    /// fast path).
    pub fn from_piece_list(
        pieces: &[(Square, Piece)],
        hands: [Hand; 2],
        side: Color,
        ply: u32,
    ) -> Result<Position, Invalid> {
        let mut board = [None; 81];
        let mut by_color = [Bitboard::EMPTY; 2];
        let mut by_type = [Bitboard::EMPTY; PieceType::NUM];
        let mut kings: [Option<Square>; 2] = [None, None];
        let mut board_key = if side == Color::White { SIDE } else { 0 };
        for &(sq, p) in pieces {
            board[sq.index()] = Some(p);
            let b = Bitboard::from_square(sq);
            by_color[p.color().index()] |= b;
            by_type[p.piece_type().index()] |= b;
            board_key ^= PRIMARY.piece_square[p.index()][sq.index()];
            if p.piece_type() == PieceType::King {
                if kings[p.color().index()].is_some() {
                    return Err(Invalid::ExtraKing(p.color()));
                }
                kings[p.color().index()] = Some(sq);
            }
        }
        let king_sq = [
            kings[0].ok_or(Invalid::MissingKing(Color::Black))?,
            kings[1].ok_or(Invalid::MissingKing(Color::White))?,
        ];
        let mut hand_key = 0;
        for c in Color::ALL {
            for pt in PieceType::HAND {
                let n = hands[c.index()].count(pt) as usize;
                hand_key ^= PRIMARY.hand[c.index()][pt.index()][n];
            }
        }
        let mut pos = Position {
            board,
            by_color,
            by_type,
            hands,
            side,
            king_sq,
            ply,
            board_key,
            hand_key,
            checkers: Bitboard::EMPTY,
            undo: Vec::new(), // no allocation until the first do_move: decoding builds millions
        };
        debug_assert_eq!((pos.board_key, pos.hand_key), pos.computed_keys());
        pos.checkers = pos.attackers_to(side.flip(), king_sq[side.index()], pos.occupied());
        Ok(pos)
    }
}

impl Position {
    /// A placeholder to decode into with [`Position::decoding_restart`] (an empty board
    /// without kings: not a valid position until a decoder has filled it).
    #[inline(always)]
    pub(crate) fn decoding_blank() -> Position {
        Position::bare(Color::Black, [Square::SQ_1A, Square::SQ_1A])
    }

    /// Turns `self` into an empty board with the two kings on their (distinct) squares,
    /// `side` to move, ply 1, no hands yet, keeping the undo stack's allocation (a worker
    /// decodes millions of records into one position), and returns the builder that places
    /// the other pieces. Only for decoders, which must go on with [`Builder::place`] and
    /// [`Builder::finish`].
    #[inline(always)]
    pub(crate) fn decoding_restart(
        &mut self,
        side: Color,
        black_king: Square,
        white_king: Square,
    ) -> Builder<'_> {
        debug_assert_ne!(black_king, white_king);
        self.board = [None; 81];
        self.hands = [Hand::EMPTY; 2];
        self.side = side;
        self.king_sq = [black_king, white_king];
        self.ply = 1;
        self.hand_key = 0;
        self.checkers = Bitboard::EMPTY;
        self.undo.clear();
        let mut b = Builder {
            board_key: if side == Color::White { SIDE } else { 0 },
            piece_bits: [0; 32],
            pos: self,
        };
        b.place(black_king, Piece::new(Color::Black, PieceType::King));
        b.place(white_king, Piece::new(Color::White, PieceType::King));
        b
    }
}

/// A position under construction by a decoder: the board array is written as pieces come,
/// the bitboards are gathered per piece (one OR per piece instead of one per colour and one
/// per kind) and stored, with the board key, by [`Builder::finish`].
///
/// Invariant: `piece_bits[p.index()]` and `board_key` describe exactly the pieces placed so
/// far, which are also on the board array; the position's bitboards and keys are stale
/// until `finish`.
pub(crate) struct Builder<'a> {
    pos: &'a mut Position,
    piece_bits: [u128; 32],
    board_key: u64,
}

impl Builder<'_> {
    /// Puts `p` on the empty square `sq`. The caller guarantees `sq` is empty and `p` is not
    /// a king (kings come from [`Position::decoding_restart`]).
    #[inline(always)]
    pub(crate) fn place(&mut self, sq: Square, p: Piece) {
        debug_assert!(self.pos.piece_on(sq).is_none());
        // `& 31`: a piece index is below 32, and saying so spares the bounds checks.
        let pi = p.index() & 31;
        self.pos.board[sq.index()] = Some(p);
        self.piece_bits[pi] |= SQUARE_BITS[sq.index()];
        self.board_key ^= PRIMARY.piece_square[pi][sq.index()];
    }

    /// Stores the bitboards and the board key, then finishes the position with `hands`
    /// ([`Position::decoding_finish`]: hand key, checkers, validation).
    #[inline(always)]
    pub(crate) fn finish(self, hands: [Hand; 2]) -> Result<(), Invalid> {
        let bits = &self.piece_bits;
        let (mut black, mut white) = (0u128, 0u128);
        for pt in 0..PieceType::NUM {
            self.pos.by_type[pt] = Bitboard::from_bits(bits[pt] | bits[16 + pt]);
            black |= bits[pt];
            white |= bits[16 + pt];
        }
        self.pos.by_color = [Bitboard::from_bits(black), Bitboard::from_bits(white)];
        self.pos.board_key = self.board_key;
        self.pos.decoding_finish(hands)
    }
}

impl Position {
    /// Sets the hands, the hand key and the checkers, then validates.
    ///
    /// Precondition: no kind has more pieces on the board and in the hands than a set holds
    /// (the decoders check the full inventory before calling this); the other rules (dead
    /// pieces, two pawns, the side not to move in check) are checked here with a few
    /// bitboard operations, and any suspicion is handed to [`Position::validate`], whose
    /// verdict (and error) is returned.
    #[inline(always)]
    fn decoding_finish(&mut self, hands: [Hand; 2]) -> Result<(), Invalid> {
        self.hands = hands;
        let mut hand_key = 0;
        for c in Color::ALL {
            for pt in PieceType::HAND {
                let n = hands[c.index()].count(pt) as usize;
                hand_key ^= PRIMARY.hand[c.index()][pt.index()][n];
            }
        }
        self.hand_key = hand_key;
        debug_assert_eq!((self.board_key, self.hand_key), self.computed_keys());
        let us = self.side_to_move();
        self.checkers = self.attackers_branchless(us.flip(), self.king_square(us));
        debug_assert_eq!(
            self.checkers,
            self.attackers_to(us.flip(), self.king_square(us), self.occupied())
        );
        let mut dead = Bitboard::EMPTY;
        let mut doubled = false;
        for c in Color::ALL {
            let pawns = self.pieces(c, PieceType::Pawn);
            dead |= (pawns | self.pieces(c, PieceType::Lance)) & Bitboard::forward_ranks(c, 1);
            dead |= self.pieces(c, PieceType::Knight) & Bitboard::forward_ranks(c, 2);
            doubled |= two_on_a_file(pawns);
        }
        let attacked = self.attackers_branchless(us, self.king_square(us.flip()));
        if dead.is_nonempty() || doubled || attacked.is_nonempty() {
            return self.validate();
        }
        debug_assert_eq!(self.validate(), Ok(()));
        Ok(())
    }

    /// `by`'s pieces attacking `sq`: the same set as [`Position::attackers_to`] with the
    /// current occupancy, without data-dependent branches. On each of the 8 rays from `sq`
    /// the nearest occupied square is isolated (lowest bit on rays of growing index, highest
    /// bit on the others) and kept if it holds a slider that moves along that ray.
    #[inline(always)]
    fn attackers_branchless(&self, by: Color, sq: Square) -> Bitboard {
        let them = by.flip();
        let bt = |pt: PieceType| self.by_type[pt.index()];
        let kings = bt(PieceType::King) | bt(PieceType::Horse) | bt(PieceType::Dragon);
        let steps = (attacks::pawn(them, sq) & bt(PieceType::Pawn))
            | (attacks::knight(them, sq) & bt(PieceType::Knight))
            | (attacks::silver(them, sq) & bt(PieceType::Silver))
            | (attacks::gold(them, sq) & self.golds())
            | (attacks::king(sq) & kings);
        let occ = self.occupied().bits();
        let rooks = (bt(PieceType::Rook) | bt(PieceType::Dragon)).bits();
        let bishops = (bt(PieceType::Bishop) | bt(PieceType::Horse)).bits();
        let lances = bt(PieceType::Lance).bits();
        // A Black lance attacks `sq` from below it (direction 1), a White one from above (0).
        let lance_dir = 1 - by.index();
        let mut sliders = 0u128;
        for dir in 0..8 {
            let on_ray = attacks::ray(dir, sq).bits() & occ;
            let nearest = if dir & 1 == 1 {
                on_ray & on_ray.wrapping_neg()
            } else {
                // `& 127` only matters for an empty ray, which the final `& on_ray` clears.
                ((1u128 << 127) >> (on_ray.leading_zeros() & 127)) & on_ray
            };
            let lance_mask = ((dir == lance_dir) as u128).wrapping_neg();
            let movers = if dir < 4 { rooks } else { bishops } | (lances & lance_mask);
            sliders |= nearest & movers;
        }
        (steps | Bitboard::from_bits(sliders)) & self.pieces_of(by)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_on_a_file_matches_counting_per_file() {
        let mut x: u128 = 0x1234_5678_9abc_def0_0fed_cba9_8765_4321;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Sparse sets (about one square in eight), like pawns.
            let set = Bitboard::from_bits(x & (x >> 1) & (x >> 2));
            let expect = (0..9).any(|f| (set & Bitboard::file(f)).count() >= 2);
            assert_eq!(two_on_a_file(set), expect, "{:#x}", set.bits());
        }
        for f in 0..9 {
            let file = Bitboard::file(f);
            assert!(!two_on_a_file(Bitboard::from_square(
                Square::from_file_rank(f, 8)
            )));
            assert!(two_on_a_file(file));
            assert!(!two_on_a_file(
                Bitboard::ALL.and_not(file) & Bitboard::rank(3)
            ));
        }
    }
}

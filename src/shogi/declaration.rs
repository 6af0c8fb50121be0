//! Entering king (入玉): the declaration rules and the seed-004 open-path scan
//! (docs/references.md). No I/O.
//!
//! # Declaration (入玉宣言)
//! The side to move may declare a win when all of these hold:
//! - its king stands in the enemy camp (the three far ranks: a–c for Black, g–i for White);
//! - it is not in check;
//! - at least 10 of its other pieces stand in the enemy camp;
//! - its points reach the rule's threshold. Points count the pieces in the enemy camp (king
//!   excluded) plus every piece in hand: rook and bishop, promoted or not, 5, every other
//!   piece 1.
//!
//! Thresholds: [`DeclarationRule::Csa27`] (CSA 27-point rule) needs 28 points for Black and
//! 27 for White; [`DeclarationRule::Jsa24`] (24-point rule) is a win at 31 or more and a
//! draw at 24–30. This matches cshogi's `is_nyugyoku(LAW_27)` / `nyugyoku_result` on every
//! corpus position (tests/it/filter.rs). The CSA rule's time condition is not modelled.
//!
//! # Open path (seed 004)
//! [`entering_path`] tells whether a king can walk into the enemy camp moving only straight or
//! diagonally forward, one rank per step, over squares that hold no own piece and that the
//! opponent does not attack. The seed's recurrence is, rank by rank toward the camp,
//! `next = ((prev << 1) | prev | (prev >> 1)) & 0x1ff & free(rank)`.
//!
//! In the file-major layout a rank is strided (bit `9f + r`), so gathering each rank into a
//! 9-bit word would cost a multiply per rank. Instead the recurrence runs in place on the
//! `u128`: "one file left / right" is a shift by 9 and "one rank forward" a shift by 1, so
//! `next = ((prev | prev << 9 | prev >> 9) >> 1 or << 1) & free & RANK[r]`. Only the final
//! camp rank is gathered into the 9-bit file mask, with one multiply ([`gather_rank`]).
//!
//! "Attacked" is computed with the walking king removed from the occupancy (a slider that
//! checks it along a line also covers the square behind it), like king-move legality.
//! Enemy pieces that are not defended are free squares: the king may capture them.
//!
//! # Invariants
//! [`EnteringPath::files`] has bit `f` set (0 = file 1) for each file of the first camp rank
//! (c for Black, g for White) that the king reaches; a king already in the camp reports its
//! own file and `in_camp`.

use super::attacks;
use super::bitboard::Bitboard;
use super::position::Position;
use super::types::{Color, PieceType};

/// Which declaration rule to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeclarationRule {
    /// CSA 27-point rule: Black needs 28 points, White 27.
    Csa27,
    /// 24-point rule: 31 or more wins, 24–30 is a draw.
    Jsa24,
}

/// The outcome of a declaration by the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeclarationResult {
    /// The conditions are not met.
    None,
    /// The declaration wins.
    Win,
    /// The declaration is a draw (24-point rule, 24–30 points).
    Draw,
}

/// The quantities the declaration rules look at, for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeclarationCount {
    /// The side to move's king is in the enemy camp.
    pub king_in_camp: bool,
    /// The side to move is in check.
    pub in_check: bool,
    /// The side to move's pieces in the enemy camp, king excluded.
    pub pieces_in_camp: u32,
    /// Points: pieces in the camp (king excluded) plus pieces in hand; rook and bishop
    /// (promoted or not) 5, others 1.
    pub points: u32,
}

impl DeclarationCount {
    /// Whether king, check and ten-piece conditions hold (everything except the points).
    #[inline]
    pub fn eligible(&self) -> bool {
        self.king_in_camp && !self.in_check && self.pieces_in_camp >= 10
    }
}

/// The enemy camp of `color`: the three ranks farthest from its own side.
#[inline(always)]
pub const fn enemy_camp(color: Color) -> Bitboard {
    Bitboard::forward_ranks(color, 3)
}

/// Counts the declaration quantities for the side to move. A few popcounts.
#[inline]
pub fn declaration_count(pos: &Position) -> DeclarationCount {
    let us = pos.side_to_move();
    let camp = enemy_camp(us);
    let king_in_camp = camp.has(pos.king_square(us));
    let ours = pos.pieces_of(us) & camp;
    let big = ours
        & (pos.pieces_of_type(PieceType::Bishop)
            | pos.pieces_of_type(PieceType::Rook)
            | pos.pieces_of_type(PieceType::Horse)
            | pos.pieces_of_type(PieceType::Dragon));
    let pieces_in_camp = ours.count() - king_in_camp as u32;
    let hand = pos.hand(us);
    let hand_small: u32 = [
        PieceType::Pawn,
        PieceType::Lance,
        PieceType::Knight,
        PieceType::Silver,
        PieceType::Gold,
    ]
    .iter()
    .map(|&pt| hand.count(pt) as u32)
    .sum();
    let hand_big = hand.count(PieceType::Bishop) as u32 + hand.count(PieceType::Rook) as u32;
    DeclarationCount {
        king_in_camp,
        in_check: pos.in_check(),
        pieces_in_camp,
        points: pieces_in_camp + 4 * big.count() + hand_small + 5 * hand_big,
    }
}

/// The result of a declaration by the side to move under `rule`.
#[inline]
pub fn declaration(pos: &Position, rule: DeclarationRule) -> DeclarationResult {
    let c = declaration_count(pos);
    judge(&c, pos.side_to_move(), rule)
}

/// Applies `rule`'s thresholds to counted quantities (`side` = the declaring side).
pub fn judge(c: &DeclarationCount, side: Color, rule: DeclarationRule) -> DeclarationResult {
    if !c.eligible() {
        return DeclarationResult::None;
    }
    match rule {
        DeclarationRule::Csa27 => {
            let need = match side {
                Color::Black => 28,
                Color::White => 27,
            };
            if c.points >= need {
                DeclarationResult::Win
            } else {
                DeclarationResult::None
            }
        }
        DeclarationRule::Jsa24 => match c.points {
            31.. => DeclarationResult::Win,
            24..=30 => DeclarationResult::Draw,
            _ => DeclarationResult::None,
        },
    }
}

// ---- attack map ----------------------------------------------------------------------

const RANK_A: u128 = Bitboard::rank(0).bits();
const RANK_B: u128 = Bitboard::rank(1).bits();
const RANK_H: u128 = Bitboard::rank(7).bits();
const RANK_I: u128 = Bitboard::rank(8).bits();
const ALL: u128 = Bitboard::ALL.bits();

/// One file left and right of every square in `b` (file-major: a shift by 9; the shift past
/// file 9 is cut by the 81-bit mask, the one below file 1 falls off).
#[inline(always)]
const fn sideways(b: u128) -> u128 {
    ((b << 9) | (b >> 9)) & ALL
}

/// Every square `by` attacks, with `occupied` blocking the sliders.
///
/// The step pieces are moved in bulk, a few shifts per kind (forward for Black is toward
/// rank a, i.e. a right shift by one; the source masks keep a shift inside its file); only
/// the king, lances and the four big pieces use the attack tables one by one. Tested against
/// per-square [`Position::attackers_to`] on every corpus position (tests/it/filter.rs).
pub fn attack_map(pos: &Position, by: Color, occupied: Bitboard) -> Bitboard {
    let theirs = pos.pieces_of(by).bits();
    let pawns = pos.pieces_of_type(PieceType::Pawn).bits() & theirs;
    let knights = pos.pieces_of_type(PieceType::Knight).bits() & theirs;
    let silvers = pos.pieces_of_type(PieceType::Silver).bits() & theirs;
    let golds = pos.golds().bits() & theirs;
    // Forward / backward one rank, and forward two ranks, for `by`.
    type Shift = fn(u128) -> u128;
    let (fwd, back, fwd2): (Shift, Shift, Shift) = match by {
        Color::Black => (
            |b| (b & !RANK_A) >> 1,
            |b| (b & !RANK_I) << 1,
            |b| (b & !(RANK_A | RANK_B)) >> 2,
        ),
        Color::White => (
            |b| (b & !RANK_I) << 1,
            |b| (b & !RANK_A) >> 1,
            |b| (b & !(RANK_H | RANK_I)) << 2,
        ),
    };
    let gs_fwd = fwd(golds | silvers);
    let mut acc = fwd(pawns)
        | gs_fwd
        | sideways(gs_fwd)
        | sideways(golds)
        | back(golds)
        | sideways(back(silvers))
        | sideways(fwd2(knights));
    acc |= attacks::king(pos.king_square(by)).bits();
    let bt = |pt| pos.pieces_of_type(pt).bits() & theirs;
    for sq in Bitboard::from_bits(bt(PieceType::Lance)) {
        acc |= attacks::lance(by, sq, occupied).bits();
    }
    let bishops = bt(PieceType::Bishop) | bt(PieceType::Horse);
    for sq in Bitboard::from_bits(bishops) {
        acc |= attacks::bishop(sq, occupied).bits();
    }
    let rooks = bt(PieceType::Rook) | bt(PieceType::Dragon);
    for sq in Bitboard::from_bits(rooks) {
        acc |= attacks::rook(sq, occupied).bits();
    }
    for sq in Bitboard::from_bits(bt(PieceType::Horse) | bt(PieceType::Dragon)) {
        acc |= attacks::king(sq).bits();
    }
    Bitboard::from_bits(acc)
}

// ---- open path -----------------------------------------------------------------------

/// Whether a king has an open path into the enemy camp, and where it arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct EnteringPath {
    /// The king already stands in the enemy camp.
    pub in_camp: bool,
    /// Bit `f` (0 = file 1): the king reaches file `f` of the first camp rank.
    pub files: u16,
}

impl EnteringPath {
    /// Whether some path reaches the camp (or the king is already in it).
    #[inline(always)]
    pub fn is_open(&self) -> bool {
        self.files != 0
    }

    /// Number of camp files reached.
    #[inline(always)]
    pub fn file_count(&self) -> u32 {
        self.files.count_ones()
    }
}

/// Collects the nine squares of rank `rank` (0 = a) into a 9-bit word, bit `f` = file `f`.
/// One shift, one mask and one multiply: the rank bits sit 9 apart, and multiplying by
/// `sum 2^(64 - 8f)` moves bit `9f` to bit `64 + f` with no two partial products meeting.
#[inline(always)]
pub const fn gather_rank(bb: Bitboard, rank: u8) -> u16 {
    const FILE_BASE: u128 = Bitboard::rank(0).bits();
    const MAGIC: u128 = {
        let mut m = 0u128;
        let mut f = 0;
        while f < 9 {
            m |= 1u128 << (64 - 8 * f);
            f += 1;
        }
        m
    };
    let spaced = (bb.bits() >> rank) & FILE_BASE;
    ((spaced.wrapping_mul(MAGIC) >> 64) & 0x1ff) as u16
}

/// The seed-004 scan (docs/references.md) for `color`'s king, computing the opponent's
/// attack map first. Works for either side, whoever is to move.
#[inline]
pub fn entering_path(pos: &Position, color: Color) -> EnteringPath {
    let king = pos.king_square(color);
    if enemy_camp(color).has(king) {
        return EnteringPath {
            in_camp: true,
            files: 1 << king.file(),
        };
    }
    let occ = pos.occupied().without(king);
    let attacked = attack_map(pos, color.flip(), occ);
    entering_path_with(pos, color, attacked)
}

/// The seed-004 scan (docs/references.md) for `color`'s king given the squares the opponent
/// attacks (computed with that king removed from the occupancy, see the module doc).
#[inline]
pub fn entering_path_with(pos: &Position, color: Color, attacked: Bitboard) -> EnteringPath {
    let king = pos.king_square(color);
    if enemy_camp(color).has(king) {
        return EnteringPath {
            in_camp: true,
            files: 1 << king.file(),
        };
    }
    let free = (!(pos.pieces_of(color) | attacked)).bits();
    let mut cur = 1u128 << king.index();
    let target = match color {
        Color::Black => {
            // Ranks king.rank()-1 down to c (2).
            let mut r = king.rank();
            while r > 2 {
                r -= 1;
                let spread = cur | (cur << 9) | (cur >> 9);
                cur = (spread >> 1) & free & Bitboard::rank(r).bits();
                if cur == 0 {
                    break;
                }
            }
            2
        }
        Color::White => {
            let mut r = king.rank();
            while r < 6 {
                r += 1;
                let spread = cur | (cur << 9) | (cur >> 9);
                cur = (spread << 1) & free & Bitboard::rank(r).bits();
                if cur == 0 {
                    break;
                }
            }
            6
        }
    };
    EnteringPath {
        in_camp: false,
        files: gather_rank(Bitboard::from_bits(cur), target),
    }
}

/// Both kings' open paths: `[black, white]`.
#[inline]
pub fn entering_paths(pos: &Position) -> [EnteringPath; 2] {
    [
        entering_path(pos, Color::Black),
        entering_path(pos, Color::White),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::types::Square;

    #[test]
    fn gather_rank_matches_per_square_loop() {
        let mut x: u128 = 0x9e37_79b9_7f4a_7c15_0123_4567_89ab_cdef;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bb = Bitboard::from_bits(x);
            for r in 0..9u8 {
                let mut want = 0u16;
                for f in 0..9u8 {
                    if bb.has(Square::from_file_rank(f, r)) {
                        want |= 1 << f;
                    }
                }
                assert_eq!(gather_rank(bb, r), want, "rank {r} of {bb:?}");
            }
        }
        assert_eq!(gather_rank(Bitboard::ALL, 4), 0x1ff);
    }

    /// Random boards (any piece on any square, dead pieces included, one king each): the
    /// bulk attack map equals the per-square attackers.
    #[test]
    fn attack_map_matches_attackers_on_random_boards() {
        use crate::shogi::types::Piece;
        use crate::shogi::Hand;
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..3000 {
            let mut board = [None; 81];
            let density = 2 + next() % 5;
            for sq in board.iter_mut() {
                if next() % density == 0 {
                    let pt = PieceType::ALL[(next() % 14) as usize];
                    if pt != PieceType::King {
                        let c = Color::ALL[(next() % 2) as usize];
                        *sq = Some(Piece::new(c, pt));
                    }
                }
            }
            let bk = (next() % 81) as usize;
            let wk = (bk + 1 + (next() % 80) as usize) % 81;
            board[bk] = Some(Piece::new(Color::Black, PieceType::King));
            board[wk] = Some(Piece::new(Color::White, PieceType::King));
            let Ok(pos) = Position::from_parts(board, [Hand::EMPTY; 2], Color::Black, 1) else {
                panic!("two kings were placed");
            };
            for by in Color::ALL {
                let occ = pos.occupied();
                let map = attack_map(&pos, by, occ);
                for sq in Square::all() {
                    assert_eq!(
                        map.has(sq),
                        pos.attackers_to(by, sq, occ).is_nonempty(),
                        "{by:?} {sq} {}",
                        pos.to_sfen()
                    );
                }
            }
        }
    }
}

//! The attack queries of a [`Position`]: who attacks a square (given an occupancy or the
//! current one), slider lines, pins and discovered-check candidates.
//!
//! Below move generation and the mate tests, which use them; this file uses only the
//! position, the attack tables and bitboards.

use super::Position;
use crate::shogi::attacks;
use crate::shogi::bitboard::Bitboard;
use crate::shogi::types::{Color, PieceType, Square};

impl Position {
    /// `by`'s pieces that attack `sq`, given `occupied` for the sliders.
    #[inline]
    pub fn attackers_to(&self, by: Color, sq: Square, occupied: Bitboard) -> Bitboard {
        (self.step_attackers(by, sq) & self.by_color[by.index()])
            | self.sliders_reaching(by, sq, occupied)
    }

    /// The pieces, of either colour, that would attack `sq` by a step if they were `by`'s:
    /// pawns, knights, silvers, gold-likes, kings and the king steps of horses and dragons
    /// (occupancy plays no part). Mask with `by`'s pieces, or a subset of them, to use it.
    #[inline(always)]
    pub fn step_attackers(&self, by: Color, sq: Square) -> Bitboard {
        let them = by.flip();
        let bt = &self.by_type;
        let kings = bt[PieceType::King.index()]
            | bt[PieceType::Horse.index()]
            | bt[PieceType::Dragon.index()];
        (attacks::pawn(them, sq) & bt[PieceType::Pawn.index()])
            | (attacks::knight(them, sq) & bt[PieceType::Knight.index()])
            | (attacks::silver(them, sq) & bt[PieceType::Silver.index()])
            | (attacks::gold(them, sq) & self.golds())
            | (attacks::king(sq) & kings)
    }

    /// `by`'s lances, bishops, rooks, horses and dragons that attack `sq` given `occupied`:
    /// each candidate on a line to `sq` whose squares in between are empty. Cheaper than
    /// computing the slider attacks from `sq` when, as usual, few sliders are aligned.
    #[inline(always)]
    pub fn sliders_reaching(&self, by: Color, sq: Square, occupied: Bitboard) -> Bitboard {
        let mut hits = Bitboard::EMPTY;
        for c in self.slider_candidates(by, sq) {
            if (attacks::between(sq, c) & occupied).is_empty() {
                hits = hits.with(c);
            }
        }
        hits
    }

    /// Whether `by` attacks `sq` with the current occupancy.
    #[inline]
    pub fn is_attacked(&self, by: Color, sq: Square) -> bool {
        self.attackers_to(by, sq, self.occupied()).is_nonempty()
    }

    /// `color`'s sliders (lance, bishop, rook, horse, dragon) that would attack `target` on an
    /// empty board: the candidates for pinning or discovered checks along lines to `target`.
    #[inline]
    pub fn slider_candidates(&self, color: Color, target: Square) -> Bitboard {
        let bt = &self.by_type;
        let bishops = bt[PieceType::Bishop.index()] | bt[PieceType::Horse.index()];
        let rooks = bt[PieceType::Rook.index()] | bt[PieceType::Dragon.index()];
        // A lance of `color` attacks `target` from the squares a lance of the other colour on
        // `target` would see.
        ((attacks::bishop_pseudo(target) & bishops)
            | (attacks::rook_pseudo(target) & rooks)
            | (attacks::lance_pseudo(color.flip(), target) & bt[PieceType::Lance.index()]))
            & self.by_color[color.index()]
    }

    /// Pieces (of either colour) that are the only piece between `target` and a slider of
    /// `slider_color` aimed at it. With `target` = own king and `slider_color` = enemy these
    /// are the pin candidates; with the enemy king and own sliders, discovered-check
    /// candidates.
    #[inline]
    pub fn blockers(&self, slider_color: Color, target: Square) -> Bitboard {
        let occ = self.occupied();
        let mut out = Bitboard::EMPTY;
        for s in self.slider_candidates(slider_color, target) {
            let b = attacks::between(target, s) & occ;
            if b.is_nonempty() && !b.more_than_one() {
                out |= b;
            }
        }
        out
    }

    /// `color`'s pieces pinned to its own king.
    #[inline]
    pub fn pinned(&self, color: Color) -> Bitboard {
        self.blockers(color.flip(), self.king_sq[color.index()]) & self.by_color[color.index()]
    }
}

/// Whether `by` attacks `sq` given `occ`: [`Position::attackers_to`] as a boolean, with
/// the step pieces tested first and an early exit.
#[inline(always)]
pub fn is_attacked(pos: &Position, by: Color, sq: Square, occ: Bitboard) -> bool {
    is_attacked_by(pos, by, pos.pieces_of(by), sq, occ)
}

/// [`is_attacked`] counting only the pieces of `by` in `own` (a subset of `by`'s pieces
/// on the board, e.g. without a piece that is about to move).
#[inline(always)]
pub(crate) fn is_attacked_by(
    pos: &Position,
    by: Color,
    own: Bitboard,
    sq: Square,
    occ: Bitboard,
) -> bool {
    (pos.step_attackers(by, sq) & own).is_nonempty() || sliders_attack(pos, by.flip(), own, sq, occ)
}

/// Whether a lance, bishop, rook, horse or dragon in `own` (pieces of `them.flip()`)
/// attacks `sq` given `occ`: some aligned candidate with nothing in between.
#[inline(always)]
pub(crate) fn sliders_attack(
    pos: &Position,
    them: Color,
    own: Bitboard,
    sq: Square,
    occ: Bitboard,
) -> bool {
    let candidates = pos.slider_candidates(them.flip(), sq) & own;
    candidates
        .into_iter()
        .any(|c| (attacks::between(sq, c) & occ).is_empty())
}

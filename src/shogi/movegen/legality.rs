//! The legality queries of a [`Position`] built on move generation: whether a move is
//! legal, the legal moves, checkmate.

use super::{drop_squares, generate_legal, has_legal_move, is_pawn_drop_mate};
use crate::shogi::attacks;
use crate::shogi::bitboard::Bitboard;
use crate::shogi::moves::{Move, MoveList};
use crate::shogi::position::Position;
use crate::shogi::types::PieceType;

impl Position {
    /// All legal moves, as a convenience over [`generate_legal`].
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        generate_legal(self, &mut list);
        list
    }

    /// Whether `m` is legal here. Accepts any bits (moves read from files), never panics.
    pub fn is_legal(&self, m: Move) -> bool {
        if m.is_none() {
            return false;
        }
        let us = self.side_to_move();
        let ksq = self.king_square(us);
        let to = m.to();
        if self.piece_on(to).is_some_and(|p| p.color() == us) {
            return false;
        }
        let checkers = self.checkers();
        if m.is_drop() {
            let pt = m.drop_piece();
            if !self.hand(us).has(pt) || self.piece_on(to).is_some() {
                return false;
            }
            let allowed = drop_squares(self, us, pt).has(to)
                && !(pt == PieceType::Pawn
                    && attacks::pawn(us, to).has(self.king_square(us.flip()))
                    && is_pawn_drop_mate(self, to));
            if !allowed {
                return false;
            }
            return match checkers.lsb() {
                None => true,
                Some(c) => !checkers.more_than_one() && attacks::between(ksq, c).has(to),
            };
        }
        let from = m.from();
        let Some(p) = self.piece_on(from) else {
            return false;
        };
        if p.color() != us {
            return false;
        }
        let pt = p.piece_type();
        if !attacks::piece(us, pt, from, self.occupied()).has(to) {
            return false;
        }
        let zone = Bitboard::forward_ranks(us, 3);
        if m.is_promotion() {
            if !pt.can_promote() || !(zone.has(from) || zone.has(to)) {
                return false;
            }
        } else {
            let forbidden = match pt {
                PieceType::Pawn | PieceType::Lance => Bitboard::forward_ranks(us, 1),
                PieceType::Knight => Bitboard::forward_ranks(us, 2),
                _ => Bitboard::EMPTY,
            };
            if forbidden.has(to) {
                return false;
            }
        }
        if pt == PieceType::King {
            return self
                .attackers_to(us.flip(), to, self.occupied().without(from))
                .is_empty();
        }
        if let Some(c) = checkers.lsb() {
            if checkers.more_than_one() || !attacks::between(ksq, c).with(c).has(to) {
                return false;
            }
        }
        !self.pinned(us).has(from) || attacks::line(ksq, from).has(to)
    }

    /// Whether the side to move is checkmated (in check, no legal move).
    pub fn is_checkmated(&self) -> bool {
        self.in_check() && !has_legal_move(self)
    }
}

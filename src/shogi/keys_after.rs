//! [`Position::keys_after`]: the keys a move would produce, without playing it.
//!
//! The mate solver looks up every child of a node in its table; computing the child's keys
//! from the Zobrist deltas avoids a do/undo pair for every child that is found. The result
//! equals the keys `do_move` would produce (tested on every legal move of many positions).

use super::hand::Hand;
use super::moves::Move;
use super::position::Position;
use super::types::Piece;
use super::zobrist::{hand_count_key, PRIMARY, SIDE};

impl Position {
    /// `(board_key, hand_key, mover's hand)` after the pseudo-legal move `m`.
    #[inline]
    pub fn keys_after(&self, m: Move) -> (u64, u64, Hand) {
        let us = self.side_to_move();
        let ps = &PRIMARY.piece_square;
        let mut bk = self.board_key() ^ SIDE;
        let mut hk = self.hand_key();
        let mut hand = self.hand(us);
        let to = m.to().index();
        if m.is_drop() {
            let pt = m.drop_piece();
            let n = hand.count(pt);
            if n == 0 {
                return (bk, hk, hand);
            }
            hk ^= hand_count_key(us, pt, n) ^ hand_count_key(us, pt, n - 1);
            hand.remove(pt);
            bk ^= ps[Piece::new(us, pt).index()][to];
        } else {
            let from = m.from();
            let Some(moving) = self.piece_on(from) else {
                return (bk, hk, hand);
            };
            if let Some(cap) = self.piece_on(m.to()) {
                bk ^= ps[cap.index()][to];
                let pt = cap.piece_type().unpromote();
                let n = hand.count(pt);
                hk ^= hand_count_key(us, pt, n) ^ hand_count_key(us, pt, n + 1);
                hand.add(pt);
            }
            bk ^= ps[moving.index()][from.index()];
            let placed = if m.is_promotion() {
                Piece::new(us, moving.piece_type().promote())
            } else {
                moving
            };
            bk ^= ps[placed.index()][to];
        }
        (bk, hk, hand)
    }
}

#[cfg(test)]
mod tests {
    use crate::shogi::{MoveList, Position};

    #[test]
    fn equals_do_move_on_playouts() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut pos = Position::from_sfen(
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        )
        .unwrap();
        for _ in 0..300 {
            let mut legal = MoveList::new();
            crate::shogi::movegen::generate_legal(&pos, &mut legal);
            if legal.is_empty() {
                break;
            }
            for &m in &legal {
                let us = pos.side_to_move();
                let (bk, hk, h) = pos.keys_after(m);
                pos.do_move(m);
                assert_eq!((bk, hk, h), (pos.board_key(), pos.hand_key(), pos.hand(us)));
                pos.undo_move();
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            pos.do_move(legal.as_slice()[(seed % legal.len() as u64) as usize]);
        }
    }
}

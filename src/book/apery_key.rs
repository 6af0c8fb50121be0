//! Apery's book key (also dlshogi's and cshogi's `Board.book_key()`), and the
//! `std::mt19937_64` its tables are drawn from.
//!
//! The tables are drawn from `mt19937_64` with its default seed 5489, in this order:
//! `ZobPiece[31][81]` (Apery's piece codes 0..31, square index file × 9 + rank),
//! `ZobHand[7][19]` (hand kinds P L N S G B R, counts 0..=18), then `ZobTurn`. A key is the
//! XOR of `ZobPiece[piece][square]` over the board's pieces, `ZobHand[kind][count]` over the
//! seven kinds of the side to move's hand (count 0 included; the other hand is not hashed),
//! and `ZobTurn` when White is to move. The start position's key is `0xeebe8ee7e1ad7e15`.

use crate::shogi::{PieceType, Position};

/// The 64-bit Mersenne Twister (`std::mt19937_64`).
pub struct Mt19937_64 {
    state: [u64; 312],
    index: usize,
}

impl Mt19937_64 {
    /// The generator seeded with `seed` (`std::mt19937_64`'s default seed is 5489).
    pub const fn new(seed: u64) -> Mt19937_64 {
        let mut state = [0u64; 312];
        state[0] = seed;
        let mut i = 1;
        while i < 312 {
            let prev = state[i - 1];
            state[i] = 6364136223846793005u64
                .wrapping_mul(prev ^ (prev >> 62))
                .wrapping_add(i as u64);
            i += 1;
        }
        Mt19937_64 { state, index: 312 }
    }

    /// Refills the state (the "twist").
    const fn twist(&mut self) {
        const UPPER: u64 = 0xFFFF_FFFF_8000_0000;
        const LOWER: u64 = 0x7FFF_FFFF;
        let mut i = 0;
        while i < 312 {
            let x = (self.state[i] & UPPER) | (self.state[(i + 1) % 312] & LOWER);
            let mut xa = x >> 1;
            if x & 1 != 0 {
                xa ^= 0xB502_6F5A_A966_19E9;
            }
            self.state[i] = self.state[(i + 156) % 312] ^ xa;
            i += 1;
        }
        self.index = 0;
    }

    /// The next 64-bit output.
    pub const fn next_u64(&mut self) -> u64 {
        if self.index >= 312 {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= (y >> 29) & 0x5555_5555_5555_5555;
        y ^= (y << 17) & 0x71D6_7FFF_EDA6_0000;
        y ^= (y << 37) & 0xFFF7_EEE0_0000_0000;
        y ^ (y >> 43)
    }
}

/// Apery's key tables.
struct Tables {
    piece: [[u64; 81]; 31],
    hand: [[u64; 19]; 7],
    turn: u64,
}

const fn tables() -> Tables {
    let mut mt = Mt19937_64::new(5489);
    let mut t = Tables {
        piece: [[0; 81]; 31],
        hand: [[0; 19]; 7],
        turn: 0,
    };
    let mut p = 0;
    while p < 31 {
        let mut sq = 0;
        while sq < 81 {
            t.piece[p][sq] = mt.next_u64();
            sq += 1;
        }
        p += 1;
    }
    let mut h = 0;
    while h < 7 {
        let mut n = 0;
        while n < 19 {
            t.hand[h][n] = mt.next_u64();
            n += 1;
        }
        h += 1;
    }
    t.turn = mt.next_u64();
    t
}

static TABLES: Tables = tables();

/// Apery's book key of `pos` (see the module doc).
pub fn key(pos: &Position) -> u64 {
    let t = &TABLES;
    let mut key = 0u64;
    for (sq, piece) in pos.board().iter().enumerate() {
        if let Some(p) = piece {
            // Apery's piece code is colour × 16 + kind + 1 (kinds P L N S B R G K +P … +R),
            // which is `Piece::index() + 1`.
            key ^= t.piece[p.index() + 1][sq];
        }
    }
    let hand = pos.hand(pos.side_to_move());
    for (row, pt) in PieceType::HAND_GOLD_FIRST.iter().enumerate() {
        key ^= t.hand[row][usize::from(hand.count(*pt)).min(18)];
    }
    if pos.side_to_move() == crate::shogi::Color::White {
        key ^= t.turn;
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mt19937_64_matches_the_standard_10000th_output() {
        // The C++ standard ([rand.predef]) fixes the 10000th output of a
        // default-constructed mt19937_64.
        let mut mt = Mt19937_64::new(5489);
        let mut last = 0;
        for _ in 0..10000 {
            last = mt.next_u64();
        }
        assert_eq!(last, 9981545732273789042);
    }

    #[test]
    fn hirate_key_is_aperys() {
        assert_eq!(key(&Position::startpos()), 0xeebe8ee7e1ad7e15);
    }
}

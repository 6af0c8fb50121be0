//! Zobrist keys (seeds 000, 001), generated at compile time from a fixed seed.
//!
//! - The **board key** covers the pieces on the board and the side to move.
//! - The **hand key** covers both hands: for each side and kind, the key of the current count
//!   (count 0 has key 0), so adding or removing one piece is two XORs.
//! - The **position key** is `board_key ^ hand_key`. All updates are XOR, so do and undo are
//!   the same operation.
//! - The [`Fingerprint`] is 128 bits from a second, independent pair of tables: collision-safe
//!   for deduplication at billions of records (the 64-bit key would expect a collision near
//!   four billion records).
//!
//! # Stability
//! Changing the seeds changes every key. Keys are not written to any output format, so the
//! only cost is that a table filled by an older build is meaningless (they never persist).

use super::types::{Color, PieceType};

const fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One independent family of keys.
pub(crate) struct Keys {
    /// `[piece.index()][square]`; bit 0 is always clear, so the side bit stays separate.
    pub piece_square: [[u64; 81]; 32],
    /// `[color][hand index][count]`, count 0 = 0.
    pub hand: [[[u64; 19]; 7]; 2],
}

/// XORed into the board key when White is to move. It is the only odd key, so the lowest
/// bit of a board key tells the side to move.
pub const SIDE: u64 = 1;

const fn build(seed: u64) -> Keys {
    let mut state = seed;
    let mut keys = Keys {
        piece_square: [[0; 81]; 32],
        hand: [[[0; 19]; 7]; 2],
    };
    let mut p = 0;
    while p < 32 {
        let mut sq = 0;
        while sq < 81 {
            keys.piece_square[p][sq] = splitmix(&mut state) & !1;
            sq += 1;
        }
        p += 1;
    }
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 7 {
            let mut n = 1;
            while n < 19 {
                keys.hand[c][k][n] = splitmix(&mut state) & !1;
                n += 1;
            }
            k += 1;
        }
        c += 1;
    }
    keys
}

/// The keys behind board, hand and position keys.
pub(crate) static PRIMARY: Keys = build(0x706f_7366_696c_7465);
/// The second family, used only for the upper half of [`Fingerprint`].
pub(crate) static SECONDARY: Keys = build(0x0123_4567_89ab_cdef);

/// Hand-key delta for `color` holding `count` of hand kind `pt` (XOR it out before a change
/// and the new count's key in after).
#[inline(always)]
pub(crate) fn hand_count_key(color: Color, pt: PieceType, count: u8) -> u64 {
    PRIMARY.hand[color.index()][pt.index()][count as usize]
}

/// A 128-bit position fingerprint: board, side to move and both hands, from two independent
/// key families. Equal positions have equal fingerprints; distinct positions collide with
/// probability about 2^-128 per pair.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Fingerprint(pub u128);

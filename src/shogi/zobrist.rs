//! Zobrist keys (seeds 000, 001: docs/references.md), generated at compile time from a
//! fixed seed.
//!
//! - The **board key** covers the pieces on the board and the side to move.
//! - The **hand key** covers both hands: for each side and kind, the key of the current count
//!   (count 0 has key 0), so adding or removing one piece is two XORs.
//! - The **position key** is `board_key ^ hand_key`. All updates are XOR, so do and undo are
//!   the same operation.
//! - The [`Fingerprint`] is 128 bits: the position key and a second, independent 64-bit
//!   hash of the position's contents (`content_hash`): collision-safe for deduplication at
//!   billions of records (the 64-bit key alone would expect a collision near four billion).
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
/// Hand-key delta for `color` holding `count` of hand kind `pt` (XOR it out before a change
/// and the new count's key in after).
#[inline(always)]
pub(crate) fn hand_count_key(color: Color, pt: PieceType, count: u8) -> u64 {
    PRIMARY.hand[color.index()][pt.index()][count as usize]
}

/// A 128-bit position fingerprint: board, side to move and both hands; the low half is the
/// Zobrist position key, the high half `content_hash`. Equal positions have equal
/// fingerprints; distinct positions collide with probability about 2^-128 per pair.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Fingerprint(pub u128);

/// Secrets of [`content_hash`]: random, with the top bit of every byte set, so that no input
/// word (board bytes are at most 32, hand words below 2^27 per colour, the side 0 or 1) can
/// equal one; a folded multiply by zero would ignore its other word.
const SECRETS: [u64; 13] = {
    let mut t = [0u64; 13];
    let mut state = 0x6669_6e67_6572_7072u64;
    let mut i = 0;
    while i < t.len() {
        t[i] = splitmix(&mut state) | 0x8080_8080_8080_8080;
        i += 1;
    }
    t
};

/// The 128-bit product of `a` and `b` folded to 64 bits (high half XOR low half).
#[inline(always)]
const fn fold(a: u64, b: u64) -> u64 {
    let r = (a as u128) * (b as u128);
    (r as u64) ^ ((r >> 64) as u64)
}

/// A 64-bit hash of a position's contents, independent of the Zobrist keys: `board` holds
/// one byte per square (0 empty, else `piece.index() + 1`), then the raw hands and the side.
/// Twelve words go through six independent folded multiplies (wyhash-style), combined by
/// four more; about 30 cycles, against ~40 table lookups for a second Zobrist family.
#[inline]
pub(crate) fn content_hash(board: &[u8; 81], hands: [u32; 2], side: Color) -> u64 {
    let mut bytes = [0u8; 96];
    bytes[..81].copy_from_slice(board);
    bytes[81] = side as u8;
    bytes[88..92].copy_from_slice(&hands[0].to_le_bytes());
    bytes[92..96].copy_from_slice(&hands[1].to_le_bytes());
    let word = |i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[8 * i..8 * i + 8]);
        u64::from_le_bytes(w) ^ SECRETS[i]
    };
    let m: [u64; 6] = std::array::from_fn(|i| fold(word(2 * i), word(2 * i + 1)));
    let a = fold(m[0] ^ SECRETS[6], m[1] ^ SECRETS[7]);
    let b = fold(m[2] ^ SECRETS[8], m[3] ^ SECRETS[9]);
    let c = fold(m[4] ^ SECRETS[10], m[5] ^ SECRETS[11]);
    fold(a ^ b.rotate_left(21) ^ SECRETS[12], c ^ SECRETS[0])
}

//! A pass-through hasher for keys that are already uniformly random (Zobrist board keys,
//! 128-bit fingerprints). Hashing them again with SipHash would only cost time.
//!
//! # Invariants
//! Only use it for keys whose low 64 bits are uniformly distributed; a structured key
//! (a counter, a square index) would put every entry into a few buckets.

use std::hash::{BuildHasherDefault, Hasher};

/// Keeps the last `u64` (or the XOR of the halves of a `u128`) written as the hash.
#[derive(Default, Clone, Copy, Debug)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }

    /// Fallback for other key types: FNV-1a over the bytes.
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0 ^ 0xcbf2_9ce4_8422_2325;
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        self.0 = h;
    }

    #[inline(always)]
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }

    #[inline(always)]
    fn write_u128(&mut self, v: u128) {
        self.0 = (v as u64) ^ ((v >> 64) as u64);
    }
}

/// `BuildHasher` for [`KeyHasher`].
pub type BuildKeyHasher = BuildHasherDefault<KeyHasher>;

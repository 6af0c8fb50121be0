//! [`FirstSeen`]: the pipeline's dedup index, from a position's 128-bit [`Fingerprint`] to the
//! global index of the first record that had it, built for an index far larger than the
//! CPU caches.
//!
//! A general hash map keeps control bytes and entries apart, so inserting a new key misses
//! the cache twice, and a probe of the next record cannot start before the current one has
//! decided. Here a slot holds the key and its value in 16 bytes (open addressing with
//! linear probing, at most 70 % full; four slots to a cache line, none straddling two), so
//! a probe touches one line or two adjacent ones, and [`FirstSeen::warm`] lets a caller
//! touch the slots of many keys first, in a loop of independent loads that the CPU
//! overlaps, before the ordered pass that decides.
//!
//! The index is split into [`SHARDS`] tables by the top bits of the key's high half, each
//! growing on its own. A run with hundreds of millions of distinct positions thus never
//! holds an old and a new copy of the whole index at once (a single table doubling from
//! 2^29 to 2^30 slots would need 25 GiB at its peak), and the commit never stops for
//! seconds to rehash and fault in gigabytes: each growth moves 1/256 of the keys.
//!
//! # What a slot holds
//! The key's low half (64 bits, which also picks the home slot), bits 32..56 of its high
//! half (24 bits; bits 56..64 pick the shard, so they are implied), and the first index
//! in 40 bits. Keys are thus told apart by 96 of their 128 bits: two distinct positions
//! are confused with a probability of about n² / 2^97 for n distinct positions, 6 × 10^-12
//! for a billion. Indices up to 2^40 - 3 (a trillion records) are exact; larger ones are
//! stored as that bound (only the audit's `first_index` would show it), and `u64::MAX`
//! (a reference pool's mark) is kept as is.
//!
//! # Invariants
//! - A key lives in shard `high half >> (64 - SHARD_BITS)`; within it a slot is empty iff
//!   its packed word is zero (a stored index is kept plus one, so it is never zero).
//! - Every stored key sits at its home slot (`low half & mask`) of its shard or after it
//!   with no empty slot in between (linear probing; there are no deletions).
//! - `len` counts the stored keys; each shard is at most 70 % full outside `grow`.

use crate::shogi::Fingerprint;

/// One slot: the key's low half, and the packed word `high bits << 40 | index + 1`.
type Slot = [u64; 2];
const LO: usize = 0;
const PACKED: usize = 1;

/// Bits of the packed word that hold the index (plus one).
const INDEX_BITS: u32 = 40;
const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;
/// The stored form of `u64::MAX` (a reference pool's mark).
const STORED_MAX: u64 = INDEX_MASK;
/// The largest index stored exactly.
const LARGEST_EXACT: u64 = INDEX_MASK - 2;

/// Bits of the key's high half that pick the shard.
const SHARD_BITS: u32 = 8;
/// Number of independently growing tables.
pub const SHARDS: usize = 1 << SHARD_BITS;

/// Map from fingerprints to the index of the first record that had them (see the module).
#[derive(Clone, Debug)]
pub struct FirstSeen {
    shards: Vec<Shard>,
    len: usize,
}

/// One open-addressing table of the index.
#[derive(Clone, Debug)]
struct Shard {
    slots: Vec<Slot>,
    mask: usize,
    len: usize,
}

impl Default for FirstSeen {
    fn default() -> FirstSeen {
        FirstSeen::with_capacity(0)
    }
}

/// `n` empty slots with every page written once. A fresh zeroed allocation is mapped lazily,
/// and a page first read (a probe reads a slot before it writes one) maps the shared zero
/// page, so the write that follows costs a copy-on-write fault and a TLB flush on every
/// core: perf showed those flushes as over 10 % of the commit thread. One write per page up
/// front is a plain fault (and lets [`FirstSeen::warm`]'s prefetches, which never fault,
/// reach memory instead of being dropped on an unmapped page).
fn empty_slots(n: usize) -> Vec<Slot> {
    let mut slots = vec![[0u64; 2]; n];
    for s in slots.iter_mut().step_by(4096 / std::mem::size_of::<Slot>()) {
        // `black_box`: the store must happen although the memory is known to be zero.
        s[PACKED] = std::hint::black_box(0);
    }
    slots
}

/// The fewest slots for `keys` keys at most 70 % full (a power of two, at least 16).
fn slots_for(keys: usize) -> usize {
    (keys.saturating_mul(10) / 7 + 1)
        .next_power_of_two()
        .max(16)
}

/// The high half's bits a slot keeps, in place above the index.
#[inline(always)]
fn high_tag(hi: u64) -> u64 {
    // Bits 32..56 of `hi` land on 40..64; the shard bits 56..64 are shifted out.
    hi >> 32 << INDEX_BITS
}

/// An index as the slot stores it (never zero).
#[inline(always)]
fn store_index(index: u64) -> u64 {
    if index == u64::MAX {
        STORED_MAX
    } else {
        index.min(LARGEST_EXACT) + 1
    }
}

/// The index a slot's packed word holds.
#[inline(always)]
fn load_index(packed: u64) -> u64 {
    match packed & INDEX_MASK {
        STORED_MAX => u64::MAX,
        stored => stored - 1,
    }
}

impl Shard {
    fn with_capacity(keys: usize) -> Shard {
        let n = slots_for(keys);
        Shard {
            slots: empty_slots(n),
            mask: n - 1,
            len: 0,
        }
    }

    #[inline(always)]
    fn get(&self, lo: u64, tag: u64) -> Option<u64> {
        let mut i = lo as usize & self.mask;
        loop {
            let s = self.slots[i];
            if s[PACKED] == 0 {
                return None;
            }
            if s[LO] == lo && s[PACKED] & !INDEX_MASK == tag {
                return Some(load_index(s[PACKED]));
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Stores `(lo, tag) → index` unless the key is there; `None` if it was new.
    #[inline(always)]
    fn first_or_insert(&mut self, lo: u64, tag: u64, index: u64) -> Option<u64> {
        let mut i = lo as usize & self.mask;
        loop {
            let s = &mut self.slots[i];
            if s[PACKED] == 0 {
                *s = [lo, tag | store_index(index)];
                self.len += 1;
                if self.len * 10 > self.slots.len() * 7 {
                    self.grow();
                }
                return None;
            }
            if s[LO] == lo && s[PACKED] & !INDEX_MASK == tag {
                return Some(load_index(s[PACKED]));
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Doubles the slots and re-places every key.
    #[cold]
    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, empty_slots(n));
        self.mask = n - 1;
        for s in old.into_iter().filter(|s| s[PACKED] != 0) {
            let mut i = s[LO] as usize & self.mask;
            while self.slots[i][PACKED] != 0 {
                i = (i + 1) & self.mask;
            }
            self.slots[i] = s;
        }
    }
}

impl FirstSeen {
    /// An empty index with room for about `keys` keys (spread evenly over the shards)
    /// before it grows.
    pub fn with_capacity(keys: usize) -> FirstSeen {
        FirstSeen {
            shards: (0..SHARDS)
                .map(|_| Shard::with_capacity(keys.div_ceil(SHARDS)))
                .collect(),
            len: 0,
        }
    }

    /// The bytes of the tables holding `keys` distinct keys spread evenly over the shards
    /// (each shard at the power-of-two size that keeps it at most 70 % full), for planning.
    pub fn bytes_for(keys: u64) -> u64 {
        // Capped far beyond any input so that the slot count cannot overflow.
        let per_shard = keys.div_ceil(SHARDS as u64).min(1 << 48) as usize;
        (slots_for(per_shard) as u64)
            .saturating_mul(SHARDS as u64)
            .saturating_mul(std::mem::size_of::<Slot>() as u64)
    }

    /// Number of distinct keys stored.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no key is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first index stored for `key`, if any.
    pub fn get(&self, key: Fingerprint) -> Option<u64> {
        let (lo, hi) = halves(key);
        self.shards[shard_of(hi)].get(lo, high_tag(hi))
    }

    /// Prefetches `key`'s home slot: a hint that makes a following
    /// [`FirstSeen::first_or_insert`] of the same key find it in the cache. Calling it for a
    /// batch of keys in a row keeps many cache misses in flight at once.
    #[inline]
    pub fn warm(&self, key: Fingerprint) {
        let (lo, hi) = halves(key);
        let shard = &self.shards[shard_of(hi)];
        crate::prefetch::prefetch(&shard.slots[lo as usize & shard.mask]);
    }

    /// If `key` is stored, its first index; otherwise stores `index` for it and returns `None`.
    pub fn first_or_insert(&mut self, key: Fingerprint, index: u64) -> Option<u64> {
        let (lo, hi) = halves(key);
        let found = self.shards[shard_of(hi)].first_or_insert(lo, high_tag(hi), index);
        if found.is_none() {
            self.len += 1;
        }
        found
    }
}

/// The bits of `key` that tell keys apart in the index (see the module): the key with the
/// high half's bits 0..32 cleared. Two keys are the same position to a run's dedup iff
/// their identities are equal, so a dedup across tasks compares identities
/// ([`crate::io::key_run`]).
pub fn identity(key: Fingerprint) -> u128 {
    key.0 & !((u32::MAX as u128) << 64)
}

/// The shard of a key with high half `hi`.
#[inline(always)]
fn shard_of(hi: u64) -> usize {
    (hi >> (64 - SHARD_BITS)) as usize
}

/// The key's low (home slot) and high (shard and tag) halves.
#[inline(always)]
fn halves(key: Fingerprint) -> (u64, u64) {
    (key.0 as u64, (key.0 >> 64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Against a std HashMap: random keys drawn from a pool (so many repeat), plus keys that
    /// collide on purpose (the zero key, equal low halves with different high halves, a
    /// handful of home slots), through several growths. Keys are drawn with zeros in the
    /// high-half bits a slot does not keep (0..32), so they are the whole key here.
    #[test]
    fn agrees_with_a_hash_map() {
        let mut ours = FirstSeen::with_capacity(0);
        let mut truth: HashMap<u128, u64> = HashMap::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let random = |id: u64| {
            let a = (id ^ 0x9e37_79b9_7f4a_7c15).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            let b = (a ^ (a >> 31)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (b as u128) << 64 | (a ^ (b >> 29)) as u128
        };
        for index in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = match x % 16 {
                0 => (x % 64) as u128,                           // zero and tiny keys
                1 => ((x % 97) as u128) << 96 | (x % 3) as u128, // shared low halves
                _ => random(x % 60_000) & !((u32::MAX as u128) << 64),
            };
            let want = truth.get(&key).copied();
            truth.entry(key).or_insert(index);
            assert_eq!(
                ours.first_or_insert(Fingerprint(key), index),
                want,
                "{key:#x}"
            );
        }
        assert_eq!(ours.len(), truth.len());
        for (&k, &first) in &truth {
            assert_eq!(ours.get(Fingerprint(k)), Some(first));
        }
        assert_eq!(ours.get(Fingerprint(u128::MAX)), None);
        for shard in &ours.shards {
            assert!(shard.slots.len() * 7 >= shard.len * 10);
        }
        let grown = ours.shards.iter().filter(|s| s.slots.len() > 16).count();
        assert!(grown > SHARDS / 2, "only {grown} shards grew");
        let stored: usize = ours.shards.iter().map(|s| s.len).sum();
        assert_eq!(stored, ours.len());
    }

    #[test]
    fn planned_bytes_are_those_of_the_tables_a_run_reserves() {
        // The run reserves for 4 M keys: 256 tables of 2^15 slots, 128 MiB.
        assert_eq!(FirstSeen::bytes_for(4 << 20), 128 << 20);
        let reserved = FirstSeen::with_capacity(100_000);
        let slots: usize = reserved.shards.iter().map(|s| s.slots.len()).sum();
        assert_eq!(FirstSeen::bytes_for(100_000), 16 * slots as u64);
        // Past 70 % a shard's table doubles.
        assert_eq!(
            FirstSeen::bytes_for(7 << 28),
            2 * FirstSeen::bytes_for(7 << 27)
        );
    }

    #[test]
    fn a_slot_keeps_96_key_bits_and_40_index_bits() {
        let mut index = FirstSeen::with_capacity(0);
        let key = |hi: u64, lo: u64| Fingerprint((hi as u128) << 64 | lo as u128);
        let base = 0x8765_4321_0fed_cba9u64;
        assert_eq!(index.first_or_insert(key(base, 7), u64::MAX), None);
        assert_eq!(index.get(key(base, 7)), Some(u64::MAX));
        // Every kept bit tells keys apart: the low half, high bits 32..56 and the shard;
        // `identity` keeps exactly those.
        for bit in [0, 31, 32, 55, 56, 63] {
            let other = key(base ^ (1 << bit), 7);
            let kept = bit >= 32;
            assert_eq!(index.get(other).is_none(), kept, "high bit {bit}");
            assert_eq!(
                identity(other) != identity(key(base, 7)),
                kept,
                "high bit {bit}"
            );
        }
        assert_eq!(index.get(key(base, 7 ^ 1 << 63)), None);
        // Indices: exact up to the bound, clamped beyond it.
        for (i, stored) in [
            (0, 0),
            (1 << 39, 1 << 39),
            (LARGEST_EXACT, LARGEST_EXACT),
            (LARGEST_EXACT + 1, LARGEST_EXACT),
            (u64::MAX - 1, LARGEST_EXACT),
        ] {
            let k = key(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1 << 40, i ^ 5);
            assert_eq!(index.first_or_insert(k, i), None);
            assert_eq!(index.first_or_insert(k, 3), Some(stored), "{i}");
        }
    }
}

//! [`FirstSeen`]: the pipeline's dedup index, from a position's 128-bit [`Fingerprint`] to the
//! global index of the first record that had it, built for an index far larger than the
//! CPU caches.
//!
//! A general hash map keeps control bytes and entries apart, so inserting a new key misses
//! the cache twice, and a probe of the next record cannot start before the current one has
//! decided. Here a slot holds the whole key and its value (24 bytes, open addressing with
//! linear probing, at most 70 % full), so a probe touches one or two adjacent lines, and
//! [`FirstSeen::warm`] lets a caller touch the slots of many keys first, in a loop of
//! independent loads that the CPU overlaps, before the ordered pass that decides.
//!
//! The index is split into [`SHARDS`] tables by the top bits of the key's high half, each
//! growing on its own. A run with hundreds of millions of distinct positions thus never
//! holds an old and a new copy of the whole index at once (a single table doubling from
//! 2^29 to 2^30 slots would need 38 GiB at its peak), and the commit never stops for
//! seconds to rehash and fault in gigabytes: each growth moves 1/256 of the keys.
//!
//! # Invariants
//! - A key lives in shard `high half >> (64 - SHARD_BITS)`; within it a slot is empty iff
//!   both key halves are zero, and the all-zero fingerprint, which would look empty, is
//!   kept aside in `zero`.
//! - Every stored key sits at its home slot (`low half & mask`) of its shard or after it
//!   with no empty slot in between (linear probing; there are no deletions).
//! - `len` counts the stored keys, `zero` included; each shard is at most 70 % full
//!   outside `grow`.

use crate::shogi::Fingerprint;

/// One slot: the key's low and high halves and the index of the first record with it.
type Slot = [u64; 3];
const LO: usize = 0;
const HI: usize = 1;
const FIRST: usize = 2;

/// Bits of the key's high half that pick the shard.
const SHARD_BITS: u32 = 8;
/// Number of independently growing tables.
pub const SHARDS: usize = 1 << SHARD_BITS;

/// Map from fingerprints to the index of the first record that had them (see the module).
#[derive(Clone, Debug)]
pub struct FirstSeen {
    shards: Vec<Shard>,
    len: usize,
    zero: Option<u64>,
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
    let mut slots = vec![[0u64; 3]; n];
    for s in slots.iter_mut().step_by(4096 / std::mem::size_of::<Slot>()) {
        // `black_box`: the store must happen although the memory is known to be zero.
        s[FIRST] = std::hint::black_box(0);
    }
    slots
}

/// The fewest slots for `keys` keys at most 70 % full (a power of two, at least 16).
fn slots_for(keys: usize) -> usize {
    (keys.saturating_mul(10) / 7 + 1)
        .next_power_of_two()
        .max(16)
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
    fn get(&self, lo: u64, hi: u64) -> Option<u64> {
        let mut i = lo as usize & self.mask;
        loop {
            let s = self.slots[i];
            if s[LO] == lo && s[HI] == hi {
                return Some(s[FIRST]);
            }
            if s[LO] == 0 && s[HI] == 0 {
                return None;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Stores `(lo, hi) → index` unless the key is there; `None` if it was new.
    #[inline(always)]
    fn first_or_insert(&mut self, lo: u64, hi: u64, index: u64) -> Option<u64> {
        let mut i = lo as usize & self.mask;
        loop {
            let s = &mut self.slots[i];
            if s[LO] == lo && s[HI] == hi {
                return Some(s[FIRST]);
            }
            if s[LO] == 0 && s[HI] == 0 {
                *s = [lo, hi, index];
                self.len += 1;
                if self.len * 10 > self.slots.len() * 7 {
                    self.grow();
                }
                return None;
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
        for s in old.into_iter().filter(|s| s[LO] != 0 || s[HI] != 0) {
            let mut i = s[LO] as usize & self.mask;
            while self.slots[i][LO] != 0 || self.slots[i][HI] != 0 {
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
            zero: None,
        }
    }

    /// Number of distinct keys stored.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no key is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    fn shard(&self, hi: u64) -> &Shard {
        &self.shards[shard_of(hi)]
    }

    /// The first index stored for `key`, if any.
    pub fn get(&self, key: Fingerprint) -> Option<u64> {
        let (lo, hi) = halves(key);
        if lo == 0 && hi == 0 {
            return self.zero;
        }
        self.shard(hi).get(lo, hi)
    }

    /// Prefetches `key`'s home slot: a hint that makes a following
    /// [`FirstSeen::first_or_insert`] of the same key find it in the cache. Calling it for a
    /// batch of keys in a row keeps many cache misses in flight at once.
    #[inline]
    pub fn warm(&self, key: Fingerprint) {
        let (lo, hi) = halves(key);
        let shard = self.shard(hi);
        crate::prefetch::prefetch(&shard.slots[lo as usize & shard.mask]);
    }

    /// If `key` is stored, its first index; otherwise stores `index` for it and returns `None`.
    pub fn first_or_insert(&mut self, key: Fingerprint, index: u64) -> Option<u64> {
        let (lo, hi) = halves(key);
        let found = if lo == 0 && hi == 0 {
            let old = self.zero;
            self.zero = old.or(Some(index));
            old
        } else {
            self.shards[shard_of(hi)].first_or_insert(lo, hi, index)
        };
        if found.is_none() {
            self.len += 1;
        }
        found
    }
}

/// The shard of a key with high half `hi`.
#[inline(always)]
fn shard_of(hi: u64) -> usize {
    (hi >> (64 - SHARD_BITS)) as usize
}

/// The key's low (home slot) and high (shard) halves.
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
    /// handful of home slots), through several growths.
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
                1 => ((x % 97) as u128) << 64 | (x % 3) as u128, // shared low halves
                _ => random(x % 60_000),
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
        assert_eq!(stored + ours.zero.is_some() as usize, ours.len());
    }
}

//! Verdicts of one run shared by all its solvers ([`VerdictCache`]), so that a position
//! that occurs again is not searched again.
//!
//! # Why reuse is exact
//! With the default (no table reuse) a verdict is a function of the position and the
//! [`Limits`] alone: every root starts on a fresh table generation and the search sees no
//! game history (see the contract in `mod.rs`). So a cached verdict for the same position
//! (same board, side to move and hands: same 128-bit [`Fingerprint`]) under the same limits
//! is the verdict a new search would return, node count included, whichever worker found it
//! first. Outputs therefore do not depend on whether or when an entry was found; only the
//! count of hits does.
//!
//! Two kinds of verdict are never stored:
//! - an `Unknown` that stopped before the node budget (the wall-time guard, or a mate-length
//!   cap): it may depend on the machine's load;
//! - verdicts that cost fewer than [`MIN_NODES`] nodes: searching again is about as cheap as
//!   a lookup, and they would evict the expensive entries.
//!
//! # Invariants
//! - The cache is direct-mapped and bounded: `capacity` slots in shards behind their own
//!   mutex (lookups are one per searched position, so contention is negligible); a store
//!   overwrites the slot's previous entry.
//! - A slot is returned only for its exact fingerprint.
//! - Callers use one cache per set of [`Limits`] (one run).

use super::{Limits, MateResult, Verdict};
use crate::shogi::{Fingerprint, Move};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Verdicts cheaper than this many nodes are not stored.
pub const MIN_NODES: u64 = 64;

/// Shards (each its own mutex); a power of two.
const SHARDS: usize = 64;

/// One stored verdict.
struct Slot {
    fingerprint: Fingerprint,
    result: MateResult,
    plies_exact: bool,
    nodes: u64,
    pv: Box<[Move]>,
}

/// A bounded, thread-safe map from position fingerprints to verdicts. See the module doc.
pub struct VerdictCache {
    shards: Box<[Mutex<Vec<Option<Slot>>>]>,
    slots_per_shard: usize,
    hits: AtomicU64,
    nodes_saved: AtomicU64,
}

impl std::fmt::Debug for VerdictCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerdictCache")
            .field("capacity", &self.capacity())
            .field("hits", &self.hits())
            .finish()
    }
}

impl VerdictCache {
    /// A cache of about `mb` MiB of slots (PVs are stored beside them); `None` for 0.
    pub fn new(mb: usize) -> Option<VerdictCache> {
        if mb == 0 {
            return None;
        }
        let slot = std::mem::size_of::<Option<Slot>>();
        let slots_per_shard = (mb << 20) / slot / SHARDS;
        let slots_per_shard = slots_per_shard.max(1);
        let shards = (0..SHARDS)
            .map(|_| Mutex::new((0..slots_per_shard).map(|_| None).collect()))
            .collect();
        Some(VerdictCache {
            shards,
            slots_per_shard,
            hits: AtomicU64::new(0),
            nodes_saved: AtomicU64::new(0),
        })
    }

    /// Number of slots.
    pub fn capacity(&self) -> usize {
        self.slots_per_shard * SHARDS
    }

    /// Lookups answered from the cache so far.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Nodes the answered lookups would have searched.
    pub fn nodes_saved(&self) -> u64 {
        self.nodes_saved.load(Ordering::Relaxed)
    }

    /// Shard and slot of a fingerprint (its low half is a uniform Zobrist key).
    fn place(&self, fp: Fingerprint) -> (usize, usize) {
        let low = fp.0 as u64;
        let shard = (low as usize) & (SHARDS - 1);
        let slot = ((low >> 6) % self.slots_per_shard as u64) as usize;
        (shard, slot)
    }

    /// The stored verdict of the position with fingerprint `fp`, if any.
    pub fn get(&self, fp: Fingerprint) -> Option<Verdict> {
        let (shard, slot) = self.place(fp);
        let guard = self.shards[shard]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let s = guard[slot].as_ref().filter(|s| s.fingerprint == fp)?;
        let v = Verdict {
            result: s.result,
            plies: s.pv.len() as u32,
            plies_exact: s.plies_exact,
            pv: s.pv.to_vec(),
            nodes: s.nodes,
            timed_out: false,
        };
        drop(guard);
        self.hits.fetch_add(1, Ordering::Relaxed);
        self.nodes_saved.fetch_add(v.nodes, Ordering::Relaxed);
        Some(v)
    }

    /// Stores `v`, the verdict of the position with fingerprint `fp` under `limits`, if it
    /// may be reused (see the module doc). Returns whether it was stored.
    pub fn insert(&self, fp: Fingerprint, v: &Verdict, limits: &Limits) -> bool {
        if !cacheable(v, limits) {
            return false;
        }
        let (shard, slot) = self.place(fp);
        let entry = Slot {
            fingerprint: fp,
            result: v.result,
            plies_exact: v.plies_exact,
            nodes: v.nodes,
            pv: v.pv.clone().into_boxed_slice(),
        };
        let mut guard = self.shards[shard]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        guard[slot] = Some(entry);
        true
    }
}

/// Whether `v` is the same for every search of its position under `limits`, and costly
/// enough to keep.
fn cacheable(v: &Verdict, limits: &Limits) -> bool {
    if v.nodes < MIN_NODES {
        return false;
    }
    // An unknown below the node budget stopped on the clock or on the length cap.
    !v.timed_out && (v.result != MateResult::Unknown || v.nodes >= limits.nodes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mate::Solver;
    use crate::shogi::Position;
    use std::time::Duration;

    fn limits(nodes: u64) -> Limits {
        Limits {
            nodes,
            max_plies: None,
            time: None,
            shorten: 1,
        }
    }

    /// A stored verdict comes back equal to what a new search returns, only for its own
    /// position.
    #[test]
    fn returns_the_verdict_a_new_search_gives() {
        let cache = VerdictCache::new(1).expect("1 MiB");
        let mut solver = Solver::new(4);
        let lim = limits(100_000);
        // Seed 003's 15-ply mate (docs/references.md; thousands of nodes) and a quiet start
        // position.
        let mut mate = Position::from_sfen(
            "1n1g3+Pl/k1p1s4/1ng5p/pSP1p1pp1/1n3p3/P1K3P1P/1P7/9/L1G5L b 2R2BG2SL5Pn 161",
        )
        .expect("sfen");
        let first = solver.solve(&mut mate, &lim).expect("valid");
        assert_eq!(first.result, MateResult::Mate);
        assert!(first.nodes >= MIN_NODES && first.plies >= 15, "{first:?}");
        assert!(cache.insert(mate.fingerprint(), &first, &lim));
        let again = solver.solve(&mut mate, &lim).expect("valid");
        assert_eq!(cache.get(mate.fingerprint()), Some(again));
        assert_eq!(cache.hits(), 1);
        assert_eq!(cache.nodes_saved(), first.nodes);
        let other = Position::startpos();
        assert_eq!(cache.get(other.fingerprint()), None);
    }

    #[test]
    fn refuses_cheap_and_clock_dependent_verdicts() {
        let lim = limits(1000);
        let v = |result, nodes| Verdict {
            result,
            plies: 0,
            plies_exact: false,
            pv: Vec::new(),
            nodes,
            timed_out: false,
        };
        assert!(!cacheable(&v(MateResult::NoMate, MIN_NODES - 1), &lim));
        assert!(cacheable(&v(MateResult::NoMate, MIN_NODES), &lim));
        assert!(cacheable(&v(MateResult::Unknown, 1000), &lim));
        assert!(!cacheable(&v(MateResult::Unknown, 999), &lim));
        // The same with a clock: an unknown at the full budget is still the budget's.
        let timed = Limits {
            time: Some(Duration::from_secs(1)),
            ..lim
        };
        assert!(cacheable(&v(MateResult::Unknown, 1000), &timed));
        let stopped = Verdict {
            timed_out: true,
            ..v(MateResult::Unknown, 1000)
        };
        assert!(!cacheable(&stopped, &timed));
    }

    /// Two fingerprints in one slot: the later store wins, the earlier is gone (never
    /// returned for the other position).
    #[test]
    fn a_store_replaces_the_slot() {
        let cache = VerdictCache::new(1).expect("1 MiB");
        let lim = limits(100);
        let span = (cache.slots_per_shard as u128) << 6;
        let a = Fingerprint(5);
        let b = Fingerprint(5 + span);
        assert_eq!(cache.place(a), cache.place(b));
        let v = |nodes| Verdict {
            result: MateResult::NoMate,
            plies: 0,
            plies_exact: false,
            pv: Vec::new(),
            nodes,
            timed_out: false,
        };
        assert!(cache.insert(a, &v(100), &lim));
        assert!(cache.insert(b, &v(200), &lim));
        assert_eq!(cache.get(a), None);
        assert_eq!(cache.get(b).map(|v| v.nodes), Some(200));
        assert!(VerdictCache::new(0).is_none());
    }
}

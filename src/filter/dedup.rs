//! Deduplication by position, never by bytes: a set of 128-bit [`Fingerprint`]s of decoded
//! positions (board, side to move, both hands).
//!
//! # Contract
//! - Two records that decode to the same position are duplicates whatever their bytes (a
//!   PackedSfen position has more than one valid encoding), and ply / move fields are ignored.
//! - With `mirror`, a position and its left-right mirror image (file 1 ↔ file 9, same hands
//!   and side) are one: the key is `min(fingerprint, mirrored_fingerprint)`.
//! - `reference` pools pre-fill the set ([`Dedup::prefill`]) so positions already present in
//!   an existing pool are dropped as duplicates.
//!
//! # Invariants
//! Fingerprints come from two independent 64-bit Zobrist families; a false duplicate here
//! needs a 128-bit collision (about `n² / 2^129` for `n` positions: ~10^-21 at 10^9
//! records). The pipeline's index ([`super::FirstSeen`]) keeps 96 of the bits to hold a
//! position in 16 bytes: about `n² / 2^97`, ~6 × 10^-12 at 10^9 distinct positions.

use super::keyhash::BuildKeyHasher;
use crate::shogi::{Fingerprint, Position};
use serde::{Deserialize, Serialize};
use std::borrow::Borrow;
use std::collections::HashSet;
use std::path::PathBuf;

/// `[filter.dedup]`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DedupConfig {
    /// Whether duplicates are dropped.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// A position and its left-right mirror count as one.
    #[serde(default)]
    pub mirror: bool,
    /// Existing pools whose positions count as already kept.
    #[serde(default)]
    pub reference: Vec<PathBuf>,
}

fn yes() -> bool {
    true
}

impl Default for DedupConfig {
    fn default() -> Self {
        DedupConfig {
            enabled: true,
            mirror: false,
            reference: Vec::new(),
        }
    }
}

/// The dedup key of `pos`: its fingerprint, or with `mirror` the smaller of its own and its
/// mirror image's. Workers compute it; the ordered commit inserts it.
#[inline]
pub fn dedup_key(pos: &Position, mirror: bool) -> Fingerprint {
    let fp = pos.fingerprint();
    if mirror {
        fp.min(pos.mirrored_fingerprint())
    } else {
        fp
    }
}

/// The set of positions seen so far.
#[derive(Clone, Debug, Default)]
pub struct Dedup {
    seen: HashSet<Fingerprint, BuildKeyHasher>,
    mirror: bool,
}

impl Dedup {
    /// An empty set; `mirror` as in [`DedupConfig::mirror`].
    pub fn new(mirror: bool) -> Dedup {
        Dedup {
            seen: HashSet::default(),
            mirror,
        }
    }

    /// Whether mirror images count as one.
    pub fn mirror(&self) -> bool {
        self.mirror
    }

    /// The key this set uses for `pos`.
    #[inline]
    pub fn key(&self, pos: &Position) -> Fingerprint {
        dedup_key(pos, self.mirror)
    }

    /// Records `pos`; `true` if it was new (keep it), `false` if it is a duplicate.
    #[inline]
    pub fn insert(&mut self, pos: &Position) -> bool {
        let k = self.key(pos);
        self.seen.insert(k)
    }

    /// Records a key computed with [`dedup_key`] (same `mirror` setting); `true` if new.
    #[inline]
    pub fn insert_key(&mut self, key: Fingerprint) -> bool {
        self.seen.insert(key)
    }

    /// Whether `pos` was seen.
    #[inline]
    pub fn contains(&self, pos: &Position) -> bool {
        self.seen.contains(&self.key(pos))
    }

    /// Pre-fills the set from a reference pool; returns how many distinct positions it added.
    pub fn prefill<I>(&mut self, positions: I) -> usize
    where
        I: IntoIterator,
        I::Item: Borrow<Position>,
    {
        let before = self.seen.len();
        for p in positions {
            let k = self.key(p.borrow());
            self.seen.insert(k);
        }
        self.seen.len() - before
    }

    /// Number of distinct positions held.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

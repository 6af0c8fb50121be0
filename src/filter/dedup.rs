//! Deduplication by position, never by bytes: a set of 128-bit [`Fingerprint`]s of decoded
//! positions (board, side to move, both hands).
//!
//! # Contract
//! - Two records that decode to the same position are duplicates whatever their bytes (a
//!   PackedSfen position has more than one valid encoding), and ply / move fields are ignored.
//! - With `mirror`, a position and its left-right mirror image (file 1 ↔ file 9, same hands
//!   and side) are one: the key is `min(fingerprint, mirrored_fingerprint)`.
//! - `reference` pools pre-fill the run's index (the ordered commit's [`super::FirstSeen`],
//!   first index `u64::MAX`) so positions already present in an existing pool are dropped as
//!   duplicates.
//!
//! # Invariants
//! Fingerprints come from two independent 64-bit Zobrist families; a false duplicate here
//! needs a 128-bit collision (about `n² / 2^129` for `n` positions: ~10^-21 at 10^9
//! records). The pipeline's index ([`super::FirstSeen`]) keeps 96 of the bits to hold a
//! position in 16 bytes: about `n² / 2^97`, ~6 × 10^-12 at 10^9 distinct positions.

use crate::shogi::{Fingerprint, Position};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// `[filter.dedup]`; a key left out takes its value from `Default`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct DedupConfig {
    /// Whether duplicates are dropped.
    pub enabled: bool,
    /// A position and its left-right mirror count as one.
    pub mirror: bool,
    /// Existing pools whose positions count as already kept.
    pub reference: Vec<PathBuf>,
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

//! The current search path and on-path repetition (graph-history interaction).
//!
//! Every move in a mate search by the attacker is a check, so a position that repeats an
//! ancestor on the current path is a perpetual check: a failure for the attacker *on this
//! path*. Such a "disproof" depends on the path, not on the position, and so does every
//! disproof computed from it. Results carry [`PATH_DEPENDENT`] (and [`DEPTH_LIMITED`] for
//! the optional mate-length cap), and the search never stores a flagged disproof in the
//! table: only path-independent results are reused elsewhere. Proofs never depend on the
//! path (a proof tree contains no repetition), so they are always stored.
//!
//! # Invariants
//! `keys` holds the full keys (board ^ hand, side included) of the root and every node on
//! the way to the current one; `filter` counts them by their top bits, so a zero count
//! answers "not on the path" without a scan.

/// Result flag: the disproof depends on a repetition of the current path.
pub const PATH_DEPENDENT: u8 = 1;
/// Result flag: the disproof depends on the maximum mate length (also path dependent).
pub const DEPTH_LIMITED: u8 = 2;

const FILTER_BITS: u32 = 10;

/// The keys of the positions on the current path.
pub struct Path {
    keys: Vec<u64>,
    filter: Vec<u16>,
}

impl Default for Path {
    fn default() -> Self {
        Path::new()
    }
}

impl Path {
    /// An empty path.
    pub fn new() -> Path {
        Path {
            keys: Vec::with_capacity(256),
            filter: vec![0; 1 << FILTER_BITS],
        }
    }

    #[inline(always)]
    fn slot(key: u64) -> usize {
        (key >> (64 - FILTER_BITS)) as usize
    }

    /// Empties the path.
    pub fn clear(&mut self) {
        for &k in &self.keys {
            self.filter[Self::slot(k)] = 0;
        }
        self.keys.clear();
    }

    /// Enters a position.
    #[inline]
    pub fn push(&mut self, key: u64) {
        self.keys.push(key);
        self.filter[Self::slot(key)] += 1;
    }

    /// Leaves the most recent position.
    #[inline]
    pub fn pop(&mut self) {
        if let Some(k) = self.keys.pop() {
            self.filter[Self::slot(k)] -= 1;
        }
    }

    /// Whether a position with full key `key` is on the path.
    #[inline]
    pub fn contains(&self, key: u64) -> bool {
        self.filter[Self::slot(key)] != 0 && self.keys.iter().rev().any(|&k| k == key)
    }

    /// Number of positions on the path.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the path is empty.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_pop_contains() {
        let mut p = Path::new();
        p.push(1);
        p.push(u64::MAX);
        assert!(p.contains(1) && p.contains(u64::MAX) && !p.contains(2));
        p.pop();
        assert!(!p.contains(u64::MAX));
        p.clear();
        assert!(!p.contains(1) && p.is_empty());
    }
}

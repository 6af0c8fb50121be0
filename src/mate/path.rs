//! The current search path and on-path repetition (graph-history interaction).
//!
//! Every move in a mate search by the attacker is a check, so a position that repeats an
//! ancestor on the current path is a perpetual check: a failure for the attacker *on this
//! path*. Such a "disproof" depends on the path, and so does every disproof computed from
//! it, but only on the part of the path it repeats: a disproof carries its *loop head*,
//! the shallowest path index (= depth) whose position it found repeated ([`NO_LOOP`] if
//! none). At a node of depth `d`, a loop head `>= d` lies inside the node's own subtree:
//! every path to the node reaches those repetitions the same way, so the result is the
//! node's own (path-independent) value and is stored like any other. Only a loop head
//! `< d` keeps the result on the stack (the search never stores it): it is reused only
//! while the repeated ancestor is still on the path. [`DEPTH_LIMITED`] marks disproofs
//! that rest on the optional mate-length cap; those are never stored. Proofs never depend
//! on the path (a proof tree contains no repetition), so they are always stored.
//!
//! A disproof that met a repetition gets no disproof hand larger than the node's own
//! attacker hand (the repetition child's hand is its exact hand): with fewer pieces in
//! hand, every line is played the same way and meets the same repetitions, so the
//! disproof holds for every smaller hand, which is what the table's dominance assumes.
//!
//! # Invariants
//! `keys` holds the full keys (board ^ hand, side included) of the root and every node on
//! the way to the current one, the node of depth `d` at index `d`; `filter` counts them by
//! their top bits, so a zero count answers "not on the path" without a scan. A key is on
//! the path at most once (a repetition is never entered).

/// Result flag: the disproof depends on the maximum mate length (path dependent).
pub const DEPTH_LIMITED: u8 = 2;

/// Loop head of a result that met no repetition.
pub const NO_LOOP: u16 = u16::MAX;

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

    /// The path index (depth) of the position with full key `key`, if it is on the path.
    #[inline]
    pub fn index_of(&self, key: u64) -> Option<usize> {
        if self.filter[Self::slot(key)] == 0 {
            return None;
        }
        self.keys.iter().rposition(|&k| k == key)
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
    fn push_pop_index_of() {
        let mut p = Path::new();
        p.push(1);
        p.push(u64::MAX);
        assert_eq!((p.index_of(1), p.index_of(u64::MAX)), (Some(0), Some(1)));
        assert_eq!(p.index_of(2), None);
        p.pop();
        assert_eq!(p.index_of(u64::MAX), None);
        p.clear();
        assert!(p.index_of(1).is_none() && p.is_empty());
    }
}

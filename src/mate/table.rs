//! The dominance-aware transposition table ([`Table`]).
//!
//! Fixed size (given in MB), one per solver, no locks. Clusters of [`CLUSTER`] entries are
//! addressed by the salted board key (`mul_hi(key, clusters)`, so any size works); every
//! entry stores the attacker's hand, so positions that differ only in hands share a
//! cluster and dominance (seeds 000, 003: docs/references.md) is a scan of one cluster:
//! - a proven entry whose proof hand is contained in our attacker hand proves our node;
//! - a disproven entry whose disproof hand contains our attacker hand disproves it (at
//!   any length, or within the length it was shown for under a mate-length cap);
//! - an unknown entry answers for the exact same hand; for other hands it only gives a
//!   floor for the first estimate: one whose hand is contained in ours floors our `dn`
//!   (more pieces in hand can only make a disproof harder), one whose hand contains ours
//!   floors our `pn`. Measured on the bench set (2,000 positions, one thread): one mate
//!   more at 10,000 and at 100,000 nodes, the same time, and 18–48 % fewer nodes on the
//!   four long seed-003 positions (the 15-ply mate: 5,504 -> 2,877).
//!
//! The attacker is the side giving check at OR and AND nodes alike, so both kinds of node
//! use the same rule.
//!
//! # Replacement
//! Storing prefers, in order: the slot of the same key and hand, a free slot (another
//! generation), then evicts the live entry with the lowest priority, where final entries
//! rank above every unknown one and then by `amount` (work spent). Storing a final result
//! also frees the unknown entries of the same board that it now dominates.
//!
//! # Generations
//! [`Table::new_generation`] clears the table in O(1): entries of an older generation are
//! free and are treated exactly like never-written ones, so a search over a new generation
//! behaves exactly as over a zeroed table (determinism). After 65,535 generations the table
//! is really zeroed once.

use super::entry::Entry;
use super::pndn::PnDn;
use crate::shogi::Hand;

/// Entries per cluster.
pub const CLUSTER: usize = 8;

/// What a lookup found for a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// Proven by an entry whose proof hand is `hand` (≤ ours); `len` plies.
    Proven {
        /// Proof hand of the dominating entry.
        hand: Hand,
        /// Length of that proof in plies.
        len: u16,
    },
    /// Disproven by an entry whose disproof hand is `hand` (≥ ours).
    Disproven {
        /// Disproof hand of the dominating entry.
        hand: Hand,
    },
    /// No mate within `plies` plies, by an entry whose disproof hand is `hand` (≥ ours),
    /// shown under a mate-length cap; says nothing about longer mates.
    DisprovenWithin {
        /// Disproof hand of the dominating entry.
        hand: Hand,
        /// Plies within which no mate exists.
        plies: u16,
    },
    /// An unknown entry for exactly our hand.
    Unknown {
        /// Stored proof number.
        pn: PnDn,
        /// Stored disproof number.
        dn: PnDn,
    },
    /// No entry for our hand. `pn` / `dn` are floors for the first estimate (0 = none),
    /// taken from unknown entries of the same board with a dominating hand (see
    /// [`Table::probe`]).
    Miss {
        /// The largest `pn` of an unknown entry whose hand contains ours.
        pn: PnDn,
        /// The largest `dn` of an unknown entry whose hand is contained in ours.
        dn: PnDn,
    },
}

/// One cluster: the tags first (one cache line), then the entries.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Cluster {
    tags: [u64; CLUSTER],
    entries: [Entry; CLUSTER],
}

const _: () = assert!(std::mem::size_of::<Cluster>() == 256);

/// The generation's tag mix: a live entry's tag is `key ^ mix(gen)`.
#[inline(always)]
fn mix(gen: u16) -> u64 {
    (gen as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The transposition table. See the module doc.
pub struct Table {
    clusters: Vec<Cluster>,
    gen: u16,
    dominance: bool,
}

impl Table {
    /// A table of about `mb` megabytes (at least one cluster), generation 1.
    pub fn new(mb: usize) -> Table {
        let bytes = mb.max(1) * 1024 * 1024;
        let n = (bytes / std::mem::size_of::<Cluster>()).max(1);
        // Huge pages (asked for before the first touch): probes land anywhere in the table.
        let mut clusters = Vec::with_capacity(n);
        crate::hugepages::advise(clusters.spare_capacity_mut());
        clusters.resize(n, Cluster::default());
        Table {
            clusters,
            gen: 1,
            dominance: true,
        }
    }

    /// Turns dominance off (exact hand match for every entry; for tests and measurement).
    pub fn set_dominance(&mut self, on: bool) {
        self.dominance = on;
    }

    /// Whether dominance lookups are on.
    pub fn dominance(&self) -> bool {
        self.dominance
    }

    /// Number of entries.
    pub fn capacity(&self) -> usize {
        self.clusters.len() * CLUSTER
    }

    /// Forgets every entry in O(1) (a real zeroing once every 65,535 calls).
    pub fn new_generation(&mut self) {
        if self.gen == u16::MAX {
            self.clear();
        } else {
            self.gen += 1;
        }
    }

    /// Forgets every entry by zeroing the memory (what `new_generation` avoids).
    pub fn clear(&mut self) {
        self.clusters.fill(Cluster::default());
        self.gen = 1;
    }

    #[inline(always)]
    fn cluster(&self, key: u64) -> usize {
        (((key as u128) * (self.clusters.len() as u128)) >> 64) as usize
    }

    /// Hints the CPU to load the cluster of `key`, all four lines (a lookup waits on the tag
    /// line, a store on the entries' lines; an expansion prefetches every child's cluster
    /// before probing the first). No effect on results.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        crate::prefetch::prefetch(&self.clusters[self.cluster(key)]);
    }

    /// Looks up the node with salted board key `key` and attacker hand `hand`.
    #[inline]
    pub fn probe(&self, key: u64, hand: Hand) -> Probe {
        let c = &self.clusters[self.cluster(key)];
        let tag = key ^ mix(self.gen);
        let mut exact = None;
        let (mut pn_floor, mut dn_floor) = (0, 0);
        for i in 0..CLUSTER {
            if c.tags[i] != tag {
                continue;
            }
            let e = &c.entries[i];
            if e.gen != self.gen {
                continue;
            }
            let eh = Hand::from_raw_trusted(e.hand);
            if e.hand == hand.raw() {
                if e.pn == 0 {
                    return Probe::Proven {
                        hand: eh,
                        len: e.len,
                    };
                }
                if e.dn == 0 {
                    return disproven(eh, e.len);
                }
                exact = Some((e.pn, e.dn));
            } else if self.dominance {
                let superior = hand.is_equal_or_superior(eh);
                let inferior = eh.is_equal_or_superior(hand);
                if e.pn == 0 {
                    if superior {
                        return Probe::Proven {
                            hand: eh,
                            len: e.len,
                        };
                    }
                } else if e.dn == 0 {
                    if inferior {
                        return disproven(eh, e.len);
                    }
                } else if superior {
                    // More pieces in hand: at least as hard to disprove.
                    dn_floor = dn_floor.max(e.dn);
                } else if inferior {
                    // Fewer pieces in hand: at least as hard to prove.
                    pn_floor = pn_floor.max(e.pn);
                }
            }
        }
        match exact {
            Some((pn, dn)) => Probe::Unknown {
                pn: pn.max(pn_floor),
                dn: dn.max(dn_floor),
            },
            None => Probe::Miss {
                pn: pn_floor,
                dn: dn_floor,
            },
        }
    }

    /// Stores a result. `hand` is the attacker's own hand for unknown results, the proof
    /// hand for proven ones and the disproof hand for disproven ones; `len` as in
    /// [`Entry::len`].
    pub fn store(&mut self, key: u64, hand: Hand, pn: PnDn, dn: PnDn, len: u16, amount: u32) {
        let gen = self.gen;
        let tag = key ^ mix(gen);
        let fin = pn == 0 || (dn == 0 && len == 0);
        let dominance = self.dominance;
        let ci = self.cluster(key);
        let c = &mut self.clusters[ci];
        let mut slot = None;
        let mut worst = u64::MAX;
        let mut same = false;
        for i in 0..CLUSTER {
            let e = &mut c.entries[i];
            if e.gen != gen {
                if worst != 0 {
                    worst = 0;
                    slot = Some(i);
                }
                continue;
            }
            if c.tags[i] == tag {
                if e.hand == hand.raw() {
                    slot = Some(i);
                    same = true;
                    break;
                }
                // A final result frees the unknown entries it dominates.
                if fin && dominance && !e.is_final() {
                    let eh = Hand::from_raw_trusted(e.hand);
                    let dominated = if pn == 0 {
                        eh.is_equal_or_superior(hand)
                    } else {
                        hand.is_equal_or_superior(eh)
                    };
                    if dominated {
                        e.gen = 0;
                        if worst != 0 {
                            worst = 0;
                            slot = Some(i);
                        }
                        continue;
                    }
                }
            }
            let prio = e.amount as u64 + if e.is_final() { 1 << 32 } else { 0 };
            if prio < worst {
                worst = prio;
                slot = Some(i);
            }
        }
        let Some(i) = slot else { return };
        let e = &mut c.entries[i];
        // Never replace a final entry of the same node by anything but a final one.
        if same && e.is_final() && !fin {
            return;
        }
        let amount = if same { amount.max(e.amount) } else { amount };
        c.tags[i] = tag;
        *e = Entry {
            hand: hand.raw(),
            pn,
            dn,
            amount,
            len,
            gen,
        };
    }
}

/// The probe answer for a disproven entry with disproof hand `hand` and length field
/// `len` (see [`Entry::len`]).
#[inline(always)]
fn disproven(hand: Hand, len: u16) -> Probe {
    if len == 0 {
        Probe::Disproven { hand }
    } else {
        Probe::DisprovenWithin {
            hand,
            plies: len - 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::PieceType;

    fn hand(p: u8, g: u8) -> Hand {
        Hand::EMPTY
            .with_count(PieceType::Pawn, p)
            .unwrap()
            .with_count(PieceType::Gold, g)
            .unwrap()
    }

    #[test]
    fn dominance_rules() {
        let mut t = Table::new(1);
        t.store(42, hand(1, 0), 0, u32::MAX, 3, 10);
        assert!(matches!(
            t.probe(42, hand(1, 1)),
            Probe::Proven { len: 3, .. }
        ));
        assert_eq!(t.probe(42, hand(0, 1)), Probe::Miss { pn: 0, dn: 0 });
        t.store(43, hand(2, 1), u32::MAX, 0, 0, 10);
        assert!(matches!(t.probe(43, hand(1, 1)), Probe::Disproven { .. }));
        assert_eq!(t.probe(43, hand(3, 0)), Probe::Miss { pn: 0, dn: 0 });
        t.store(44, hand(2, 1), 5, 6, 0, 1);
        assert_eq!(t.probe(44, hand(2, 1)), Probe::Unknown { pn: 5, dn: 6 });
        // Unknown entries of other hands give floors: dn from a contained hand, pn from a
        // containing one, nothing from an incomparable one.
        assert_eq!(t.probe(44, hand(3, 1)), Probe::Miss { pn: 0, dn: 6 });
        assert_eq!(t.probe(44, hand(1, 1)), Probe::Miss { pn: 5, dn: 0 });
        assert_eq!(t.probe(44, hand(3, 0)), Probe::Miss { pn: 0, dn: 0 });
        t.store(44, hand(3, 1), 2, 2, 0, 1);
        assert_eq!(t.probe(44, hand(3, 1)), Probe::Unknown { pn: 2, dn: 6 });
        t.set_dominance(false);
        assert_eq!(t.probe(42, hand(1, 1)), Probe::Miss { pn: 0, dn: 0 });
        t.set_dominance(true);
        t.new_generation();
        assert_eq!(t.probe(42, hand(1, 1)), Probe::Miss { pn: 0, dn: 0 });
        assert_eq!(t.probe(44, hand(2, 1)), Probe::Miss { pn: 0, dn: 0 });
    }

    /// A disproof under a mate-length cap answers `DisprovenWithin` (with dominance like a
    /// disproof), is not final: an unknown of a later, longer search replaces it, and a
    /// real disproof replaces it too.
    #[test]
    fn disproofs_within_a_length() {
        let mut t = Table::new(1);
        t.store(50, hand(2, 0), u32::MAX, 0, 8, 10);
        assert_eq!(
            t.probe(50, hand(2, 0)),
            Probe::DisprovenWithin {
                hand: hand(2, 0),
                plies: 7
            }
        );
        assert!(matches!(
            t.probe(50, hand(1, 0)),
            Probe::DisprovenWithin { plies: 7, .. }
        ));
        assert_eq!(t.probe(50, hand(3, 0)), Probe::Miss { pn: 0, dn: 0 });
        t.store(50, hand(2, 0), 3, 4, 0, 10);
        assert_eq!(t.probe(50, hand(2, 0)), Probe::Unknown { pn: 3, dn: 4 });
        t.store(51, hand(2, 0), u32::MAX, 0, 8, 10);
        t.store(51, hand(2, 0), u32::MAX, 0, 0, 10);
        assert!(matches!(t.probe(51, hand(2, 0)), Probe::Disproven { .. }));
        // A final disproof is never replaced by one within a length.
        t.store(51, hand(2, 0), u32::MAX, 0, 8, 10);
        assert!(matches!(t.probe(51, hand(2, 0)), Probe::Disproven { .. }));
    }

    #[test]
    fn generations_wrap_through_a_real_clear() {
        let mut t = Table::new(1);
        for _ in 0..70_000 {
            t.store(9, hand(1, 0), 0, u32::MAX, 1, 1);
            t.new_generation();
            assert_eq!(t.probe(9, hand(1, 0)), Probe::Miss { pn: 0, dn: 0 });
        }
        t.store(9, hand(1, 0), 0, u32::MAX, 1, 1);
        assert!(matches!(t.probe(9, hand(2, 0)), Probe::Proven { .. }));
    }

    #[test]
    fn proof_frees_dominated_unknowns_and_finals_survive() {
        let mut t = Table::new(1);
        t.store(7, hand(2, 0), 5, 5, 0, 1000);
        t.store(7, hand(1, 0), 0, u32::MAX, 1, 1);
        assert!(matches!(t.probe(7, hand(2, 0)), Probe::Proven { .. }));
        // Fill one cluster with unknowns of other boards: the final entry stays.
        let base = 7u64;
        for i in 0..(4 * CLUSTER as u64) {
            let k = base.wrapping_add(i << 60 >> 60);
            t.store(k ^ (i << 8), hand(i as u8 % 18, 0), 1, 1, 0, 1);
        }
        assert!(matches!(t.probe(7, hand(2, 0)), Probe::Proven { .. }));
    }
}

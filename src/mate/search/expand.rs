//! Node expansion: the children of an OR node (every legal check) and of an AND node
//! (every evasion), each looked up in the table or given its initial numbers by the
//! expansion-time mate tests described in the `search.rs` module doc.
//!
//! # Invariants
//! - A child proven or disproven here is stored only if the result is path-independent
//!   (mate in 1, or no check at all); a repetition of the path, or a position inferior to
//!   one on it, is a disproof carrying that position's path index as its loop head
//!   (`path.rs`).
//! - Initial numbers are never below the floors the table gives for the same board.

use super::child::Child;
use super::delay::must_wait;
use super::{captured, Searcher};
use crate::mate::path::{DEPTH_LIMITED, NO_LOOP};
use crate::mate::pndn::{PnDn, INF};
use crate::mate::proof_hand as hands;
use crate::mate::table::Probe;
use crate::shogi::attacks;
use crate::shogi::checks::drop_check_kinds;
use crate::shogi::mate1::{contact_evasions, contact_mate, evasion_classes, has_evasion};
use crate::shogi::movegen::generate_evasions;
use crate::shogi::{Bitboard, Hand, Move, MoveList, PieceType, Position};

impl Searcher {
    /// Children of an OR node: every legal check, with the exact 1-ply mate test built in.
    #[inline(never)]
    pub(super) fn expand_or(&mut self, pos: &mut Position, depth: u32, kids: &mut Vec<Child>) {
        let mut checks = self.take_list();
        self.checks_of(pos, &mut checks);
        let mut discover = None;
        let mut keys = std::mem::take(&mut self.keys);
        self.child_keys(pos, &checks, &mut keys);
        for (&m, &k) in checks.iter().zip(&keys) {
            let c = if must_wait(pos, true, m, kids) {
                Child::hidden(m)
            } else {
                self.or_child(pos, m, k, depth, &mut discover)
            };
            kids.push(c);
            if c.pn == 0 {
                break;
            }
        }
        self.keys = keys;
        self.give_list(checks);
    }

    /// Evaluates check `m` of the current OR node: repetition (or inferiority, `path.rs`),
    /// table, or the exact count of the defender's evasion classes (zero = mate in 1).
    /// `discover` caches the attacker's discovered-check candidates for the node.
    #[inline(always)]
    pub(super) fn or_child(
        &mut self,
        pos: &mut Position,
        m: Move,
        (bk, _, child_hand): (u64, u64, Hand),
        depth: u32,
        discover: &mut Option<Bitboard>,
    ) -> Child {
        if let Some(i) = self.path.repeated(bk, child_hand) {
            return Child::repetition(m, child_hand, i);
        }
        match self.probe_within(bk ^ self.salt, child_hand, depth + 1) {
            Probe::Proven { hand, len } => Child::proven(m, hand, len),
            Probe::Disproven { hand } => Child::disproven(m, hand, 0, NO_LOOP),
            Probe::DisprovenWithin { hand, .. } => {
                Child::disproven(m, hand, DEPTH_LIMITED, NO_LOOP)
            }
            Probe::Unknown { .. } if self.past_cap(depth + 1, false) => {
                Child::disproven(m, child_hand, DEPTH_LIMITED, NO_LOOP)
            }
            Probe::Unknown { pn, dn } => Child::unknown(m, pn, dn, Hand::EMPTY),
            Probe::Miss { .. } if self.past_cap(depth + 1, false) => {
                // Only a mate at once counts here: a yes or no, not the count.
                match self.mate_by(pos, m, discover) {
                    Some(proof) => Child::proven(m, proof, 0),
                    None => Child::disproven(m, child_hand, DEPTH_LIMITED, NO_LOOP),
                }
            }
            Probe::Miss {
                pn: pn_floor,
                dn: dn_floor,
            } => {
                // Contact checks are counted without playing them (same count).
                let ek = pos.king_square(self.attacker.flip());
                let fast = if attacks::king(ek).has(m.to()) {
                    let discover = *discover.get_or_insert_with(|| {
                        pos.blockers(self.attacker, ek) & pos.pieces_of(self.attacker)
                    });
                    contact_evasions(pos, m, discover, false)
                } else {
                    None
                };
                let (n, proof) = match fast {
                    // A contact check cannot be blocked: empty proof hand.
                    Some(n) => (n, Hand::EMPTY),
                    None => {
                        pos.do_move(m);
                        let n = evasion_classes(pos, false);
                        let proof = if n == 0 {
                            self.checkmate_proof(pos)
                        } else {
                            Hand::EMPTY
                        };
                        pos.undo_move();
                        (n, proof)
                    }
                };
                if n == 0 {
                    Child::proven(m, proof, 0)
                } else {
                    let (pn, dn) = (n.max(pn_floor), dn_floor.max(1));
                    self.table.store(bk ^ self.salt, child_hand, pn, dn, 0, 0);
                    Child::unknown(m, pn, dn, Hand::EMPTY)
                }
            }
        }
    }

    /// Whether check `m` of the current OR position mates at once, and if so the proof
    /// hand of the position after it (empty for a contact check, which cannot be blocked).
    /// A contact check is decided without playing it when `contact_mate` can; `discover`
    /// caches the attacker's discovered-check candidates for the node.
    #[inline(always)]
    fn mate_by(
        &mut self,
        pos: &mut Position,
        m: Move,
        discover: &mut Option<Bitboard>,
    ) -> Option<Hand> {
        let ek = pos.king_square(self.attacker.flip());
        if attacks::king(ek).has(m.to()) {
            let discover = *discover.get_or_insert_with(|| {
                pos.blockers(self.attacker, ek) & pos.pieces_of(self.attacker)
            });
            if let Some(mate) = contact_mate(pos, m, discover) {
                return mate.then_some(Hand::EMPTY);
            }
        }
        pos.do_move(m);
        let proof = (!has_evasion(pos)).then(|| self.checkmate_proof(pos));
        pos.undo_move();
        proof
    }

    /// Whether a child at `depth` that is not already checkmated (an OR child with
    /// `or_child`, else an AND child) fails under the mate-length cap: the attacker has no
    /// move left within `max_plies`, at the child itself (OR) or after the defender's
    /// reply (AND). Such a child is a depth-limited disproof without being visited (the
    /// visit would return exactly that, see `Searcher::search`).
    #[inline(always)]
    fn past_cap(&self, depth: u32, or_child: bool) -> bool {
        let attacker_moves_at = if or_child { depth } else { depth + 1 };
        attacker_moves_at + 1 > self.max_plies
    }

    /// Table lookup for a child at `depth`. Under a mate-length cap (`max_plies` below
    /// [`MAX_DEPTH`](super::MAX_DEPTH)) a proof too long to end within the cap from here is
    /// not taken, and neither is a disproof within fewer plies than the child has left: the
    /// child is then evaluated as if new (its stored numbers give no floor), so a capped
    /// search only ever proves mates within the cap. A `DisprovenWithin` that is returned
    /// covers every ply the child has left.
    #[inline(always)]
    fn probe_within(&self, key: u64, hand: Hand, depth: u32) -> Probe {
        match self.table.probe(key, hand) {
            Probe::Proven { len, .. } if depth + len as u32 > self.max_plies => {
                Probe::Miss { pn: 0, dn: 0 }
            }
            Probe::DisprovenWithin { plies, .. }
                if (plies as u32) < self.max_plies.saturating_sub(depth) =>
            {
                Probe::Miss { pn: 0, dn: 0 }
            }
            p => p,
        }
    }

    /// The keys after each of `moves` into `keys`, with the table clusters prefetched so
    /// that the lookups that follow overlap their memory loads.
    #[inline(always)]
    fn child_keys(&self, pos: &Position, moves: &MoveList, keys: &mut Vec<(u64, u64, Hand)>) {
        keys.clear();
        for &m in moves {
            let k = pos.keys_after(m);
            self.table.prefetch(k.0 ^ self.salt);
            keys.push(k);
        }
    }

    /// Children of an AND node: every evasion, with the 2-ply test (mate in 1 or no check
    /// for each child) built in.
    #[inline(never)]
    pub(super) fn expand_and(&mut self, pos: &mut Position, depth: u32, kids: &mut Vec<Child>) {
        let mut evasions = self.take_list();
        generate_evasions(pos, &mut evasions);
        let mut checks = self.take_list();
        let mut keys = std::mem::take(&mut self.keys);
        self.child_keys(pos, &evasions, &mut keys);
        // A new child's 2-ply test looks up its checks by its full key: start those loads
        // too (measured: that lookup was two thirds of `leaf_or`'s cycles).
        for &(bk, hk, _) in &keys {
            self.checks_seen.prefetch(bk ^ hk);
        }
        for (&e, &k) in evasions.iter().zip(&keys) {
            if must_wait(pos, false, e, kids) {
                kids.push(Child::hidden(e));
                continue;
            }
            let c = self.and_child(pos, e, k, depth, &mut checks);
            kids.push(c);
            if c.dn == 0 {
                break;
            }
        }
        self.keys = keys;
        self.give_list(evasions);
        self.give_list(checks);
    }

    /// Evaluates evasion `e` of the current AND node: repetition (or inferiority,
    /// `path.rs`), table, or leaf test.
    #[inline(never)]
    pub(super) fn and_child(
        &mut self,
        pos: &mut Position,
        e: Move,
        (bk, _, _): (u64, u64, Hand),
        depth: u32,
        checks: &mut MoveList,
    ) -> Child {
        // An evasion leaves the attacker's hand as it is.
        let hand = pos.hand(self.attacker);
        if let Some(i) = self.path.repeated(bk, hand) {
            return Child::repetition(e, hand, i);
        }
        match self.probe_within(bk ^ self.salt, hand, depth + 1) {
            Probe::Proven { hand, len } => Child::proven(e, hand, len),
            Probe::Disproven { hand } => Child::disproven(e, hand, 0, NO_LOOP),
            Probe::DisprovenWithin { hand, .. } => {
                Child::disproven(e, hand, DEPTH_LIMITED, NO_LOOP)
            }
            Probe::Unknown { .. } | Probe::Miss { .. } if self.past_cap(depth + 1, true) => {
                Child::disproven(e, hand, DEPTH_LIMITED, NO_LOOP)
            }
            Probe::Unknown { pn, dn } if !self.last_move(depth + 1) => {
                Child::unknown(e, pn, dn, Hand::EMPTY)
            }
            Probe::Unknown { pn, dn } | Probe::Miss { pn, dn } => {
                pos.do_move(e);
                let c = self.leaf_or(pos, e, depth + 1, checks, (pn, dn));
                pos.undo_move();
                c
            }
        }
    }

    /// A new OR node reached by `e` at `depth`: no check = disproof, mate in 1 = proof
    /// (both stored, both path-independent), else unit numbers.
    #[inline(never)]
    fn leaf_or(
        &mut self,
        pos: &mut Position,
        e: Move,
        depth: u32,
        checks: &mut MoveList,
        (pn_floor, dn_floor): (PnDn, PnDn),
    ) -> Child {
        self.checks_of(pos, checks);
        let hand = pos.hand(self.attacker);
        let key = self.tt_key(pos);
        if checks.is_empty() {
            let dh = hands::or_disproof_finish(hands::full_hand(), hand, drop_check_kinds(pos));
            let stored = if self.table.dominance() { dh } else { hand };
            self.table.store(key, stored, INF, 0, 0, 1);
            return Child::disproven(e, dh, 0, NO_LOOP);
        }
        if self.last_move(depth) {
            return self.last_move_leaf(pos, e, depth, checks);
        }
        if self.two_ply && depth < self.max_plies {
            let ek = pos.king_square(self.attacker.flip());
            let near = attacks::king(ek);
            let mut discover = None;
            for &m in checks.iter() {
                // Contact checks only: they give almost every mate in 1, and a mate by a
                // distant check is still found by the exact test when this node expands.
                // A checking pawn drop in the list never mates (pawn-drop mate is not
                // generated: it is illegal), so it is not tested.
                if !near.has(m.to()) || m.is_drop() && m.drop_piece() == PieceType::Pawn {
                    continue;
                }
                if let Some(c) = self.leaf_mate_by(pos, e, m, (key, hand), &mut discover) {
                    return c;
                }
            }
        }
        // Remember the test's outcome so that revisits do not repeat it.
        let (pn, dn) = (pn_floor.max(1), dn_floor.max(leaf_dn(checks.len())));
        self.table.store(key, hand, pn, dn, 0, 0);
        Child::unknown(e, pn, dn, Hand::EMPTY)
    }
}

impl Searcher {
    /// Whether an OR node at `depth` that may still move under the mate-length cap has
    /// only that one move left: a mate in 3 from it would end past the cap.
    #[inline(always)]
    fn last_move(&self, depth: u32) -> bool {
        depth + 3 > self.max_plies
    }

    /// An OR node reached by `e` at `depth` with one attacker move left (`last_move`), with
    /// its `checks`: settled at once by the exact mate-in-1 test of every check, which is
    /// what its visit would do. Proven: stored as a mate in 1. Else disproven within the
    /// plies it has left (stored as a visit stores it, `DisprovenWithin`; it holds on any
    /// path, so it carries no loop head). Only capped searches (the shortening) meet such
    /// nodes; settling them here saves the visit, and an AND node whose first such child
    /// is not mated is disproven without testing the others.
    fn last_move_leaf(
        &mut self,
        pos: &mut Position,
        e: Move,
        depth: u32,
        checks: &MoveList,
    ) -> Child {
        let hand = pos.hand(self.attacker);
        let key = self.tt_key(pos);
        let mut discover = None;
        for &m in checks.iter() {
            // A checking pawn drop never mates (pawn-drop mate is not generated).
            if m.is_drop() && m.drop_piece() == PieceType::Pawn {
                continue;
            }
            if let Some(c) = self.leaf_mate_by(pos, e, m, (key, hand), &mut discover) {
                return c;
            }
        }
        let within = self.max_plies.saturating_sub(depth) as u16 + 1;
        self.table.store(key, hand, INF, 0, within, 1);
        Child::disproven(e, hand, DEPTH_LIMITED, NO_LOOP)
    }

    /// The new OR node reached by `e` (the current position, key `key`, attacker's hand
    /// `hand`) as a proven child if its check `m` mates at once (the proof stored: a mate
    /// in 1 holds on any path), else `None`.
    #[inline(always)]
    fn leaf_mate_by(
        &mut self,
        pos: &mut Position,
        e: Move,
        m: Move,
        (key, hand): (u64, Hand),
        discover: &mut Option<Bitboard>,
    ) -> Option<Child> {
        let cap = captured(pos, m);
        let ph = hands::before_move_proof(self.mate_by(pos, m, discover)?, m, cap);
        let stored = if self.table.dominance() { ph } else { hand };
        self.table.store(key, stored, 0, INF, 1, 1);
        Some(Child::proven(e, ph, 1))
    }
}

/// Initial dn of a new OR node with `checks` checking moves: more checks, harder to
/// disprove. Expanding the node makes its dn about the number of checks (each child
/// starts at dn 1), so the estimate follows that count up to [`LEAF_DN_CAP`].
#[inline(always)]
fn leaf_dn(checks: usize) -> PnDn {
    (checks as PnDn).min(LEAF_DN_CAP)
}

/// Cap of [`leaf_dn`]. Measured on the bench set together with the OR children's `pn` = the
/// full evasion-class count (it was half the count, with a cap of 4): caps 4 / 8 / 16 / 32
/// leave 114 / 111 / 107 / 108 unknowns at 10k nodes and 36 / 34 / 33 / 33 at 100k; 16
/// proves the most mates at 10k (261), and 32 makes seed 003a (docs/references.md) three
/// times dearer.
const LEAF_DN_CAP: PnDn = 16;

//! The df-pn loop ([`Searcher`]).
//!
//! # Variant
//! Nagai's df-pn (recursive, thresholds `thpn`/`thdn`, children thresholds
//! `min(th, second * (1 + ε) + 1)` (ε = 1/4, see `pndn.rs`) for the minimised number
//! and `th - total + child` for the summed one) with *local expansion*: each visited node keeps its children's numbers in a per-ply
//! buffer for as long as it is on the stack, so a child's result (including a
//! path-dependent one) is seen exactly as it was returned, not re-read from a table that
//! may have lost or generalised it (the KomoringHeights design). Initial numbers (df-pn+
//! style) come from the expansion itself:
//! - OR node: for every checking move the defender's evasions are counted by class
//!   (`mate1::evasion_classes`: safe king squares, capturers, blockable squares); zero =
//!   checkmate, so the exact 1-ply mate test is part of the expansion; else the child
//!   starts at `pn` = that count, `dn` = 1. Children are looked up by keys computed
//!   without playing the move (`Position::keys_after`); only misses are played.
//! - AND node (the 2-ply test of seed 003, docs/references.md): every evasion is played and
//!   the attacker's checks are generated; none = disproof (stored, it is path-independent);
//!   a mate in 1 by a contact check (destination next to the king, decided without playing
//!   it by `mate1::contact_mate`) = proof (stored); else `pn` = 1, `dn` = the number of
//!   checks capped at 16 (about what the node's dn becomes once expanded). Distant-check
//!   mates are left to the exact test of the OR expansion: testing every check here cost
//!   20% more time on the bench set for no fewer nodes, because the OR expansion already
//!   finds every mate in 1.
//! - Under a mate-length cap (the shortening's searches), a new OR child with one attacker
//!   move left (a mate in 3 from it would end past the cap) is settled when its parent
//!   expands: the exact mate-in-1 test of all its checks, proven or disproven within the
//!   cap, which is what its visit would find (`expand.rs`, `last_move_leaf`).
//! - Both kinds of new child take the larger of these numbers and the floors the table
//!   gives from unknown entries of the same board with a dominating hand (`table.rs`).
//! - Delayed expansion (KomoringHeights): a child that is nearly always no better than a
//!   sibling waits, hidden, until that sibling is settled for the parent, and adds 1 to
//!   the parent's summed number meanwhile. Interposing drops onto one square wait for the
//!   previous kind to be proven. A non-promotion of a pawn, bishop or rook (or of a lance
//!   to the second-last rank) waits for the promotion of the same move: at an OR node
//!   until it is disproven, at an AND node until it is proven. Nothing is pruned: a node is
//!   never settled while a child waits (the waiting child is revealed first). Measured on
//!   the bench set, the non-promotions took 2-3 % off the nodes and 2-3 unknowns off both
//!   budgets, and 21 % / 14 % off seeds 003c / 003d.
//!
//! Why this variant: the local expansion makes graph-history interaction tractable
//! (path-dependent results live only on the stack, see `path.rs`), and the expansion-time
//! mate tests are what seed 003 measured as the big win (24% of the nodes).
//!
//! # Invariants
//! - A final result stored in the table never depends on the path or on a limit.
//! - Budget exhaustion returns the current (non-final) numbers; it is never a disproof.
//! - `nodes` counts visits of [`Searcher::search`] (the unit of the node budget).
//!
//! # Layout
//! This file holds the searcher's state and the loop; `search/finish.rs` a node's result
//! from its children; `search/child.rs` the children a node on the stack keeps and their
//! summary; `search/expand.rs` the expansions and the initial numbers; `search/delay.rs`
//! the delayed expansion.

mod child;
mod delay;
mod expand;
mod finish;

use super::check_cache::CheckCache;
use super::path::{Path, DEPTH_LIMITED, NO_LOOP};
use super::pndn::{self, PnDn, INF};
use super::proof_hand as hands;
use super::table::{Probe, Table};
use crate::shogi::checks::generate_checks_fast;
use crate::shogi::movegen::interposing_drop_kinds;
use crate::shogi::{Color, Hand, Move, MoveList, PieceType, Position};
use child::{settled, summarize, Child, Summary};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Hard cap on the search depth (plies from the root); beyond it a node is a
/// depth-limited (path-dependent) failure, never a stored disproof.
pub const MAX_DEPTH: u32 = 400;

/// A node's result as returned to its parent.
#[derive(Clone, Copy, Debug)]
pub struct Outcome {
    /// Proof number.
    pub pn: PnDn,
    /// Disproof number.
    pub dn: PnDn,
    /// Proof hand (proven), disproof hand (disproven) or the attacker's hand.
    pub hand: Hand,
    /// Plies of the proof found (proven only).
    pub len: u16,
    /// [`DEPTH_LIMITED`] for disproofs that must not be stored.
    pub flags: u8,
    /// Loop head of a disproof (`path.rs`): the shallowest path index whose repetition it
    /// relies on, [`NO_LOOP`] if none; always `<` the node's depth when returned.
    pub loop_head: u16,
}

impl Outcome {
    /// An undecided result with unit numbers.
    fn open(hand: Hand) -> Outcome {
        Outcome {
            pn: 1,
            dn: 1,
            hand,
            len: 0,
            flags: 0,
            loop_head: NO_LOOP,
        }
    }
}

/// Key salt for one root: the attacker's colour and the number of pieces of each kind in
/// play (handicap and tsume positions have fewer), so that entries of roots with different
/// piece sets or attackers never meet when the table is reused.
fn salt(pos: &Position, attacker: Color) -> u64 {
    let mut counts = [0u64; 8];
    for p in pos.board().iter().flatten() {
        counts[p.piece_type().unpromote().index()] += 1;
    }
    for c in Color::ALL {
        for pt in PieceType::HAND {
            counts[pt.index()] += pos.hand(c).count(pt) as u64;
        }
    }
    let mut h: u64 = 0x9e37_79b9_7f4a_7c15 ^ (attacker.index() as u64);
    for c in counts {
        h = (h ^ c).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 31;
    }
    // Bit 0 is the side-to-move bit of board keys: leave it alone.
    h & !1
}

/// The captured base kind of board move `m` here, if any.
fn captured(pos: &Position, m: Move) -> Option<PieceType> {
    if m.is_drop() {
        None
    } else {
        pos.piece_on(m.to()).map(|p| p.piece_type().unpromote())
    }
}

/// The solver's search state: table, path, per-ply buffers and the limits of one root.
///
/// # Invariants
/// - `attacker` and `salt` belong together ([`Searcher::set_attacker`]): every key the
///   table sees is salted for the side that gives check in the current search.
/// - `nodes` counts every visit since [`Searcher::start_root`], over all the searches made
///   for one root (both searches of a root in check, PV re-proofs and shortening).
pub struct Searcher {
    /// The transposition table.
    table: Table,
    /// The side giving check in this search.
    attacker: Color,
    /// Salt XORed into board keys (attacker colour and piece totals).
    salt: u64,
    /// Nodes visited for this root.
    nodes: u64,
    /// Node limit of the current search (a total over the root, like `nodes`).
    node_limit: u64,
    /// Wall-time guard.
    deadline: Option<Instant>,
    /// Set when a limit stopped the search.
    stopped: bool,
    /// Set when that limit was the wall-time guard.
    timed_out: bool,
    /// A flag another thread sets to stop the search (read every 1,024 nodes, with the
    /// wall-time guard); a stopped search is `Unknown`, as at any limit.
    abort: Option<Arc<AtomicBool>>,
    /// Maximum plies from the root (mate-length cap, at most [`MAX_DEPTH`]).
    max_plies: u32,
    /// The current path.
    path: Path,
    /// Whether new AND nodes test their children for mate in 1 (the 2-ply test).
    two_ply: bool,
    stacks: Vec<Vec<Child>>,
    /// Scratch: the children's keys of the expansion in progress.
    keys: Vec<(u64, u64, Hand)>,
    /// Scratch move lists, reused so that no node zeroes a fresh 2.4 KB list; an
    /// expansion takes what it needs and gives it back before it returns. Boxed so that
    /// taking and giving back moves a pointer, not the 2.4 KB list.
    #[allow(clippy::vec_box)]
    spare_lists: Vec<Box<MoveList>>,
    /// Checks of recently seen OR positions: a new child's 2-ply test generates them, its
    /// expansion and re-expansions reuse them (see `check_cache.rs`).
    checks_seen: CheckCache,
}

impl Searcher {
    /// A searcher with a table of `table_mb` MB.
    pub fn new(table_mb: usize) -> Searcher {
        Searcher {
            table: Table::new(table_mb),
            attacker: Color::Black,
            salt: 0,
            nodes: 0,
            node_limit: 0,
            deadline: None,
            stopped: false,
            timed_out: false,
            abort: None,
            max_plies: MAX_DEPTH,
            path: Path::new(),
            two_ply: true,
            stacks: Vec::new(),
            keys: Vec::new(),
            spare_lists: Vec::new(),
            checks_seen: CheckCache::new(),
        }
    }

    /// The table (to clear it or change its lookups).
    pub fn table_mut(&mut self) -> &mut Table {
        &mut self.table
    }

    /// The 2-ply test at new AND nodes on (default) or off (for measurement).
    pub fn set_two_ply(&mut self, on: bool) {
        self.two_ply = on;
    }

    /// Starts a root: the node count from zero and the wall-time guard (`None`: off).
    pub fn start_root(&mut self, deadline: Option<Instant>) {
        self.nodes = 0;
        self.deadline = deadline;
        self.timed_out = false;
    }

    /// The flag another thread sets to stop the search (see the `abort` field).
    pub fn set_abort(&mut self, flag: Option<Arc<AtomicBool>>) {
        self.abort = flag;
    }

    /// Sets (`Some`) or lifts (`None`) the wall-time guard for the rest of the root.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// The side giving check from now on; `pos` is the root (its piece totals salt the
    /// keys, so that entries of other roots or of the other attacker never meet).
    pub fn set_attacker(&mut self, pos: &Position, attacker: Color) {
        self.attacker = attacker;
        self.salt = salt(pos, attacker);
    }

    /// The side giving check.
    pub fn attacker(&self) -> Color {
        self.attacker
    }

    /// Nodes visited since [`Searcher::start_root`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Whether the wall-time guard stopped a search of this root.
    pub fn timed_out(&self) -> bool {
        self.timed_out
    }

    /// The mate-length cap of the current search.
    pub fn max_plies(&self) -> u32 {
        self.max_plies
    }

    /// Searches `pos` as a root (`or_root`: the attacker to move) with the mate length
    /// capped at `max_plies` (at most [`MAX_DEPTH`]) until the root's node count reaches
    /// `node_limit` (or the wall-time guard fires).
    pub fn search_root(
        &mut self,
        pos: &mut Position,
        or_root: bool,
        max_plies: u32,
        node_limit: u64,
    ) -> Outcome {
        self.max_plies = max_plies.min(MAX_DEPTH);
        self.node_limit = node_limit;
        self.stopped = false;
        self.path.clear();
        self.path.push(pos.board_key(), pos.hand(self.attacker));
        self.search(pos, or_root, INF, INF, 0)
    }

    /// An empty scratch move list (a spare one if there is one).
    #[inline(always)]
    fn take_list(&mut self) -> Box<MoveList> {
        match self.spare_lists.pop() {
            Some(mut l) => {
                l.clear();
                l
            }
            None => Box::new(MoveList::new()),
        }
    }

    /// Returns a list from [`Searcher::take_list`] for reuse.
    #[inline(always)]
    fn give_list(&mut self, list: Box<MoveList>) {
        self.spare_lists.push(list);
    }

    /// The checks of the current OR position into `list`: from the check cache, or
    /// generated and remembered there (the same list either way).
    #[inline(always)]
    fn checks_of(&mut self, pos: &Position, list: &mut MoveList) {
        let key = pos.key();
        if !self.checks_seen.get(key, list) {
            generate_checks_fast(pos, list);
            self.checks_seen.put(key, list);
        }
    }

    /// Salted table key of the current position.
    #[inline(always)]
    pub fn tt_key(&self, pos: &Position) -> u64 {
        pos.board_key() ^ self.salt
    }

    /// Table lookup for the current position.
    #[inline(always)]
    pub fn probe(&self, pos: &Position) -> Probe {
        self.table.probe(self.tt_key(pos), pos.hand(self.attacker))
    }

    #[inline(always)]
    fn out_of_budget(&mut self) -> bool {
        if self.nodes >= self.node_limit {
            self.stopped = true;
        } else if self.nodes & 1023 == 0 {
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.stopped = true;
                    self.timed_out = true;
                }
            }
            if self
                .abort
                .as_ref()
                .is_some_and(|a| a.load(Ordering::Relaxed))
            {
                self.stopped = true;
            }
        }
        self.stopped
    }

    /// Proof hand of the current position, which must be checkmated (defender to move).
    fn checkmate_proof(&self, pos: &Position) -> Hand {
        let def = self.attacker.flip();
        hands::and_proof_adjust(
            Hand::EMPTY,
            pos.hand(self.attacker),
            pos.hand(def),
            interposing_drop_kinds(pos),
        )
    }

    /// df-pn at the current position (`or_node`: attacker to move) with thresholds.
    fn search(
        &mut self,
        pos: &mut Position,
        or_node: bool,
        thpn: PnDn,
        thdn: PnDn,
        depth: u32,
    ) -> Outcome {
        self.nodes += 1;
        let start = self.nodes;
        let hand = pos.hand(self.attacker);
        if or_node && depth + 1 > self.max_plies {
            return Outcome {
                pn: INF,
                dn: 0,
                hand,
                len: 0,
                flags: DEPTH_LIMITED,
                loop_head: NO_LOOP,
            };
        }
        let mut kids = self.take_children(depth);
        if or_node {
            self.expand_or(pos, depth, &mut kids);
        } else {
            self.expand_and(pos, depth, &mut kids);
        }
        let s = self.search_children(pos, or_node, thpn, thdn, depth, &mut kids);
        let mut out = self.finish(pos, or_node, &kids, &s, hand);
        if out.loop_head as u32 >= depth {
            // Every repetition it met is inside this node's subtree: its own value.
            out.loop_head = NO_LOOP;
        }
        let amount = (self.nodes - start + 1).min(u32::MAX as u64) as u32;
        self.store_outcome(pos, depth, hand, &out, amount);
        self.stacks[depth as usize] = kids;
        out
    }

    /// The children buffer of ply `depth`, empty (the one a node at that ply used last, so
    /// that no node allocates once the stack has been that deep).
    #[inline(always)]
    fn take_children(&mut self, depth: u32) -> Vec<Child> {
        let d = depth as usize;
        if self.stacks.len() <= d {
            self.stacks.resize_with(d + 1, Vec::new);
        }
        let mut kids = std::mem::take(&mut self.stacks[d]);
        kids.clear();
        kids
    }

    /// The df-pn loop of one node: searches its most proving (OR) or disproving (AND) child
    /// with the children's thresholds until the node is settled, exceeds a threshold or
    /// the budget runs out; returns the last summary of its children.
    #[inline(always)]
    fn search_children(
        &mut self,
        pos: &mut Position,
        or_node: bool,
        thpn: PnDn,
        thdn: PnDn,
        depth: u32,
        kids: &mut [Child],
    ) -> Summary {
        loop {
            let s = summarize(kids, or_node);
            if s.pn == 0 || s.dn == 0 || s.pn >= thpn || s.dn >= thdn || self.out_of_budget() {
                return s;
            }
            let best = kids[s.best];
            let (cthpn, cthdn) = if or_node {
                (
                    pndn::min_threshold(thpn, s.second),
                    pndn::sum_threshold(thdn, s.dn, best.dn),
                )
            } else {
                (
                    pndn::sum_threshold(thpn, s.pn, best.pn),
                    pndn::min_threshold(thdn, s.second),
                )
            };
            pos.do_move(best.mv);
            self.path.push(pos.board_key(), pos.hand(self.attacker));
            let r = self.search(pos, !or_node, cthpn, cthdn, depth + 1);
            self.path.pop();
            pos.undo_move();
            kids[s.best] = Child {
                mv: best.mv,
                pn: r.pn,
                dn: r.dn,
                hand: r.hand,
                len: r.len,
                flags: r.flags,
                loop_head: r.loop_head,
            };
            if settled(&kids[s.best], or_node) {
                self.reveal(pos, or_node, depth, kids, s.best);
            }
        }
    }

    /// Stores a node's result (`amount`: the nodes its search took): a proof, a disproof
    /// that holds regardless of the path (for one that rests on the mate-length cap: within
    /// the plies the node had left), or the open numbers; a path-dependent disproof is not
    /// stored.
    #[inline(always)]
    fn store_outcome(
        &mut self,
        pos: &Position,
        depth: u32,
        hand: Hand,
        out: &Outcome,
        amount: u32,
    ) {
        let key = self.tt_key(pos);
        let stored_hand = if self.table.dominance() {
            out.hand
        } else {
            hand
        };
        if out.pn == 0 {
            self.table.store(key, stored_hand, 0, INF, out.len, amount);
        } else if out.dn == 0 {
            if out.loop_head == NO_LOOP {
                // A disproof that rests on the mate-length cap holds for this node within
                // the plies it had left, and for any shorter cap (`DisprovenWithin`).
                let within = match out.flags {
                    0 => Some(0),
                    DEPTH_LIMITED => Some(self.max_plies.saturating_sub(depth) as u16 + 1),
                    _ => None,
                };
                if let Some(len) = within {
                    self.table.store(key, stored_hand, INF, 0, len, amount);
                }
            }
        } else {
            self.table.store(key, hand, out.pn, out.dn, 0, amount);
        }
    }
}

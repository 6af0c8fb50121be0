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
//! This file holds the loop and a node's result; `search/child.rs` the children a node on
//! the stack keeps and their summary; `search/expand.rs` the expansions and the initial
//! numbers; `search/delay.rs` the delayed expansion.

mod child;
mod delay;
mod expand;

use super::check_cache::CheckCache;
use super::path::{Path, DEPTH_LIMITED, NO_LOOP};
use super::pndn::{self, PnDn, INF};
use super::proof_hand as hands;
use super::table::{Probe, Table};
use crate::shogi::checks::{drop_check_kinds, generate_checks_fast};
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

/// The captured base kind of board move `m` here, if any.
fn captured(pos: &Position, m: Move) -> Option<PieceType> {
    if m.is_drop() {
        None
    } else {
        pos.piece_on(m.to()).map(|p| p.piece_type().unpromote())
    }
}

/// The solver's search state: table, path, per-ply buffers and the limits of one root.
pub struct Searcher {
    /// The transposition table.
    pub table: Table,
    /// The side giving check in this root's search.
    pub attacker: Color,
    /// Salt XORed into board keys (attacker colour and piece totals).
    pub salt: u64,
    /// Nodes visited for this root.
    pub nodes: u64,
    /// Node budget for this root.
    pub node_limit: u64,
    /// Wall-time guard.
    pub deadline: Option<Instant>,
    /// Set when a limit stopped the search.
    pub stopped: bool,
    /// Set when that limit was the wall-time guard.
    pub timed_out: bool,
    /// A flag another thread sets to stop the search (read every 1,024 nodes, with the
    /// wall-time guard); a stopped search is `Unknown`, as at any limit.
    pub abort: Option<Arc<AtomicBool>>,
    /// Maximum plies from the root (mate-length cap, at most [`MAX_DEPTH`]).
    pub max_plies: u32,
    /// The current path.
    pub path: Path,
    /// Whether new AND nodes test their children for mate in 1 (the 2-ply test).
    pub two_ply: bool,
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
    pub fn search(
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
        let d = depth as usize;
        if self.stacks.len() <= d {
            self.stacks.resize_with(d + 1, Vec::new);
        }
        let mut kids = std::mem::take(&mut self.stacks[d]);
        kids.clear();
        if or_node {
            self.expand_or(pos, depth, &mut kids);
        } else {
            self.expand_and(pos, depth, &mut kids);
        }
        let s = loop {
            let s = summarize(&kids, or_node);
            if s.pn == 0 || s.dn == 0 || s.pn >= thpn || s.dn >= thdn || self.out_of_budget() {
                break s;
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
                self.reveal(pos, or_node, depth, &mut kids, s.best);
            }
        };
        let mut out = self.finish(pos, or_node, &kids, &s, hand);
        if out.loop_head as u32 >= depth {
            // Every repetition it met is inside this node's subtree: its own value.
            out.loop_head = NO_LOOP;
        }
        let amount = (self.nodes - start + 1).min(u32::MAX as u64) as u32;
        let key = self.tt_key(pos);
        let stored_hand = if self.table.dominance() {
            out.hand
        } else {
            hand
        };
        if out.pn == 0 {
            self.table.store(key, stored_hand, 0, INF, out.len, amount);
        } else if out.dn == 0 {
            if out.flags == 0 && out.loop_head == NO_LOOP {
                self.table.store(key, stored_hand, INF, 0, 0, amount);
            }
        } else {
            self.table.store(key, hand, out.pn, out.dn, 0, amount);
        }
        self.stacks[d] = kids;
        out
    }

    /// The node's result from its children, whose summary is `s`.
    fn finish(
        &self,
        pos: &Position,
        or_node: bool,
        kids: &[Child],
        s: &Summary,
        hand: Hand,
    ) -> Outcome {
        if or_node {
            if s.pn == 0 {
                let mut best: Option<&Child> = None;
                for c in kids.iter().filter(|c| c.pn == 0) {
                    if best.is_none_or(|b| c.len < b.len) {
                        best = Some(c);
                    }
                }
                let Some(b) = best else {
                    debug_assert!(false, "pn 0 needs a proven child");
                    return Outcome::open(hand);
                };
                let ph = hands::before_move_proof(b.hand, b.mv, captured(pos, b.mv));
                return Outcome {
                    pn: 0,
                    dn: INF,
                    hand: ph,
                    len: b.len.saturating_add(1),
                    flags: 0,
                    loop_head: NO_LOOP,
                };
            }
            if s.dn == 0 {
                let mut flags = 0;
                let mut loop_head = NO_LOOP;
                let mut dh = hands::full_hand();
                for c in kids {
                    flags |= c.flags;
                    loop_head = loop_head.min(c.loop_head);
                    dh = dh.min(hands::before_move_disproof(
                        c.hand,
                        c.mv,
                        captured(pos, c.mv),
                    ));
                }
                let dh = hands::or_disproof_finish(dh, hand, drop_check_kinds(pos));
                return Outcome {
                    pn: INF,
                    dn: 0,
                    hand: dh,
                    len: 0,
                    flags,
                    loop_head,
                };
            }
        } else {
            if s.pn == 0 {
                let mut ph = Hand::EMPTY;
                let mut len = 0;
                for c in kids {
                    ph = ph.max(c.hand);
                    len = len.max(c.len);
                }
                let def = pos.hand(self.attacker.flip());
                let ph = hands::and_proof_adjust(ph, hand, def, interposing_drop_kinds(pos));
                return Outcome {
                    pn: 0,
                    dn: INF,
                    hand: ph,
                    len: len.saturating_add(1),
                    flags: 0,
                    loop_head: NO_LOOP,
                };
            }
            if s.dn == 0 {
                // The first disproven evasion among those that depend least on the path:
                // no flag, then the deepest loop head (NO_LOOP is the deepest).
                let pick = kids
                    .iter()
                    .filter(|c| c.dn == 0)
                    .min_by_key(|c| (c.flags != 0, std::cmp::Reverse(c.loop_head)));
                let Some(c) = pick else {
                    debug_assert!(false, "dn 0 needs a disproven child");
                    return Outcome::open(hand);
                };
                let dh = hands::and_disproof(c.hand, c.mv, hand);
                return Outcome {
                    pn: INF,
                    dn: 0,
                    hand: dh,
                    len: 0,
                    flags: c.flags,
                    loop_head: c.loop_head,
                };
            }
        }
        Outcome {
            pn: s.pn,
            dn: s.dn,
            hand,
            len: 0,
            flags: 0,
            loop_head: NO_LOOP,
        }
    }
}

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
//! - AND node (the 2-ply test of seed 003): every evasion is played and the attacker's
//!   checks are generated; none = disproof (stored, it is path-independent); a mate in 1
//!   by a contact check (destination next to the king, decided without playing it by
//!   `mate1::contact_mate`) = proof (stored); else `pn` = 1, `dn` = the number of checks
//!   capped at 16 (about what the node's dn becomes once expanded). Distant-check mates
//!   are left to the exact test of the OR expansion: testing every check here cost 20%
//!   more time on the bench set for no fewer nodes, because the OR expansion already
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

use super::check_cache::CheckCache;
use super::path::{Path, DEPTH_LIMITED, PATH_DEPENDENT};
use super::pndn::{self, PnDn, INF};
use super::proof_hand as hands;
use super::table::{Probe, Table};
use crate::shogi::attacks;
use crate::shogi::checks::{drop_check_kinds, generate_checks_fast};
use crate::shogi::mate1::{contact_evasions, contact_mate, evasion_classes, has_evasion};
use crate::shogi::movegen::{generate_evasions, interposing_drop_kinds};
use crate::shogi::{Bitboard, Color, Hand, Move, MoveList, PieceType, Position, Square};
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
    /// [`PATH_DEPENDENT`] / [`DEPTH_LIMITED`] for disproofs that must not be stored.
    pub flags: u8,
}

/// Child flag (never returned): a child not yet expanded because it waits for a sibling
/// (delayed expansion, see the module doc): the next interposing drop onto the same square,
/// revealed when the previous one is proven, so a useless interposition costs one child
/// instead of seven; or a non-promotion, revealed when its promotion is settled.
const HIDDEN: u8 = 0x80;

impl Outcome {
    /// An undecided result with unit numbers.
    fn open(hand: Hand) -> Outcome {
        Outcome {
            pn: 1,
            dn: 1,
            hand,
            len: 0,
            flags: 0,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Child {
    mv: Move,
    pn: PnDn,
    dn: PnDn,
    hand: Hand,
    len: u16,
    flags: u8,
}

impl Child {
    fn unknown(mv: Move, pn: PnDn, dn: PnDn, hand: Hand) -> Child {
        Child {
            mv,
            pn,
            dn,
            hand,
            len: 0,
            flags: 0,
        }
    }
    /// A child that waits (see [`HIDDEN`]); its numbers are placeholders.
    fn hidden(mv: Move) -> Child {
        Child {
            mv,
            pn: 1,
            dn: 1,
            hand: Hand::EMPTY,
            len: 0,
            flags: HIDDEN,
        }
    }
    fn proven(mv: Move, hand: Hand, len: u16) -> Child {
        Child {
            mv,
            pn: 0,
            dn: INF,
            hand,
            len,
            flags: 0,
        }
    }
    fn disproven(mv: Move, hand: Hand, flags: u8) -> Child {
        Child {
            mv,
            pn: INF,
            dn: 0,
            hand,
            len: 0,
            flags,
        }
    }
}

struct Summary {
    pn: PnDn,
    dn: PnDn,
    best: usize,
    second: PnDn,
}

fn summarize(kids: &[Child], or_node: bool) -> Summary {
    // OR: pn = min, dn = sum. AND: the mirror image.
    let mut min = INF;
    let mut second = INF;
    let mut sum: PnDn = 0;
    let mut best = 0;
    let mut hidden = false;
    for (i, c) in kids.iter().enumerate() {
        if c.flags & HIDDEN != 0 {
            hidden = true;
            sum = pndn::add(sum, 1);
            continue;
        }
        let (mn, sm) = if or_node { (c.pn, c.dn) } else { (c.dn, c.pn) };
        sum = pndn::add(sum, sm);
        if mn < min {
            second = min;
            min = mn;
            best = i;
        } else if mn < second {
            second = mn;
        }
    }
    // A waiting child's sibling is never settled for the parent (`reveal` runs first), so
    // some visible child is still open.
    debug_assert!(
        !hidden || min != INF,
        "every visible child settled while one waits"
    );
    if kids.is_empty() {
        sum = 0;
    }
    if min == 0 {
        sum = INF;
    }
    if hidden && sum == 0 {
        // Never settled while a child waits (`reveal` keeps this unreachable).
        sum = 1;
    }
    if or_node {
        Summary {
            pn: min,
            dn: sum,
            best,
            second,
        }
    } else {
        Summary {
            pn: sum,
            dn: min,
            best,
            second,
        }
    }
}

/// The sibling a child waits for (delayed expansion, see [`HIDDEN`]).
#[derive(Clone, Copy)]
enum Awaited {
    /// At an AND node, an interposing drop waits for any other drop onto this square.
    DropOn(Square),
    /// A non-promotion waits for this move, its promotion.
    Move(Move),
}

impl Awaited {
    /// What child `m` of the current node waits for, if anything: a drop at an AND node; a
    /// non-promotion of a pawn, bishop or rook that may promote, or of a lance moving to the
    /// second-last rank (where it may promote and still move), at either kind of node.
    fn of(pos: &Position, or_node: bool, m: Move) -> Option<Awaited> {
        if m.is_drop() {
            return (!or_node).then(|| Awaited::DropOn(m.to()));
        }
        if m.is_promotion() {
            return None;
        }
        let us = pos.side_to_move();
        let (from, to) = (m.from(), m.to());
        let zone = Bitboard::forward_ranks(us, 3);
        if !zone.has(from) && !zone.has(to) {
            return None;
        }
        let waits = match pos.piece_on(from)?.piece_type() {
            PieceType::Pawn | PieceType::Bishop | PieceType::Rook => true,
            PieceType::Lance => Bitboard::forward_ranks(us, 2).has(to),
            _ => false,
        };
        waits.then(|| Awaited::Move(Move::new(from, to, true)))
    }

    /// Whether sibling move `k` is the one awaited.
    fn is(self, k: Move) -> bool {
        match self {
            Awaited::DropOn(sq) => k.is_drop() && k.to() == sq,
            Awaited::Move(m) => k == m,
        }
    }
}

/// Whether `c` is settled for its parent: disproven at an OR node, proven at an AND node
/// (the other outcome settles the parent itself).
#[inline(always)]
fn settled(c: &Child, or_node: bool) -> bool {
    if or_node {
        c.dn == 0
    } else {
        c.pn == 0
    }
}

/// Whether child `m` must wait: the sibling it waits for is among `kids` and not settled.
#[inline(always)]
fn must_wait(pos: &Position, or_node: bool, m: Move, kids: &[Child]) -> bool {
    Awaited::of(pos, or_node, m)
        .is_some_and(|a| kids.iter().any(|k| a.is(k.mv) && !settled(k, or_node)))
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
            };
        }
        let d = depth as usize;
        if self.stacks.len() <= d {
            self.stacks.resize_with(d + 1, Vec::new);
        }
        let mut kids = std::mem::take(&mut self.stacks[d]);
        kids.clear();
        if or_node {
            self.expand_or(pos, &mut kids);
        } else {
            self.expand_and(pos, depth, &mut kids);
        }
        loop {
            let s = summarize(&kids, or_node);
            if s.pn == 0 || s.dn == 0 || s.pn >= thpn || s.dn >= thdn || self.out_of_budget() {
                break;
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
            self.path.push(pos.key());
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
            };
            if settled(&kids[s.best], or_node) {
                self.reveal(pos, or_node, depth, &mut kids, s.best);
            }
        }
        let out = self.finish(pos, or_node, &kids, hand);
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
            if out.flags == 0 {
                self.table.store(key, stored_hand, INF, 0, 0, amount);
            }
        } else {
            self.table.store(key, hand, out.pn, out.dn, 0, amount);
        }
        self.stacks[d] = kids;
        out
    }

    /// Children of an OR node: every legal check, with the exact 1-ply mate test built in.
    #[inline(never)]
    fn expand_or(&mut self, pos: &mut Position, kids: &mut Vec<Child>) {
        let mut checks = self.take_list();
        self.checks_of(pos, &mut checks);
        let mut discover = None;
        let mut keys = std::mem::take(&mut self.keys);
        self.child_keys(pos, &checks, &mut keys);
        for (&m, &k) in checks.iter().zip(&keys) {
            let c = if must_wait(pos, true, m, kids) {
                Child::hidden(m)
            } else {
                self.or_child(pos, m, k, &mut discover)
            };
            kids.push(c);
            if c.pn == 0 {
                break;
            }
        }
        self.keys = keys;
        self.give_list(checks);
    }

    /// Evaluates check `m` of the current OR node: repetition, table, or the exact count of
    /// the defender's evasion classes (zero = mate in 1). `discover` caches the attacker's
    /// discovered-check candidates for the node.
    #[inline(always)]
    fn or_child(
        &mut self,
        pos: &mut Position,
        m: Move,
        (bk, hk, child_hand): (u64, u64, Hand),
        discover: &mut Option<Bitboard>,
    ) -> Child {
        if self.path.contains(bk ^ hk) {
            return Child::disproven(m, Hand::EMPTY, PATH_DEPENDENT);
        }
        match self.table.probe(bk ^ self.salt, child_hand) {
            Probe::Proven { hand, len } => Child::proven(m, hand, len),
            Probe::Disproven { hand } => Child::disproven(m, hand, 0),
            Probe::Unknown { pn, dn } => Child::unknown(m, pn, dn, Hand::EMPTY),
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
    fn expand_and(&mut self, pos: &mut Position, depth: u32, kids: &mut Vec<Child>) {
        let mut evasions = self.take_list();
        generate_evasions(pos, &mut evasions);
        let mut checks = self.take_list();
        let mut keys = std::mem::take(&mut self.keys);
        self.child_keys(pos, &evasions, &mut keys);
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

    /// Evaluates evasion `e` of the current AND node: repetition, table, or leaf test.
    #[inline(never)]
    fn and_child(
        &mut self,
        pos: &mut Position,
        e: Move,
        (bk, hk, _): (u64, u64, Hand),
        depth: u32,
        checks: &mut MoveList,
    ) -> Child {
        if self.path.contains(bk ^ hk) {
            return Child::disproven(e, Hand::EMPTY, PATH_DEPENDENT);
        }
        match self.table.probe(bk ^ self.salt, pos.hand(self.attacker)) {
            Probe::Proven { hand, len } => Child::proven(e, hand, len),
            Probe::Disproven { hand } => Child::disproven(e, hand, 0),
            Probe::Unknown { pn, dn } => Child::unknown(e, pn, dn, Hand::EMPTY),
            Probe::Miss { pn, dn } => {
                pos.do_move(e);
                let c = self.leaf_or(pos, e, depth + 1, checks, (pn, dn));
                pos.undo_move();
                c
            }
        }
    }

    /// After child `i` is settled for its parent (proven at an AND node, disproven at an OR
    /// node), reveals the hidden child that waited for it: the next interposing drop on the
    /// same square, or the non-promotion of the same move; and the one after that, while
    /// each revealed child settles at once.
    #[inline(never)]
    fn reveal(
        &mut self,
        pos: &mut Position,
        or_node: bool,
        depth: u32,
        kids: &mut [Child],
        mut i: usize,
    ) {
        let mut discover = None;
        loop {
            if !settled(&kids[i], or_node) {
                return;
            }
            let m = kids[i].mv;
            let Some(j) = kids.iter().position(|k| {
                k.flags & HIDDEN != 0 && Awaited::of(pos, or_node, k.mv).is_some_and(|a| a.is(m))
            }) else {
                return;
            };
            let e = kids[j].mv;
            kids[j] = if or_node {
                self.or_child(pos, e, pos.keys_after(e), &mut discover)
            } else {
                let mut checks = self.take_list();
                let c = self.and_child(pos, e, pos.keys_after(e), depth, &mut checks);
                self.give_list(checks);
                c
            };
            i = j;
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
            return Child::disproven(e, dh, 0);
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
                let cap = captured(pos, m);
                let discover = *discover.get_or_insert_with(|| {
                    pos.blockers(self.attacker, ek) & pos.pieces_of(self.attacker)
                });
                let ph = match contact_mate(pos, m, discover) {
                    // A contact check cannot be blocked: the proof needs no piece in hand.
                    Some(mate) => mate.then_some(Hand::EMPTY),
                    None => {
                        pos.do_move(m);
                        let ph = if has_evasion(pos) {
                            None
                        } else {
                            Some(self.checkmate_proof(pos))
                        };
                        pos.undo_move();
                        ph
                    }
                };
                if let Some(ph) = ph {
                    let ph = hands::before_move_proof(ph, m, cap);
                    let stored = if self.table.dominance() { ph } else { hand };
                    self.table.store(key, stored, 0, INF, 1, 1);
                    return Child::proven(e, ph, 1);
                }
            }
        }
        // Remember the test's outcome so that revisits do not repeat it.
        let (pn, dn) = (pn_floor.max(1), dn_floor.max(leaf_dn(checks.len())));
        self.table.store(key, hand, pn, dn, 0, 0);
        Child::unknown(e, pn, dn, Hand::EMPTY)
    }

    /// The node's result from its children.
    fn finish(&self, pos: &Position, or_node: bool, kids: &[Child], hand: Hand) -> Outcome {
        let s = summarize(kids, or_node);
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
                };
            }
            if s.dn == 0 {
                let flags = kids.iter().fold(0, |f, c| f | c.flags);
                let mut dh = hands::full_hand();
                if flags == 0 {
                    for c in kids {
                        dh = dh.min(hands::before_move_disproof(
                            c.hand,
                            c.mv,
                            captured(pos, c.mv),
                        ));
                    }
                }
                let dh = hands::or_disproof_finish(dh, hand, drop_check_kinds(pos));
                return Outcome {
                    pn: INF,
                    dn: 0,
                    hand: dh,
                    len: 0,
                    flags,
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
                };
            }
            if s.dn == 0 {
                let pick = kids
                    .iter()
                    .find(|c| c.dn == 0 && c.flags == 0)
                    .or_else(|| kids.iter().find(|c| c.dn == 0));
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
                };
            }
        }
        Outcome {
            pn: s.pn,
            dn: s.dn,
            hand,
            len: 0,
            flags: 0,
        }
    }
}

/// Initial dn of a new OR node with `checks` checking moves: more checks, harder to
/// disprove. Expanding the node makes its dn about the number of checks (each child
/// starts at dn 1), so the estimate follows that count up to [`LEAF_DN_CAP`].
#[inline(always)]
fn leaf_dn(checks: usize) -> PnDn {
    (checks as PnDn).min(LEAF_DN_CAP)
}

/// Cap of [`leaf_dn`]. Measured on the bench set together with the OR children's `pn` =
/// the full evasion-class count (it was half the count, with a cap of 4): caps 4 / 8 / 16
/// / 32 leave 114 / 111 / 107 / 108 unknowns at 10k nodes and 36 / 34 / 33 / 33 at 100k;
/// 16 proves the most mates at 10k (261), and 32 makes seed 003a three times dearer.
const LEAF_DN_CAP: PnDn = 16;

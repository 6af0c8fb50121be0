//! Principal variation: extraction from the table and replay verification.
//!
//! Extraction first evaluates the table's proof tree (`Lines`): the attacker plays a
//! checking move that mates at once or else the proven child whose *evaluated* line is the
//! shortest, and the defender plays the evasion whose evaluated line is the longest. For a
//! fixed attacker policy the longest defence is at least the shortest mate, so the PV is
//! never shorter than the shortest mate (stored lengths alone can be stale: a child proved
//! again later through a transposition keeps its parent's old length, and a defender
//! choosing by them once reported a 21-ply line for the 25-ply seed 003d,
//! docs/references.md). The evaluation is memoised per position and limited to
//! [`LINES_BUDGET`] positions. A proven OR node none of whose children is proven in the
//! table any more (evicted: entries of one board share a cluster) is proven again with a
//! small budget, at most [`MAX_REPROVED`] times per extraction.
//!
//! When it fails (budget, evicted children) the greedy walk takes over: at OR nodes a
//! checking move that mates at once or else the proven child with the shortest stored
//! proof; at AND nodes the evasion whose proven child has the longest stored proof (a mate
//! in 1 found by test counts as 1 ply). If a needed child is missing (evicted), the node is
//! searched again with a small budget and the step retried once. A cycle, a dead end or an
//! over-long line gives `None`.
//!
//! Verification replays the line from the root: every attacker move legal and checking,
//! every defence legal, the final position checkmated, the side to move at the end the
//! defender. A line that fails is never reported as a mate.

use super::search::Searcher;
use super::table::Probe;
use crate::shogi::checks::generate_checks_fast;
use crate::shogi::mate1::has_evasion;
use crate::shogi::movegen::generate_legal;
use crate::shogi::{Move, MoveList, Position};
use std::collections::{HashMap, HashSet};

/// Longest line extraction will follow.
pub const MAX_PV: usize = 1000;

/// Extra nodes allowed to re-prove a node whose children were evicted.
const REPROVE_NODES: u64 = 20_000;

/// Most nodes the proof-tree evaluation re-proves for one extraction.
pub const MAX_REPROVED: usize = 64;

/// One step: the chosen move and whether it ends the line (mate given).
fn choose(s: &Searcher, pos: &mut Position, or_node: bool) -> Result<Option<(Move, bool)>, ()> {
    let mut list = MoveList::new();
    if or_node {
        generate_checks_fast(pos, &mut list);
    } else {
        generate_legal(pos, &mut list);
        if list.is_empty() {
            return Ok(None);
        }
    }
    let mut best: Option<(Move, u32)> = None;
    for &m in &list {
        pos.do_move(m);
        let len = if or_node && !has_evasion(pos) {
            Some(0)
        } else {
            match s.probe(pos) {
                Probe::Proven { len, .. } => Some(len as u32),
                _ if !or_node && crate::shogi::mate1::mate1(pos).is_some() => Some(1),
                _ => None,
            }
        };
        pos.undo_move();
        match (len, or_node) {
            (Some(0), true) => return Ok(Some((m, true))),
            (Some(l), true) => {
                if best.is_none_or(|(_, b)| l < b) {
                    best = Some((m, l));
                }
            }
            (Some(l), false) => {
                if best.is_none_or(|(_, b)| l > b) {
                    best = Some((m, l));
                }
            }
            (None, true) => {}
            (None, false) => return Err(()),
        }
    }
    match best {
        Some((m, _)) => Ok(Some((m, false))),
        None => Err(()),
    }
}

/// Positions the proof-tree evaluation of `Lines` may visit before it gives up.
pub const LINES_BUDGET: usize = 200_000;

/// Evaluation of the table's proof tree (see the module doc): per position (full key) the
/// move to play (`None`: the defender is checkmated) and the plies left.
struct Lines<'a> {
    s: &'a mut Searcher,
    /// Nodes re-proved so far because their proving children were evicted.
    reproved: usize,
    /// How many OR nodes on the evaluation stack already have a complete line and are
    /// evaluating other children only to compare (no node is re-proved for those).
    comparing: usize,
    memo: HashMap<u64, (Option<Move>, u32)>,
    stack: HashSet<u64>,
    visits: usize,
}

impl Lines<'_> {
    /// The line from the current position, or `None` if it cannot be completed (a child
    /// not proven in the table, a cycle, the budget). The position is restored.
    fn line(&mut self, pos: &mut Position, or_node: bool) -> Option<(Option<Move>, u32)> {
        let key = pos.key();
        if let Some(&r) = self.memo.get(&key) {
            return Some(r);
        }
        self.visits += 1;
        if self.visits > LINES_BUDGET || !self.stack.insert(key) {
            return None;
        }
        let r = if or_node {
            self.or_line(pos)
        } else {
            self.and_line(pos)
        };
        self.stack.remove(&key);
        if let Some(r) = r {
            self.memo.insert(key, r);
        }
        r
    }

    fn or_line(&mut self, pos: &mut Position) -> Option<(Option<Move>, u32)> {
        let line = self.or_line_from_table(pos);
        // Past the evaluation budget every line fails: re-proving would not help.
        if line.is_some()
            || self.comparing > 0
            || self.reproved >= MAX_REPROVED
            || self.visits > LINES_BUDGET
        {
            return line;
        }
        // The node is proven but the children that proved it were evicted (entries of one
        // board share a cluster, and a long line through pawn drops and captures revisits a
        // board with many hands): prove it again with a small budget and look once more.
        self.reproved += 1;
        if reprove(self.s, pos, true) {
            self.or_line_from_table(pos)
        } else {
            None
        }
    }

    fn or_line_from_table(&mut self, pos: &mut Position) -> Option<(Option<Move>, u32)> {
        let mut list = MoveList::new();
        generate_checks_fast(pos, &mut list);
        let mut proven = Vec::new();
        for &m in &list {
            pos.do_move(m);
            let mated = !has_evasion(pos);
            let probe = self.s.probe(pos);
            pos.undo_move();
            if mated {
                return Some((Some(m), 1));
            }
            if let Probe::Proven { len, .. } = probe {
                proven.push((len, m));
            }
        }
        proven.sort_by_key(|&(len, _)| len);
        let mut best: Option<(Option<Move>, u32)> = None;
        for (_, m) in proven {
            // Once one child's line is complete, the others are only compared with it:
            // none of their nodes is proven again.
            self.comparing += best.is_some() as usize;
            pos.do_move(m);
            let r = self.line(pos, false);
            pos.undo_move();
            self.comparing -= best.is_some() as usize;
            if let Some((_, n)) = r {
                if best.is_none_or(|(_, b)| n + 1 < b) {
                    best = Some((Some(m), n + 1));
                }
            }
        }
        best
    }

    fn and_line(&mut self, pos: &mut Position) -> Option<(Option<Move>, u32)> {
        let mut list = MoveList::new();
        generate_legal(pos, &mut list);
        let mut best: Option<(Option<Move>, u32)> = None;
        for &e in &list {
            pos.do_move(e);
            let r = self.line(pos, true);
            pos.undo_move();
            let (_, n) = r?;
            if best.is_none_or(|(_, b)| n + 1 > b) {
                best = Some((Some(e), n + 1));
            }
        }
        Some(best.unwrap_or((None, 0)))
    }
}

/// The line of the proof-tree evaluation, if it completes. The position is restored.
fn extract_longest_defence(
    s: &mut Searcher,
    pos: &mut Position,
    or_root: bool,
) -> Option<Vec<Move>> {
    let mut lines = Lines {
        s,
        reproved: 0,
        comparing: 0,
        memo: HashMap::new(),
        stack: HashSet::new(),
        visits: 0,
    };
    lines.line(pos, or_root)?;
    let mut pv = Vec::new();
    let mut or_node = or_root;
    let mut ok = false;
    while pv.len() < MAX_PV {
        let Some(&(mv, _)) = lines.memo.get(&pos.key()) else {
            // Only the position after a mate at once is not evaluated.
            ok = !or_node && !has_evasion(pos);
            break;
        };
        let Some(m) = mv else {
            ok = !or_node;
            break;
        };
        pv.push(m);
        pos.do_move(m);
        or_node = !or_node;
    }
    for _ in 0..pv.len() {
        pos.undo_move();
    }
    ok.then_some(pv)
}

/// Proves the current position again within [`REPROVE_NODES`] more nodes, refilling the
/// table with the children that prove it; whether it was proven.
fn reprove(s: &mut Searcher, pos: &mut Position, or_node: bool) -> bool {
    let limit = s.nodes() + REPROVE_NODES;
    s.search_root(pos, or_node, s.max_plies(), limit).pn == 0
}

/// Extracts a mate line from the current position (`or_root`: attacker to move). The
/// position is restored before returning.
pub fn extract(s: &mut Searcher, pos: &mut Position, or_root: bool) -> Option<Vec<Move>> {
    if let Some(pv) = extract_longest_defence(s, pos, or_root) {
        return Some(pv);
    }
    let mut pv = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut or_node = or_root;
    let mut ok = false;
    while pv.len() < MAX_PV {
        if !seen.insert(pos.key()) {
            break;
        }
        let mut step = choose(s, pos, or_node);
        if step.is_err() {
            // Children evicted: prove this node again, then retry once.
            step = if reprove(s, pos, or_node) {
                choose(s, pos, or_node)
            } else {
                Err(())
            };
        }
        match step {
            Ok(None) => {
                ok = !or_node;
                break;
            }
            Ok(Some((m, end))) => {
                pv.push(m);
                pos.do_move(m);
                or_node = !or_node;
                if end {
                    ok = true;
                    break;
                }
            }
            Err(()) => break,
        }
    }
    for _ in 0..pv.len() {
        pos.undo_move();
    }
    ok.then_some(pv)
}

/// Replays `pv` from the current position (`or_root`: the side to move attacks) and checks
/// that it is a mate line. The position is restored.
pub fn verify(pos: &mut Position, pv: &[Move], or_root: bool) -> bool {
    if !or_root && !pos.in_check() {
        return false;
    }
    let mut played = 0;
    let mut ok = true;
    let mut attacker_turn = or_root;
    for &m in pv {
        if !pos.is_legal(m) || (attacker_turn && !pos.gives_check(m)) {
            ok = false;
            break;
        }
        pos.do_move(m);
        played += 1;
        attacker_turn = !attacker_turn;
    }
    // The defender must be to move and checkmated.
    ok = ok && !attacker_turn && pos.is_checkmated();
    for _ in 0..played {
        pos.undo_move();
    }
    ok
}

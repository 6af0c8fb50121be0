//! One root from the first search to the verdict: which searches run, in what order, and
//! what their outcomes mean (the contract of [`Solver::solve`](super::Solver::solve)).
//!
//! - Not in check: one OR search, the side to move attacking.
//! - In check: first the AND search (the opponent attacks: is the side to move mated?).
//!   If that is not proven and nodes are left, the OR search from the same root (the side
//!   to move attacks, with the evasions that give check), in the same table under the
//!   other attacker's key salt, with what is left of the one node budget. A forced mate
//!   and being mated exclude each other, so the order decides nothing but the cost.
//! - `NoMate` only when every search of the root was disproven without depending on the
//!   path or on a mate-length cap; anything else unproven is `Unknown`.
//! - A proven root: the PV is extracted and verified, then shortened ([`shorten`]). From
//!   the proof on, the wall-time guard is lifted: the verdict is settled, and the line,
//!   `plies_exact` and the node count must depend on the position and the limits only,
//!   never on the clock (shortening is bounded by nodes: at most [`Limits::shorten`] times
//!   the larger of the proof's nodes and a third of the budget, within the budget).

use super::path::DEPTH_LIMITED;
use super::search::{Outcome, Searcher, MAX_DEPTH};
use super::{pv, Limits, MateResult, Verdict};
use crate::shogi::{Move, Position};
use std::time::Instant;

/// The least a proof counts as in [`Limits::shorten`]: this fraction of the node budget
/// (a third: 33,333 nodes at the default 100,000). Most mates are proven in a few hundred
/// or thousand nodes, and the searches that find a shorter line and show that none is
/// shorter cost more than that: measured on YaneuraOu's real-game problems of 3 to 11
/// plies (3,000, tests/data/mate/yaneuraou.py), the reported mate is the shortest for 91.6 %
/// of them with a floor of 1,000 nodes, 99.6 % with a quarter of the budget, 99.7 % with a
/// third and 100 % with half; on the bench set's 2,000 positions the nodes grow by 2 %,
/// 15 %, 18 % and 24 % over a floor of 1,000 (docs/experiments.md).
const SHORTEN_FLOOR_SHARE: u64 = 3;

/// The verdict for `pos` (valid, with a legal move), searched by `s` within `limits`. The
/// position is restored.
pub(super) fn solve_root(s: &mut Searcher, pos: &mut Position, limits: &Limits) -> Verdict {
    s.start_root(limits.time.map(|t| Instant::now() + t));
    let cap = limits.max_plies.unwrap_or(MAX_DEPTH).min(MAX_DEPTH);
    let budget = limits.nodes.max(1);
    let us = pos.side_to_move();
    // Whether every search so far was disproven on its own (no cap, no limit).
    let mut disproven = true;
    if pos.in_check() {
        s.set_attacker(pos, us.flip());
        let r = s.search_root(pos, false, cap, budget);
        if r.pn == 0 {
            return proven(s, pos, false, limits);
        }
        disproven = is_disproof(&r);
        if !disproven && (s.nodes() >= budget || s.timed_out()) {
            return unknown(s);
        }
    }
    s.set_attacker(pos, us);
    let r = s.search_root(pos, true, cap, budget);
    if r.pn == 0 {
        return proven(s, pos, true, limits);
    }
    if disproven && is_disproof(&r) {
        return Verdict {
            result: MateResult::NoMate,
            plies: 0,
            plies_exact: false,
            pv: Vec::new(),
            nodes: s.nodes(),
            timed_out: false,
        };
    }
    unknown(s)
}

/// Whether `r` is a disproof that holds on every path and without a mate-length cap.
fn is_disproof(r: &Outcome) -> bool {
    r.dn == 0 && r.flags & DEPTH_LIMITED == 0
}

/// The `Unknown` verdict with the nodes spent so far.
fn unknown(s: &Searcher) -> Verdict {
    Verdict {
        result: MateResult::Unknown,
        plies: 0,
        plies_exact: false,
        pv: Vec::new(),
        nodes: s.nodes(),
        timed_out: s.timed_out(),
    }
}

/// The verdict for a root just proven (`or_root`: the side to move mates, else it is
/// mated): its verified, shortened line; `Unknown` if no line can be extracted and verified
/// (a bug, asserted in debug builds) or if the line is longer than `limits.max_plies`.
fn proven(s: &mut Searcher, pos: &mut Position, or_root: bool, limits: &Limits) -> Verdict {
    let proof_nodes = s.nodes();
    s.set_deadline(None);
    let Some(pv) = pv::extract(s, pos, or_root) else {
        debug_assert!(false, "no PV for a proven root {}", pos.to_sfen());
        return unknown(s);
    };
    if !pv::verify(pos, &pv, or_root) {
        debug_assert!(false, "PV failed verification {}", pos.to_sfen());
        return unknown(s);
    }
    let extra = proof_nodes
        .max(limits.nodes / SHORTEN_FLOOR_SHARE)
        .saturating_mul(limits.shorten as u64)
        .min(limits.nodes.saturating_sub(s.nodes()));
    let (pv, plies_exact) = shorten(s, pos, or_root, pv, extra);
    if limits.max_plies.is_some_and(|m| pv.len() as u32 > m) {
        return unknown(s);
    }
    Verdict {
        result: if or_root {
            MateResult::Mate
        } else {
            MateResult::Mated
        },
        plies: pv.len() as u32,
        plies_exact,
        pv,
        nodes: s.nodes(),
        timed_out: false,
    }
}

/// Looks for a shorter mate than `pv` (verified) with at most `extra` more nodes: searches
/// again with the mate length capped two plies below the best line so far, for as long as
/// that proves a shorter mate. Returns the shortest verified line found and whether it is
/// known to be the shortest: a line of one or two plies (the root has a legal move, so no
/// mate is shorter), or a capped search that was disproven.
fn shorten(
    s: &mut Searcher,
    pos: &mut Position,
    or_root: bool,
    mut pv: Vec<Move>,
    extra: u64,
) -> (Vec<Move>, bool) {
    let limit = s.nodes().saturating_add(extra);
    while pv.len() >= 3 && s.nodes() < limit {
        let r = s.search_root(pos, or_root, pv.len() as u32 - 2, limit);
        if r.dn == 0 {
            return (pv, true);
        }
        if r.pn != 0 {
            break;
        }
        match pv::extract(s, pos, or_root) {
            Some(line) if line.len() < pv.len() && pv::verify(pos, &line, or_root) => pv = line,
            _ => break,
        }
    }
    let exact = pv.len() < 3;
    (pv, exact)
}

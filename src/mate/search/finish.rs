//! A node's result from its children once the loop stops at it: settled (proof or
//! disproof, with its hand, length, path flags and loop head) or open (the summary's
//! numbers).
//!
//! # Invariants
//! - A proven OR node's length is its shortest proven child's plus one, an AND node's its
//!   longest child's plus one.
//! - A disproof carries the union of its children's path flags (OR) or those of the
//!   disproven child that depends least on the path (AND); see `path.rs`.

use super::child::{Child, Summary};
use super::{captured, Outcome, Searcher};
use crate::mate::path::NO_LOOP;
use crate::mate::pndn::INF;
use crate::mate::proof_hand as hands;
use crate::shogi::checks::drop_check_kinds;
use crate::shogi::movegen::interposing_drop_kinds;
use crate::shogi::{Hand, Position};

impl Searcher {
    /// The node's result from its children, whose summary is `s`.
    #[inline(always)]
    pub(super) fn finish(
        &self,
        pos: &Position,
        or_node: bool,
        kids: &[Child],
        s: &Summary,
        hand: Hand,
    ) -> Outcome {
        match (or_node, s.pn == 0, s.dn == 0) {
            (true, true, _) => or_proof(pos, kids, hand),
            (true, false, true) => or_disproof(pos, kids, hand),
            (false, true, _) => self.and_proof(pos, kids, hand),
            (false, false, true) => and_disproof(kids, hand),
            _ => Outcome {
                pn: s.pn,
                dn: s.dn,
                hand,
                len: 0,
                flags: 0,
                loop_head: NO_LOOP,
            },
        }
    }

    /// A proven AND node: the union of its children's proof hands, adjusted for what the
    /// defender holds and could interpose; the longest child's length plus one.
    #[inline(always)]
    fn and_proof(&self, pos: &Position, kids: &[Child], hand: Hand) -> Outcome {
        let mut ph = Hand::EMPTY;
        let mut len = 0;
        for c in kids {
            ph = ph.max(c.hand);
            len = len.max(c.len);
        }
        let def = pos.hand(self.attacker.flip());
        let ph = hands::and_proof_adjust(ph, hand, def, interposing_drop_kinds(pos));
        Outcome {
            pn: 0,
            dn: INF,
            hand: ph,
            len: len.saturating_add(1),
            flags: 0,
            loop_head: NO_LOOP,
        }
    }
}

/// A proven OR node: the shortest proven child's proof hand before its move, its length
/// plus one.
#[inline(always)]
fn or_proof(pos: &Position, kids: &[Child], hand: Hand) -> Outcome {
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
    Outcome {
        pn: 0,
        dn: INF,
        hand: ph,
        len: b.len.saturating_add(1),
        flags: 0,
        loop_head: NO_LOOP,
    }
}

/// A disproven OR node: the smallest disproof hand any child allows before its move, and
/// the union of the children's path flags and their shallowest loop head.
#[inline(always)]
fn or_disproof(pos: &Position, kids: &[Child], hand: Hand) -> Outcome {
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
    Outcome {
        pn: INF,
        dn: 0,
        hand: dh,
        len: 0,
        flags,
        loop_head,
    }
}

/// A disproven AND node: the first disproven evasion among those that depend least on the
/// path (no flag, then the deepest loop head; NO_LOOP is the deepest), with its flags.
#[inline(always)]
fn and_disproof(kids: &[Child], hand: Hand) -> Outcome {
    let pick = kids
        .iter()
        .filter(|c| c.dn == 0)
        .min_by_key(|c| (c.flags != 0, std::cmp::Reverse(c.loop_head)));
    let Some(c) = pick else {
        debug_assert!(false, "dn 0 needs a disproven child");
        return Outcome::open(hand);
    };
    let dh = hands::and_disproof(c.hand, c.mv, hand);
    Outcome {
        pn: INF,
        dn: 0,
        hand: dh,
        len: 0,
        flags: c.flags,
        loop_head: c.loop_head,
    }
}

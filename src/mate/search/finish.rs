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
    pub(super) fn finish(
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

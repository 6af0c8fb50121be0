//! A node's children as the search keeps them while the node is on the stack (local
//! expansion), and their summary: the node's numbers, the child to follow and the
//! runner-up's number for that child's threshold.
//!
//! # Invariants
//! - OR node: `pn` = the least child `pn`, `dn` = the sum of the children's `dn`; an AND
//!   node is the mirror image. A proven (OR) or disproven (AND) child makes the sum INF.
//! - A [`HIDDEN`] child is never followed; it adds 1 to the summed number until it is
//!   revealed (`delay.rs`), so a node is never settled while a child waits.

use crate::mate::path::NO_LOOP;
use crate::mate::pndn::{self, PnDn, INF};
use crate::shogi::{Hand, Move};

/// Child flag (never returned): a child not yet expanded because it waits for a sibling
/// (delayed expansion, see the module doc): the next interposing drop onto the same square,
/// revealed when the previous one is proven, so a useless interposition costs one child
/// instead of seven; or a non-promotion, revealed when its promotion is settled.
pub(super) const HIDDEN: u8 = 0x80;

/// One child of the node being searched: its move and its latest numbers.
#[derive(Clone, Copy, Debug)]
pub(super) struct Child {
    /// The move to the child.
    pub(super) mv: Move,
    /// Proof number.
    pub(super) pn: PnDn,
    /// Disproof number.
    pub(super) dn: PnDn,
    /// Proof or disproof hand when settled, else unused.
    pub(super) hand: Hand,
    /// Plies of the child's proof (proven only).
    pub(super) len: u16,
    /// Path flags of a disproof (`DEPTH_LIMITED`) or [`HIDDEN`].
    pub(super) flags: u8,
    /// Loop head of a disproof (see `path.rs`): the shallowest path index whose repetition
    /// it relies on, [`NO_LOOP`] if none.
    pub(super) loop_head: u16,
}

impl Child {
    /// A child with open numbers.
    pub(super) fn unknown(mv: Move, pn: PnDn, dn: PnDn, hand: Hand) -> Child {
        Child {
            mv,
            pn,
            dn,
            hand,
            len: 0,
            flags: 0,
            loop_head: NO_LOOP,
        }
    }

    /// A child that waits (see [`HIDDEN`]); its numbers are placeholders.
    pub(super) fn hidden(mv: Move) -> Child {
        Child {
            mv,
            pn: 1,
            dn: 1,
            hand: Hand::EMPTY,
            len: 0,
            flags: HIDDEN,
            loop_head: NO_LOOP,
        }
    }

    /// A proven child with its proof hand and length.
    pub(super) fn proven(mv: Move, hand: Hand, len: u16) -> Child {
        Child {
            mv,
            pn: 0,
            dn: INF,
            hand,
            len,
            flags: 0,
            loop_head: NO_LOOP,
        }
    }

    /// A disproven child with its disproof hand, path flags and loop head.
    pub(super) fn disproven(mv: Move, hand: Hand, flags: u8, loop_head: u16) -> Child {
        Child {
            mv,
            pn: INF,
            dn: 0,
            hand,
            len: 0,
            flags,
            loop_head,
        }
    }

    /// A child that repeats, or is inferior to, the position at path index `index` (see
    /// [`Path::repeated`](crate::mate::path::Path::repeated)): a disproof on this path
    /// only, whose disproof hand is the child's exact attacker hand `hand` (see `path.rs`).
    pub(super) fn repetition(mv: Move, hand: Hand, index: usize) -> Child {
        Child::disproven(mv, hand, 0, index.min(NO_LOOP as usize - 1) as u16)
    }
}

/// The node's numbers from its children ([`summarize`]).
pub(super) struct Summary {
    /// The node's proof number.
    pub(super) pn: PnDn,
    /// The node's disproof number.
    pub(super) dn: PnDn,
    /// Index of the child to follow (least pn at an OR node, least dn at an AND node).
    pub(super) best: usize,
    /// The runner-up's minimised number (INF without one).
    pub(super) second: PnDn,
}

/// The node's numbers from `kids` (see the module invariants).
pub(super) fn summarize(kids: &[Child], or_node: bool) -> Summary {
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

/// Whether `c` is settled for its parent: disproven at an OR node, proven at an AND node
/// (the other outcome settles the parent itself).
#[inline(always)]
pub(super) fn settled(c: &Child, or_node: bool) -> bool {
    if or_node {
        c.dn == 0
    } else {
        c.pn == 0
    }
}

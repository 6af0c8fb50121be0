//! The current search path and on-path repetition (graph-history interaction).
//!
//! Every move in a mate search by the attacker is a check, so a position that repeats an
//! ancestor on the current path is a perpetual check: a failure for the attacker *on this
//! path*. So is a position *inferior* to an ancestor: the same board and side to move with
//! the attacker holding no more of any kind in hand (and so the defender no less). From
//! the ancestor the attacker can play every line he can play from the inferior position,
//! against no more defences, so its mate distance is no longer; a line that mates along
//! the shortest route never comes back to a board with less in hand, and cutting such
//! lines loses no mate. The simplest such line: the attacker drops two pieces by the king,
//! and the king takes both, ending where it started. Measured (without shortening): bench
//! set 1.71 M → 1.59 M nodes at 10,000 (105 → 94 unknown), 6.37 M → 5.37 M at 100,000 (32
//! → 25), the same mates; three fresh sets of 8,000 at 100,000 nodes, 6–7 % fewer nodes,
//! 47–56 fewer unknowns, 2 more mates in all (3–10 gained and 4–8 lost per set, mostly near
//! the budget: df-pn now finds another proof first, sometimes a much dearer one).
//!
//! Such a "disproof" depends on the path, and so does every disproof computed from
//! it, but only on the part of the path it repeats: a disproof carries its *loop head*,
//! the shallowest path index (= depth) whose position it found repeated ([`NO_LOOP`] if
//! none). At a node of depth `d`, a loop head `>= d` lies inside the node's own subtree:
//! every path to the node reaches those repetitions the same way, so the result is the
//! node's own (path-independent) value and is stored like any other. Only a loop head
//! `< d` keeps the result on the stack (the search never stores it): it is reused only
//! while the repeated ancestor is still on the path. [`DEPTH_LIMITED`] marks disproofs
//! that rest on the optional mate-length cap; those are never stored. Proofs never depend
//! on the path (a proof tree contains no repetition), so they are always stored.
//!
//! A disproof that met a repetition gets no disproof hand larger than the node's own
//! attacker hand (the repetition child's hand is its exact hand): with fewer pieces in
//! hand, every line is played the same way (the defender gains drops, which it does not
//! need) and meets the same repetitions and inferior positions, so the disproof holds for
//! every smaller hand, which is what the table's dominance assumes.
//!
//! # Invariants
//! `boards` and `hands` hold the board keys (side to move included) and the attacker's
//! hands of the root and every node on the way to the current one, the node of depth `d`
//! at index `d`; `filter` counts the boards by their top bits, so a zero count answers
//! "no such board on the path" without a scan. No position on the path repeats or is
//! inferior to an earlier one (such a child is never entered).

use crate::shogi::Hand;

/// Result flag: the disproof depends on the maximum mate length (path dependent).
pub const DEPTH_LIMITED: u8 = 2;

/// Loop head of a result that met no repetition.
pub const NO_LOOP: u16 = u16::MAX;

const FILTER_BITS: u32 = 10;

/// The positions on the current path, as board keys and the attacker's hands.
pub struct Path {
    boards: Vec<u64>,
    hands: Vec<Hand>,
    filter: Vec<u16>,
}

impl Default for Path {
    fn default() -> Self {
        Path::new()
    }
}

impl Path {
    /// An empty path.
    pub fn new() -> Path {
        Path {
            boards: Vec::with_capacity(256),
            hands: Vec::with_capacity(256),
            filter: vec![0; 1 << FILTER_BITS],
        }
    }

    #[inline(always)]
    fn slot(board: u64) -> usize {
        (board >> (64 - FILTER_BITS)) as usize
    }

    /// Empties the path.
    pub fn clear(&mut self) {
        for &b in &self.boards {
            self.filter[Self::slot(b)] = 0;
        }
        self.boards.clear();
        self.hands.clear();
    }

    /// Enters a position: its board key (side to move included) and the attacker's hand.
    #[inline]
    pub fn push(&mut self, board: u64, attacker_hand: Hand) {
        self.boards.push(board);
        self.hands.push(attacker_hand);
        self.filter[Self::slot(board)] += 1;
    }

    /// Leaves the most recent position.
    #[inline]
    pub fn pop(&mut self) {
        if let Some(b) = self.boards.pop() {
            self.hands.pop();
            self.filter[Self::slot(b)] -= 1;
        }
    }

    /// The path index (depth) of the deepest position on the path that the position with
    /// board key `board` and attacker hand `attacker_hand` repeats or is inferior to: the
    /// same board and side to move, with the attacker holding at least as much in hand.
    #[inline]
    pub fn repeated(&self, board: u64, attacker_hand: Hand) -> Option<usize> {
        if self.filter[Self::slot(board)] == 0 {
            return None;
        }
        (0..self.boards.len())
            .rev()
            .find(|&i| self.boards[i] == board && self.hands[i].is_equal_or_superior(attacker_hand))
    }

    /// Number of positions on the path.
    pub fn len(&self) -> usize {
        self.boards.len()
    }

    /// Whether the path is empty.
    pub fn is_empty(&self) -> bool {
        self.boards.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::PieceType;

    #[test]
    fn push_pop_repeated() {
        let gold = Hand::EMPTY
            .with_count(PieceType::Gold, 1)
            .expect("one gold");
        let mut p = Path::new();
        p.push(1, gold);
        p.push(u64::MAX, Hand::EMPTY);
        assert_eq!(p.repeated(1, gold), Some(0));
        // Fewer pieces in hand on the same board: inferior, found; more: not.
        assert_eq!(p.repeated(1, Hand::EMPTY), Some(0));
        assert_eq!(p.repeated(u64::MAX, Hand::EMPTY), Some(1));
        assert_eq!(p.repeated(u64::MAX, gold), None);
        assert_eq!(p.repeated(2, Hand::EMPTY), None);
        p.pop();
        assert_eq!(p.repeated(u64::MAX, Hand::EMPTY), None);
        p.clear();
        assert!(p.repeated(1, Hand::EMPTY).is_none() && p.is_empty());
    }
}

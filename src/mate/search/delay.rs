//! Delayed expansion (KomoringHeights): a child that is nearly always no better than a
//! sibling waits, hidden, until that sibling is settled for the parent (which kinds wait
//! for which is in the `search.rs` module doc).
//!
//! # Invariants
//! - Nothing is pruned: a waiting child is revealed (expanded) as soon as the sibling it
//!   waits for is settled, before the parent can be settled.
//! - What a child waits for depends only on the position and the move ([`Awaited::of`]);
//!   whether it still waits depends only on that sibling's current numbers, so a node
//!   expands the same way whenever it is visited with the same children's numbers.

use super::child::{settled, Child, HIDDEN};
use super::Searcher;
use crate::shogi::{Bitboard, Move, PieceType, Position, Square};

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

/// Whether child `m` must wait: the sibling it waits for is among `kids` and not settled.
#[inline(always)]
pub(super) fn must_wait(pos: &Position, or_node: bool, m: Move, kids: &[Child]) -> bool {
    Awaited::of(pos, or_node, m)
        .is_some_and(|a| kids.iter().any(|k| a.is(k.mv) && !settled(k, or_node)))
}

impl Searcher {
    /// After child `i` is settled for its parent (proven at an AND node, disproven at an OR
    /// node), reveals the hidden child that waited for it: the next interposing drop on the
    /// same square, or the non-promotion of the same move; and the one after that, while
    /// each revealed child settles at once.
    #[inline(never)]
    pub(super) fn reveal(
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
                self.or_child(pos, e, pos.keys_after(e), depth, &mut discover)
            } else {
                let mut checks = self.take_list();
                let c = self.and_child(pos, e, pos.keys_after(e), depth, &mut checks);
                self.give_list(checks);
                c
            };
            i = j;
        }
    }
}

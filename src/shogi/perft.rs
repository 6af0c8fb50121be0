//! Perft: the number of leaf nodes of the legal-move tree to a given depth.
//!
//! With `bulk` the last ply is counted with [`count_legal`] (popcounts, no move list) instead
//! of playing each move; without it every leaf is made and unmade (exercising do/undo).

use super::movegen::{count_legal, generate_legal};
use super::moves::MoveList;
use super::position::Position;

/// Leaf count of the legal-move tree from `pos` to `depth` plies. `pos` is restored.
pub fn perft(pos: &mut Position, depth: u32, bulk: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 && bulk {
        return count_legal(pos);
    }
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    let mut nodes = 0;
    for &m in list.iter() {
        pos.do_move(m);
        nodes += perft(pos, depth - 1, bulk);
        pos.undo_move();
    }
    nodes
}

/// Per root move, the perft count below it (USI text, count), in generation order.
pub fn divide(pos: &mut Position, depth: u32, bulk: bool) -> Vec<(String, u64)> {
    let list = pos.legal_moves();
    list.iter()
        .map(|&m| {
            pos.do_move(m);
            let n = perft(pos, depth.saturating_sub(1), bulk);
            pos.undo_move();
            (m.to_usi(), n)
        })
        .collect()
}

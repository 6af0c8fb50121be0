//! Perft: the number of leaf nodes of the legal-move tree to a given depth.
//!
//! With `bulk` the last ply is counted with [`count_legal`] (popcounts, no move list) instead
//! of playing each move; without it every leaf is made and unmade (exercising do/undo).

use super::movegen::{count_legal, generate_legal};
use super::moves::MoveList;
use super::position::Position;
use super::Invalid;

/// Leaf count of the legal-move tree from `pos` to `depth` plies. `pos` is restored. An
/// impossible position (see [`Position::validate`]) is refused: its moves could capture a
/// king or fill a hand past the pieces that exist.
pub fn perft(pos: &mut Position, depth: u32, bulk: bool) -> Result<u64, Invalid> {
    pos.validate()?;
    Ok(leaves(pos, depth, bulk))
}

/// [`perft`] of a valid position.
fn leaves(pos: &mut Position, depth: u32, bulk: bool) -> u64 {
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
        nodes += leaves(pos, depth - 1, bulk);
        pos.undo_move();
    }
    nodes
}

/// Per root move, the perft count below it (USI text, count), in generation order; an
/// impossible position is refused as by [`perft`].
pub fn divide(pos: &mut Position, depth: u32, bulk: bool) -> Result<Vec<(String, u64)>, Invalid> {
    pos.validate()?;
    let list = pos.legal_moves();
    Ok(list
        .iter()
        .map(|&m| {
            pos.do_move(m);
            let n = leaves(pos, depth.saturating_sub(1), bulk);
            pos.undo_move();
            (m.to_usi(), n)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::Color;

    /// An impossible position is refused by both entry points; a valid one is counted.
    #[test]
    fn impossible_roots_are_refused() {
        let mut pos = Position::from_sfen("k8/1K7/9/9/9/9/9/9/9 b - 1").expect("parses");
        let why = Err(Invalid::OpponentInCheck(Color::White));
        assert_eq!(perft(&mut pos, 2, true), why);
        assert_eq!(divide(&mut pos, 2, false), why.map(|_: u64| Vec::new()));
        let mut start = Position::startpos();
        assert_eq!(perft(&mut start, 2, false), Ok(900));
        let total: u64 = divide(&mut start, 2, true)
            .expect("valid")
            .iter()
            .map(|(_, n)| n)
            .sum();
        assert_eq!(total, 900);
    }
}

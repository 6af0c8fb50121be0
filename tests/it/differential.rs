//! Differential tests of the shogi core against the independent `rsshogi` crate:
//! identical legal-move sets and `in_check` on every corpus start position and on positions
//! reached by seeded random playouts, and incremental keys equal to keys recomputed from
//! scratch after every do and undo (undo must restore the position exactly).
//!
//! Default run: the 20,000 corpus positions plus 10,000 playout positions. The opt-in slow
//! test (`just test-slow`) walks 100,000 playout positions.

use crate::support::{data, Rng};
use posfilter::shogi::movegen::count_legal;
use posfilter::shogi::{Move, Position};
use rsshogi::board::{position_from_sfen, MoveList as RsList};
use rsshogi::movegen::generate_legal_all;

/// Sorted USI texts of our legal moves.
fn ours(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_moves().iter().map(|m| m.to_usi()).collect();
    v.sort();
    v
}

/// Sorted USI texts of rsshogi's legal moves, and its in_check, for the same SFEN.
fn theirs(sfen: &str) -> (Vec<String>, bool) {
    let pos = position_from_sfen(sfen).unwrap_or_else(|e| panic!("rsshogi rejects {sfen}: {e:?}"));
    let mut list = RsList::new();
    generate_legal_all(&pos, &mut list);
    let mut v: Vec<String> = list.iter().map(|m| m.to_usi()).collect();
    v.sort();
    (v, pos.is_in_check())
}

/// Compares one position with rsshogi and checks keys through do/undo of every legal move.
/// Returns the legal moves for the caller's playout.
fn check_position(pos: &mut Position) -> Vec<Move> {
    let sfen = pos.to_sfen();
    let (their_moves, their_check) = theirs(&sfen);
    assert_eq!(ours(pos), their_moves, "legal moves differ at {sfen}");
    assert_eq!(pos.in_check(), their_check, "in_check differs at {sfen}");
    assert_eq!(
        count_legal(pos),
        their_moves.len() as u64,
        "count_legal at {sfen}"
    );
    assert_eq!(
        (pos.board_key(), pos.hand_key()),
        pos.computed_keys(),
        "keys at {sfen}"
    );
    let moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
    for &m in &moves {
        pos.do_move(m);
        assert_eq!(
            (pos.board_key(), pos.hand_key()),
            pos.computed_keys(),
            "incremental keys after {m} from {sfen}"
        );
        assert_eq!(pos.in_check(), !pos.checkers().is_empty());
        pos.undo_move();
        assert_eq!(pos.to_sfen(), sfen, "undo of {m}");
        assert_eq!(
            (pos.board_key(), pos.hand_key()),
            pos.computed_keys(),
            "keys after undo of {m}"
        );
    }
    moves
}

#[test]
fn every_corpus_start_position_matches_rsshogi() {
    let text = std::fs::read_to_string(data("startpos.sfen")).unwrap();
    let mut n = 0;
    for line in text.lines() {
        let mut pos = Position::from_sfen(line).unwrap();
        check_position(&mut pos);
        n += 1;
    }
    assert_eq!(n, 20_000);
}

/// Random playouts from the start position; every position on the way is compared.
/// Captures, drops and checks are preferred half of the time so the games reach busy
/// middlegames and endgames with full hands instead of shuffling.
fn playouts(positions: usize, seed: u64) {
    let mut rng = Rng(seed);
    let mut seen = 0;
    while seen < positions {
        let mut pos = Position::startpos();
        for _ply in 0..300 {
            let moves = check_position(&mut pos);
            seen += 1;
            if moves.is_empty() || seen >= positions {
                break;
            }
            let lively: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|&m| m.is_drop() || pos.piece_on(m.to()).is_some() || pos.gives_check(m))
                .collect();
            let pool = if !lively.is_empty() && rng.next() % 2 == 0 {
                &lively
            } else {
                &moves
            };
            let m = pool[(rng.next() % pool.len() as u64) as usize];
            pos.do_move(m);
        }
    }
}

#[test]
fn random_playouts_match_rsshogi() {
    playouts(10_000, 0x5eed_0001);
}

#[test]
#[ignore = "slow: 100,000 playout positions; run with just test-slow"]
fn random_playouts_match_rsshogi_100k() {
    playouts(100_000, 0x5eed_0002);
}

//! The move generator on fuzzer-made positions (`shape.rs`) against the independent rsshogi
//! crate: the same legal moves and check status; the fast check generator gives exactly
//! the legal checking moves; every legal move played and undone restores the position and
//! its keys, and the keys after a move equal the keys of the position it makes.
#![no_main]

#[path = "shape.rs"]
mod shape;

use libfuzzer_sys::fuzz_target;
use posfilter::shogi::checks::generate_checks_fast;
use posfilter::shogi::MoveList;
use rsshogi::board::{position_from_sfen, MoveList as RsList};
use rsshogi::movegen::generate_legal_all;

fuzz_target!(|data: &[u8]| {
    let Some(mut pos) = shape::position(data) else {
        return;
    };
    let sfen = pos.to_sfen();
    let theirs = position_from_sfen(&sfen).expect("rsshogi rejects a position we accept");
    let mut list = RsList::new();
    generate_legal_all(&theirs, &mut list);
    let mut their_moves: Vec<String> = list.iter().map(|m| m.to_usi()).collect();
    their_moves.sort();
    let legal = pos.legal_moves();
    let mut our_moves: Vec<String> = legal.iter().map(|m| m.to_usi()).collect();
    our_moves.sort();
    assert_eq!(our_moves, their_moves, "legal moves differ at {sfen}");
    assert_eq!(
        pos.in_check(),
        theirs.is_in_check(),
        "in_check differs at {sfen}"
    );

    let mut checks = MoveList::new();
    generate_checks_fast(&pos, &mut checks);
    let mut fast: Vec<u16> = checks.iter().map(|m| m.raw()).collect();
    fast.sort_unstable();
    let mut reference: Vec<u16> = legal
        .iter()
        .filter(|&&m| pos.gives_check(m))
        .map(|m| m.raw())
        .collect();
    reference.sort_unstable();
    assert_eq!(fast, reference, "checking moves differ at {sfen}");

    let key = pos.key();
    for &m in legal.iter() {
        let after = pos.keys_after(m);
        pos.do_move(m);
        let fresh = posfilter::shogi::Position::from_sfen(&pos.to_sfen()).expect("own SFEN");
        assert_eq!(pos.key(), fresh.key(), "{sfen} {}", m.to_usi());
        assert_eq!(
            after.0 ^ after.1,
            pos.key(),
            "keys_after {sfen} {}",
            m.to_usi()
        );
        assert_eq!(pos.checkers(), fresh.checkers(), "{sfen} {}", m.to_usi());
        pos.undo_move();
    }
    assert_eq!(pos.key(), key);
    assert_eq!(pos.to_sfen(), sfen);
});

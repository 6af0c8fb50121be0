//! The move generator on fuzzer-made positions (`shape.rs`) against the independent rsshogi
//! crate: the same legal moves and check status; the fast check generator gives exactly
//! the legal checking moves; every legal move played and undone restores the position and
//! its keys, and the keys after a move equal the keys of the position it makes. Positions
//! that `validate` refuses (from two sets' worth of pieces) go through everything that
//! only reads a position (SFEN round trip, fingerprints, every encoder, move generation,
//! check tests, the declaration count): none of it may panic.
#![no_main]

#[path = "shape.rs"]
mod shape;

use libfuzzer_sys::fuzz_target;
use posfilter::codec::{self, Format};
use posfilter::shogi::checks::generate_checks_fast;
use posfilter::shogi::declaration::{declaration, entering_paths, DeclarationRule};
use posfilter::shogi::movegen::{count_legal, has_legal_move};
use posfilter::shogi::{MoveList, Position};
use rsshogi::board::{position_from_sfen, MoveList as RsList};
use rsshogi::movegen::generate_legal_all;

/// Everything that only reads a position, on one that may be impossible: no panic, and
/// the SFEN round trip holds.
fn read_only(pos: &Position) {
    let sfen = pos.to_sfen();
    let back = Position::from_sfen(&sfen).expect("own SFEN parses");
    assert_eq!(back.to_sfen(), sfen);
    assert_eq!(back.key(), pos.key());
    let _ = (
        pos.fingerprint(),
        pos.mirrored_fingerprint(),
        pos.validate(),
    );
    for format in Format::BINARY {
        let mut out = Vec::new();
        let _ = codec::encode(format, pos, None, &mut out);
    }
    for m in pos.legal_moves().iter() {
        let _ = (pos.gives_check(*m), pos.is_legal(*m));
    }
    let mut checks = MoveList::new();
    generate_checks_fast(pos, &mut checks);
    let _ = (count_legal(pos), has_legal_move(pos));
    for rule in [DeclarationRule::Csa27, DeclarationRule::Jsa24] {
        let _ = declaration(pos, rule);
    }
    let _ = entering_paths(pos);
}

fuzz_target!(|data: &[u8]| {
    if let Some(any) = shape::any_position(data, 2) {
        read_only(&any);
    }
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
        let fresh = Position::from_sfen(&pos.to_sfen()).expect("own SFEN");
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

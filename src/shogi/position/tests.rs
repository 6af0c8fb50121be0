//! Unit tests of the position's keys and fingerprints.

use super::*;

/// Fingerprints along random games (captures, drops and promotions included): equal
/// exactly for equal positions (SFEN as the truth), the low half is the position key,
/// and the mirror's fingerprint is the mirrored position's.
#[test]
fn fingerprints_separate_exactly_the_distinct_positions() {
    let mut by_sfen = std::collections::HashMap::new();
    let mut by_print = std::collections::HashMap::new();
    let mut checked = 0;
    let starts = [crate::shogi::STARTPOS; 40];
    crate::shogi::random_walk::walk(&starts, 200, 0x9e37_79b9_7f4a_7c15, false, |pos| {
        let fp = pos.fingerprint();
        assert_eq!(fp.0 as u64, pos.key());
        let board: String = pos
            .to_sfen()
            .rsplit_once(' ')
            .map(|x| x.0)
            .unwrap_or("")
            .into();
        assert_eq!(*by_sfen.entry(board.clone()).or_insert(fp), fp, "{board}");
        assert_eq!(*by_print.entry(fp).or_insert(board.clone()), board);
        let mirrored = Position::from_parts(
            std::array::from_fn(|i| pos.board[Square::from_index(i).mirror().index()]),
            pos.hands,
            pos.side,
            1,
        );
        if let Ok(m) = mirrored {
            assert_eq!(m.fingerprint(), pos.mirrored_fingerprint());
        }
        checked += 1;
    });
    assert!(by_sfen.len() > 3_000);
    assert!(checked > 4_000);
}

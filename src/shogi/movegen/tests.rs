//! Unit tests of move generation: per-kind generators against the full legal set along
//! random walks.

use super::*;

/// Along random games that often check: a kind outside `interposing_drop_kinds` never
/// gives a legal drop evasion when the side to move, in check, holds one more.
#[test]
fn interposing_drop_kinds_covers_every_drop_evasion() {
    use crate::shogi::random_walk::{assert_mask_covers_drops, walk};
    let (mut tested, mut with_drop) = (0, 0);
    let starts = [
        crate::shogi::STARTPOS,
        "lnsgkgsnl/9/9/9/9/9/9/9/LNSGKGSNL b 2R2B18P 1",
        "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1",
    ];
    walk(&starts, 300, 0x2545_f491_4f6c_dd1d, true, |pos| {
        if pos.in_check() {
            let (t, d) = assert_mask_covers_drops(pos, interposing_drop_kinds, generate_evasions);
            tested += t;
            with_drop += d;
        }
    });
    assert!(tested > 300 && with_drop > 50, "{tested} {with_drop}");
}

fn legal(sfen: &str) -> Vec<String> {
    let pos = Position::from_sfen(sfen).unwrap();
    let mut v: Vec<String> = pos.legal_moves().iter().map(|m| m.to_usi()).collect();
    v.sort();
    v
}

#[test]
fn pawn_drop_mate_is_excluded_but_checking_pawn_drops_stay() {
    // Corpus perft position: P*1b would mate (gold on 2c guards it, knight on 3c covers
    // 2a), so it is illegal; is_legal agrees.
    let sfen = "8k/9/6NG1/9/9/9/9/9/K8 b P 1";
    let pos = Position::from_sfen(sfen).unwrap();
    let p1b = Move::from_usi("P*1b").unwrap();
    assert!(!legal(sfen).contains(&"P*1b".to_string()));
    assert!(!pos.is_legal(p1b));
    assert!(is_pawn_drop_mate(&pos, p1b.to()));
    // Without the knight the king escapes to 2a: the same drop is a legal check.
    let sfen = "8k/9/7G1/9/9/9/9/9/K8 b P 1";
    assert!(legal(sfen).contains(&"P*1b".to_string()));
}

#[test]
fn is_legal_agrees_with_generation() {
    for sfen in [
        crate::shogi::STARTPOS,
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    ] {
        let pos = Position::from_sfen(sfen).unwrap();
        let list = pos.legal_moves();
        for raw in 0..=u16::MAX {
            if let Some(m) = Move::from_apery16(raw) {
                assert_eq!(pos.is_legal(m), list.contains(m), "{sfen} {m}");
            }
        }
    }
}

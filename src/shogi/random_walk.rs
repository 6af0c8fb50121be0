//! Seeded random games for the core's unit tests (test builds only).
//!
//! [`walk`] plays up to `plies` random legal moves from each start SFEN (xorshift64, so a
//! seed always gives the same games) and shows every position on the way to `visit`, the
//! start included. With `prefer_checks`, two moves in three are checking moves when there
//! are any, so that many visited positions are in check. [`assert_mask_covers_drops`] checks
//! a per-kind drop mask against a reference generator at one such position.

use super::checks::generate_checks_fast;
use super::movegen::generate_legal;
use super::{Move, MoveList, PieceType, Position};

/// Visits the positions of one random game per start SFEN (see the module doc).
pub fn walk(
    sfens: &[&str],
    plies: usize,
    mut seed: u64,
    prefer_checks: bool,
    mut visit: impl FnMut(&Position),
) {
    for sfen in sfens {
        let Ok(mut pos) = Position::from_sfen(sfen) else {
            panic!("bad test SFEN {sfen}");
        };
        // An impossible start (more pieces of a kind than exist) would overflow a hand
        // count a few captures later, which only debug builds notice.
        if let Err(e) = pos.validate() {
            panic!("impossible test SFEN {sfen}: {e}");
        }
        for _ in 0..plies {
            visit(&pos);
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut moves = MoveList::new();
            if prefer_checks && seed % 3 != 0 {
                generate_checks_fast(&pos, &mut moves);
            }
            if moves.is_empty() {
                generate_legal(&pos, &mut moves);
            }
            if moves.is_empty() {
                break;
            }
            pos.do_move(moves.as_slice()[(seed >> 8) as usize % moves.len()]);
        }
    }
}

/// `pos` with one more `pt` in the hand of the side to move, if the hand has room.
fn with_one_more(pos: &Position, pt: PieceType) -> Option<Position> {
    let us = pos.side_to_move();
    let mut hands = pos.hands();
    hands[us.index()] = hands[us.index()].with_count(pt, hands[us.index()].count(pt) + 1)?;
    Position::from_parts(*pos.board(), hands, us, pos.ply()).ok()
}

/// Checks a per-kind drop mask (bit `i` for `PieceType::HAND[i]`) at `pos`: for every hand
/// kind that the side to move can be given one more of, the mask is the same with it, and
/// if `generate` (a reference generator) then lists a drop of that kind, the kind's bit is
/// set. Returns (kinds tested, kinds with such a drop) so callers can require coverage.
pub fn assert_mask_covers_drops(
    pos: &Position,
    mask: fn(&Position) -> u8,
    generate: fn(&Position, &mut MoveList),
) -> (u32, u32) {
    let expected = mask(pos);
    let (mut tested, mut with_drop) = (0, 0);
    for (i, pt) in PieceType::HAND.into_iter().enumerate() {
        let Some(more) = with_one_more(pos, pt) else {
            continue;
        };
        assert_eq!(mask(&more), expected, "{}", pos.to_sfen());
        let mut moves = MoveList::new();
        generate(&more, &mut moves);
        let drops = moves
            .iter()
            .any(|m: &Move| m.is_drop() && m.drop_piece() == pt);
        assert!(
            !drops || expected & (1 << i) != 0,
            "{} {pt:?}",
            pos.to_sfen()
        );
        tested += 1;
        with_drop += drops as u32;
    }
    (tested, with_drop)
}

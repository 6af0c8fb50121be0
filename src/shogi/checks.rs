//! Checking-move generation for the mate solver.
//!
//! [`generate_checks_fast`] produces exactly the set of [`super::movegen::generate_checks`]
//! (legal moves that give check, pawn-drop mate excluded), in another order: drops first,
//! then board moves. Instead of generating every legal move and testing each, it builds the
//! checking moves directly from the *check squares* around the enemy king (per kind placed,
//! so a promotion is tested with the promoted kind) and the discovered-check candidates,
//! with the same pin and promotion rules as the legal generator. No move needs a
//! confirmation by [`Position::gives_check`]; step pieces far from the king are skipped
//! before their attacks are computed.
//!
//! # Why the construction is exact
//! A move gives check directly only if the moved (possibly promoted) piece attacks the
//! king from its destination, i.e. the destination is in `attacks(them, kind, king)`. For
//! sliders the occupancy still contains the origin square; that only hides squares behind
//! the origin on a line from the king, which the piece could reach only by moving along a
//! line it already attacks the king through, impossible when the king is not in check
//! before our move. A discovered check needs the mover to stand between the king and one of
//! our sliders ([`Position::blockers`]) and to leave the line through the king; a move
//! along that line keeps it blocked. When the side to move
//! is itself in check the function falls back to evasions filtered by `gives_check`.

use super::attacks;
use super::bitboard::Bitboard;
use super::movegen::{generate_evasions, is_pawn_drop_mate};
use super::moves::{Move, MoveList};
use super::position::Position;
use super::types::{Color, PieceType, Square};

/// Per square: the squares at most 2 files and 2 ranks away (`.0`), at most 2 files and 4
/// ranks away (`.1`), and at most 1 file away (`.2`); the step pieces, knights and lances
/// outside them cannot give a direct check in one move (see [`may_reach_check`]).
static NEAR: ([u128; 81], [u128; 81], [u128; 81]) = build_near();

const fn build_near() -> ([u128; 81], [u128; 81], [u128; 81]) {
    let mut out = ([0u128; 81], [0u128; 81], [0u128; 81]);
    let mut a: usize = 0;
    while a < 81 {
        let mut b: usize = 0;
        while b < 81 {
            let df = (a / 9).abs_diff(b / 9);
            let dr = (a % 9).abs_diff(b % 9);
            if df <= 2 && dr <= 2 {
                out.0[a] |= 1u128 << b;
            }
            if df <= 2 && dr <= 4 {
                out.1[a] |= 1u128 << b;
            }
            if df <= 1 {
                out.2[a] |= 1u128 << b;
            }
            b += 1;
        }
        a += 1;
    }
    out
}

/// Squares from which a piece of `us` of kind `pt` would attack `ksq`.
#[inline(always)]
fn check_squares(us: Color, pt: PieceType, ksq: Square, occ: Bitboard) -> Bitboard {
    attacks::piece(us.flip(), pt, ksq, occ)
}

/// The hand kinds (bit `i` for `PieceType::HAND[i]`) that the side to move could drop
/// with check here if it held one: those with an empty square from which the kind attacks
/// the enemy king. A superset of the kinds with a legal checking drop (the two-pawn and
/// pawn-drop-mate rules are ignored), so a kind outside it never adds a checking move.
pub fn drop_check_kinds(pos: &Position) -> u8 {
    let us = pos.side_to_move();
    let ek = pos.king_square(us.flip());
    let occ = pos.occupied();
    let empty = !occ & Bitboard::ALL;
    let mut out = 0;
    for (i, pt) in PieceType::HAND.into_iter().enumerate() {
        if (check_squares(us, pt, ek, occ) & empty).is_nonempty() {
            out |= 1 << i;
        }
    }
    out
}

/// Legal checking moves of the side to move, into `list` (cleared first).
pub fn generate_checks_fast(pos: &Position, list: &mut MoveList) {
    list.clear();
    if pos.in_check() {
        generate_evasions(pos, list);
        list.retain(|m| pos.gives_check(m));
        return;
    }
    let us = pos.side_to_move();
    let them = us.flip();
    let ek = pos.king_square(them);
    let ksq = pos.king_square(us);
    let occ = pos.occupied();
    let empty = !occ & Bitboard::ALL;
    let direct = direct_check_squares(them, ek, occ);
    push_check_drops(pos, list, us, &direct, empty);

    let own = pos.pieces_of(us);
    let target = !own & Bitboard::ALL;
    let pinned = pos.pinned(us);
    let discover = pos.blockers(us, ek) & own;
    for from in own.without(ksq).and_not(too_far(pos, ek).and_not(discover)) {
        let Some(p) = pos.piece_on(from) else {
            continue;
        };
        let pt = p.piece_type();
        let disc = discover.has(from);
        debug_assert!(
            disc || may_reach_check(
                pt,
                from.file().abs_diff(ek.file()),
                from.rank().abs_diff(ek.rank())
            )
        );
        let mut moves = attacks::piece(us, pt, from, occ) & target;
        if pinned.has(from) {
            moves &= attacks::line(ksq, from);
        }
        if moves.is_empty() {
            continue;
        }
        // Leaving the line to the king uncovers the slider behind a discoverer.
        let uncover = if disc {
            moves.and_not(attacks::line(ek, from))
        } else {
            Bitboard::EMPTY
        };
        let plain = uncover | (moves & direct[pt.index()]);
        let promoted = if pt.can_promote() {
            uncover | (moves & direct[pt.promote().index()])
        } else {
            Bitboard::EMPTY
        };
        push_checking(list, us, pt, from, promoted, plain);
    }
    if discover.has(ksq) {
        push_king_discoveries(pos, list, ksq, ek, target);
    }
}

/// Per kind *placed* on a destination, the squares from which it gives a direct check to
/// the king of `them` on `ek`: exact with the current occupancy `occ` (see the module doc
/// for why); drops use them too.
#[inline(always)]
fn direct_check_squares(them: Color, ek: Square, occ: Bitboard) -> [Bitboard; PieceType::NUM] {
    let g = attacks::gold(them, ek);
    let b = attacks::bishop(ek, occ);
    let r = attacks::rook(ek, occ);
    let k = attacks::king(ek);
    let mut direct = [g; PieceType::NUM];
    direct[PieceType::Pawn.index()] = attacks::pawn(them, ek);
    direct[PieceType::Lance.index()] = attacks::lance(them, ek, occ);
    direct[PieceType::Knight.index()] = attacks::knight(them, ek);
    direct[PieceType::Silver.index()] = attacks::silver(them, ek);
    direct[PieceType::Bishop.index()] = b;
    direct[PieceType::Rook.index()] = r;
    direct[PieceType::Horse.index()] = b | k;
    direct[PieceType::Dragon.index()] = r | k;
    direct[PieceType::King.index()] = Bitboard::EMPTY;
    direct
}

/// The step pieces, knights and lances (of both sides) too far from the enemy king on `ek`
/// to give a direct check in one move: the pieces [`may_reach_check`] rejects, by masks
/// instead of one test per piece.
#[inline(always)]
fn too_far(pos: &Position, ek: Square) -> Bitboard {
    let steps =
        pos.golds() | pos.pieces_of_type(PieceType::Silver) | pos.pieces_of_type(PieceType::Pawn);
    steps.and_not(Bitboard::from_bits(NEAR.0[ek.index()]))
        | pos
            .pieces_of_type(PieceType::Knight)
            .and_not(Bitboard::from_bits(NEAR.1[ek.index()]))
        | pos
            .pieces_of_type(PieceType::Lance)
            .and_not(Bitboard::from_bits(NEAR.2[ek.index()]))
}

/// Pushes the king moves (from `ksq`, onto `target`) that uncover a check on the enemy
/// king on `ek` by leaving the line between them, to squares the enemy does not attack.
#[inline(always)]
fn push_king_discoveries(
    pos: &Position,
    list: &mut MoveList,
    ksq: Square,
    ek: Square,
    target: Bitboard,
) {
    let them = pos.side_to_move().flip();
    let occ = pos.occupied();
    for to in (attacks::king(ksq) & target).and_not(attacks::line(ek, ksq)) {
        if pos.attackers_to(them, to, occ.without(ksq)).is_empty() {
            list.push(Move::new(ksq, to, false));
        }
    }
}

/// Whether a piece of kind `pt` at file/rank distance `df`/`dr` from the enemy king could
/// give a direct check in one move (a cheap superset test: step pieces must be near).
/// [`NEAR`] holds the same rule as masks; this form documents it and checks them in debug
/// builds.
#[cfg_attr(not(debug_assertions), allow(dead_code))]
#[inline(always)]
fn may_reach_check(pt: PieceType, df: u8, dr: u8) -> bool {
    match pt {
        // Destination within one square of the king, one step away.
        PieceType::Pawn
        | PieceType::Silver
        | PieceType::Gold
        | PieceType::ProPawn
        | PieceType::ProLance
        | PieceType::ProKnight
        | PieceType::ProSilver => df <= 2 && dr <= 2,
        // Destination a knight's jump or a step from the king, a knight's jump away.
        PieceType::Knight => df <= 2 && dr <= 4,
        // On the king's file, or a file next to it once promoted (a lance never leaves
        // its file).
        PieceType::Lance => df <= 1,
        _ => true,
    }
}

/// Pushes the legal moves `from -> to`: promotions to `promoted` (where promotion is
/// allowed), non-promotions to `plain` (where the piece could move again).
#[inline(always)]
fn push_checking(
    list: &mut MoveList,
    us: Color,
    pt: PieceType,
    from: Square,
    promoted: Bitboard,
    plain: Bitboard,
) {
    let zone = Bitboard::forward_ranks(us, 3);
    let (promote, plain) = match pt {
        PieceType::Pawn | PieceType::Lance => (
            promoted & zone,
            plain.and_not(Bitboard::forward_ranks(us, 1)),
        ),
        PieceType::Knight => (
            promoted & zone,
            plain.and_not(Bitboard::forward_ranks(us, 2)),
        ),
        PieceType::Silver | PieceType::Bishop | PieceType::Rook => (
            if zone.has(from) {
                promoted
            } else {
                promoted & zone
            },
            plain,
        ),
        _ => (Bitboard::EMPTY, plain),
    };
    for to in promote {
        list.push(Move::new(from, to, true));
    }
    for to in plain {
        list.push(Move::new(from, to, false));
    }
}

/// Drops onto check squares (all of them give check).
#[inline(always)]
fn push_check_drops(
    pos: &Position,
    list: &mut MoveList,
    us: Color,
    direct: &[Bitboard; PieceType::NUM],
    empty: Bitboard,
) {
    let hand = pos.hand(us);
    if hand.is_empty() {
        return;
    }
    if hand.has(PieceType::Pawn) {
        let sq = direct[PieceType::Pawn.index()]
            & empty
            & Bitboard::pawn_free_files(pos.pieces(us, PieceType::Pawn));
        if let Some(to) = sq.lsb() {
            if !is_pawn_drop_mate(pos, to) {
                list.push(Move::drop(PieceType::Pawn, to));
            }
        }
    }
    // The hand kinds after the pawn, in the order the drops have always been generated.
    for &pt in &PieceType::HAND_GOLD_FIRST[1..] {
        if hand.has(pt) {
            // A piece dropped on a check square can always move again from there (lance
            // and knight check squares are never on their dead ranks), so no rank rule is
            // needed beyond the check squares themselves.
            for to in direct[pt.index()] & empty {
                list.push(Move::drop(pt, to));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::movegen::generate_checks;
    use crate::shogi::random_walk::{assert_mask_covers_drops, walk};

    fn sorted(list: &MoveList) -> Vec<u16> {
        let mut v: Vec<u16> = list.iter().map(|m| m.raw()).collect();
        v.sort_unstable();
        v
    }

    /// Random playouts from a few positions: the fast generator equals the reference at
    /// every visited position (the integration tests cover the 22,000 corpus positions).
    #[test]
    fn equals_reference_on_playouts() {
        let mut checked = 0;
        let starts = [
            crate::shogi::STARTPOS,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8k/9/6NG1/9/9/9/9/9/K8 b P 1",
        ];
        walk(&starts, 400, 0x2545_f491_4f6c_dd1d, false, |pos| {
            let (mut a, mut b) = (MoveList::new(), MoveList::new());
            generate_checks_fast(pos, &mut a);
            generate_checks(pos, &mut b);
            assert_eq!(sorted(&a), sorted(&b), "{}", pos.to_sfen());
            checked += 1;
        });
        assert!(checked > 300);
    }

    /// Along random games: a kind outside `drop_check_kinds` never has a checking drop in
    /// the reference generator when the side to move is given one, and the mask does not
    /// depend on the hand.
    #[test]
    fn drop_check_kinds_covers_every_checking_drop() {
        let (mut tested, mut with_drop) = (0, 0);
        let starts = [
            crate::shogi::STARTPOS,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "lnsgkgsnl/9/9/9/9/9/9/9/LNSGKGSNL b 2R2B18P 1",
        ];
        walk(&starts, 300, 0x9e37_79b9_7f4a_7c15, false, |pos| {
            if !pos.in_check() {
                let (t, d) = assert_mask_covers_drops(pos, drop_check_kinds, generate_checks);
                tested += t;
                with_drop += d;
            }
        });
        assert!(tested > 1000 && with_drop > 100, "{tested} {with_drop}");
    }
}

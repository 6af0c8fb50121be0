//! Attack tables, built at compile time by `const fn` (no run-time initialisation).
//!
//! - Step pieces (pawn, knight, silver, gold, king) come from per-colour tables.
//! - Sliders (lance, bishop, rook; horse and dragon add the king step) use per-direction
//!   rays: the nearest blocker along a ray that grows with the square index is the lowest
//!   set bit of `ray & occupied`, along a shrinking ray the highest; the attack set is the
//!   ray minus the ray behind the blocker. With the `u128` bitboard that is a
//!   `trailing_zeros`/`leading_zeros` and two XORs per direction.
//! - [`between`] and [`line()`] give the squares strictly between two aligned squares and the
//!   whole line through them, for pins, checks and interpositions.
//!
//! # Invariants
//! Every table is checked against a slow square-walking reference in the tests.

use super::bitboard::Bitboard;
use super::types::{Color, PieceType, Square};

/// Ray directions as (file delta, rank delta). Even indices shrink the square index
/// (negative rays), odd indices grow it (positive rays).
const DIRS: [(i8, i8); 8] = [
    (0, -1),  // 0: toward rank a (Black's forward)
    (0, 1),   // 1: toward rank i (White's forward)
    (-1, 0),  // 2: toward file 1
    (1, 0),   // 3: toward file 9
    (-1, -1), // 4
    (1, 1),   // 5
    (-1, 1),  // 6: index delta -8
    (1, -1),  // 7: index delta +8
];

const fn offset(sq: usize, df: i8, dr: i8) -> Option<usize> {
    let f = (sq / 9) as i8 + df;
    let r = (sq % 9) as i8 + dr;
    if f >= 0 && f < 9 && r >= 0 && r < 9 {
        Some(f as usize * 9 + r as usize)
    } else {
        None
    }
}

/// Rays per direction and square, plus an empty ray at index 81 (see [`ray_up`]).
const fn build_rays() -> [[u128; 82]; 8] {
    let mut out = [[0u128; 82]; 8];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < 81 {
            let mut bits = 0u128;
            let mut cur = sq;
            while let Some(next) = offset(cur, DIRS[d].0, DIRS[d].1) {
                bits |= 1u128 << next;
                cur = next;
            }
            out[d][sq] = bits;
            sq += 1;
        }
        d += 1;
    }
    out
}

static RAYS: [[u128; 82]; 8] = build_rays();

/// Empty-board rook (index 0) and bishop (index 1) reach per square: the union of the four
/// orthogonal or diagonal rays, one load instead of four.
static PSEUDO: [[u128; 81]; 2] = {
    let r = build_rays();
    let mut out = [[0u128; 81]; 2];
    let mut sq = 0;
    while sq < 81 {
        out[0][sq] = r[0][sq] | r[1][sq] | r[2][sq] | r[3][sq];
        out[1][sq] = r[4][sq] | r[5][sq] | r[6][sq] | r[7][sq];
        sq += 1;
    }
    out
};

// The sentinels of `ray_up` / `ray_down`: index 81 is empty for every direction, and square
// 0 has no square below it in any index-shrinking (even) direction.
const _: () = {
    let r = build_rays();
    let mut d = 0;
    while d < 8 {
        assert!(r[d][81] == 0);
        assert!(d % 2 == 1 || r[d][0] == 0);
        d += 1;
    }
};

/// The squares from `sq` in direction `dir & 7` on an empty board, nearest first along the
/// ray: even directions shrink the square index (the nearest square is the highest bit),
/// odd ones grow it (the nearest is the lowest bit). 0 = toward rank a, 1 = toward rank i,
/// 2 = toward file 1, 3 = toward file 9, 4..8 the diagonals.
#[inline(always)]
pub(crate) fn ray(dir: usize, sq: Square) -> Bitboard {
    Bitboard(RAYS[dir & 7][sq.index()])
}

/// Step offsets for Black; White mirrors the rank delta.
const fn step_offsets(pt: usize) -> &'static [(i8, i8)] {
    match pt {
        0 => &[(0, -1)],
        2 => &[(-1, -2), (1, -2)],
        3 => &[(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)],
        6 => &[(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)],
        7 => &[
            (-1, -1),
            (0, -1),
            (1, -1),
            (-1, 0),
            (1, 0),
            (-1, 1),
            (0, 1),
            (1, 1),
        ],
        _ => &[],
    }
}

/// Step-attack table index: 0 pawn, 1 knight, 2 silver, 3 gold, 4 king.
const STEP_KINDS: [usize; 5] = [0, 2, 3, 6, 7];

const fn build_steps() -> [[[u128; 81]; 5]; 2] {
    let mut out = [[[0u128; 81]; 5]; 2];
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 5 {
            let offs = step_offsets(STEP_KINDS[k]);
            let mut sq = 0;
            while sq < 81 {
                let mut bits = 0u128;
                let mut i = 0;
                while i < offs.len() {
                    let dr = if c == 0 { offs[i].1 } else { -offs[i].1 };
                    if let Some(to) = offset(sq, offs[i].0, dr) {
                        bits |= 1u128 << to;
                    }
                    i += 1;
                }
                out[c][k][sq] = bits;
                sq += 1;
            }
            k += 1;
        }
        c += 1;
    }
    out
}

static STEPS: [[[u128; 81]; 5]; 2] = build_steps();

const fn build_between_line() -> ([[u128; 81]; 81], [[u128; 81]; 81]) {
    let mut between = [[0u128; 81]; 81];
    let mut line = [[0u128; 81]; 81];
    let rays = build_rays();
    let mut a = 0;
    while a < 81 {
        let mut d = 0;
        while d < 8 {
            let opposite = d ^ 1;
            let full = rays[d][a] | rays[opposite][a] | (1u128 << a);
            let mut cur = a;
            while let Some(b) = offset(cur, DIRS[d].0, DIRS[d].1) {
                between[a][b] = rays[d][a] & rays[opposite][b];
                line[a][b] = full;
                cur = b;
            }
            d += 1;
        }
        a += 1;
    }
    (between, line)
}

static BETWEEN_LINE: ([[u128; 81]; 81], [[u128; 81]; 81]) = build_between_line();

/// The attacks along an odd (index-growing) direction: the ray up to and including the
/// nearest blocker. Branch-free: a sentinel blocker at bit 81 (past the board) selects the
/// empty ray `RAYS[dir][81]` when nothing blocks.
#[inline(always)]
fn ray_up(dir: usize, sq: Square, occupied: Bitboard) -> u128 {
    let ray = RAYS[dir][sq.index()];
    let nearest = ((ray & occupied.0) | (1u128 << 81)).trailing_zeros() as usize;
    ray ^ RAYS[dir][nearest.min(81)]
}

/// The attacks along an even (index-shrinking) direction. Branch-free: a sentinel blocker
/// at square 0 selects `RAYS[dir][0]`, which is empty for every shrinking direction (no
/// square lies below index 0), so a real blocker there gives the same answer.
#[inline(always)]
fn ray_down(dir: usize, sq: Square, occupied: Bitboard) -> u128 {
    let ray = RAYS[dir][sq.index()];
    let nearest = 127 - ((ray & occupied.0) | 1).leading_zeros() as usize;
    ray ^ RAYS[dir][nearest.min(81)]
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline(always)]
pub fn pawn(color: Color, sq: Square) -> Bitboard {
    Bitboard(STEPS[color.index()][0][sq.index()])
}

/// Squares a knight of `color` on `sq` attacks.
#[inline(always)]
pub fn knight(color: Color, sq: Square) -> Bitboard {
    Bitboard(STEPS[color.index()][1][sq.index()])
}

/// Squares a silver of `color` on `sq` attacks.
#[inline(always)]
pub fn silver(color: Color, sq: Square) -> Bitboard {
    Bitboard(STEPS[color.index()][2][sq.index()])
}

/// Squares a gold (or a promoted minor piece) of `color` on `sq` attacks.
#[inline(always)]
pub fn gold(color: Color, sq: Square) -> Bitboard {
    Bitboard(STEPS[color.index()][3][sq.index()])
}

/// Squares a king on `sq` attacks.
#[inline(always)]
pub fn king(sq: Square) -> Bitboard {
    Bitboard(STEPS[0][4][sq.index()])
}

/// Squares a lance of `color` on `sq` attacks given `occupied`.
#[inline(always)]
pub fn lance(color: Color, sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(match color {
        Color::Black => ray_down(0, sq, occupied),
        Color::White => ray_up(1, sq, occupied),
    })
}

/// The squares a lance of `color` on `sq` would reach on an empty board.
#[inline(always)]
pub fn lance_pseudo(color: Color, sq: Square) -> Bitboard {
    Bitboard(RAYS[color.index()][sq.index()])
}

/// Squares a bishop on `sq` attacks given `occupied`.
#[inline(always)]
pub fn bishop(sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(
        ray_down(4, sq, occupied)
            | ray_up(5, sq, occupied)
            | ray_down(6, sq, occupied)
            | ray_up(7, sq, occupied),
    )
}

/// Squares a rook on `sq` attacks given `occupied`.
#[inline(always)]
pub fn rook(sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(
        ray_down(0, sq, occupied)
            | ray_up(1, sq, occupied)
            | ray_down(2, sq, occupied)
            | ray_up(3, sq, occupied),
    )
}

/// The squares a bishop on `sq` would reach on an empty board.
#[inline(always)]
pub fn bishop_pseudo(sq: Square) -> Bitboard {
    Bitboard(PSEUDO[1][sq.index()])
}

/// The squares a rook on `sq` would reach on an empty board.
#[inline(always)]
pub fn rook_pseudo(sq: Square) -> Bitboard {
    Bitboard(PSEUDO[0][sq.index()])
}

/// Squares a horse (promoted bishop) on `sq` attacks.
#[inline(always)]
pub fn horse(sq: Square, occupied: Bitboard) -> Bitboard {
    bishop(sq, occupied) | king(sq)
}

/// Squares a dragon (promoted rook) on `sq` attacks.
#[inline(always)]
pub fn dragon(sq: Square, occupied: Bitboard) -> Bitboard {
    rook(sq, occupied) | king(sq)
}

/// Squares a piece of `color` and `piece_type` on `sq` attacks given `occupied`.
#[inline(always)]
pub fn piece(color: Color, piece_type: PieceType, sq: Square, occupied: Bitboard) -> Bitboard {
    match piece_type {
        PieceType::Pawn => pawn(color, sq),
        PieceType::Lance => lance(color, sq, occupied),
        PieceType::Knight => knight(color, sq),
        PieceType::Silver => silver(color, sq),
        PieceType::Bishop => bishop(sq, occupied),
        PieceType::Rook => rook(sq, occupied),
        PieceType::King => king(sq),
        PieceType::Horse => horse(sq, occupied),
        PieceType::Dragon => dragon(sq, occupied),
        PieceType::Gold
        | PieceType::ProPawn
        | PieceType::ProLance
        | PieceType::ProKnight
        | PieceType::ProSilver => gold(color, sq),
    }
}

/// Squares strictly between `a` and `b` if they share a file, rank or diagonal; else empty.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN_LINE.0[a.index()][b.index()])
}

/// The whole file, rank or diagonal through `a` and `b` (both included) if aligned; else
/// empty.
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN_LINE.1[a.index()][b.index()])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walks from `sq` in (df, dr) until leaving the board or hitting a piece (included).
    fn walk(sq: Square, df: i8, dr: i8, occ: Bitboard, max: usize) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        let (mut f, mut r) = (sq.file() as i8, sq.rank() as i8);
        for _ in 0..max {
            f += df;
            r += dr;
            if !(0..9).contains(&f) || !(0..9).contains(&r) {
                break;
            }
            let to = Square::from_file_rank(f as u8, r as u8);
            out = out.with(to);
            if occ.has(to) {
                break;
            }
        }
        out
    }

    fn slow(color: Color, pt: PieceType, sq: Square, occ: Bitboard) -> Bitboard {
        let fwd: i8 = if color == Color::Black { -1 } else { 1 };
        let steps = |dirs: &[(i8, i8)], max| {
            dirs.iter().fold(Bitboard::EMPTY, |acc, &(df, dr)| {
                acc | walk(sq, df, dr, occ, max)
            })
        };
        let diag = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
        let orth = [(0, 1), (0, -1), (1, 0), (-1, 0)];
        let gold = [(-1, fwd), (0, fwd), (1, fwd), (-1, 0), (1, 0), (0, -fwd)];
        match pt {
            PieceType::Pawn => steps(&[(0, fwd)], 1),
            PieceType::Lance => steps(&[(0, fwd)], 9),
            PieceType::Knight => steps(&[(-1, 2 * fwd), (1, 2 * fwd)], 1),
            PieceType::Silver => steps(&[(-1, fwd), (0, fwd), (1, fwd), (-1, -fwd), (1, -fwd)], 1),
            PieceType::Bishop => steps(&diag, 9),
            PieceType::Rook => steps(&orth, 9),
            PieceType::King => steps(&diag, 1) | steps(&orth, 1),
            PieceType::Horse => steps(&diag, 9) | steps(&orth, 1),
            PieceType::Dragon => steps(&orth, 9) | steps(&diag, 1),
            _ => steps(&gold, 1),
        }
    }

    #[test]
    fn every_piece_matches_square_walk() {
        let mut x: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;
        for round in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let occ = if round == 0 {
                Bitboard::EMPTY
            } else {
                Bitboard::from_bits(x & (x >> 2))
            };
            for sq in Square::all() {
                for color in Color::ALL {
                    for pt in PieceType::ALL {
                        assert_eq!(
                            piece(color, pt, sq, occ),
                            slow(color, pt, sq, occ),
                            "{color:?} {pt:?} {sq}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn between_and_line_match_walk() {
        for a in Square::all() {
            for b in Square::all() {
                let df = b.file() as i8 - a.file() as i8;
                let dr = b.rank() as i8 - a.rank() as i8;
                let aligned = a != b && (df == 0 || dr == 0 || df.abs() == dr.abs());
                if !aligned {
                    assert!(between(a, b).is_empty() && line(a, b).is_empty());
                    continue;
                }
                let (sf, sr) = (df.signum(), dr.signum());
                let path = walk(a, sf, sr, Bitboard::from_square(b), 9);
                assert_eq!(between(a, b), path.without(b), "{a} {b}");
                let full = walk(a, sf, sr, Bitboard::EMPTY, 9)
                    | walk(a, -sf, -sr, Bitboard::EMPTY, 9)
                    | Bitboard::from_square(a);
                assert_eq!(line(a, b), full, "{a} {b}");
            }
        }
    }
}

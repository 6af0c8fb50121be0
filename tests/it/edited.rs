//! Positions no game reaches, made by editing real ones (`edit_sfen`): the SFEN parser,
//! validity, the move generator and the solver against round trips, the definition of
//! checkmate and a brute-force mate-in-≤3 search (`mate.rs`). Odd positions (18 pawns in
//! hand, promoted pieces on the first rank, lone kings) are where a parser or generator
//! breaks first. `benches/edited_positions.py` makes edits of the same kinds for the
//! differential bench against cshogi.

use crate::mate::{brute_mate, solve_checked};
use crate::support::Rng;
use posfilter::mate::{MateResult, Solver};
use posfilter::shogi::movegen::generate_legal;
use posfilter::shogi::{MoveList, Position};

/// `sfen` with one to four edits of its board (a piece replaced by another kind, given to
/// the other side, promoted or unpromoted, or moved to an empty square; kings stay) and,
/// sometimes, the other side to move or new hands. Many results are no position at all
/// (a promoted gold, too many rooks, two pawns on a file), which is part of the point.
fn edit_sfen(sfen: &str, rng: &mut Rng) -> String {
    let fields: Vec<&str> = sfen.split(' ').collect();
    // The board as 81 cells, rank a first, files 9 to 1; "" is an empty square.
    let mut cells: Vec<String> = Vec::with_capacity(81);
    let mut chars = fields[0].chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' => {}
            '1'..='9' => (0..c as u32 - '0' as u32).for_each(|_| cells.push(String::new())),
            '+' => cells.push(format!("+{}", chars.next().unwrap())),
            _ => cells.push(c.to_string()),
        }
    }
    assert_eq!(cells.len(), 81, "{sfen}");
    for _ in 0..1 + rng.below(4) {
        let pieces: Vec<usize> = (0..81)
            .filter(|&i| !cells[i].is_empty() && !cells[i].eq_ignore_ascii_case("k"))
            .collect();
        let i = pieces[rng.below(pieces.len())];
        let letter = cells[i].chars().last().unwrap();
        cells[i] = match rng.below(4) {
            0 => {
                let k = b"PLNSGBR"[rng.below(7)] as char;
                let k = if letter.is_ascii_uppercase() {
                    k
                } else {
                    k.to_ascii_lowercase()
                };
                k.to_string()
            }
            1 => cells[i].replace(letter, &swap_case(letter).to_string()),
            2 => match cells[i].strip_prefix('+') {
                Some(base) => base.to_string(),
                None => format!("+{}", cells[i]),
            },
            _ => {
                let empty: Vec<usize> = (0..81).filter(|&j| cells[j].is_empty()).collect();
                let j = empty[rng.below(empty.len())];
                cells.swap(i, j);
                continue;
            }
        };
    }
    let mut board = String::new();
    for rank in 0..9 {
        if rank > 0 {
            board.push('/');
        }
        let mut run = 0;
        for cell in &cells[rank * 9..rank * 9 + 9] {
            if cell.is_empty() {
                run += 1;
                continue;
            }
            if run > 0 {
                board.push_str(&run.to_string());
                run = 0;
            }
            board.push_str(cell);
        }
        if run > 0 {
            board.push_str(&run.to_string());
        }
    }
    let side = match (fields[1], rng.below(10) < 3) {
        ("b", true) => "w",
        ("w", true) => "b",
        (s, _) => s,
    };
    let hands = if rng.below(10) < 4 {
        let mut h = String::new();
        for _ in 0..rng.below(5) {
            h.push_str(["", "2", "3", "10", "18"][rng.below(5)]);
            h.push(b"PLNSGBRplnsgbr"[rng.below(14)] as char);
        }
        if h.is_empty() {
            "-".to_string()
        } else {
            h
        }
    } else {
        fields[2].to_string()
    };
    format!("{board} {side} {hands} {}", fields.get(3).unwrap_or(&"1"))
}

fn swap_case(c: char) -> char {
    if c.is_ascii_uppercase() {
        c.to_ascii_lowercase()
    } else {
        c.to_ascii_uppercase()
    }
}

/// Edited real positions (`edit_sfen` on start positions from games): parsing never panics
/// and a parsed position comes back unchanged from its own SFEN; every valid one is
/// solved with its PV re-verified, a root without legal moves is answered without search
/// (`checkmated` exactly when in check), and every other root agrees with brute force
/// (mate in ≤ 3 plies when not in check, mated in 2 when in check): never `no_mate` or
/// `unknown` against a brute-force mate, the PV exactly as long as brute force's shortest
/// mate (the default shortening at work), never a mate that short that brute force denies.
#[test]
fn edited_positions_round_trip_and_agree_with_brute_force() {
    let text = std::fs::read_to_string(crate::support::data("startpos.sfen")).unwrap();
    let sources: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut solver = Solver::new(4);
    let (mut refused, mut invalid, mut valid) = (0, 0, 0);
    let (mut brute_mates, mut brute_mated, mut no_legal, mut in_check) = (0, 0, 0, 0);
    while valid < 2000 {
        let sfen = edit_sfen(sources[rng.below(sources.len())], &mut rng);
        let p = match Position::from_sfen(&sfen) {
            Ok(p) => p,
            Err(_) => {
                refused += 1;
                continue;
            }
        };
        let again = Position::from_sfen(&p.to_sfen())
            .unwrap_or_else(|e| panic!("{sfen}: own SFEN {} refused: {e}", p.to_sfen()));
        assert_eq!(again, p, "{sfen}");
        assert_eq!(again.key(), p.key(), "{sfen}");
        if p.validate().is_err() {
            invalid += 1;
            continue;
        }
        valid += 1;
        let v = solve_checked(&mut solver, &sfen, 20_000);
        let mut legal = MoveList::new();
        generate_legal(&p, &mut legal);
        if legal.is_empty() {
            no_legal += 1;
            let expected = if p.in_check() {
                MateResult::Checkmated
            } else {
                MateResult::NoLegalMoves
            };
            assert_eq!(v.result, expected, "{sfen}");
            continue;
        }
        if p.in_check() {
            in_check += 1;
            // Mated in 2 by brute force: every evasion allows a mate in 1.
            let mut b = p.clone();
            let mated_in_2 = legal.iter().all(|&e| {
                b.do_move(e);
                let mate = brute_mate(&mut b, 1).is_some();
                b.undo_move();
                mate
            });
            if mated_in_2 {
                brute_mated += 1;
                assert_eq!(v.result, MateResult::Mated, "{sfen}: mated in 2");
                assert_eq!(v.plies, 2, "{sfen}: PV {} for a mated in 2", v.plies);
            } else if v.result == MateResult::Mated {
                assert!(v.plies > 2, "{sfen}: a 2-ply mate brute force denies");
            }
            continue;
        }
        let mut b = p.clone();
        match brute_mate(&mut b, 3) {
            Some(d) => {
                brute_mates += 1;
                assert_eq!(
                    v.result,
                    MateResult::Mate,
                    "{sfen}: brute force mates in {d}"
                );
                // With the default shortening, the first-found line (often 5 plies where 3
                // will do) is cut down to the shortest.
                assert_eq!(
                    v.plies, d,
                    "{sfen}: PV {} against brute force's {d}",
                    v.plies
                );
            }
            None if v.result == MateResult::Mate => {
                assert!(
                    v.plies > 3,
                    "{sfen}: a {}-ply mate brute force denies",
                    v.plies
                );
            }
            None => {}
        }
    }
    assert!(
        refused > 1000
            && invalid > 1000
            && brute_mates >= 50
            && no_legal >= 20
            && in_check >= 100
            && brute_mated >= 20,
        "{refused} refused, {invalid} invalid, {brute_mates} brute-force mates, \
         {brute_mated} mated in 2, {no_legal} without legal moves, {in_check} in check"
    );
}

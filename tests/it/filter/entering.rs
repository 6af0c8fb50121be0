//! Entering king: declaration against cshogi and our Python count, the seed-004 scan
//! (docs/references.md) against a breadth-first search, and hand-built edge cases.

use super::{labels, positions, sfen};
use posfilter::filter::{
    open_path_info, DeclarationConfig, DeclarationStage, EnteringKingConfig, OpenPathMode,
    OpenPathStats,
};
use posfilter::shogi::declaration::{
    attack_map, declaration, declaration_count, entering_path, DeclarationResult, DeclarationRule,
    EnteringPath,
};
use posfilter::shogi::{Color, Position, Square};
use std::collections::VecDeque;

fn result_name(r: DeclarationResult) -> &'static str {
    match r {
        DeclarationResult::None => "none",
        DeclarationResult::Win => "win",
        DeclarationResult::Draw => "draw",
    }
}

#[test]
fn declaration_matches_cshogi_and_labels_on_the_corpus() {
    let (mut in_camp, mut wins27, mut results24) = (0, 0, [0usize; 3]);
    for (i, (label, pos)) in labels().iter().zip(positions()).enumerate() {
        let c27 = declaration(pos, DeclarationRule::Csa27);
        let c24 = declaration(pos, DeclarationRule::Jsa24);
        let sfen = label["sfen"].as_str().unwrap_or_default();
        assert_eq!(
            c27 == DeclarationResult::Win,
            label["nyugyoku_27"].as_bool().unwrap(),
            "#{i} {sfen}: is_nyugyoku(LAW_27)"
        );
        assert_eq!(result_name(c27), label["nyugyoku_27_result"], "#{i} {sfen}");
        assert_eq!(result_name(c24), label["nyugyoku_24_result"], "#{i} {sfen}");
        wins27 += (c27 == DeclarationResult::Win) as usize;
        results24[c24 as usize] += 1;
        let count = declaration_count(pos);
        let dc = &label["declaration_check"];
        assert_eq!(
            count.king_in_camp,
            !dc.is_null(),
            "#{i} {sfen}: king in camp"
        );
        if !dc.is_null() {
            in_camp += 1;
            // The Python count reports points only when the king is not in check.
            if let Some(points) = dc["points"].as_u64() {
                assert!(!count.in_check, "#{i} {sfen}");
                assert_eq!(count.points as u64, points, "#{i} {sfen}: points");
                assert_eq!(
                    count.pieces_in_camp as u64,
                    dc["pieces_in_camp"].as_u64().unwrap(),
                    "#{i} {sfen}: pieces in camp"
                );
            } else {
                assert!(count.in_check, "#{i} {sfen}");
            }
            assert_eq!(
                c27 == DeclarationResult::Win,
                dc["csa27"].as_bool().unwrap()
            );
            assert_eq!(result_name(c24), dc["jsa24"], "#{i} {sfen}");
        }
    }
    // The corpus README's counts: 556 kings in the camp, 3 wins under the 27-point rule,
    // 2 wins and 5 draws under the 24-point rule.
    assert_eq!(labels().len(), 20_000);
    assert_eq!((in_camp, wins27), (556, 3));
    assert_eq!((results24[1], results24[2]), (2, 5));
}

/// Black: king 1b, nine tokins on rank a (+ `camp_extra` on 9b), White king 5i, `hand`.
fn black_case(camp_extra: &str, hand: &str) -> Position {
    let rank_b = if camp_extra.is_empty() {
        "8K".to_owned()
    } else {
        format!("{camp_extra}7K")
    };
    sfen(&format!(
        "+P+P+P+P+P+P+P+P+P/{rank_b}/9/9/9/9/9/9/4k4 b {hand} 1"
    ))
}

fn both(pos: &Position) -> (DeclarationResult, DeclarationResult) {
    (
        declaration(pos, DeclarationRule::Csa27),
        declaration(pos, DeclarationRule::Jsa24),
    )
}

#[test]
fn declaration_edges() {
    use DeclarationResult::{Draw, None as No, Win};
    // Exactly 10 pieces, exactly 28 points: Black wins (CSA), a 24-rule draw.
    let p28 = black_case("+R", "RB4P");
    let c = declaration_count(&p28);
    assert_eq!((c.pieces_in_camp, c.points), (10, 28));
    assert_eq!(both(&p28), (Win, Draw));
    // One pawn less in hand: 27 points is not enough for Black.
    let p27 = black_case("+R", "RB3P");
    assert_eq!(declaration_count(&p27).points, 27);
    assert_eq!(both(&p27), (No, Draw));
    // The same for White: 27 is enough, 26 is not.
    let w27 = sfen("4K4/9/9/9/9/9/9/k7+r/+p+p+p+p+p+p+p+p+p w rb3p 1");
    assert_eq!(declaration_count(&w27).points, 27);
    assert_eq!(both(&w27), (Win, Draw));
    let w26 = sfen("4K4/9/9/9/9/9/9/k7+r/+p+p+p+p+p+p+p+p+p w rb2p 1");
    assert_eq!(both(&w26), (No, Draw));
    // Nine pieces in the camp: no declaration however many points.
    let p9 = black_case("", "2R2B8P");
    let c = declaration_count(&p9);
    assert_eq!((c.pieces_in_camp, c.points), (9, 37));
    assert_eq!(both(&p9), (No, No));
    // In check (a silver on 2c): no declaration.
    let chk = sfen("+P+P+P+P+P+P+P+P+P/+R7K/7s1/9/9/9/9/9/4k4 b RB4P 1");
    assert!(chk.in_check());
    assert_eq!(both(&chk), (No, No));
    // King outside the camp (1d): none, even with the pieces there.
    let out = sfen("+P+P+P+P+P+P+P+P+P/+R8/9/8K/9/9/9/9/4k4 b RB4P 1");
    assert!(!declaration_count(&out).king_in_camp);
    assert_eq!(both(&out), (No, No));
    // 24-point rule: 31 wins, 30 draws, 23 is nothing.
    assert_eq!(both(&black_case("+R", "RB7P")), (Win, Win));
    assert_eq!(both(&black_case("+R", "RB6P")), (Win, Draw));
    let p23 = black_case("G", "B8P");
    assert_eq!(declaration_count(&p23).points, 23);
    assert_eq!(both(&p23), (No, No));
    // Promoted bishop in the camp counts 5 like a rook; the wrong side to move counts nothing.
    let horse = black_case("+B", "RB4P");
    assert_eq!(declaration_count(&horse).points, 28);
    let white_to_move = sfen("+P+P+P+P+P+P+P+P+P/+R7K/9/9/9/9/9/9/4k4 w RB4P 1");
    assert_eq!(both(&white_to_move), (No, No));
}

#[test]
fn declaration_stage_follows_the_config() {
    let p28 = black_case("+R", "RB4P");
    let p30 = black_case("+R", "RB6P");
    let parse = |t: &str| -> DeclarationConfig { toml_like(t) };
    let csa = DeclarationStage::new(&parse("csa27"), &EnteringKingConfig::default());
    let jsa = DeclarationStage::new(&parse("24"), &EnteringKingConfig::default());
    let off = DeclarationStage::new(&parse("off"), &EnteringKingConfig::default());
    assert!(csa.evaluate(&p28).drop);
    assert_eq!(csa.evaluate(&p28).points, Some(28));
    assert!(
        !jsa.evaluate(&p30).drop,
        "24-30 points is a draw, not a win"
    );
    assert!(!off.evaluate(&p28).drop);
    assert!(!off.is_active());
    // open_path = "drop" drops a king with an open path; "tag" only reports it.
    let open = sfen("4k4/9/9/9/9/9/9/9/4K4 b - 1");
    let mk = |mode| DeclarationStage::with(None, mode);
    assert!(mk(OpenPathMode::Drop).evaluate(&open).drop);
    let tag = mk(OpenPathMode::Tag).evaluate(&open);
    assert!(!tag.drop);
    assert_eq!(tag.open_path, Some(open_path_info(&open)));
    let json = serde_json::to_value(tag).unwrap_or_default();
    assert_eq!(json["open_path"]["black"]["open"], true);
    // Unknown values are errors.
    assert!(serde_json::from_str::<DeclarationConfig>(r#"{"rule":"27"}"#).is_err());
    assert!(serde_json::from_str::<DeclarationConfig>(r#"{"rul":"24"}"#).is_err());
}

fn toml_like(rule: &str) -> DeclarationConfig {
    serde_json::from_str(&format!(r#"{{"rule":"{rule}"}}"#)).unwrap_or_else(|e| panic!("{e}"))
}

/// The reference: breadth-first search from the king, one rank toward the camp per step
/// (straight or diagonal), onto squares without an own piece that no enemy piece attacks
/// (per-square `attackers_to` with the king lifted off the board).
fn bfs_reference(pos: &Position, color: Color) -> EnteringPath {
    let king = pos.king_square(color);
    let in_camp = |sq: Square| sq.relative_rank(color) < 3;
    if in_camp(king) {
        return EnteringPath {
            in_camp: true,
            files: 1 << king.file(),
        };
    }
    let occ = pos.occupied().without(king);
    let free = |sq: Square| {
        pos.piece_on(sq).is_none_or(|p| p.color() != color)
            && pos.attackers_to(color.flip(), sq, occ).is_empty()
    };
    let forward: i8 = if color == Color::Black { -1 } else { 1 };
    let mut seen = [false; 81];
    let mut queue = VecDeque::from([king]);
    let mut files = 0u16;
    while let Some(sq) = queue.pop_front() {
        if in_camp(sq) {
            files |= 1 << sq.file();
            continue;
        }
        let r = sq.rank() as i8 + forward;
        for df in [-1i8, 0, 1] {
            let f = sq.file() as i8 + df;
            if !(0..9).contains(&f) || !(0..9).contains(&r) {
                continue;
            }
            let next = Square::from_file_rank(f as u8, r as u8);
            if !seen[next.index()] && free(next) {
                seen[next.index()] = true;
                queue.push_back(next);
            }
        }
    }
    EnteringPath {
        in_camp: false,
        files,
    }
}

#[test]
fn scan_matches_breadth_first_search_on_every_corpus_position() {
    let mut open = [0u64; 2];
    let mut closed = [0u64; 2];
    let mut files = [[0u64; 9]; 2];
    let mut stats = OpenPathStats::default();
    let mut halves = [OpenPathStats::default(), OpenPathStats::default()];
    for (i, pos) in positions().iter().enumerate() {
        stats.add_position(pos);
        halves[i % 2].add_position(pos);
        for color in Color::ALL {
            let want = bfs_reference(pos, color);
            let got = entering_path(pos, color);
            assert_eq!(got, want, "#{i} {color:?} {}", pos.to_sfen());
            let info = open_path_info(pos).of(color);
            assert_eq!((info.open, info.files), (want.files != 0, want.files));
            if want.files != 0 && !want.in_camp {
                open[color.index()] += 1;
                for (f, n) in files[color.index()].iter_mut().enumerate() {
                    *n += ((want.files >> f) & 1) as u64;
                }
            } else if want.files == 0 {
                closed[color.index()] += 1;
            }
        }
    }
    assert_eq!(
        (stats.open, stats.closed, stats.files),
        (open, closed, files)
    );
    assert_eq!(stats.positions, 20_000);
    let mut merged = halves[0];
    merged.merge(&halves[1]);
    assert_eq!(merged, stats);
    eprintln!(
        "open-path scan: open {open:?} closed {closed:?} in camp {:?}",
        stats.in_camp
    );
    // Both outcomes occur often for both kings, so the comparison is not vacuous.
    for c in 0..2 {
        assert!(
            open[c] > 500 && closed[c] > 500,
            "open {open:?} closed {closed:?}"
        );
    }
}

#[test]
fn scan_edges() {
    // Bare kings: Black's king on 5i spreads six files in six steps and reaches every file
    // of rank c (White's king on 5a covers only ranks a and b).
    let bare = sfen("4k4/9/9/9/9/9/9/9/4K4 b - 1");
    assert_eq!(entering_path(&bare, Color::Black).files, 0x1ff);
    // From 5f (three steps) it reaches files 2..8.
    let near = sfen("4k4/9/9/9/9/4K4/9/9/9 b - 1");
    assert_eq!(entering_path(&near, Color::Black).files, 0b0_1111_1110);
    // A wall of Black's own pawns on rank f (files 1-9) closes the path.
    let wall = sfen("4k4/9/9/9/9/PPPPPPPPP/9/9/4K4 b - 1");
    assert_eq!(entering_path(&wall, Color::Black).files, 0);
    // A White rook on 9d covers the rest of rank d. Undefended, it is itself a free square
    // (the king may take it), and from 9d only 8c is free (9c is on the rook's file: the
    // scan is static). Defended by a gold on 9c, the path is closed.
    let rook = sfen("4k4/9/9/r8/9/9/9/9/4K4 b - 1");
    assert_eq!(entering_path(&rook, Color::Black).files, 1 << 7);
    let defended = sfen("4k4/9/g8/r8/9/9/9/9/4K4 b - 1");
    assert_eq!(entering_path(&defended, Color::Black).files, 0);
    // A rook behind the king on its file covers the squares ahead once the king moves: the
    // king is lifted off the board for the attack map.
    let behind = sfen("k8/9/9/9/9/9/9/4K4/4r4 b - 1");
    let p = entering_path(&behind, Color::Black);
    assert!(p.is_open());
    assert_eq!(
        p.files & (1 << 4),
        0,
        "file 5 is covered by the rook through the king"
    );
    // A king already in the camp reports its own file.
    let inside = sfen("9/9/2K6/9/9/9/9/9/4k4 b - 1");
    assert_eq!(
        entering_path(&inside, Color::Black),
        EnteringPath {
            in_camp: true,
            files: 1 << 6
        }
    );
}

#[test]
fn attack_map_matches_per_square_attackers_on_every_corpus_position() {
    for (i, pos) in positions().iter().enumerate() {
        for by in Color::ALL {
            let lifted = pos.occupied().without(pos.king_square(by.flip()));
            for occ in [pos.occupied(), lifted] {
                let map = attack_map(pos, by, occ);
                for sq in Square::all() {
                    assert_eq!(
                        map.has(sq),
                        pos.attackers_to(by, sq, occ).is_nonempty(),
                        "#{i} {by:?} {sq} {}",
                        pos.to_sfen()
                    );
                }
            }
        }
    }
}

#[test]
fn inspect_reports_open_paths_as_the_breadth_first_search_counts() {
    // `posfilter inspect --json` on the first 5,000 corpus positions (PackedSfen) against the
    // BFS reference on the same positions.
    let path = crate::support::data("pipeline/startpos.psfen");
    let (ok, out, err) = crate::support::run_bin(&["inspect", path.to_str().unwrap(), "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ek = &v["entering_king"];
    let mut open = [0u64; 2];
    let mut in_camp = [0u64; 2];
    let mut closed = [0u64; 2];
    for pos in positions().iter().take(5000) {
        for color in Color::ALL {
            let want = bfs_reference(pos, color);
            let c = color.index();
            match (want.in_camp, want.files != 0) {
                (true, _) => in_camp[c] += 1,
                (false, true) => open[c] += 1,
                (false, false) => closed[c] += 1,
            }
        }
    }
    assert_eq!(ek["positions"], 5000);
    for c in 0..2 {
        assert_eq!(ek["open"][c], open[c]);
        assert_eq!(ek["in_camp"][c], in_camp[c]);
        assert_eq!(ek["closed"][c], closed[c]);
    }
}

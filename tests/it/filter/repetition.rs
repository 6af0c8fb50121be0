//! Repetition: [`GameHistory`] built by replaying the USI history of every corpus position,
//! against the Python full-history scan in the labels and cshogi `is_draw` (perpetual check);
//! hand-built cycles.

use super::{labels, sfen, usi_lines};
use posfilter::codec::text::parse_usi_line;
use posfilter::filter::{
    GameHistory, HistoryEntry, Perpetual, RepetitionConfig, RepetitionKind, RepetitionScan,
    RepetitionSelect,
};
use posfilter::shogi::{HandRelation, Move, Position};
use serde_json::Value;

/// Replays a USI line (`startpos [moves ...]` or `sfen <4 fields> [moves ...]`), pushing every
/// position into `history`; returns the final position and its scan.
fn replay(line: &str, history: &mut GameHistory) -> (Position, RepetitionScan) {
    history.clear();
    let words: Vec<&str> = line.split_whitespace().collect();
    let (mut pos, rest) = match words.first() {
        Some(&"startpos") => (Position::startpos(), &words[1..]),
        Some(&"sfen") => (sfen(&words[1..5].join(" ")), &words[5..]),
        _ => panic!("bad usi line {line}"),
    };
    let moves = match rest.first() {
        Some(&"moves") => &rest[1..],
        None => rest,
        _ => panic!("bad usi line {line}"),
    };
    let mut scan = history.push_position(&pos);
    for text in moves {
        let m = Move::from_usi(text).unwrap_or_else(|| panic!("{text} in {line}"));
        assert!(pos.is_legal(m), "{text} illegal in {}", pos.to_sfen());
        pos.do_move(m);
        scan = history.push_position(&pos);
    }
    (pos, scan)
}

fn count(rep: &Value, key: &str) -> u32 {
    rep[key].as_u64().unwrap_or(0) as u32
}

fn back(rep: &Value, key: &str) -> Option<u32> {
    rep[key].as_u64().map(|v| v as u32)
}

/// What cshogi's `is_draw()` (default 16 plies) answers, derived from our history: the
/// nearest earlier position with the same board and side at distance 4..=16 whose hands are
/// not incomparable decides.
fn cshogi_view(history: &GameHistory, scan: &RepetitionScan) -> &'static str {
    let last = history.len() - 1;
    let Some(cur) = history.entry(last) else {
        return "none";
    };
    let side = cur.side_to_move().index();
    for (j, e) in history.lookup(cur.board_key) {
        let dist = last - j;
        if dist == 0 {
            continue;
        }
        if !(4..=16).contains(&dist) {
            break;
        }
        match cur.hands[side].relation(e.hands[side]) {
            HandRelation::Equal => {
                assert_eq!(scan.nearest_exact_back, Some(dist as u32));
                return match scan.perpetual {
                    Perpetual::None => "draw",
                    Perpetual::ByOpponent => "win_perpetual_check_by_opponent",
                    Perpetual::BySideToMove => "lose_perpetual_check_by_side_to_move",
                    Perpetual::Unknown => panic!("no gaps in a replayed USI history"),
                };
            }
            HandRelation::Superior => return "superior",
            HandRelation::Inferior => return "inferior",
            HandRelation::Incomparable => continue,
        }
    }
    "none"
}

#[test]
fn history_scan_matches_labels_and_cshogi_on_the_corpus() {
    let lines = usi_lines();
    assert_eq!(lines.len(), labels().len());
    let mut history = GameHistory::new();
    let mut via_codec = GameHistory::new();
    let mut verdicts = [0usize; 3];
    let mut perpetual = [0usize; 4];
    for (i, (line, label)) in lines.iter().zip(labels()).enumerate() {
        let (pos, scan) = replay(line, &mut history);
        let want_sfen: Vec<&str> = label["sfen"]
            .as_str()
            .unwrap_or_default()
            .split(' ')
            .collect();
        let got_sfen = pos.to_sfen();
        let got: Vec<&str> = got_sfen.split(' ').collect();
        assert_eq!(
            got[..3],
            want_sfen[..3],
            "#{i}: replay reaches the labelled position"
        );
        // The codec's USI parser gives the same history.
        let (last, h) = parse_usi_line(line).unwrap_or_else(|e| panic!("#{i}: {e}"));
        assert_eq!(via_codec.load_usi(&h, &last), scan, "#{i}");
        let rep = &label["repetition"];
        let ctx = format!("#{i} {got_sfen}: {rep}");
        assert_eq!(scan.exact, count(rep, "exact"), "{ctx}");
        assert_eq!(scan.inferior, count(rep, "inferior"), "{ctx}");
        assert_eq!(scan.superior, count(rep, "superior"), "{ctx}");
        assert_eq!(scan.incomparable, count(rep, "incomparable"), "{ctx}");
        assert_eq!(
            scan.nearest_exact_back,
            back(rep, "nearest_exact_back"),
            "{ctx}"
        );
        assert_eq!(
            scan.nearest_inferior_back,
            back(rep, "nearest_inferior_back"),
            "{ctx}"
        );
        let verdict = match scan.verdict(RepetitionSelect::ALL) {
            Some(RepetitionKind::Exact) => "exact",
            Some(RepetitionKind::Inferior) => "inferior",
            None => "none",
        };
        assert_eq!(verdict, rep["verdict"], "{ctx}");
        verdicts[match verdict {
            "exact" => 0,
            "inferior" => 1,
            _ => 2,
        }] += 1;
        assert_eq!(cshogi_view(&history, &scan), rep["cshogi_is_draw"], "{ctx}");
        if scan.exact > 0 {
            perpetual[scan.perpetual as usize] += 1;
        }
    }
    // Corpus README: exact 752 (cshogi draw 662, perpetual check 90), inferior 17.
    assert_eq!(verdicts, [752, 17, 20_000 - 752 - 17]);
    // cshogi: draw 662, lose_perpetual_check_by_side_to_move 47, win_..._by_opponent 43.
    let idx = |p: Perpetual| perpetual[p as usize];
    assert_eq!(idx(Perpetual::None), 662);
    assert_eq!(idx(Perpetual::BySideToMove), 47);
    assert_eq!(idx(Perpetual::ByOpponent), 43);
    assert_eq!(idx(Perpetual::Unknown), 0);
}

fn play(pos: &mut Position, history: &mut GameHistory, moves: &str) -> RepetitionScan {
    let mut scan = history.scan_last().unwrap_or_default();
    for text in moves.split_whitespace() {
        let m = Move::from_usi(text).unwrap_or_else(|| panic!("{text}"));
        assert!(pos.is_legal(m), "{text} illegal in {}", pos.to_sfen());
        pos.do_move(m);
        scan = history.push_position(pos);
    }
    scan
}

#[test]
fn four_move_cycle_is_an_exact_repetition() {
    let mut pos = Position::startpos();
    let mut h = GameHistory::new();
    h.push_position(&pos);
    let s = play(&mut pos, &mut h, "5i5h 5a5b 5h5i 5b5a");
    assert_eq!(pos, Position::startpos());
    assert_eq!((s.exact, s.inferior, s.nearest_exact_back), (1, 0, Some(4)));
    assert_eq!(s.perpetual, Perpetual::None);
    assert_eq!(s.occurrences(), 2);
    // Round the cycle again: the third occurrence, nearest still 4 plies back.
    let s = play(&mut pos, &mut h, "5i5h 5a5b 5h5i 5b5a");
    assert_eq!(
        (s.exact, s.nearest_exact_back, s.occurrences()),
        (2, Some(4), 3)
    );
    assert_eq!(h.lookup(pos.board_key()).count(), 3);
    // Selecting only `inferior` does not drop an exact repetition.
    let only_inferior = RepetitionSelect {
        exact: false,
        inferior: true,
    };
    assert_eq!(s.verdict(only_inferior), None);
    assert_eq!(
        s.verdict(RepetitionSelect::ALL),
        Some(RepetitionKind::Exact)
    );
}

#[test]
fn cycle_that_costs_a_pawn_is_inferior() {
    // Seed 000 (docs/references.md): Black drops a pawn, White's gold takes it and walks
    // home round 4c-4b while Black's king goes 4h-4i-5i: the same board and side, Black one
    // pawn short.
    let start = "4k4/4g4/9/9/9/9/9/9/4K4 b P 1";
    let mut pos = sfen(start);
    let mut h = GameHistory::new();
    h.push_position(&pos);
    let s = play(&mut pos, &mut h, "P*5c 5b5c 5i4h 5c4c 4h4i 4c4b 4i5i 4b5b");
    assert_eq!(pos.to_sfen().split(' ').next(), start.split(' ').next());
    assert_eq!((s.exact, s.inferior, s.superior), (0, 1, 0));
    assert_eq!(s.nearest_inferior_back, Some(8));
    assert_eq!(s.nearest_relation, Some(HandRelation::Inferior));
    assert_eq!(
        s.verdict(RepetitionSelect::ALL),
        Some(RepetitionKind::Inferior)
    );
    let only_exact = RepetitionConfig {
        enabled: true,
        drop: vec![RepetitionKind::Exact],
    };
    assert_eq!(s.verdict(only_exact.select()), None);
}

#[test]
fn perpetual_check_is_attributed_to_the_checker() {
    // Black's rook checks on rank a and b in turn; White's king steps 1b-1a-1b.
    let mut pos = sfen("R8/8k/9/9/9/9/9/9/K8 b - 1");
    let mut h = GameHistory::new();
    h.push_position(&pos);
    let s = play(&mut pos, &mut h, "9a9b 1b1a 9b9a 1a1b");
    assert_eq!((s.exact, s.nearest_exact_back), (1, Some(4)));
    assert_eq!(
        s.perpetual,
        Perpetual::BySideToMove,
        "Black to move gave every check"
    );
    let s = play(&mut pos, &mut h, "9a9b");
    assert!(pos.in_check());
    assert_eq!(
        s.perpetual,
        Perpetual::ByOpponent,
        "White to move received every check"
    );
    // A quiet move inside the cycle breaks the perpetual.
    let mut pos = sfen("R8/8k/9/9/9/9/9/9/K8 b - 1");
    h.clear();
    h.push_position(&pos);
    let s = play(&mut pos, &mut h, "9a9b 1b1a 9i8i 1a2a 8i9i 2a1a 9b9a 1a1b");
    assert_eq!((s.exact, s.perpetual), (1, Perpetual::None));
}

#[test]
fn history_entry_reads_the_side_from_the_board_key() {
    let mut pos = Position::startpos();
    let e = HistoryEntry::of(&pos);
    assert_eq!(e.side_to_move(), pos.side_to_move());
    pos.do_move(Move::from_usi("7g7f").unwrap_or_else(|| panic!()));
    assert_eq!(HistoryEntry::of(&pos).side_to_move(), pos.side_to_move());
    let cfg: RepetitionConfig =
        serde_json::from_str(r#"{"drop":["inferior"]}"#).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        cfg.select(),
        RepetitionSelect {
            exact: false,
            inferior: true
        }
    );
    assert!(serde_json::from_str::<RepetitionConfig>(r#"{"drop":["superior"]}"#).is_err());
}

#[test]
fn psv_game_plies_with_gaps_and_new_games() {
    // The perpetual-check cycle of the test above, fed as psv records with their gamePly.
    let mut pos = sfen("R8/8k/9/9/9/9/9/9/K8 b - 1");
    let mut states = vec![HistoryEntry::of(&pos)];
    for text in "9a9b 1b1a 9b9a 1a1b".split_whitespace() {
        pos.do_move(Move::from_usi(text).unwrap_or_else(|| panic!("{text}")));
        states.push(HistoryEntry::of(&pos));
    }
    let mut h = GameHistory::new();
    let mut last = RepetitionScan::default();
    for (ply, e) in (10..).zip(&states) {
        last = h.push_at(*e, ply);
    }
    assert_eq!((last.exact, last.nearest_exact_back), (1, Some(4)));
    assert_eq!(last.perpetual, Perpetual::BySideToMove);
    // Ply 12 missing from the file: distances stay in plies, the checker is unknown.
    h.clear();
    for (ply, e) in [(10, 0), (11, 1), (13, 3), (14, 4)] {
        last = h.push_at(states[e], ply);
    }
    assert_eq!((last.exact, last.nearest_exact_back), (1, Some(4)));
    assert_eq!(last.perpetual, Perpetual::Unknown);
    // A gamePly that does not increase starts a new game: no repetition with the old one.
    last = h.push_at(states[4], 1);
    assert_eq!((last.exact, h.len()), (0, 1));
}

/// The teacher psv (655 whole games in game order, tests/data/codec) fed record by record
/// with `push_at(gamePly)`: games split where teacher.games.jsonl says, and each game's last
/// position agrees with how the game ended (sennichite: 4th occurrence, no perpetual;
/// perpetual check: 4th occurrence with the loser as the checker; anything else: fewer).
#[test]
fn teacher_psv_game_endings() {
    use posfilter::codec::psfen::{decode_psfen, psv_game_ply};
    use posfilter::shogi::Color;
    let bytes = std::fs::read(crate::support::data("codec/teacher.psv.zst"))
        .unwrap_or_else(|e| panic!("{e}"));
    let psv = zstd::decode_all(&bytes[..]).unwrap_or_else(|e| panic!("{e}"));
    let games = crate::support::jsonl("codec/teacher.games.jsonl");
    let mut h = GameHistory::new();
    let mut scans = Vec::with_capacity(psv.len() / 40);
    let mut starts = Vec::new();
    for rec in psv.chunks_exact(40) {
        let head: &[u8; 32] = rec[..32].try_into().unwrap_or_else(|e| panic!("{e}"));
        let pos = decode_psfen(head).unwrap_or_else(|e| panic!("{e}"));
        let ply = psv_game_ply(rec).unwrap_or_default() as u32;
        scans.push((pos.side_to_move(), h.push_at(HistoryEntry::of(&pos), ply)));
        if h.len() == 1 {
            starts.push(scans.len() - 1);
        }
    }
    let want_starts: Vec<usize> = games
        .iter()
        .map(|g| g["first_record"].as_u64().unwrap_or(0) as usize)
        .collect();
    assert_eq!(starts.len(), want_starts.len(), "games found from gamePly");
    assert!(starts == want_starts, "game boundaries from gamePly");
    let (mut sennichite, mut perpetual) = (0, 0);
    for g in &games {
        let last = (g["first_record"].as_u64().unwrap_or(0) + g["records"].as_u64().unwrap_or(0))
            as usize
            - 1;
        let (side, scan) = scans[last];
        let reason = g["end_reason"].as_str().unwrap_or_default();
        let ctx = format!("{g} {scan:?}");
        // One real record (mog-core-scala kif/game/010.kif) says %SENNICHITE although its
        // final position occurs only once (corpus games.meta.jsonl: final_occurrences 1).
        let source = g["source"].as_str().unwrap_or_default();
        if source.ends_with("kif/game/010.kif") {
            assert_eq!(scan.occurrences(), 1, "{ctx}");
            continue;
        }
        if reason.starts_with("sennichite") {
            sennichite += 1;
            assert_eq!(scan.occurrences(), 4, "{ctx}");
            assert_eq!(scan.perpetual, Perpetual::None, "{ctx}");
        } else if reason.starts_with("perpetual_check") {
            perpetual += 1;
            assert_eq!(scan.occurrences(), 4, "{ctx}");
            let winner = match g["winner"].as_str() {
                Some("black") => Color::Black,
                _ => Color::White,
            };
            let want = if winner == side {
                Perpetual::ByOpponent
            } else {
                Perpetual::BySideToMove
            };
            assert_eq!(scan.perpetual, want, "{ctx}");
        } else {
            assert!(scan.occurrences() < 4, "{ctx}");
        }
    }
    assert_eq!((sennichite, perpetual), (71, 10));
}

/// The definition, walked the slow way: `cur` (at `plies[idx]`) against every earlier entry
/// of `game` with its board key. Returns the scan fields the audit writes and the verdicts.
fn brute_force_scan(game: &[(HistoryEntry, u32)], idx: usize) -> RepetitionScan {
    let (cur, ply) = game[idx];
    let side = cur.side_to_move().index();
    let mut s = RepetitionScan::default();
    let mut nearest_exact = None;
    for j in (0..idx).rev() {
        let (e, p) = game[j];
        if e.board_key != cur.board_key {
            continue;
        }
        let back = ply - p;
        let rel = cur.hands[side].relation(e.hands[side]);
        if s.nearest_same_board_back.is_none() {
            s.nearest_same_board_back = Some(back);
            s.nearest_relation = Some(rel);
        }
        match rel {
            HandRelation::Equal => {
                s.exact += 1;
                if nearest_exact.is_none() {
                    nearest_exact = Some(j);
                    s.nearest_exact_back = Some(back);
                }
            }
            HandRelation::Inferior => {
                s.inferior += 1;
                s.nearest_inferior_back.get_or_insert(back);
            }
            HandRelation::Superior => s.superior += 1,
            HandRelation::Incomparable => s.incomparable += 1,
        }
    }
    if let (Some(j), Some(back)) = (nearest_exact, s.nearest_exact_back) {
        s.perpetual = if (idx - j) as u32 != back {
            Perpetual::Unknown
        } else {
            // The side to move checked with each of its moves of the cycle when every
            // position it left (idx-1, idx-3, ...) had the opponent in check; the
            // opponent when every position idx, idx-2, ... had the side to move in check.
            let checked =
                |from: usize| (0..back as usize / 2).all(|k| game[from - 2 * k].0.in_check);
            if checked(idx - 1) {
                Perpetual::BySideToMove
            } else if checked(idx) {
                Perpetual::ByOpponent
            } else {
                Perpetual::None
            }
        };
    }
    s
}

/// Random games over a few boards and hands (exact, inferior, superior and incomparable
/// repeats, checks, ply gaps, new games): every field of every scan equals the brute-force
/// walk over all earlier positions.
#[test]
fn scans_agree_with_a_brute_force_walk_over_every_earlier_position() {
    use posfilter::shogi::{Hand, PieceType};
    let mut rng = crate::support::Rng(0x5eed_1234_abcd_0001);
    let boards: Vec<u64> = (0..4).map(|_| rng.next() & !1).collect();
    let hand = |rng: &mut crate::support::Rng| {
        let mut h = Hand::EMPTY;
        for pt in [PieceType::Pawn, PieceType::Silver, PieceType::Gold] {
            h = h.with_count(pt, rng.below(3) as u8).unwrap_or(h);
        }
        h
    };
    let mut h = GameHistory::new();
    let (mut game, mut ply, mut checked) = (Vec::new(), 0u32, 0);
    for _ in 0..20_000 {
        ply = match rng.below(50) {
            0 => 1,       // a new game
            1 => ply + 2, // a record missing from the file
            _ => ply + 1,
        };
        if game.last().is_some_and(|&(_, p)| p >= ply) {
            game.clear();
        }
        let entry = HistoryEntry {
            board_key: boards[rng.below(boards.len())] | (ply & 1) as u64,
            hands: [hand(&mut rng), hand(&mut rng)],
            in_check: rng.below(3) == 0,
        };
        game.push((entry, ply));
        let got = h.push_at(entry, ply);
        assert_eq!(got, brute_force_scan(&game, game.len() - 1), "ply {ply}");
        assert_eq!(h.scan_last(), Some(got));
        checked += (got.exact + got.inferior + got.superior + got.incomparable > 0) as u32;
    }
    assert!(checked > 15_000, "{checked}");
}

/// One USI line of 200,000 moves (a king shuffle, 50,000 times round the same cycle, 1 MB):
/// the final position is its 50,001st occurrence, found without comparing every position
/// with every earlier one (that took 50 s; the whole line must now be read in well under
/// the guard's 20 s, even in a debug build).
#[test]
fn a_line_of_200000_moves_is_scanned_in_linear_time() {
    let line = format!("startpos moves {}", "5i4h 5a4b 4h5i 4b5a ".repeat(50_000));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (pos, history) = parse_usi_line(line.trim_end()).unwrap_or_else(|e| panic!("{e}"));
        let mut h = GameHistory::new();
        let _ = tx.send((pos.clone(), h.load_usi(&history, &pos), h.len()));
    });
    let (pos, scan, len) = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("the repetition scan of a 200,000-move line is not linear"));
    assert_eq!(pos, Position::startpos());
    assert_eq!(len, 200_001);
    assert_eq!(
        (scan.exact, scan.occurrences(), scan.nearest_exact_back),
        (50_000, 50_001, Some(4))
    );
    assert_eq!((scan.inferior, scan.perpetual), (0, Perpetual::None));
}

/// `brute_force_scan` with the walk's bound: an earlier entry whose side-to-move hand was
/// not among the first `MAX_HANDS_SCANNED` different ones of its board counts only when it
/// is an exact repetition.
fn bounded_brute_force_scan(game: &[(HistoryEntry, u32)], idx: usize) -> RepetitionScan {
    use posfilter::filter::repetition::MAX_HANDS_SCANNED;
    let (cur, _) = game[idx];
    let side = cur.side_to_move().index();
    let mut walked = Vec::new();
    for (e, _) in &game[..idx] {
        let h = e.hands[side];
        if e.board_key == cur.board_key && !walked.contains(&h) {
            walked.push(h);
        }
    }
    walked.truncate(MAX_HANDS_SCANNED as usize);
    let kept: Vec<(HistoryEntry, u32)> = game[..=idx]
        .iter()
        .enumerate()
        .filter(|&(j, (e, _))| {
            let h = e.hands[side];
            j == idx || e.board_key != cur.board_key || h == cur.hands[side] || walked.contains(&h)
        })
        .map(|(_, &x)| x)
        .collect();
    let walk = brute_force_scan(&kept, kept.len() - 1);
    // Exact repetitions, perpetual check and the nearest same-board position: over all.
    let mut s = brute_force_scan(&game[..=idx], idx);
    (s.inferior, s.superior, s.incomparable) = (walk.inferior, walk.superior, walk.incomparable);
    s.nearest_inferior_back = walk.nearest_inferior_back;
    s
}

/// psv records of one "game" sharing one board with the hands split 65,535 ways (2.6 MB of
/// psv took 11 s): each push compares at most `MAX_HANDS_SCANNED` hand groups, and the
/// scans are the definition's over the board's first `MAX_HANDS_SCANNED` hands (exact
/// repetitions over all of them), checked on a random game of 3,000 positions with 3,125
/// possible hands.
#[test]
fn a_board_with_65535_hands_is_scanned_with_bounded_work() {
    use posfilter::filter::repetition::MAX_HANDS_SCANNED;
    use posfilter::shogi::{Hand, PieceType};
    let kinds = [
        PieceType::Pawn,
        PieceType::Lance,
        PieceType::Knight,
        PieceType::Silver,
        PieceType::Gold,
    ];
    let hand_of = |mut n: usize| {
        let mut h = Hand::EMPTY;
        for pt in kinds {
            h = h.with_count(pt, (n % 5) as u8).unwrap();
            n /= 5;
        }
        h
    };
    let board = 0x1234_5678_9abc_def0u64;
    let mut rng = crate::support::Rng(0x5eed_4a4d_0009);
    let (mut h, mut game) = (GameHistory::new(), Vec::new());
    for ply in 1..=3_000u32 {
        let entry = HistoryEntry {
            board_key: board,
            hands: [hand_of(rng.below(3_125)), Hand::EMPTY],
            in_check: false,
        };
        game.push((entry, ply));
        let got = h.push_at(entry, ply);
        let want = bounded_brute_force_scan(&game, game.len() - 1);
        assert_eq!(got, want, "ply {ply}");
    }
    let mut h = GameHistory::new();
    // The n-th hand, counting in mixed radix over every kind's 0..=max count.
    let nth = |mut n: u32| {
        let mut h = Hand::EMPTY;
        for pt in PieceType::HAND {
            let radix = pt.max_count() as u32 + 1;
            h = h.with_count(pt, (n % radix) as u8).unwrap();
            n /= radix;
        }
        h
    };
    for ply in 1..=65_535u32 {
        let hand = nth(ply - 1);
        let entry = HistoryEntry {
            board_key: board,
            hands: [hand, Hand::EMPTY],
            in_check: false,
        };
        let scan = h.push_at(entry, ply);
        assert_eq!(scan.exact, 0);
    }
    let bound = 65_535 * MAX_HANDS_SCANNED as u64;
    assert!(h.compared() <= bound, "{} > {bound}", h.compared());
    assert!(h.compared() >= bound - 256 * 256, "{}", h.compared());
}

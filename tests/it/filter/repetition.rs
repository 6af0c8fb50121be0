//! Repetition: [`GameHistory`] built by replaying the USI history of every corpus position,
//! against the Python full-history scan in the labels and cshogi `is_draw` (perpetual check);
//! hand-built cycles.

use super::{labels, sfen, usi_lines};
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
    let mut verdicts = [0usize; 3];
    let mut perpetual = [0usize; 3];
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
    assert_eq!(perpetual[0], 662);
    assert_eq!(perpetual[1] + perpetual[2], 90);
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
    // Seed 000: Black drops a pawn, White's gold takes it and walks home round 4c-4b while
    // Black's king goes 4h-4i-5i: the same board and side, Black one pawn short.
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

//! Game formats (hcpe3, .pack, sbinpack) against independent truth: files written by rsshogi
//! (.pack, sbinpack) and by a numpy writer built from dlshogi's structs with cshogi making
//! every HuffmanCodedPos and move16 (hcpe3) decode to the corpus games (USI lines, psv scores,
//! results); re-encoding gives those files byte for byte; dropped positions leave exactly the
//! kept ones to a reader written here from dlshogi's loader loop and to rsshogi's readers;
//! the repetition filter decides on every game position as on the USI line reaching it;
//! hcpe game inference finds the corpus games.

use crate::support::{data, jsonl};
use posfilter::codec::game::infer::HcpeGames;
use posfilter::codec::game::{self, encode_game, read_games, sbinpack, Game, GameFormat, GameMeta};
use posfilter::codec::text::parse_usi_line;
use posfilter::filter::repetition::{GameHistory, RepetitionScan};
use posfilter::shogi::{Move, Position};

/// The decompressed bytes of a zstd file under tests/data.
pub(crate) fn unzstd(name: &str) -> Vec<u8> {
    let file = std::fs::File::open(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    zstd::decode_all(file).unwrap()
}

/// One corpus game as the truth: start SFEN, moves, the psv score before each move, winner
/// code (hcpe: 0 draw / unknown, 1 Black, 2 White) and end reason.
pub(crate) struct Truth {
    pub line: String,
    pub start: Position,
    pub moves: Vec<Move>,
    pub scores: Vec<i32>,
    pub winner: u8,
    pub end_reason: String,
}

pub(crate) fn truth() -> Vec<Truth> {
    let psv = unzstd("codec/teacher.psv.zst");
    let games = jsonl("codec/teacher.games.jsonl");
    let text = std::fs::read_to_string(data("codec/teacher.usi")).unwrap();
    text.lines()
        .zip(&games)
        .map(|(line, g)| {
            let (_, history) = parse_usi_line(line).unwrap();
            let first = g["first_record"].as_u64().unwrap() as usize;
            let scores = (0..history.moves.len())
                .map(|i| {
                    let r = &psv[(first + i) * 40..];
                    i16::from_le_bytes([r[32], r[33]]) as i32
                })
                .collect();
            let winner = match g["winner"].as_str() {
                Some("black") => 1,
                Some("white") => 2,
                _ => 0,
            };
            Truth {
                line: line.to_string(),
                start: history.start,
                moves: history.moves,
                scores,
                winner,
                end_reason: g["end_reason"].as_str().unwrap().to_string(),
            }
        })
        .collect()
}

/// The vector file of `format`.
pub(crate) fn vector(format: GameFormat) -> Vec<u8> {
    unzstd(&format!("games/teacher.{}.zst", format.name()))
}

/// Every game of `bytes`, decoded, with the SFEN of each position before a move.
pub(crate) fn decode_all(format: GameFormat, bytes: &[u8]) -> Vec<(Game, Vec<String>)> {
    let sfens = std::cell::RefCell::new(Vec::new());
    let mut out = Vec::new();
    let rest = read_games(
        format,
        bytes,
        &mut |_, pos, _| sfens.borrow_mut().push(pos.to_sfen()),
        &mut |g| out.push((g.clone(), sfens.take())),
    );
    assert_eq!(rest, None, "{format}: the whole file frames");
    out
}

pub(crate) fn sfen3(s: &str) -> String {
    s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

#[test]
fn vectors_decode_to_the_corpus_games() {
    let truth = truth();
    for format in GameFormat::ALL {
        let games = decode_all(format, &vector(format));
        assert_eq!(games.len(), truth.len(), "{format}");
        for (i, ((g, sfens), t)) in games.iter().zip(&truth).enumerate() {
            assert_eq!(g.error, None, "{format} game {i}");
            assert_eq!(g.declared as usize, t.moves.len(), "{format} game {i}");
            assert_eq!(
                sfen3(&g.start.to_sfen()),
                sfen3(&t.start.to_sfen()),
                "{format} {i}"
            );
            let moves: Vec<Move> = g.moves.iter().map(|m| m.mv).collect();
            assert_eq!(moves, t.moves, "{format} game {i}");
            let evals: Vec<i32> = g.moves.iter().map(|m| m.eval).collect();
            assert_eq!(evals, t.scores, "{format} game {i}");
            // Replaying the truth gives the positions the decoder reported.
            let mut pos = t.start.clone();
            for (m, s) in t.moves.iter().zip(sfens) {
                assert_eq!(sfen3(s), sfen3(&pos.to_sfen()));
                pos.do_move(*m);
            }
            assert_eq!(g.winner_code(), t.winner, "{format} game {i}");
            check_format_fields(i, g, t);
        }
    }
}

/// What each format stores beyond moves and evals, as make_vectors.py wrote it.
fn check_format_fields(i: usize, g: &Game, t: &Truth) {
    match &g.meta {
        GameMeta::Hcpe3 { result, opponent } => {
            assert_eq!(*opponent, 0);
            let flags = if t.end_reason.starts_with("sennichite") {
                4
            } else if t.end_reason == "entering_king_declaration" {
                8
            } else if t.end_reason == "max_moves" {
                16
            } else {
                0
            };
            assert_eq!(result & !3, flags, "game {i}");
            for (ply, m) in g.moves.iter().enumerate() {
                let c = g.candidates(ply);
                assert_eq!(c.is_empty(), ply < 4, "game {i} move {ply}");
                assert_eq!(g.is_record(ply), ply >= 4);
                if let Some(first) = c.first() {
                    assert_eq!(first.move16, m.mv.raw(), "the played move is candidate 0");
                    assert_eq!(first.visits as usize, 64 + ply % 64);
                }
            }
        }
        GameMeta::Pack {
            result,
            end_reason,
            startpos_tag,
        } => {
            assert_eq!(*result, t.winner);
            assert_eq!(*startpos_tag, t.line.starts_with("startpos"));
            let draw_reason = match t.end_reason.as_str() {
                r if r.starts_with("sennichite") => Some(1),
                "max_moves" => Some(2),
                "jishogi" => Some(11),
                _ if t.winner == 0 => Some(3),
                _ => None,
            };
            if let Some(r) = draw_reason {
                assert_eq!(*end_reason, r, "game {i}: {}", t.end_reason);
            }
        }
        GameMeta::Sbinpack {
            score,
            best_move,
            ply_result,
            metadata,
        } => {
            assert_eq!(*score, 0);
            assert_eq!(*best_move, t.moves.first().map_or(0, |m| m.to_yo16()));
            assert_eq!((ply_result & 0x3ff) as u32, t.start.ply());
            let want = if i % 7 == 0 {
                format!("game-{i}").into_bytes()
            } else {
                vec![]
            };
            assert_eq!(metadata, &want);
        }
    }
}

/// Re-encodes every game of `bytes` keeping the records `keep(game, move)` says; sbinpack
/// chains go into one chunk (as rsshogi writes them).
pub(crate) fn reencode(
    format: GameFormat,
    games: &[(Game, Vec<String>)],
    keep: &dyn Fn(usize, usize) -> bool,
) -> (Vec<u8>, usize) {
    let mut out = Vec::new();
    let mut written = 0;
    for (i, (g, _)) in games.iter().enumerate() {
        let w = encode_game(g, &|j| keep(i, j), &mut out).unwrap();
        written += w.games;
    }
    if format == GameFormat::Sbinpack {
        let mut file = Vec::new();
        sbinpack::write_chunk(&out, &mut file).unwrap();
        out = file;
    }
    (out, written)
}

#[test]
fn reencoding_gives_the_independent_files_byte_for_byte() {
    for format in GameFormat::ALL {
        let bytes = vector(format);
        let games = decode_all(format, &bytes);
        let (out, written) = reencode(format, &games, &|_, _| true);
        assert_eq!(written, games.len());
        assert!(out == bytes, "{format}: re-encoded bytes differ");
    }
}

/// A training position as dlshogi's loader makes it: SFEN (3 fields), eval, candidates.
pub(crate) type LoaderPosition = (String, i16, Vec<(u16, u16)>);

/// dlshogi's `__load_hcpe3` loop, written here from its source: read the header, set the
/// position from the HuffmanCodedPos, then per move read the MoveInfo; when candidateNum is
/// above 0 read the MoveVisits and make one training position; play the selected move either
/// way. Returns the SFEN, eval and candidates of every training position.
pub(crate) fn dlshogi_loader_positions(bytes: &[u8]) -> Vec<LoaderPosition> {
    let le = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let hcp: [u8; 32] = bytes[at..at + 32].try_into().unwrap();
        let mut pos = posfilter::codec::hcp::decode_hcp(&hcp).unwrap();
        let moves = le(at + 32);
        at += 36;
        for _ in 0..moves {
            let (mv, eval, n) = (le(at), le(at + 2) as i16, le(at + 4) as usize);
            at += 6;
            if n > 0 {
                let c = (0..n)
                    .map(|k| (le(at + 4 * k), le(at + 4 * k + 2)))
                    .collect();
                out.push((sfen3(&pos.to_sfen()), eval, c));
                at += 4 * n;
            }
            pos.do_move(Move::from_apery16(mv).unwrap());
        }
    }
    out
}

/// Which records the drop tests keep: a fixed pseudo-random two thirds.
pub(crate) fn kept(game: usize, ply: usize) -> bool {
    (game * 31 + ply * 17) % 3 != 0
}

#[test]
fn hcpe3_dropped_positions_are_invisible_to_the_dlshogi_loader() {
    let bytes = vector(GameFormat::Hcpe3);
    let games = decode_all(GameFormat::Hcpe3, &bytes);
    let (out, written) = reencode(GameFormat::Hcpe3, &games, &kept);
    assert_eq!(written, games.len(), "one hcpe3 game per input game");
    let loaded = dlshogi_loader_positions(&out);
    let mut expect = Vec::new();
    for (i, (g, sfens)) in games.iter().enumerate() {
        for (j, s) in sfens.iter().enumerate() {
            if g.is_record(j) && kept(i, j) {
                let c = g
                    .candidates(j)
                    .iter()
                    .map(|v| (v.move16, v.visits))
                    .collect();
                expect.push((sfen3(s), g.moves[j].eval as i16, c));
            }
        }
    }
    assert!(expect.len() > 50_000);
    assert_eq!(loaded, expect);
    // Our own reader sees the same games, moves and evals, with the dropped ones hidden.
    let again = decode_all(GameFormat::Hcpe3, &out);
    for (i, ((a, _), (b, _))) in games.iter().zip(&again).enumerate() {
        assert_eq!(
            a.moves.iter().map(|m| (m.mv, m.eval)).collect::<Vec<_>>(),
            b.moves.iter().map(|m| (m.mv, m.eval)).collect::<Vec<_>>()
        );
        for j in 0..a.moves.len() {
            assert_eq!(b.is_record(j), a.is_record(j) && kept(i, j));
        }
    }
}

#[test]
fn pack_and_sbinpack_dropped_positions_cut_games_into_kept_segments() {
    for format in [GameFormat::Pack, GameFormat::Sbinpack] {
        let games = decode_all(format, &vector(format));
        let (out, written) = reencode(format, &games, &kept);
        let again = decode_all(format, &out);
        assert_eq!(again.len(), written);
        assert!(written > games.len(), "{format}: games were cut");
        let mut expect = Vec::new();
        for (i, (g, sfens)) in games.iter().enumerate() {
            for (j, s) in sfens.iter().enumerate() {
                if kept(i, j) {
                    expect.push((sfen3(s), g.moves[j].mv, g.moves[j].eval, g.winner_code()));
                }
            }
        }
        let got: Vec<_> = again
            .iter()
            .flat_map(|(g, sfens)| {
                sfens
                    .iter()
                    .zip(&g.moves)
                    .map(|(s, m)| (sfen3(s), m.mv, m.eval, g.winner_code()))
            })
            .collect();
        assert_eq!(got, expect, "{format}");
    }
}

/// The repetition scans of the first `n` positions of game `t`, each from the USI line that
/// reaches it (`startpos moves m1 … mk`), read and replayed by the USI parser.
fn usi_line_scans(t: &Truth, n: usize) -> Vec<RepetitionScan> {
    let mut history = GameHistory::new();
    let mut line = t.line.split(" moves").next().unwrap().to_string() + " moves";
    (0..n)
        .map(|k| {
            if k > 0 {
                line.push(' ');
                line.push_str(&t.moves[k - 1].to_usi());
            }
            let (last, h) = parse_usi_line(&line).unwrap();
            history.load_usi(&h, &last)
        })
        .collect()
}

/// The scans of a game's positions fed in order into one history.
fn game_scans<'a>(positions: impl Iterator<Item = &'a Position>) -> Vec<RepetitionScan> {
    let mut history = GameHistory::new();
    positions.map(|p| history.push_position(p)).collect()
}

#[test]
fn repetition_on_game_positions_matches_the_usi_lines() {
    let truth = truth();
    for format in GameFormat::ALL {
        let games = decode_all(format, &vector(format));
        let (mut positions, mut repeated) = (0, 0);
        for (t, (g, _)) in truth.iter().zip(&games) {
            let mut replayed = vec![g.start.clone()];
            for m in &g.moves {
                let mut next = replayed[replayed.len() - 1].clone();
                next.do_move(m.mv);
                replayed.push(next);
            }
            replayed.pop(); // the records: the positions before each move
            let scans = game_scans(replayed.iter());
            assert_eq!(scans, usi_line_scans(t, scans.len()), "{format} {}", t.line);
            positions += scans.len();
            repeated += scans.iter().filter(|s| s.exact > 0).count();
        }
        assert_eq!(positions, 96_954, "{format}");
        assert!(
            repeated > 100,
            "{format}: the games repeat positions ({repeated})"
        );
    }
    // hcpe: the games inferred from the records' best moves, positions decoded from the file
    // (the final position of each game included).
    let hcpe = unzstd("codec/teacher.hcpe.zst");
    let mut infer = HcpeGames::new();
    let mut games: Vec<Vec<Position>> = Vec::new();
    for rec in hcpe.chunks(38) {
        if infer.push(rec) {
            games.push(Vec::new());
        }
        let pos = posfilter::codec::hcp::decode_hcp(rec[..32].try_into().unwrap()).unwrap();
        games.last_mut().unwrap().push(pos);
    }
    assert_eq!(games.len(), truth.len());
    let mut positions = 0;
    for (t, g) in truth.iter().zip(&games) {
        assert_eq!(
            game_scans(g.iter()),
            usi_line_scans(t, g.len()),
            "hcpe {}",
            t.line
        );
        positions += g.len();
    }
    assert_eq!(positions, 97_609);
}

#[test]
fn hcpe_game_inference_finds_the_corpus_games() {
    let hcpe = unzstd("codec/teacher.hcpe.zst");
    let games = jsonl("codec/teacher.games.jsonl");
    let starts: Vec<u64> = games
        .iter()
        .map(|g| g["first_record"].as_u64().unwrap())
        .collect();
    let mut infer = HcpeGames::new();
    let inferred: Vec<u64> = hcpe
        .chunks(38)
        .enumerate()
        .filter(|(_, r)| infer.push(r))
        .map(|(i, _)| i as u64)
        .collect();
    assert_eq!(inferred, starts);
    assert_eq!(infer.games(), 655);
    // Records out of order break the chain at every seam.
    let mut infer = HcpeGames::new();
    let mut swapped = hcpe.clone();
    swapped[38 * 100..38 * 101].copy_from_slice(&hcpe[38 * 200..38 * 201]);
    let starts_swapped = swapped.chunks(38).filter(|r| infer.push(r)).count();
    assert_eq!(
        starts_swapped,
        655 + 2,
        "record 100 and record 101 each start a game"
    );
}

/// Whether the Python oracles (rsshogi, cshogi, numpy) can be imported. Under CI they must
/// be: .ci/run installs them, and a missing oracle fails instead of skipping.
pub(crate) fn python_oracles() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import rsshogi, cshogi, numpy"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok || std::env::var_os("CI").is_none(),
        "CI must have rsshogi, cshogi and numpy"
    );
    if !ok {
        crate::support::skipped("pip install rsshogi==1.7.0 cshogi==1.1.0 numpy to run it");
    }
    ok
}

/// What `oracle_read.py` prints for `bytes` written as `format`.
pub(crate) fn oracle_read(format: GameFormat, bytes: &[u8]) -> Vec<serde_json::Value> {
    let dir = crate::support::TempDir::new(&format!("oracle-{format}"));
    let path = dir.join(&format!("ours.{}", format.name()));
    std::fs::write(&path, bytes).unwrap();
    crate::support::python_json_lines([
        data("games/oracle_read.py").into_os_string(),
        format.name().into(),
        path.into_os_string(),
    ])
}

#[test]
fn what_we_write_reads_back_in_rsshogi_and_a_dlshogi_loader_loop() {
    if !python_oracles() {
        return;
    }
    for format in [GameFormat::Pack, GameFormat::Sbinpack] {
        let games = decode_all(format, &vector(format));
        let (out, written) = reencode(format, &games, &kept);
        let ours = decode_all(format, &out);
        let theirs = oracle_read(format, &out);
        assert_eq!(theirs.len(), written, "{format}");
        for ((g, _), t) in ours.iter().zip(&theirs) {
            assert_eq!(t["sfen"], g.start.to_sfen(), "{format}");
            let moves: Vec<String> = g.moves.iter().map(|m| m.mv.to_usi()).collect();
            assert_eq!(t["moves"], serde_json::json!(moves));
            let evals: Vec<i32> = g.moves.iter().map(|m| m.eval).collect();
            assert_eq!(t["evals"], serde_json::json!(evals));
            let name = t["result"].as_str().unwrap();
            let winner = if name.starts_with("BLACK_WIN") {
                1
            } else if name.starts_with("WHITE_WIN") {
                2
            } else {
                0
            };
            assert_eq!(winner, g.winner_code(), "{format} {name}");
            if let GameMeta::Sbinpack { metadata, .. } = &g.meta {
                let hex: String = metadata.iter().map(|b| format!("{b:02x}")).collect();
                assert_eq!(t["metadata"], hex);
            }
        }
    }
    let games = decode_all(GameFormat::Hcpe3, &vector(GameFormat::Hcpe3));
    let (out, _) = reencode(GameFormat::Hcpe3, &games, &kept);
    let theirs = oracle_read(GameFormat::Hcpe3, &out);
    let ours: Vec<_> = dlshogi_loader_positions(&out)
        .into_iter()
        .map(|(sfen, eval, c)| serde_json::json!({"sfen": sfen, "eval": eval, "candidates": c}))
        .collect();
    let theirs: Vec<_> = theirs
        .into_iter()
        .map(|mut t| {
            t["sfen"] = sfen3(t["sfen"].as_str().unwrap()).into();
            t
        })
        .collect();
    assert!(ours.len() > 50_000);
    assert_eq!(ours, theirs);
}

#[test]
fn probing_tells_the_game_formats_apart() {
    let hcpe = unzstd("codec/teacher.hcpe.zst");
    let psv = unzstd("codec/teacher.psv.zst");
    for format in GameFormat::ALL {
        let bytes = vector(format);
        let sample = &bytes[..64 << 10];
        let (ok, tried) = game::probe(format, sample, false);
        assert!(ok == tried && tried >= 8, "{format}: {ok} of {tried}");
        assert_eq!(game::probe(format, &bytes, true), (32, 32));
        for other in GameFormat::ALL.into_iter().filter(|&f| f != format) {
            assert_eq!(
                game::probe(other, sample, false).0,
                0,
                "{format} read as {other}"
            );
        }
        for records in [&hcpe, &psv] {
            assert_eq!(
                game::probe(format, &records[..64 << 10], false).0,
                0,
                "{format}"
            );
        }
    }
}

#[test]
fn game_positions_convert_to_psv_and_hcpe_with_their_move_eval_and_result() {
    use posfilter::codec::{decode, encode, Format};
    let games = decode_all(GameFormat::Pack, &vector(GameFormat::Pack));
    let (g, _) = &games[5];
    let mut pos = g.start.clone();
    for (i, m) in g.moves.iter().enumerate() {
        let t = g.teacher(i, pos.ply()).unwrap();
        for format in [Format::Psv, Format::Hcpe] {
            let mut rec = Vec::new();
            encode(format, &pos, Some(&t), &mut rec).unwrap();
            let back = decode(format, &rec).unwrap().teacher.unwrap();
            assert_eq!(
                (back.mv, back.score as i32, back.move_legal),
                (Some(m.mv), m.eval, true)
            );
            let black_view = back.game_result.to_hcpe(pos.side_to_move());
            assert_eq!(black_view, g.winner_code());
            if format == Format::Psv {
                assert_eq!(back.game_ply, Some(i as u16 + 1));
            }
        }
        pos.do_move(m.mv);
    }
}

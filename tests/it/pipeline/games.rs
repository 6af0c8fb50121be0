//! `posfilter run` on the game formats (hcpe3, .pack, sbinpack) and on hcpe with inferred
//! games: 1 vs 2 threads byte-identical; every record kept, dropped or rejected; the kept
//! shard read back by independent readers (a dlshogi loader loop written from its source,
//! rsshogi's Python decoders) holds exactly the positions the run kept; a truncated game
//! rejects only its rest; repetition decisions equal those on the same games as USI lines.

use super::{config, decisions, reconciles, report, run_ok, same_outputs};
use crate::games::{
    dlshogi_loader_positions, oracle_read, python_oracles, sfen3, truth, unzstd, vector,
};
use crate::support::{jsonl, TempDir};
use posfilter::codec::game::{read_games, Frame, Framer, GameFormat};
use std::path::Path;

const FORMATS: [GameFormat; 3] = [GameFormat::Hcpe3, GameFormat::Pack, GameFormat::Sbinpack];

/// Corpus games a run test reads (fewer in a debug build, which CI also runs).
const GAMES: usize = if cfg!(debug_assertions) { 40 } else { 120 };

/// The bytes of each game of `bytes` (sbinpack: each chain, chunk headers left out).
fn game_slices(format: GameFormat, bytes: &[u8]) -> Vec<&[u8]> {
    let mut framer = Framer::new(format);
    let (mut at, mut games) = (0, Vec::new());
    loop {
        match framer.next(&bytes[at..], true) {
            Frame::Game(len) => {
                games.push(&bytes[at..at + len]);
                at += len;
            }
            Frame::Skip(len) => at += len,
            Frame::End => return games,
            other => panic!("{format}: {other:?}"),
        }
    }
}

/// A file of `format` holding `games` back to back (sbinpack: in one chunk).
fn file_of(format: GameFormat, games: &[u8]) -> Vec<u8> {
    if format != GameFormat::Sbinpack {
        return games.to_vec();
    }
    let mut out = Vec::new();
    posfilter::codec::game::sbinpack::write_chunk(games, &mut out).unwrap();
    out
}

/// The first `n` games of a vector.
pub(crate) fn first_games(format: GameFormat, n: usize) -> Vec<u8> {
    let bytes = vector(format);
    file_of(format, &game_slices(format, &bytes)[..n].concat())
}

/// Each record of a game file in order: (SFEN, USI move, eval), as our decoder reads it.
fn records_of(format: GameFormat, bytes: &[u8]) -> Vec<(String, String, i32)> {
    let mut out = Vec::new();
    let rest = read_games(format, bytes, &mut |_, _, _| {}, &mut |g| {
        let mut pos = g.start.clone();
        for (i, m) in g.moves.iter().enumerate() {
            if g.is_record(i) {
                out.push((pos.to_sfen(), m.mv.to_usi(), m.eval));
            }
            pos.do_move(m.mv);
        }
    });
    assert_eq!(rest, None);
    out
}

/// The one kept shard of a run.
fn kept_shard(out: &Path, format: GameFormat) -> Vec<u8> {
    std::fs::read(out.join(format!("kept/part-00000.{}", format.name()))).unwrap()
}

#[test]
fn game_formats_run_byte_identical_and_write_exactly_the_kept_positions() {
    let dir = TempDir::new("run-games");
    for format in FORMATS {
        let bytes = vector(format);
        let slices = game_slices(format, &bytes);
        let whole = records_of(format, &file_of(format, &slices[..GAMES].concat())).len() as u64;
        // A last game cut short: its whole moves are records, its rest one rejected record.
        let mut games = slices[..GAMES].concat();
        let cut_at = games.len() as u64 + if format == GameFormat::Sbinpack { 8 } else { 0 };
        games.extend_from_slice(&slices[GAMES][..slices[GAMES].len() / 2]);
        let input = file_of(format, &games);
        let path = dir.join(&format!("in.{}", format.name()));
        std::fs::write(&path, &input).unwrap();
        let cfg = config(
            &dir,
            &[&path],
            "[filter.mate]\nnodes = 300\n[workers]\nbatch_records = 500\n",
        );
        let (one, two) = (dir.join("one"), dir.join("two"));
        run_ok(&[
            "run",
            &cfg,
            "--out",
            one.to_str().unwrap(),
            "--threads",
            "1",
        ]);
        run_ok(&[
            "run",
            &cfg,
            "--out",
            two.to_str().unwrap(),
            "--threads",
            "2",
        ]);
        same_outputs(&one, &two, &[]);
        let r = report(&one);
        let input_records = reconciles(&r);
        assert_eq!(r["records"]["rejected"], 1, "{format}: the cut game's rest");
        let partial = input_records - whole - 1;
        assert!(partial > 0, "{format}: the cut game keeps its whole moves");
        let dropped = decisions(&one);
        assert!(dropped.values().any(|d| d == "repetition"), "{format}");
        assert!(dropped.values().any(|d| d == "mate"), "{format}");
        let rejected = super::jsonl_lines(&one.join("rejected.jsonl"));
        assert_eq!(rejected[0]["index"], input_records - 1);
        assert!(rejected[0]["offset"].as_u64().unwrap() >= cut_at);
        // What the run kept, in input order, against what the shard holds.
        let all = records_of_prefix(format, &input, input_records - 1);
        let kept: Vec<_> = all
            .iter()
            .enumerate()
            .filter(|(i, _)| !dropped.contains_key(&(*i as u64)))
            .map(|(_, r)| r.clone())
            .collect();
        assert_eq!(kept.len() as u64, r["records"]["kept"].as_u64().unwrap());
        let shard = kept_shard(&one, format);
        check_shard(format, &shard, &kept);
        let cut_games = r["games_cut"].as_u64().unwrap();
        match format {
            GameFormat::Hcpe3 => assert_eq!(cut_games, 0),
            _ => assert!(cut_games > 0, "{format}: dropped positions cut games"),
        }
    }
}

/// The records of a file with a truncated last game: those our decoder reads from its
/// whole games and the decoded moves of the cut one (`n` in all).
fn records_of_prefix(format: GameFormat, bytes: &[u8], n: u64) -> Vec<(String, String, i32)> {
    let mut out = Vec::new();
    read_games(format, bytes, &mut |_, _, _| {}, &mut |g| {
        let mut pos = g.start.clone();
        for (i, m) in g.moves.iter().enumerate() {
            if g.is_record(i) {
                out.push((pos.to_sfen(), m.mv.to_usi(), m.eval));
            }
            pos.do_move(m.mv);
        }
    });
    assert_eq!(out.len() as u64, n, "{format}");
    out
}

/// The shard holds exactly `kept`, for our decoder and for the independent readers.
fn check_shard(format: GameFormat, shard: &[u8], kept: &[(String, String, i32)]) {
    assert_eq!(records_of(format, shard), kept, "{format}: our decoder");
    if format == GameFormat::Hcpe3 {
        let loader: Vec<(String, i16)> = dlshogi_loader_positions(shard)
            .into_iter()
            .map(|(s, e, _)| (s, e))
            .collect();
        let want: Vec<(String, i16)> = kept.iter().map(|(s, _, e)| (sfen3(s), *e as i16)).collect();
        assert_eq!(
            loader, want,
            "the dlshogi loader loop sees exactly the kept positions"
        );
    }
    if !python_oracles() {
        return;
    }
    let theirs = oracle_read(format, shard);
    if format == GameFormat::Hcpe3 {
        assert_eq!(
            theirs.len(),
            kept.len(),
            "dlshogi's loader, run by the oracle script"
        );
        return;
    }
    let mut ours = Vec::new();
    read_games(format, shard, &mut |_, _, _| {}, &mut |g| {
        ours.push(g.clone())
    });
    assert_eq!(
        theirs.len(),
        ours.len(),
        "{format}: rsshogi reads every game we wrote"
    );
    for (t, g) in theirs.iter().zip(&ours) {
        assert_eq!(t["sfen"], g.start.to_sfen(), "{format}");
        let moves: Vec<String> = g.moves.iter().map(|m| m.mv.to_usi()).collect();
        assert_eq!(t["moves"], serde_json::json!(moves), "{format}");
        let evals: Vec<i32> = g.moves.iter().map(|m| m.eval).collect();
        assert_eq!(t["evals"], serde_json::json!(evals), "{format}");
    }
}

/// The corpus game and position of every record of `format` over the first `n` games
/// (hcpe: every position including the last, as the psv / hcpe corpus has it).
fn record_places(format: Option<GameFormat>, n: usize) -> Vec<(usize, usize)> {
    let truth = truth();
    let mut out = Vec::new();
    for (g, t) in truth.iter().take(n).enumerate() {
        let (first, last) = match format {
            Some(GameFormat::Hcpe3) => (4, t.moves.len()),
            Some(_) => (0, t.moves.len()),
            None => (0, t.moves.len() + 1),
        };
        out.extend((first..last).map(|k| (g, k)));
    }
    out
}

/// The (game, position) places a run dropped for repetition, given each record's place.
fn repetition_drops(out: &Path, places: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let r = report(out);
    assert_eq!(reconciles(&r), places.len() as u64);
    decisions(out)
        .into_iter()
        .filter(|(_, d)| d == "repetition")
        .map(|(i, _)| places[i as usize])
        .collect()
}

#[test]
fn repetition_on_game_formats_and_inferred_hcpe_equals_the_usi_lines() {
    let dir = TempDir::new("run-games-repetition");
    let n = GAMES * 2 / 3;
    let only_repetition = "[filter.mate]\nenabled = false\n[filter.declaration]\nenabled = \
        false\n[filter.dedup]\nenabled = false\n[filter.entering_king]\nenabled = false\n\
        [mates]\nenabled = false\n";
    // Every position of the first games as a USI line from the game's start.
    let truth = truth();
    let mut usi = String::new();
    for t in truth.iter().take(n) {
        let mut line = t.line.split(" moves").next().unwrap().to_string() + " moves";
        for k in 0..=t.moves.len() {
            if k > 0 {
                line.push(' ');
                line.push_str(&t.moves[k - 1].to_usi());
            }
            usi.push_str(&line);
            usi.push('\n');
        }
    }
    let run = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let cfg = config(&dir, &[&path], only_repetition);
        let out = dir.join(&format!("out-{name}"));
        run_ok(&[
            "run",
            &cfg,
            "--out",
            out.to_str().unwrap(),
            "--threads",
            "2",
        ]);
        out
    };
    let usi_out = run("lines.usi", usi.as_bytes());
    let usi_drops = repetition_drops(&usi_out, &record_places(None, n));
    assert!(
        usi_drops.len() > 10,
        "the games repeat: {}",
        usi_drops.len()
    );
    for format in FORMATS {
        let out = run(&format!("in.{}", format.name()), &first_games(format, n));
        let drops = repetition_drops(&out, &record_places(Some(format), n));
        let skip = if format == GameFormat::Hcpe3 { 4 } else { 0 };
        let want: Vec<_> = usi_drops
            .iter()
            .copied()
            .filter(|&(g, k)| k >= skip && k < truth[g].moves.len())
            .collect();
        assert_eq!(drops, want, "{format}");
    }
    // hcpe: the games inferred from the best moves give the same decisions.
    let games = jsonl("codec/teacher.games.jsonl");
    let end = games[n]["first_record"].as_u64().unwrap() as usize;
    let hcpe = unzstd("codec/teacher.hcpe.zst");
    let out = run("in.hcpe", &hcpe[..end * 38]);
    assert_eq!(repetition_drops(&out, &record_places(None, n)), usi_drops);
    assert_eq!(report(&out)["hcpe_games_inferred"], n as u64);
}

#[test]
fn conversions_that_would_invent_or_lose_fields_are_refused_before_the_run() {
    let dir = TempDir::new("run-games-convert");
    let off = "[filter.mate]\nenabled = false\n[filter.dedup]\nenabled = false\n";
    let run = |input: &Path, extra: &str| {
        let cfg = config(&dir, &[input], &format!("{extra}\n{off}"));
        let out = dir.join("out");
        crate::support::run_bin(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"])
    };
    // Start positions carry no score, move or result.
    let psfen = super::startpos_file(&dir, "in.psfen", 50);
    let (ok, _, err) = run(&psfen, "format = \"psv\"");
    assert!(
        !ok && err.contains("synthetic_fields") && err.contains("in.psfen"),
        "{err}"
    );
    let (ok, _, err) = run(&psfen, "format = \"psv\"\nsynthetic_fields = true");
    assert!(ok, "{err}");
    // One game format is not written as another.
    let pack = dir.join("in.pack");
    std::fs::write(&pack, first_games(GameFormat::Pack, 10)).unwrap();
    let (ok, _, err) = run(&pack, "format = \"hcpe3\"");
    assert!(
        !ok && err.contains("in.pack") && err.contains("same format"),
        "{err}"
    );
    // A game format converts to psv: each kept position with its move, eval and result.
    let (ok, _, err) = run(&pack, "format = \"psv\"");
    assert!(ok, "{err}");
    let out = dir.join("out");
    let kept = std::fs::read(out.join("kept/part-00000.psv")).unwrap();
    let dropped = decisions(&out);
    let want: Vec<_> = records_of(GameFormat::Pack, &first_games(GameFormat::Pack, 10))
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !dropped.contains_key(&(*i as u64)))
        .map(|(_, r)| r)
        .collect();
    assert_eq!(kept.len(), 40 * want.len());
    for (rec, (sfen, mv, eval)) in kept.chunks(40).zip(&want) {
        let d = posfilter::codec::decode(posfilter::codec::Format::Psv, rec).unwrap();
        assert_eq!(d.position.to_sfen(), *sfen);
        let t = d.teacher.unwrap();
        assert_eq!(t.mv.unwrap().to_usi(), *mv);
        assert_eq!(t.score as i32, *eval);
    }
}

/// `--dry-run` counts the games inferred from hcpe best moves as the run does
/// (report.json `hcpe_games_inferred`): the corpus hcpe holds its 655 games, and twelve
/// copies of it one after another (more batches than the dry run scans at once, games
/// running across batch boundaries) 12 × 655.
#[test]
fn a_dry_run_counts_the_inferred_hcpe_games_as_the_run_does() {
    let dir = TempDir::new("dry-hcpe-games");
    let hcpe = unzstd("codec/teacher.hcpe.zst");
    let games = jsonl("codec/teacher.games.jsonl").len();
    assert_eq!(games, 655);
    let dry_count = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let cfg = config(&dir, &[&path], "[filter.mate]\nenabled = false\n");
        let (ok, stdout, err) = crate::support::run_bin(&["run", &cfg, "--dry-run"]);
        assert!(ok, "{err}");
        let text = stdout + &err;
        let line = text
            .lines()
            .find(|l| l.starts_with("hcpe games: "))
            .unwrap_or_default();
        let n = line
            .trim_start_matches("hcpe games: ")
            .split(' ')
            .next()
            .unwrap();
        (n.replace(',', "").parse::<u64>().unwrap(), cfg)
    };
    let (n, cfg) = dry_count("one.hcpe", &hcpe);
    assert_eq!(n, games as u64);
    let out = dir.join("out-one");
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(report(&out)["hcpe_games_inferred"], n);
    let copies = hcpe.repeat(12);
    assert_eq!(dry_count("twelve.hcpe", &copies).0, 12 * games as u64);
}

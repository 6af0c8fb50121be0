//! Game formats through the input layer and `inspect`: detection by extension, magic and
//! content; batches of whole games whose record counts add up to the positions the
//! independent files hold, resumable at every batch boundary; `inspect` of each format
//! against the corpus games (counts, results, move counts, the dump). Truth: the vectors
//! written by rsshogi / the dlshogi-layout writer (tests/data/games) and the corpus games.

use crate::games::{truth, unzstd, vector};
use crate::support::{run_bin, TempDir};
use posfilter::codec::game::GameFormat;
use posfilter::codec::Format;
use posfilter::io::batch::{batches_of, Batch, BatchOptions, Batches, InputSpec};
use posfilter::io::detect::detect;

const FORMATS: [GameFormat; 3] = [GameFormat::Hcpe3, GameFormat::Pack, GameFormat::Sbinpack];

/// Records of each vector as the corpus says: every position before a move (hcpe3: not its
/// 4 book moves per game, which have no candidates).
fn corpus_records(format: GameFormat) -> u64 {
    let moves: usize = truth().iter().map(|t| t.moves.len()).sum();
    match format {
        GameFormat::Hcpe3 => (moves - 4 * 655) as u64,
        _ => moves as u64,
    }
}

#[test]
fn game_files_are_detected_by_extension_magic_and_content() {
    let d = TempDir::new("games-detect");
    for f in FORMATS {
        let bytes = vector(f);
        let named = d.join(&format!("t.{}", f.name()));
        let anonymous = d.join(&format!("{}.dat", f.name()));
        std::fs::write(&named, &bytes).unwrap();
        std::fs::write(&anonymous, &bytes).unwrap();
        let by_name = detect(&named, None).unwrap();
        assert_eq!(by_name.format, f.format());
        assert_eq!(by_name.reasons, [format!("extension .{}", f.name())]);
        let by_content = detect(&anonymous, None).unwrap();
        assert_eq!(by_content.format, f.format(), "{:?}", by_content.reasons);
        // A short file (the whole of it in the probe) is detected as well.
        let short = d.join(&format!("short-{}.dat", f.name()));
        let end = first_games_end(f, &bytes, 3);
        std::fs::write(&short, &bytes[..end]).unwrap();
        assert_eq!(detect(&short, None).unwrap().format, f.format());
    }
    // Fixed-size records are not taken for games.
    for (name, format) in [
        ("codec/teacher.hcpe.zst", Format::Hcpe),
        ("codec/teacher.psv.zst", Format::Psv),
    ] {
        let p = d.join("fixed.dat");
        std::fs::write(&p, unzstd(name)).unwrap();
        assert_eq!(detect(&p, None).unwrap().format, format);
    }
}

/// The byte offset where the first `n` games of `bytes` end.
fn first_games_end(format: GameFormat, bytes: &[u8], n: usize) -> usize {
    let mut framer = posfilter::codec::game::Framer::new(format);
    let (mut at, mut games) = (0, 0);
    while games < n {
        match framer.next(&bytes[at..], true) {
            posfilter::codec::game::Frame::Game(len) => {
                at += len;
                games += 1;
            }
            posfilter::codec::game::Frame::Skip(len) => at += len,
            other => panic!("{format}: {other:?}"),
        }
    }
    at
}

/// Every batch of `path`, checking indices are consecutive.
fn all_batches(batches: Batches, first: u64) -> Vec<Batch> {
    let mut next = first;
    let mut out = Vec::new();
    for b in batches {
        let b = b.unwrap();
        assert_eq!(b.first_index, next);
        next += b.len() as u64;
        out.push(b);
    }
    out
}

#[test]
fn game_batches_hold_whole_games_and_resume_at_every_boundary() {
    let d = TempDir::new("games-batches");
    for f in FORMATS {
        let path = d.join(&format!("t.{}", f.name()));
        std::fs::write(&path, vector(f)).unwrap();
        let opts = BatchOptions {
            records: 5000,
            align_games: false,
        };
        let batches = all_batches(batches_of(&path, f.format(), opts), 0);
        let records: u64 = batches.iter().map(|b| b.len() as u64).sum();
        assert_eq!(records, corpus_records(f), "{f}");
        let games: usize = batches.iter().map(|b| b.games().count()).sum();
        assert_eq!(games, 655, "{f}: every game whole in one batch");
        for b in &batches[..batches.len() - 1] {
            assert!(
                b.len() >= 5000,
                "{f}: batch {} has {} records",
                b.seq,
                b.len()
            );
        }
        // Game offsets are increasing and the records of a game share its offset.
        let offsets: Vec<u64> = batches
            .iter()
            .flat_map(|b| b.games().map(|g| g.span.offset))
            .collect();
        assert!(offsets.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(batches[0].get(0).unwrap().offset, offsets[0]);
        // Resuming after any batch yields exactly the batches that followed it.
        let spec = vec![InputSpec {
            path: path.clone(),
            format: f.format(),
        }];
        for (k, b) in batches.iter().enumerate() {
            let resumed = all_batches(
                Batches::resume(spec.clone(), opts, b.next),
                b.next.next_index,
            );
            assert_eq!(resumed.len(), batches.len() - k - 1, "{f}: after batch {k}");
            for (r, o) in resumed.iter().zip(&batches[k + 1..]) {
                assert_eq!(
                    (r.first_index, r.offset, &r.bytes),
                    (o.first_index, o.offset, &o.bytes)
                );
            }
        }
    }
}

#[test]
fn a_truncated_game_counts_one_record_for_its_rest_and_lost_framing_one_for_the_file_rest() {
    let d = TempDir::new("games-cut");
    for f in FORMATS {
        let bytes = vector(f);
        let end = first_games_end(f, &bytes, 2);
        // Game 2 cut in its middle: its whole moves, plus one record for the rest.
        let cut = end + 60;
        let path = d.join(&format!("cut.{}", f.name()));
        let mut file = bytes[..cut].to_vec();
        std::fs::write(&path, &file).unwrap();
        let opts = BatchOptions {
            records: 1,
            align_games: false,
        };
        let batches = all_batches(batches_of(&path, f.format(), opts), 0);
        let games: Vec<_> = batches
            .iter()
            .flat_map(|b| b.games().map(|g| g.span))
            .collect();
        assert_eq!(games.len(), 3, "{f}");
        assert_eq!(games[2].offset, end as u64);
        let complete = posfilter::codec::game::count_records(f, &bytes[end..end + 60]);
        assert!(!complete.complete);
        assert_eq!(games[2].records, complete.records);
        assert!(games[2].records >= 1);
        // Lost framing after game 1: the rest of the file is one unreadable record.
        let one = first_games_end(f, &bytes, 1);
        file = bytes[..end].to_vec();
        match f {
            // Move 1's candidate count above any legal-move count.
            GameFormat::Hcpe3 => file[one + 40..one + 42].copy_from_slice(&999u16.to_le_bytes()),
            GameFormat::Pack => file[one] = 7,
            GameFormat::Sbinpack => file[0] = b'X',
        }
        std::fs::write(&path, &file).unwrap();
        let batches = all_batches(batches_of(&path, f.format(), opts), 0);
        let last = batches.last().unwrap();
        let why = last
            .unreadable()
            .unwrap_or_else(|| panic!("{f}: no unreadable rest"));
        assert_eq!(last.len(), 1);
        let expect_at = if f == GameFormat::Sbinpack {
            0
        } else {
            one as u64
        };
        assert_eq!(last.offset, expect_at, "{f}: {why}");
    }
}

#[test]
fn inspect_reports_games_results_and_dumps_every_position() {
    let d = TempDir::new("games-inspect");
    let truth = truth();
    let winners = |w: u8| truth.iter().filter(|t| t.winner == w).count() as u64;
    let lengths: Vec<usize> = truth.iter().map(|t| t.moves.len()).collect();
    for f in FORMATS {
        let path = d.join(&format!("t.{}", f.name()));
        std::fs::write(&path, vector(f)).unwrap();
        let p = path.to_str().unwrap();
        let (ok, stdout, err) = run_bin(&["inspect", "--json", p]);
        assert!(ok, "{err}");
        let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let g = &v["games"];
        assert_eq!(v["format"], f.name());
        assert_eq!(v["records"], corpus_records(f));
        assert_eq!(v["decoded"], corpus_records(f));
        assert_eq!(g["games"], 655);
        assert_eq!(g["positions"], corpus_records(f));
        let hidden = if f == GameFormat::Hcpe3 { 4 * 655 } else { 0 };
        assert_eq!(g["hidden_positions"], hidden);
        assert_eq!(g["moves"]["min"], *lengths.iter().min().unwrap() as u64);
        assert_eq!(g["moves"]["max"], *lengths.iter().max().unwrap() as u64);
        assert_eq!(g["results"]["black"], winners(1));
        assert_eq!(g["results"]["white"], winners(2));
        assert_eq!(g["results"]["draw"], winners(0));
        assert_eq!(g["faulted"], 0);
        assert_eq!(v["moves"]["legal"], corpus_records(f));
        // The dump: one line per record, the corpus position, move and eval.
        let (ok, dump, _) = run_bin(&["inspect", "--dump", p]);
        assert!(ok);
        let lines: Vec<&str> = dump.lines().collect();
        assert_eq!(lines.len() as u64, corpus_records(f));
        let skip = if f == GameFormat::Hcpe3 { 4 } else { 0 };
        let mut pos = truth[0].start.clone();
        for m in &truth[0].moves[..skip] {
            pos.do_move(*m);
        }
        let fields: Vec<&str> = lines[0].split('\t').collect();
        assert_eq!(fields[0], pos.to_sfen());
        assert_eq!(fields[1], truth[0].scores[skip].to_string());
        assert_eq!(fields[2], truth[0].moves[skip].to_usi());
    }
    // hcpe: the games inferred from the chain of best moves.
    let hcpe = d.join("t.hcpe");
    std::fs::write(&hcpe, unzstd("codec/teacher.hcpe.zst")).unwrap();
    let (ok, stdout, _) = run_bin(&["inspect", "--json", hcpe.to_str().unwrap()]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["games"], 655);
}

//! Bad game files: a truncated game, a bad Huffman code, an illegal move, a move count past
//! the end of the file, a candidate count past the end, lost framing, and random damage.
//! Each fault rejects the rest of its game with the file offset and reason, keeps the moves
//! before it and every other game, and never panics.

use crate::games::{decode_all, vector};
use crate::support::Rng;
use posfilter::codec::game::{encode_game, read_games, sbinpack, Game, GameFormat, Unreadable};
use posfilter::shogi::Move;

/// Decodes `bytes`, returning the games and the unreadable rest.
fn decode(format: GameFormat, bytes: &[u8]) -> (Vec<Game>, Option<Unreadable>) {
    let mut games = Vec::new();
    let rest = read_games(format, bytes, &mut |_, _, _| {}, &mut |g| {
        games.push(g.clone())
    });
    (games, rest)
}

/// The moves of a game, as (move, eval) pairs.
fn moves(g: &Game) -> Vec<(Move, i32)> {
    g.moves.iter().map(|m| (m.mv, m.eval)).collect()
}

/// Asserts that `damaged` holds `original`'s games, except game `k` which keeps its first
/// `plies` moves and fails at file offset `offset` with an error of kind `code`.
fn only_game_k_hurt(
    original: &[Game],
    damaged: &[Game],
    k: usize,
    plies: usize,
    offset: u64,
    code: &str,
) {
    assert_eq!(damaged.len(), original.len());
    for (i, (a, b)) in original.iter().zip(damaged).enumerate() {
        if i != k {
            assert_eq!((b.error.as_ref(), moves(b)), (None, moves(a)), "game {i}");
            assert_eq!(b.offset, a.offset);
            continue;
        }
        let e = b
            .error
            .as_ref()
            .unwrap_or_else(|| panic!("game {k} must fail"));
        assert_eq!(
            (e.kind.code(), e.offset, e.game_offset),
            (code, offset, a.offset),
            "{e}"
        );
        assert_eq!(e.ply as usize, plies);
        assert_eq!(
            moves(b),
            moves(a)[..plies].to_vec(),
            "the moves before the fault stay"
        );
    }
}

/// A move that is not legal before move `ply` of `g`: an earlier board move whose source
/// square no longer holds the piece.
fn illegal_move(g: &Game, ply: usize) -> Move {
    let mut pos = g.start.clone();
    for m in &g.moves[..ply] {
        pos.do_move(m.mv);
    }
    let m = g.moves[..ply]
        .iter()
        .rev()
        .map(|m| m.mv)
        .find(|m| !m.is_drop() && !pos.is_legal(*m));
    m.expect("an earlier board move whose source square is empty now")
}

#[test]
fn truncated_games_keep_their_first_moves_and_every_game_before() {
    for format in GameFormat::ALL {
        let bytes = vector(format);
        let (original, _) = decode(format, &bytes);
        let k = 300;
        let g = &original[k];
        // Cut inside the 41st move (sbinpack: the chunk header then claims bytes past the
        // end, and the cut chain is the last one read).
        let cut = match format {
            GameFormat::Hcpe3 => {
                let visits: usize = (0..40).map(|j| g.candidates(j).len()).sum();
                g.offset as usize + 36 + 40 * 6 + 4 * visits + 3
            }
            GameFormat::Pack => g.offset as usize + 1 + 40 * 4 + 1,
            GameFormat::Sbinpack => sbin_move_offset(&bytes, g, 40) + 1,
        };
        let (damaged, rest) = decode(format, &bytes[..cut]);
        assert_eq!(rest, None);
        let kept = &original[..=k];
        assert_eq!(damaged.len(), k + 1, "{format}");
        let at = match format {
            GameFormat::Hcpe3 => cut as u64 - 3,
            GameFormat::Pack => cut as u64 - 1,
            GameFormat::Sbinpack => cut as u64 - 1,
        };
        only_game_k_hurt(kept, &damaged, k, 40, at, "truncated");
    }
}

/// File offset of the varints of move `ply` of sbinpack game `g` (walking the varints).
fn sbin_move_offset(bytes: &[u8], g: &Game, ply: usize) -> usize {
    let start = g.offset as usize;
    let meta = bytes[start + 38] as usize;
    let mut at = start + 39 + meta + 2;
    for _ in 0..2 * ply {
        while bytes[at] >= 0x80 {
            at += 1;
        }
        at += 1;
    }
    at
}

#[test]
fn a_bad_huffman_code_rejects_its_game_only() {
    for format in GameFormat::ALL {
        let mut bytes = vector(format);
        let (original, _) = decode(format, &bytes);
        // .pack: only games from a position other than the initial one carry a
        // HuffmanCodedPos (the handicap game 277 is one).
        let k = match format {
            GameFormat::Pack => original.iter().position(|g| bytes[g.offset as usize] == 0),
            _ => Some(277),
        };
        let k = k.unwrap();
        let at = original[k].offset as usize + (format == GameFormat::Pack) as usize;
        // All ones: a run of rook codes, far more than two rooks.
        bytes[at + 2..at + 32].fill(0xff);
        let (damaged, rest) = decode(format, &bytes);
        assert_eq!(rest, None);
        let code = damaged[k].error.as_ref().map(|e| e.kind.code()).unwrap();
        assert!(
            ["bad_code", "overrun", "inventory"].contains(&code),
            "{format}: {code}"
        );
        only_game_k_hurt(&original, &damaged, k, 0, at as u64, code);
    }
}

#[test]
fn an_illegal_move_rejects_the_rest_of_its_game_only() {
    for format in GameFormat::ALL {
        let mut bytes = vector(format);
        let (original, _) = decode(format, &bytes);
        let (k, ply) = (123, 30);
        let g = &original[k];
        let (at, code) = match format {
            GameFormat::Hcpe3 => {
                let visits: usize = (0..ply).map(|j| g.candidates(j).len()).sum();
                let at = g.offset as usize + 36 + ply * 6 + 4 * visits;
                let m = illegal_move(g, ply);
                bytes[at..at + 2].copy_from_slice(&m.raw().to_le_bytes());
                (at, "illegal_move")
            }
            GameFormat::Pack => {
                let at = g.offset as usize + 1 + ply * 4;
                let m = illegal_move(g, ply);
                bytes[at..at + 2].copy_from_slice(&m.raw().to_le_bytes());
                (at, "illegal_move")
            }
            GameFormat::Sbinpack => {
                // Move index 127 (one byte, as the index it replaces): past the legal moves.
                let at = sbin_move_offset(&bytes, g, ply);
                assert!(bytes[at] < 0x80);
                bytes[at] = 0x7f;
                (at, "move_index")
            }
        };
        let (damaged, rest) = decode(format, &bytes);
        assert_eq!(rest, None);
        only_game_k_hurt(&original, &damaged, k, ply, at as u64, code);
    }
}

#[test]
fn hcpe3_move_and_candidate_counts_past_the_end_of_the_file() {
    let mut bytes = vector(GameFormat::Hcpe3);
    let (original, _) = decode(GameFormat::Hcpe3, &bytes);
    let last = original.len() - 1;
    let g = &original[last];
    // A move count past the end: every real move decodes, the next MoveInfo is missing.
    let count = g.offset as usize + 32;
    bytes[count..count + 2].copy_from_slice(&60_000u16.to_le_bytes());
    let (damaged, _) = decode(GameFormat::Hcpe3, &bytes);
    let end = bytes.len() as u64;
    only_game_k_hurt(&original, &damaged, last, g.moves.len(), end, "truncated");
    let e = damaged[last].error.as_ref().unwrap();
    assert!(
        e.to_string().contains("move count runs past the end"),
        "{e}"
    );
    // A candidate count past the end: the last move's list runs out.
    let mut bytes = vector(GameFormat::Hcpe3);
    let n = g.moves.len();
    let info = bytes.len() - 6 - 4 * g.candidates(n - 1).len();
    bytes[info + 4..info + 6].copy_from_slice(&500u16.to_le_bytes());
    let (damaged, _) = decode(GameFormat::Hcpe3, &bytes);
    only_game_k_hurt(
        &original,
        &damaged,
        last,
        n - 1,
        info as u64 + 4,
        "truncated",
    );
    let e = damaged[last].error.as_ref().unwrap();
    assert!(
        e.to_string().contains("candidate count runs past the end"),
        "{e}"
    );
}

#[test]
fn sbinpack_move_count_past_the_end_of_its_chunk() {
    let mut bytes = vector(GameFormat::Sbinpack);
    let (original, _) = decode(GameFormat::Sbinpack, &bytes);
    let last = original.len() - 1;
    let g = &original[last];
    let at = g.offset as usize + 39 + bytes[g.offset as usize + 38] as usize;
    bytes[at..at + 2].copy_from_slice(&(g.moves.len() as u16 + 5).to_le_bytes());
    let (damaged, rest) = decode(GameFormat::Sbinpack, &bytes);
    assert_eq!(rest, None);
    only_game_k_hurt(
        &original,
        &damaged,
        last,
        g.moves.len(),
        bytes.len() as u64,
        "truncated",
    );
}

#[test]
fn lost_framing_makes_only_the_rest_of_the_file_unreadable() {
    // hcpe3: a candidate count no position can have.
    let mut bytes = vector(GameFormat::Hcpe3);
    let (original, _) = decode(GameFormat::Hcpe3, &bytes);
    let g = &original[400];
    let at = g.offset as usize + 36 + 4;
    bytes[at..at + 2].copy_from_slice(&1000u16.to_le_bytes());
    let (damaged, rest) = decode(GameFormat::Hcpe3, &bytes);
    assert_eq!(damaged.len(), 400);
    assert_eq!(rest.unwrap().offset, g.offset);
    // .pack: a start tag that is neither 0 nor 1.
    let mut bytes = vector(GameFormat::Pack);
    let (original, _) = decode(GameFormat::Pack, &bytes);
    bytes[original[500].offset as usize] = 7;
    let (damaged, rest) = decode(GameFormat::Pack, &bytes);
    assert_eq!(damaged.len(), 500);
    let rest = rest.unwrap();
    assert_eq!(rest.offset, original[500].offset);
    assert!(rest.reason.contains("start tag 7"), "{}", rest.reason);
    // sbinpack: a second chunk with a bad magic after a good one.
    let good = vector(GameFormat::Sbinpack);
    let mut bytes = good.clone();
    bytes.extend_from_slice(b"SBN3\0\0\0\0");
    let (damaged, rest) = decode(GameFormat::Sbinpack, &bytes);
    assert_eq!(damaged.len(), 655);
    assert_eq!(rest.unwrap().offset, good.len() as u64);
}

/// A game decoded without error re-encodes to one game that decodes to the same start,
/// moves and fields.
fn reencodes_to_itself(format: GameFormat, g: &Game) {
    let mut out = Vec::new();
    encode_game(g, &|_| true, &mut out).unwrap();
    if format == GameFormat::Sbinpack {
        let chains = std::mem::take(&mut out);
        sbinpack::write_chunk(&chains, &mut out).unwrap();
    }
    let (again, rest) = decode(format, &out);
    assert_eq!((again.len(), rest), (1, None));
    let h = &again[0];
    assert_eq!(
        (&h.error, &h.start, h.start.ply()),
        (&None, &g.start, g.start.ply())
    );
    assert_eq!(
        (&h.moves, &h.visits, &h.meta),
        (&g.moves, &g.visits, &g.meta)
    );
}

#[test]
fn random_damage_never_panics_and_every_decoded_move_is_legal() {
    let mut rng = Rng(0x5eed_6a3e);
    for format in GameFormat::ALL {
        let clean = vector(format);
        let games = decode_all(format, &clean);
        let prefix = &clean[..games[40].0.offset as usize];
        for round in 0..300 {
            let mut bytes = prefix.to_vec();
            if format == GameFormat::Sbinpack {
                let len = (bytes.len() - 8) as u32;
                bytes[4..8].copy_from_slice(&len.to_le_bytes());
            }
            for _ in 0..1 + round % 8 {
                let i = rng.below(bytes.len());
                bytes[i] ^= 1 << rng.below(8);
            }
            if round % 5 == 0 {
                bytes.truncate(rng.below(bytes.len()));
            }
            let (decoded, _) = decode(format, &bytes);
            for g in &decoded {
                let mut pos = g.start.clone();
                for m in &g.moves {
                    assert!(pos.is_legal(m.mv), "{format} round {round}");
                    pos.do_move(m.mv);
                }
                match &g.error {
                    Some(e) => assert!(e.offset <= bytes.len() as u64 && e.offset >= g.offset),
                    None => reencodes_to_itself(format, g),
                }
            }
        }
    }
}

/// Whatever a reader decoded, the writer writes: `g` (with or without a fault) with the
/// positions `keep` says re-encodes without error, to games that decode without error
/// and hold exactly the records written.
pub(crate) fn writes_back(format: GameFormat, g: &Game, keep: &dyn Fn(usize) -> bool) {
    let mut out = Vec::new();
    let written = encode_game(g, keep, &mut out)
        .unwrap_or_else(|e| panic!("{format}: a decoded game does not encode: {e}"));
    if format == GameFormat::Sbinpack {
        let chains = std::mem::take(&mut out);
        sbinpack::write_chunk(&chains, &mut out).unwrap();
    }
    let (again, rest) = decode(format, &out);
    assert_eq!((again.len(), rest), (written.games, None), "{format}");
    assert!(again.iter().all(|h| h.error.is_none()), "{format}");
    let records: usize = again.iter().map(Game::records).sum();
    assert_eq!(records, written.records, "{format}");
}

/// One flipped byte at a chain's metadata length (≥ 128) used to stop the whole run with
/// "cannot encode: sbinpack metadata is at most 127 bytes"; an eval past ±2^30 read, then
/// cut into a chain of its own, overflowed the writer's eval delta. Both are now rejected
/// where they are read, and every game around them is written.
#[test]
fn what_the_sbinpack_reader_accepts_the_writer_writes() {
    let clean = crate::pipeline::games::first_games(GameFormat::Sbinpack, 20);
    let (games, _) = decode(GameFormat::Sbinpack, &clean);
    let mut bytes = clean.clone();
    bytes[games[10].offset as usize + 38] = 200;
    let (damaged, _) = decode(GameFormat::Sbinpack, &bytes);
    let hurt = &damaged[10];
    assert_eq!(hurt.error.as_ref().unwrap().kind.code(), "metadata");
    assert_eq!(hurt.error.as_ref().unwrap().offset, games[10].offset + 38);
    for g in &damaged {
        writes_back(GameFormat::Sbinpack, g, &|_| true);
        writes_back(GameFormat::Sbinpack, g, &|i| i % 3 != 1);
    }
    // A game whose evals go from -2^30 + 1 to 2^30 - 1 is read, and any cut of it written;
    // one beyond is a fault at its move.
    let mut g = games[0].clone();
    g.moves.truncate(4);
    g.error = None;
    let big = posfilter::codec::game::sbinpack::MAX_EVAL;
    for (m, e) in g.moves.iter_mut().zip([big, big, -big, big]) {
        m.eval = e;
    }
    let mut out = Vec::new();
    encode_game(&g, &|_| true, &mut out).unwrap();
    let mut file = Vec::new();
    sbinpack::write_chunk(&out, &mut file).unwrap();
    let (read, _) = decode(GameFormat::Sbinpack, &file);
    assert_eq!((read[0].error.as_ref(), read[0].moves.len()), (None, 4));
    for cut in 0..4 {
        writes_back(GameFormat::Sbinpack, &read[0], &|i| i != cut);
    }
    g.moves[2].eval = -big - 1;
    let mut out = Vec::new();
    encode_game(&g, &|_| true, &mut out).unwrap();
    let mut file = Vec::new();
    sbinpack::write_chunk(&out, &mut file).unwrap();
    let (read, _) = decode(GameFormat::Sbinpack, &file);
    let e = read[0].error.as_ref().unwrap();
    assert_eq!(
        (e.kind.code(), e.ply, read[0].moves.len()),
        ("eval_overflow", 2, 2)
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    /// The read-then-write path of every game format (what the `decode_games` fuzz target
    /// checks on arbitrary bytes): the first games of each vector, damaged by up to 3 bit
    /// flips (biased to the game headers) and maybe truncated, decode; every game decoded,
    /// faulted or not, is written back with every position, none, or a random subset kept.
    #[test]
    fn every_decoded_game_writes_back(
        format in 0usize..3,
        flips in proptest::collection::vec((0usize..4096, 0usize..8), 0..4),
        cut in proptest::option::of(0usize..4096),
        mask in proptest::num::u64::ANY,
    ) {
        let format = GameFormat::ALL[format];
        let mut bytes = crate::pipeline::games::first_games(format, 6);
        for (at, bit) in flips {
            // Half the flips land in the first 64 bytes: the headers and metadata.
            let at = if at % 2 == 0 { at / 2 % 64 } else { at };
            let at = at % bytes.len();
            bytes[at] ^= 1 << bit;
        }
        if let Some(cut) = cut {
            bytes.truncate(cut % bytes.len());
        }
        let (games, _) = decode(format, &bytes);
        for g in &games {
            writes_back(format, g, &|_| true);
            writes_back(format, g, &|_| false);
            writes_back(format, g, &|i| mask >> (i % 64) & 1 == 1);
        }
    }
}

/// The run itself: a 20-game sbinpack file whose 11th chain says 200 bytes of metadata used
/// to exit 2 with nothing written ("cannot encode: sbinpack metadata is at most 127
/// bytes"); now that chain's records are rejected at the byte, with the reason, and the
/// other games are kept and written as sbinpack.
#[test]
fn a_bad_metadata_length_rejects_its_chain_and_the_run_goes_on() {
    use crate::pipeline::{config, report, run_status};
    let dir = crate::support::TempDir::new("sbin-metadata");
    let clean = crate::pipeline::games::first_games(GameFormat::Sbinpack, 20);
    let (games, _) = decode(GameFormat::Sbinpack, &clean);
    let at = games[10].offset as usize + 38;
    let mut bytes = clean.clone();
    bytes[at] = 200;
    let path = dir.join("bad.sbinpack");
    std::fs::write(&path, &bytes).unwrap();
    let cfg = config(&dir, &[&path], "[filter.mate]\nenabled = false\n");
    let out = dir.join("out");
    // It completes (status 1, not 2: more than 10 % of the records, the bad chain's, were
    // rejected).
    let (code, err) = run_status(&["run", &cfg, "--quiet", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("were rejected, more than 10 %"), "{err}");
    let r = report(&out);
    let rec = &r["records"];
    let (input, rejected) = (
        rec["input"].as_u64().unwrap(),
        rec["rejected"].as_u64().unwrap(),
    );
    let before: usize = games[..10].iter().map(Game::records).sum();
    assert!(rejected >= 1 && input - rejected >= before as u64, "{rec}");
    let text = std::fs::read_to_string(out.join("rejected.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["offset"], at as u64, "{first}");
    assert!(
        first["detail"]
            .as_str()
            .unwrap()
            .contains("metadata of 200 bytes"),
        "{first}"
    );
    let kept = std::fs::read_dir(out.join("kept")).unwrap().count();
    assert!(kept > 0);
}

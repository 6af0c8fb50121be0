//! The game-format readers (hcpe3, .pack, sbinpack) on arbitrary bytes, and the
//! read-then-write path a run takes when it writes kept positions back as games: never
//! panic; every decoded move is legal where it is played; a game decoded without error
//! re-encodes (sbinpack: inside a chunk of its own) to one game that decodes again to the
//! same start, moves and fields (not always to the same bytes: hands in the old order and
//! overlong varints decode too, and are written the canonical way); and every game decoded,
//! with a fault or without, is written back with every position kept, none, and a subset
//! chosen by the input's first bytes, without an error, to games that decode without a
//! fault and hold exactly the records the writer says it wrote.
#![no_main]

use libfuzzer_sys::fuzz_target;
use posfilter::codec::game::{encode_game, read_games, sbinpack, Game, GameFormat, Written};

/// Writes `g` with `keep` (sbinpack: into a chunk of its own); the file and what was written.
fn write(format: GameFormat, g: &Game, keep: &dyn Fn(usize) -> bool) -> (Vec<u8>, Written) {
    let mut out = Vec::new();
    let written = match encode_game(g, keep, &mut out) {
        Ok(w) => w,
        Err(e) => panic!("{format}: a decoded game does not encode: {e}"),
    };
    if format != GameFormat::Sbinpack {
        return (out, written);
    }
    let mut file = Vec::new();
    sbinpack::write_chunk(&out, &mut file).unwrap();
    (file, written)
}

/// The games of `file` and whether its framing held to the end.
fn read(format: GameFormat, file: &[u8]) -> (Vec<Game>, bool) {
    let mut games = Vec::new();
    let rest = read_games(format, file, &mut |_, _, _| {}, &mut |g| games.push(g.clone()));
    (games, rest.is_none())
}

fn check(format: GameFormat, data: &[u8], mask: u64) {
    let (games, _) = read(format, data);
    for g in &games {
        let mut pos = g.start.clone();
        for m in &g.moves {
            assert!(pos.is_legal(m.mv));
            pos.do_move(m.mv);
        }
        let keeps: [&dyn Fn(usize) -> bool; 3] =
            [&|_| true, &|_| false, &|i| mask >> (i % 64) & 1 == 1];
        for keep in keeps {
            let (file, written) = write(format, g, keep);
            let (again, framed) = read(format, &file);
            assert!(framed && again.len() == written.games);
            assert!(again.iter().all(|h| h.error.is_none()));
            assert_eq!(again.iter().map(Game::records).sum::<usize>(), written.records);
        }
        if g.error.is_some() {
            continue;
        }
        let (file, _) = write(format, g, &|_| true);
        let (again, _) = read(format, &file);
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].error, None);
        assert_eq!(again[0].start, g.start);
        assert_eq!(again[0].start.ply(), g.start.ply());
        assert_eq!((&again[0].moves, &again[0].visits), (&g.moves, &g.visits));
        assert_eq!(again[0].meta, g.meta);
    }
}

fuzz_target!(|data: &[u8]| {
    let mask = data
        .iter()
        .take(8)
        .fold(0u64, |m, &b| m.rotate_left(8) ^ b as u64);
    for format in GameFormat::ALL {
        check(format, data, mask);
    }
    // sbinpack bytes after a valid chunk header, so the chain decoder is reached.
    let mut chunk = Vec::new();
    if sbinpack::write_chunk(data, &mut chunk).is_ok() {
        check(GameFormat::Sbinpack, &chunk, mask);
    }
});

//! The game-format readers (hcpe3, .pack, sbinpack) on arbitrary bytes: never panic; every
//! decoded move is legal where it is played; a game decoded without error re-encodes (sbinpack:
//! inside a chunk of its own) to one game that decodes again to the same start, moves and
//! fields. (Not always to the same bytes: hands in the old order and overlong varints decode
//! too, and are written the canonical way.)
#![no_main]

use libfuzzer_sys::fuzz_target;
use posfilter::codec::game::{encode_game, read_games, sbinpack, Game, GameFormat};

fn check(format: GameFormat, data: &[u8]) {
    let mut games: Vec<Game> = Vec::new();
    let _ = read_games(format, data, &mut |_, _, _| {}, &mut |g| games.push(g.clone()));
    for g in &games {
        let mut pos = g.start.clone();
        for m in &g.moves {
            assert!(pos.is_legal(m.mv));
            pos.do_move(m.mv);
        }
        if g.error.is_some() {
            continue;
        }
        let mut out = Vec::new();
        encode_game(g, &|_| true, &mut out).unwrap();
        let mut file = Vec::new();
        if format == GameFormat::Sbinpack {
            sbinpack::write_chunk(&out, &mut file).unwrap();
        } else {
            file = out;
        }
        let mut again = Vec::new();
        let _ = read_games(format, &file, &mut |_, _, _| {}, &mut |h| again.push(h.clone()));
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].error, None);
        assert_eq!(again[0].start, g.start);
        assert_eq!(again[0].start.ply(), g.start.ply());
        assert_eq!((&again[0].moves, &again[0].visits), (&g.moves, &g.visits));
        assert_eq!(again[0].meta, g.meta);
    }
}

fuzz_target!(|data: &[u8]| {
    for format in GameFormat::ALL {
        check(format, data);
    }
    // sbinpack bytes after a valid chunk header, so the chain decoder is reached.
    let mut chunk = Vec::new();
    if sbinpack::write_chunk(data, &mut chunk).is_ok() {
        check(GameFormat::Sbinpack, &chunk);
    }
});

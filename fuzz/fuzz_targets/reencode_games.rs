//! The read-then-write path of every game format (hcpe3, .pack, sbinpack) on arbitrary
//! bytes, as a run that writes kept positions back as games takes it: every game a reader
//! decodes, with a fault or without, is written back with every position kept, none, and a
//! subset chosen by the input's first bytes; the writer never fails or panics on it, and
//! what it writes decodes without a fault to exactly the records it says it wrote.
#![no_main]

use libfuzzer_sys::fuzz_target;
use posfilter::codec::game::{encode_game, read_games, sbinpack, Game, GameFormat};

/// Writes `g` with `keep` and reads the result back.
fn write_back(format: GameFormat, g: &Game, keep: &dyn Fn(usize) -> bool) {
    let mut out = Vec::new();
    let written = match encode_game(g, keep, &mut out) {
        Ok(w) => w,
        Err(e) => panic!("{format}: a decoded game does not encode: {e}"),
    };
    let mut file = Vec::new();
    if format == GameFormat::Sbinpack {
        sbinpack::write_chunk(&out, &mut file).unwrap();
    } else {
        file = out;
    }
    let mut again = Vec::new();
    let rest = read_games(format, &file, &mut |_, _, _| {}, &mut |h| again.push(h.clone()));
    assert!(rest.is_none());
    assert_eq!(again.len(), written.games);
    assert!(again.iter().all(|h| h.error.is_none()));
    assert_eq!(again.iter().map(Game::records).sum::<usize>(), written.records);
}

fn check(format: GameFormat, data: &[u8], mask: u64) {
    let mut games: Vec<Game> = Vec::new();
    let _ = read_games(format, data, &mut |_, _, _| {}, &mut |g| games.push(g.clone()));
    for g in &games {
        write_back(format, g, &|_| true);
        write_back(format, g, &|_| false);
        write_back(format, g, &|i| mask >> (i % 64) & 1 == 1);
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

//! Game-format decoding, positions per on-CPU second on one core: posfilter's readers
//! (framing, start position, every move replayed and checked legal) against rsshogi 1.7.3's
//! decoders in the same run, interleaved, on the 655 corpus games (96,954 moves; tests/data/
//! games, written by rsshogi and by the dlshogi-layout writer).
//!
//! Peers: .pack — `records::formats::pack::decode_game` for the framing and fields, then the
//! replay `record_from_game` does without building a `Record` (`is_legal_move`, `apply_move`
//! from the start position), so both sides do the same work; also `records_from_bytes` (its
//! full reader, building `Record`s). sbinpack — `SbinpackDecoder`, its streaming reader, which
//! replays every chain. rsshogi has no hcpe3 reader: ours is measured alone.
//!
//! `GAMES_BENCH_ROUNDS` (default 5) rounds of every reader, each about a second; medians.
//! `GAMES_BENCH_ONLY=TEXT` runs only the readers whose name contains TEXT (for a profiler).

use posfilter::codec::game::{read_games, GameFormat};
use rsshogi::board::{hirate_position, HuffmanCodedPos, Position};
use rsshogi::records::formats::pack::{decode_game, records_from_bytes, PackStartPosition};
use rsshogi::records::formats::sbinpack::{SbinpackDecodeEvent, SbinpackDecoder};
use std::path::PathBuf;

fn vector(format: GameFormat) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/games")
        .join(format!("teacher.{}.zst", format.name()));
    zstd::decode_all(std::fs::File::open(&path).expect("game vectors")).expect("zstd")
}

/// On-CPU nanoseconds of this thread (Linux), so that figures stay per core on a busy machine.
fn thread_cpu_ns() -> u64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    s.split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Positions per on-CPU second of `f`, which returns the positions it decoded per call.
fn rate(mut f: impl FnMut() -> usize) -> f64 {
    let n = f();
    let (start, wall) = (thread_cpu_ns(), std::time::Instant::now());
    let mut rounds = 0u64;
    while wall.elapsed().as_secs_f64() < 1.0 {
        assert_eq!(f(), n);
        rounds += 1;
    }
    (rounds * n as u64) as f64 / ((thread_cpu_ns() - start) as f64 / 1e9)
}

fn ours(format: GameFormat, bytes: &[u8]) -> usize {
    let mut positions = 0;
    let rest = read_games(format, bytes, &mut |_, _, _| positions += 1, &mut |g| {
        assert!(g.error.is_none())
    });
    assert!(rest.is_none());
    positions
}

/// The bound under sbinpack decoding: replaying the games and generating every position's
/// legal moves, which an sbinpack move index needs (the .pack vector gives the moves).
fn legal_moves_bound(bytes: &[u8]) -> usize {
    let mut list = posfilter::shogi::MoveList::new();
    let mut positions = 0;
    read_games(
        GameFormat::Pack,
        bytes,
        &mut |_, pos, _| {
            posfilter::shogi::movegen::generate_legal(pos, &mut list);
            positions += (list.len() < 1000) as usize;
        },
        &mut |_| {},
    );
    positions
}

fn rsshogi_pack_replay(bytes: &[u8]) -> usize {
    let (mut at, mut positions) = (0, 0);
    while at < bytes.len() {
        let (game, used) = decode_game(&bytes[at..]).expect("pack game");
        let mut pos = match game.start_position {
            PackStartPosition::Startpos => hirate_position(),
            PackStartPosition::Hcp { hcp, game_ply } => {
                let mut p = Position::empty();
                p.set_huffman_coded_pos(&HuffmanCodedPos { data: hcp.data }, game_ply)
                    .expect("start");
                p
            }
        };
        for ply in &game.plies {
            let mv = ply.mv.to_move();
            assert!(pos.is_legal_move(mv));
            positions += 1;
            pos.apply_move(mv);
        }
        at += used;
    }
    positions
}

fn rsshogi_pack_records(bytes: &[u8]) -> usize {
    let records = records_from_bytes(bytes).expect("pack records");
    records
        .iter()
        .map(|r| r.main_line_ids().len().saturating_sub(1))
        .sum()
}

fn rsshogi_sbinpack(bytes: &[u8]) -> usize {
    let mut decoder = SbinpackDecoder::new(bytes);
    let mut positions = 0;
    while let Some(r) = decoder.decode_next_with(|e| {
        if let SbinpackDecodeEvent::PositionBeforeMove { .. } = e {
            positions += 1
        }
    }) {
        r.expect("sbinpack");
    }
    positions
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::var("GAMES_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let pack = vector(GameFormat::Pack);
    let sbin = vector(GameFormat::Sbinpack);
    let hcpe3 = vector(GameFormat::Hcpe3);
    type Reader<'a> = (&'a str, Box<dyn Fn() -> usize + 'a>);
    let readers: Vec<Reader> = vec![
        ("posfilter pack", Box::new(|| ours(GameFormat::Pack, &pack))),
        (
            "rsshogi pack decode_game + replay",
            Box::new(|| rsshogi_pack_replay(&pack)),
        ),
        (
            "rsshogi pack records_from_bytes",
            Box::new(|| rsshogi_pack_records(&pack)),
        ),
        (
            "posfilter sbinpack",
            Box::new(|| ours(GameFormat::Sbinpack, &sbin)),
        ),
        (
            "rsshogi sbinpack SbinpackDecoder",
            Box::new(|| rsshogi_sbinpack(&sbin)),
        ),
        (
            "posfilter hcpe3",
            Box::new(|| ours(GameFormat::Hcpe3, &hcpe3)),
        ),
        (
            "bound: pack replay + legal moves",
            Box::new(|| legal_moves_bound(&pack)),
        ),
    ];
    let only = std::env::var("GAMES_BENCH_ONLY").unwrap_or_default();
    let readers: Vec<Reader> = readers
        .into_iter()
        .filter(|r| r.0.contains(&only))
        .collect();
    let mut rates = vec![Vec::new(); readers.len()];
    for _ in 0..rounds {
        for (i, (_, f)) in readers.iter().enumerate() {
            rates[i].push(rate(f));
        }
    }
    println!(
        "load average: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    for ((name, _), r) in readers.iter().zip(rates) {
        println!(
            "{name:36} {:7.3} M positions/s per core (median of {rounds})",
            median(r) / 1e6
        );
    }
}

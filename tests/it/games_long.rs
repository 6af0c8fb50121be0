//! Long games: one legal game of 65,535 rook shuffles (the most an hcpe3 or sbinpack game
//! can declare) in each game format, written by our encoder and read back by cshogi (hcpe3;
//! rsshogi reads the .pack and sbinpack ones at 30,000 moves), is decided by the binary (mate off, one thread) under an address-space cap that
//! a history copied per position (memory in the square of the game's length: about 100 GB
//! here) cannot fit in. docs/formats.md states the bound.

use crate::games::{oracle_read, python_oracles, sfen3};
use crate::pipeline::config;
use crate::support::{bin, TempDir};
use posfilter::codec::game::{
    encode_game, read_games, replay_game, sbinpack, Game, GameFormat, GameMeta, GameMove, Visit,
};
use posfilter::shogi::{Move, Position};

/// The most moves an hcpe3 or sbinpack game declares (a u16 count).
const LONGEST: usize = 65_535;

/// The address space the binary may map for one 65,535-move game, in KiB: the program,
/// its threads' stacks and malloc arenas, and a per-game cost linear in its length.
const CAP_KIB: u64 = 1 << 20;

/// A game of `n` moves from the initial position, both rooks going back and forth (every
/// position is an exact repetition of the one four plies earlier from ply 5 on), in
/// `format`, every position a record.
pub(crate) fn rook_shuffle(format: GameFormat, n: usize) -> Game {
    let cycle = ["2h3h", "8b7b", "3h2h", "7b8b"].map(|m| Move::from_usi(m).unwrap());
    let mut game = Game::new(format);
    game.start = Position::startpos();
    for i in 0..n {
        let mv = cycle[i % 4];
        game.moves.push(GameMove {
            mv,
            eval: (i % 7) as i32 - 3,
            visit_start: i as u32,
            candidates: (format == GameFormat::Hcpe3) as u16,
        });
        if format == GameFormat::Hcpe3 {
            game.visits.push(Visit {
                move16: mv.raw(),
                visits: 1,
            });
        }
    }
    game.declared = n as u32;
    game.meta = match format {
        GameFormat::Hcpe3 => GameMeta::Hcpe3 {
            result: 0x4, // a draw by repetition
            opponent: 0,
        },
        GameFormat::Pack => GameMeta::Pack {
            result: 0,
            end_reason: 1, // repetition draw
            startpos_tag: true,
        },
        GameFormat::Sbinpack => GameMeta::Sbinpack {
            score: 0,
            best_move: cycle[0].to_yo16(),
            ply_result: 2 << 10 | 1, // repetition draw, from ply 1
            metadata: Vec::new(),
        },
    };
    game
}

/// `game` as the bytes of a file of its format.
pub(crate) fn file_of_game(game: &Game) -> Vec<u8> {
    let mut out = Vec::new();
    encode_game(game, &|_| true, &mut out).unwrap();
    if game.format() == GameFormat::Sbinpack {
        let mut file = Vec::new();
        sbinpack::write_chunk(&out, &mut file).unwrap();
        return file;
    }
    out
}

/// Runs `posfilter run cfg --out out --threads 1` with its address space capped at `kib`
/// KiB (`ulimit -v` in a shell that then becomes the binary); returns (exit code, stderr).
pub(crate) fn run_capped(cfg: &str, out: &std::path::Path, kib: u64) -> (i32, String) {
    let o = std::process::Command::new("sh")
        .args(["-c", &format!("ulimit -v {kib} && exec \"$@\""), "sh"])
        .arg(bin())
        .args(["run", cfg, "--quiet", "--threads", "1", "--out"])
        .arg(out)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The games as the independent readers see them: the 65,535-move hcpe3 game through
/// dlshogi's loader loop with cshogi (every position and eval), the .pack and sbinpack games
/// through rsshogi at 30,000 moves (rsshogi 1.7.0 panics with "CounterOverflow" on the
/// 65,535-move ones, in its position update, not in the file's reading).
#[test]
fn rook_shuffles_read_in_cshogi_and_rsshogi_as_written() {
    if !python_oracles() {
        return;
    }
    let game = rook_shuffle(GameFormat::Hcpe3, LONGEST);
    let theirs = oracle_read(GameFormat::Hcpe3, &file_of_game(&game));
    assert_eq!(theirs.len(), LONGEST);
    let mut ours = Vec::new();
    replay_game(&game, &mut |i, pos| {
        ours.push((sfen3(&pos.to_sfen()), game.moves[i].eval))
    });
    for (i, (t, (sfen, eval))) in theirs.iter().zip(&ours).enumerate() {
        assert_eq!(sfen3(t["sfen"].as_str().unwrap()), *sfen, "position {i}");
        assert_eq!(t["eval"], *eval, "position {i}");
    }
    for format in [GameFormat::Pack, GameFormat::Sbinpack] {
        let game = rook_shuffle(format, 30_000);
        let theirs = oracle_read(format, &file_of_game(&game));
        assert_eq!(theirs.len(), 1, "{format}");
        let moves: Vec<String> = game.moves.iter().map(|m| m.mv.to_usi()).collect();
        assert_eq!(theirs[0]["moves"], serde_json::json!(moves), "{format}");
        let evals: Vec<i32> = game.moves.iter().map(|m| m.eval).collect();
        assert_eq!(theirs[0]["evals"], serde_json::json!(evals), "{format}");
        assert_eq!(
            theirs[0]["sfen"],
            Position::startpos().to_sfen(),
            "{format}"
        );
    }
}

#[test]
fn a_65535_move_game_of_each_format_runs_in_bounded_memory() {
    let dir = TempDir::new("games-long");
    for format in GameFormat::ALL {
        let game = rook_shuffle(format, LONGEST);
        let bytes = file_of_game(&game);
        let mut back = Vec::new();
        let rest = read_games(format, &bytes, &mut |_, _, _| {}, &mut |g| {
            back.push((g.error.clone(), g.moves.len()))
        });
        assert_eq!((rest, back), (None, vec![(None, LONGEST)]), "{format}");
        let path = dir.join(&format!("long.{}", format.name()));
        std::fs::write(&path, &bytes).unwrap();
        let cfg = config(&dir, &[&path], "[filter.mate]\nenabled = false\n");
        let out = dir.join(&format!("out-{}", format.name()));
        let (code, err) = run_capped(&cfg, &out, CAP_KIB);
        assert_eq!(code, 0, "{format}: {err}");
        let r: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
        let records = &r["records"];
        assert_eq!(records["input"], LONGEST, "{format}");
        // Positions 0..4 are new, every later one repeats the one four plies before.
        assert_eq!(records["kept"], 4, "{format}: {records}");
        assert_eq!(records["dropped"]["repetition"], LONGEST - 4, "{format}");
    }
}

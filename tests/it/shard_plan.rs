//! The shard plan (`io::shard_plan`): for inputs of every kind of framing (fixed-size
//! records, psv games, text lines with blank ones, zstd streams, a truncated tail, an empty
//! file, a broken `.zst`), any part count and batch size, the parts' readers together yield
//! exactly the batches of one reader over the whole input, in order, and the parts are
//! balanced. Truth: the whole-input reader itself.

use crate::support::{data, Rng, TempDir};
use posfilter::codec::Format;
use posfilter::io::batch::{BatchOptions, Batches, InputSpec, ResumePoint};
use posfilter::io::shard_plan::ShardPlan;
use std::path::Path;

/// What a batch is, for comparing two readers (its bytes by their CRC-32).
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    file: usize,
    first_index: u64,
    offset: u64,
    len: usize,
    bytes: u32,
    new_game: Vec<bool>,
    unreadable: bool,
    overlong: Option<u64>,
}

fn seen(b: &posfilter::io::batch::Batch) -> Seen {
    Seen {
        file: b.file,
        first_index: b.first_index,
        offset: b.offset,
        len: b.len(),
        bytes: crc32fast::hash(&b.bytes),
        new_game: b.iter().map(|r| r.new_game).collect(),
        unreadable: b.unreadable().is_some(),
        overlong: b.overlong,
    }
}

fn whole(specs: &[InputSpec], opts: BatchOptions) -> Vec<Seen> {
    Batches::new(specs.to_vec(), opts)
        .map(|b| seen(&b.unwrap()))
        .collect()
}

/// The batches of one part: a reader resumed at its start, up to its end.
fn part(specs: &[InputSpec], opts: BatchOptions, from: ResumePoint, to: ResumePoint) -> Vec<Seen> {
    let mut out = Vec::new();
    for b in Batches::resume(specs.to_vec(), opts, from) {
        let b = b.unwrap();
        if b.first_index >= to.next_index {
            break;
        }
        assert!(
            b.first_index + b.len() as u64 <= to.next_index,
            "a batch straddles the part's end {to:?}"
        );
        out.push(seen(&b));
    }
    out
}

/// Checks the plan's contract for every part count in `parts` and every batch size.
fn check(specs: &[InputSpec], align_games: bool, sizes: &[usize], parts: &[usize]) {
    for &records in sizes {
        let opts = BatchOptions {
            records,
            align_games,
        };
        let all = whole(specs, opts);
        let total: u64 = all.iter().map(|b| b.len as u64).sum();
        for &n in parts {
            let plan = ShardPlan::new(specs, opts, n).unwrap();
            assert_eq!(plan.parts(), n);
            assert_eq!(plan.total_records(), total, "records, batch {records}");
            assert!(plan
                .points
                .windows(2)
                .all(|w| w[0].next_index <= w[1].next_index));
            // Every plan computed again is the same (every task computes its own).
            assert_eq!(ShardPlan::new(specs, opts, n).unwrap(), plan);
            let mut joined = Vec::new();
            for i in 0..n {
                let (from, to) = plan.part(i).unwrap();
                let got = part(specs, opts, from, to);
                let records_in: u64 = got.iter().map(|b| b.len as u64).sum();
                assert_eq!(records_in, to.next_index - from.next_index, "part {i}/{n}");
                joined.extend(got);
            }
            assert_eq!(joined.len(), all.len(), "batch {records}, {n} parts");
            for (a, b) in joined.iter().zip(&all) {
                assert_eq!(a, b, "batch {records}, {n} parts");
            }
        }
    }
}

fn spec(path: &Path, format: Format) -> InputSpec {
    InputSpec {
        path: path.to_path_buf(),
        format,
    }
}

/// psv teacher records rewritten into games of random lengths (1 to 700 plies), so that
/// games straddle many batch-size multiples and some span several.
fn psv_games(rng: &mut Rng, records: usize) -> Vec<u8> {
    let src =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/teacher.psv")).unwrap();
    let mut out = Vec::with_capacity(records * 40);
    let mut ply = 0u16;
    let mut left = 0usize;
    for i in 0..records {
        if left == 0 {
            let longest = if rng.below(8) == 0 { 700 } else { 120 };
            left = 1 + rng.below(longest);
            ply = rng.below(3) as u16; // a game may start at ply 0, 1 or 2
        }
        let mut rec = src[(i % (src.len() / 40)) * 40..][..40].to_vec();
        rec[36..38].copy_from_slice(&ply.to_le_bytes());
        out.extend_from_slice(&rec);
        ply += 1 + rng.below(2) as u16;
        left -= 1;
    }
    out
}

#[test]
fn parts_of_fixed_size_files_are_the_whole_readers_batches() {
    let dir = TempDir::new("plan-fixed");
    let psfen =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/startpos.psfen")).unwrap();
    let a = dir.join("a.psfen");
    std::fs::write(&a, &psfen[..32 * 1000]).unwrap();
    let empty = dir.join("empty.psfen");
    std::fs::write(&empty, b"").unwrap();
    // 1,999 records and a 7-byte truncated tail.
    let b = dir.join("b.psfen");
    std::fs::write(&b, &psfen[32 * 1000..32 * 2999 + 7]).unwrap();
    let hcp = spec(&data("pipeline/startpos.hcp"), Format::Hcp);
    let specs = vec![
        spec(&a, Format::Psfen),
        spec(&empty, Format::Psfen),
        spec(&b, Format::Psfen),
        hcp,
    ];
    check(&specs, true, &[1, 7, 256, 5000], &[1, 2, 3, 4, 5, 9]);
}

#[test]
fn parts_of_psv_games_are_the_whole_readers_batches() {
    let dir = TempDir::new("plan-psv");
    let mut rng = Rng(0x5eed_0036);
    let a = dir.join("a.psv");
    std::fs::write(&a, psv_games(&mut rng, 4000)).unwrap();
    let mut tail = psv_games(&mut rng, 1500);
    tail.extend_from_slice(&[1, 2, 3]); // truncated final record: no game start
    let b = dir.join("b.psv");
    std::fs::write(&b, tail).unwrap();
    let teacher = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/teacher.psv");
    let specs = vec![
        spec(&a, Format::Psv),
        spec(&teacher, Format::Psv),
        spec(&b, Format::Psv),
    ];
    check(&specs, true, &[1, 50, 256, 8192], &[1, 2, 3, 4, 5, 16]);
    // Without game alignment (reference pools) psv is cut like any fixed-size format.
    check(&specs, false, &[64], &[3, 4]);
}

#[test]
fn parts_of_text_and_zstd_files_are_the_whole_readers_batches() {
    let dir = TempDir::new("plan-scanned");
    let mut rng = Rng(0x5eed_0037);
    let text = std::fs::read_to_string(data("pipeline/startpos.sfen")).unwrap();
    let mut sfen = String::new();
    for (i, line) in text.lines().take(1500).enumerate() {
        if i % 97 == 0 {
            sfen.push_str("\n  \r\n"); // blank lines: not records
        }
        sfen.push_str(line);
        sfen.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
    }
    let s = dir.join("s.sfen");
    std::fs::write(&s, &sfen).unwrap();
    let games = psv_games(&mut rng, 3000);
    let z = dir.join("g.psv.zst");
    std::fs::write(&z, zstd::encode_all(&games[..], 3).unwrap()).unwrap();
    let psfen =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/startpos.psfen")).unwrap();
    // A .zst that breaks off: its whole records, then one unreadable rest.
    let mut broken = zstd::encode_all(&psfen[..], 3).unwrap();
    let cut = broken.len() * 2 / 3;
    broken.truncate(cut);
    let k = dir.join("k.psfen.zst");
    std::fs::write(&k, broken).unwrap();
    let specs = vec![
        spec(&s, Format::Sfen),
        spec(&z, Format::Psv),
        spec(&k, Format::Psfen),
    ];
    check(&specs, true, &[1, 33, 256], &[1, 2, 4, 5, 7]);
}

#[test]
fn parts_are_balanced_by_records() {
    let dir = TempDir::new("plan-balance");
    let mut rng = Rng(0x5eed_0038);
    let a = dir.join("a.psv");
    std::fs::write(&a, psv_games(&mut rng, 20_000)).unwrap();
    let specs = vec![spec(&a, Format::Psv)];
    let opts = BatchOptions {
        records: 256,
        align_games: true,
    };
    for n in [2, 3, 4, 5] {
        let plan = ShardPlan::new(&specs, opts, n).unwrap();
        for i in 0..n {
            let (from, to) = plan.part(i).unwrap();
            let size = to.next_index - from.next_index;
            // A cut moves at most to the next multiple of the batch size, then to the end
            // of the game there (games here are at most 700 records).
            let ideal = 20_000 / n as u64;
            assert!(
                size.abs_diff(ideal) <= 256 + 700 + 1,
                "part {i}/{n}: {size}"
            );
        }
    }
    // One huge game and more parts than boundaries: parts may be empty, none is lost.
    let one: Vec<u8> = (0..3000u16)
        .flat_map(|p| {
            let mut r = [0u8; 40];
            r[36..38].copy_from_slice(&p.to_le_bytes());
            r
        })
        .collect();
    let b = dir.join("b.psv");
    std::fs::write(&b, one).unwrap();
    let plan = ShardPlan::new(&[spec(&b, Format::Psv)], opts, 4).unwrap();
    let sizes: Vec<u64> = plan
        .points
        .windows(2)
        .map(|w| w[1].next_index - w[0].next_index)
        .collect();
    assert_eq!(sizes, vec![3000, 0, 0, 0]);
}

/// Game formats (hcpe3, .pack, sbinpack: whole games framed from the file's start, a last
/// game cut short) and hcpe with its games inferred from the best moves (uncompressed: cut
/// at the first chain break at or after each multiple, found from the records around it;
/// and as .zst, read through): the parts are the whole reader's batches, so a part boundary
/// is a game boundary wherever one run's batches end.
#[test]
fn parts_of_game_formats_and_inferred_hcpe_games_are_the_whole_readers_batches() {
    use crate::games::{unzstd, vector};
    use posfilter::codec::game::GameFormat;
    let dir = TempDir::new("plan-games");
    let mut specs = Vec::new();
    for format in GameFormat::ALL {
        let mut bytes = vector(format);
        if format != GameFormat::Sbinpack {
            bytes.truncate(bytes.len() - 5); // the last game cut short
        }
        let path = dir.join(&format!("g.{}", format.name()));
        std::fs::write(&path, bytes).unwrap();
        specs.push(spec(&path, format.format()));
    }
    let hcpe = unzstd("codec/teacher.hcpe.zst");
    let h = dir.join("t.hcpe");
    std::fs::write(&h, &hcpe).unwrap();
    let hz = dir.join("t.hcpe.zst");
    std::fs::write(&hz, zstd::encode_all(&hcpe[..38 * 3000], 3).unwrap()).unwrap();
    specs.push(spec(&h, Format::Hcpe));
    specs.push(spec(&hz, Format::Hcpe));
    check(&specs, true, &[1, 97, 1000], &[1, 2, 3, 5, 8]);
}

/// Four hcpe records written by cshogi 1.1.0 (`Board.to_hcp`, `move16`): the start
/// position and the positions after 2h3h, 8b7b, 3h2h, each with that move as its best
/// move, so that the fourth's best move (7b8b) leads back to the first: a cycle whose
/// best moves chain forever.
const HCPE_CYCLE: &str = "\
58a449210cd757217e8e4d212caf427814c2ab109e4d212cd75f213e8e49210c00001908000059a449210cd7\
57211c9b42fc2caf427814c2ab109e4d212cd75f213e8e49210c00003720000058a449210cd757211c9b42fc\
2caf427814c2ab109eedaf10964b213e8e49210c0000900c000059a449210cd757217e8e4d212caf427814c2\
ab109eedaf10964b213e8e49210c0000c01b0000";

/// An hcpe file whose best moves chain without a break over more than the 65,536 records
/// the reader looks ahead for a game start (`cycles` turns of [`HCPE_CYCLE`]), between two
/// stretches of real teacher games.
pub(crate) fn hcpe_with_a_long_chain(cycles: usize) -> Vec<u8> {
    use posfilter::codec::game::infer::chained;
    let cycle: Vec<u8> = (0..HCPE_CYCLE.len() / 2)
        .map(|i| u8::from_str_radix(&HCPE_CYCLE[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    let records: Vec<&[u8]> = cycle.chunks(38).collect();
    for (i, r) in records.iter().enumerate() {
        assert!(chained(r, records[(i + 1) % 4]), "cycle record {i}");
    }
    let teacher = crate::games::unzstd("codec/teacher.hcpe.zst");
    let mut bytes = teacher[..38 * 2500].to_vec();
    bytes.extend(cycle.repeat(cycles));
    bytes.extend_from_slice(&teacher[38 * 2500..38 * 5000]);
    bytes
}

/// The plan's fallback: where a chain of best moves with no break runs past the reader's
/// look-ahead, the reader cuts a batch without a game start, which the records around a
/// cut cannot tell, and the plan reads the whole file with the batch reader instead. The
/// parts are still the whole reader's batches (and the reader does cut without a start: a
/// batch runs its whole look-ahead).
#[test]
fn parts_of_hcpe_with_a_chain_longer_than_the_look_ahead_are_the_whole_readers_batches() {
    let dir = TempDir::new("plan-hcpe-chain");
    let path = dir.join("chain.hcpe");
    std::fs::write(&path, hcpe_with_a_long_chain(17_500)).unwrap();
    let specs = [spec(&path, Format::Hcpe)];
    let opts = BatchOptions {
        records: 1000,
        align_games: true,
    };
    let all = whole(&specs, opts);
    let lens: Vec<(usize, bool)> = all.iter().map(|b| (b.len, b.new_game[0])).collect();
    let cut_inside = lens.windows(2).any(|w| w[0].0 > 65_536 && w[1].0 > 0);
    assert!(
        cut_inside,
        "no batch ran the reader's whole look-ahead: {lens:?}"
    );
    check(&specs, true, &[1000], &[1, 2, 3, 5]);
}

//! Broken and long-window `.zst` input (issue 33 items 3 and 4). Truth: the original bytes,
//! the frame layout of RFC 8878 walked here independently of the reader, and what a plain
//! zstd decoder makes of the stream cut right before the broken block (a cut stream loses
//! nothing before the cut).

use crate::support::{bin, data, TempDir};
use posfilter::codec::Format;
use posfilter::io::batch::{BatchOptions, Batches, InputSpec};
use posfilter::io::detect::detect;
use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;

fn psv(records: usize) -> Vec<u8> {
    let all =
        zstd::decode_all(std::fs::File::open(data("codec/teacher.psv.zst")).unwrap()).unwrap();
    all[..40 * records].to_vec()
}

/// Offsets of the block headers of the one frame in `z` (RFC 8878: a 3-byte header per
/// block, bit 0 last, bits 1-2 type, bits 3.. size; an RLE block holds one byte).
fn block_offsets(z: &[u8]) -> Vec<usize> {
    assert_eq!(z[..4], [0x28, 0xb5, 0x2f, 0xfd]);
    let fhd = z[4];
    let single = fhd & 0x20 != 0;
    let fcs = [single as usize, 2, 4, 8][(fhd >> 6) as usize];
    let mut at = 5 + (!single) as usize + [0, 1, 2, 4][(fhd & 3) as usize] + fcs;
    let mut blocks = Vec::new();
    loop {
        blocks.push(at);
        let h = u32::from_le_bytes([z[at], z[at + 1], z[at + 2], 0]);
        let size = if (h >> 1) & 3 == 1 {
            1
        } else {
            h as usize >> 3
        };
        at += 3 + size;
        if h & 1 == 1 {
            return blocks;
        }
    }
}

/// What a plain decoder gets out of `z` cut at `cut`: the content of the whole blocks
/// before the cut.
fn decoded_before(z: &[u8], cut: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut dec = zstd::stream::read::Decoder::new(&z[..cut]).unwrap();
    assert!(
        dec.read_to_end(&mut out).is_err(),
        "a cut frame must end in an error"
    );
    out
}

/// (records, their bytes, the unreadable record's (index, offset, reason)) of `path`.
fn read_all(
    path: &Path,
    format: Format,
    records: usize,
) -> (u64, Vec<u8>, Vec<(u64, u64, String)>) {
    let spec = InputSpec {
        path: path.to_path_buf(),
        format,
    };
    let opts = BatchOptions {
        records,
        align_games: false,
    };
    let (mut n, mut bytes, mut broken) = (0, Vec::new(), Vec::new());
    for b in Batches::new(vec![spec], opts) {
        let b = b.unwrap();
        if let Some(e) = b.unreadable() {
            let r = b.get(0).unwrap();
            broken.push((r.index, r.offset, e.to_string()));
            continue;
        }
        for r in b.iter() {
            assert_eq!((r.index, r.offset), (n, bytes.len() as u64));
            bytes.extend_from_slice(r.bytes);
            n += 1;
        }
    }
    (n, bytes, broken)
}

/// A corrupt block (reserved type) or a cut inside it: every whole record of the blocks
/// before it is read, for any batch size, and the break sits right after them. 16,000
/// records (640 KB, broken inside the old reader's first 1 MiB read, which then lost it
/// all) and 36,000 (1.44 MB).
#[test]
fn every_whole_record_before_a_broken_block_is_read() {
    let dir = TempDir::new("salvage");
    for records in [16_000, 36_000] {
        let plain = psv(records);
        let z = zstd::encode_all(&plain[..], 3).unwrap();
        let blocks = block_offsets(&z);
        assert!(blocks.len() >= 5, "{}", blocks.len());
        for j in [1, 2, blocks.len() / 2, blocks.len() - 1] {
            let good = decoded_before(&z, blocks[j]);
            let whole = good.len() - good.len() % 40;
            assert!(whole > 0 && plain.starts_with(&good));
            let mut reserved = z.clone();
            reserved[blocks[j]] |= 0b110;
            let cut = z[..blocks[j] + 100].to_vec();
            for (kind, broken) in [("reserved", reserved), ("cut", cut)] {
                let path = dir.join(&format!("b{records}-{j}-{kind}.psv.zst"));
                std::fs::write(&path, &broken).unwrap();
                assert_eq!(detect(&path, None).unwrap().format, Format::Psv);
                for batch in [700, 1 << 16] {
                    let (n, bytes, unreadable) = read_all(&path, Format::Psv, batch);
                    let what = format!("{records} records, block {j} {kind}, batch {batch}");
                    assert_eq!(n as usize, whole / 40, "{what}");
                    assert_eq!(bytes, plain[..whole], "{what}");
                    assert_eq!(unreadable.len(), 1, "{what}");
                    let (index, offset, why) = &unreadable[0];
                    assert_eq!((*index, *offset), (n, whole as u64), "{what}");
                    let expect = if kind == "cut" {
                        "truncated".to_string()
                    } else {
                        format!("block at compressed byte {}", blocks[j])
                    };
                    assert!(why.contains(&expect), "{what}: {why}");
                }
            }
        }
    }
}

/// Frames after a broken one are not read, frames before it are whole; a content checksum
/// that does not match is a break after the frame's content, which the reason says may be
/// corrupt; garbage after the last frame is a break there.
#[test]
fn frames_before_a_break_are_whole_and_checksums_are_named() {
    let dir = TempDir::new("frames");
    let plain = psv(3000);
    let (mut z, mut ends) = (Vec::new(), Vec::new());
    for part in plain.chunks(40 * 1000) {
        let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        enc.include_checksum(true).unwrap();
        enc.write_all(part).unwrap();
        z.extend(enc.finish().unwrap());
        ends.push(z.len());
    }
    let path = dir.join("x.psv.zst");
    std::fs::write(&path, &z).unwrap();
    let (n, bytes, broken) = read_all(&path, Format::Psv, 512);
    assert_eq!((n, bytes == plain, broken.len()), (3000, true, 0));
    // The second frame's checksum is its last 4 bytes.
    let mut bad = z.clone();
    bad[ends[1] - 1] ^= 0xff;
    std::fs::write(&path, &bad).unwrap();
    let (n, bytes, broken) = read_all(&path, Format::Psv, 512);
    assert_eq!((n, bytes == plain[..80_000]), (2000, true));
    assert_eq!((broken[0].0, broken[0].1), (2000, 80_000));
    assert!(broken[0].2.contains("checksum"), "{}", broken[0].2);
    assert!(broken[0].2.contains("may be corrupt"), "{}", broken[0].2);
    // Not a frame after the first one.
    let mut bad = z[..ends[0]].to_vec();
    bad.extend_from_slice(b"garbage after the first frame");
    std::fs::write(&path, &bad).unwrap();
    let (n, _, broken) = read_all(&path, Format::Psv, 512);
    assert_eq!((n, broken[0].1), (1000, 40_000));
}

/// `posfilter inspect` and `posfilter run` put the break at the same offset, and a file
/// broken in its first block (nothing readable) is rejected as one unreadable record while
/// the run goes on with the next file.
#[test]
fn run_and_inspect_agree_on_the_break() {
    let dir = TempDir::new("agree");
    let plain = psv(16_000);
    let z = zstd::encode_all(&plain[..], 3).unwrap();
    let blocks = block_offsets(&z);
    let good = decoded_before(&z, blocks[3]);
    let whole = (good.len() - good.len() % 40) as u64;
    let mut broken = z.clone();
    broken[blocks[3]] |= 0b110;
    let file = dir.join("broken.psv.zst");
    std::fs::write(&file, &broken).unwrap();
    let mut first = z.clone();
    first[blocks[0]] |= 0b110;
    let dead = dir.join("dead.psv.zst");
    std::fs::write(&dead, &first).unwrap();

    let out = std::process::Command::new(bin())
        .args(["inspect", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    // The report of what was read, then status 2 with the file and where it broke.
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let named = format!("{}: unreadable after byte {whole}:", file.display());
    assert!(err.contains(&named), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["records"].as_u64(), Some(whole / 40));
    let why = v["unreadable"].as_str().unwrap();
    assert!(why.contains(&format!("after byte {whole}:")), "{why}");

    let cfg = dir.join("p.toml");
    std::fs::write(
        &cfg,
        format!(
            "[input]\npaths = [{:?}, {:?}]\n[output]\ndir = \"out\"\n[filter.mate]\nenabled = false\n",
            file.display().to_string(),
            dead.display().to_string()
        ),
    )
    .unwrap();
    let out = std::process::Command::new(bin())
        .args(["run", cfg.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    // Complete, but two files could not be read to the end: status 1.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rejected: Vec<Value> = std::fs::read_to_string(dir.join("out/rejected.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &Value| v["bytes"] == 0)
        .collect();
    let at: Vec<(u64, u64)> = rejected
        .iter()
        .map(|v| (v["index"].as_u64().unwrap(), v["offset"].as_u64().unwrap()))
        .collect();
    assert_eq!(at, [(whole / 40, whole), (whole / 40 + 1, 0)]);
    let report: Value =
        serde_json::from_slice(&std::fs::read(dir.join("out/report.json")).unwrap()).unwrap();
    assert_eq!(report["records"]["input"].as_u64(), Some(whole / 40 + 2));
}

/// Streams written with `zstd --long=28..31` (window 256 MiB to 2 GiB, no content size, so
/// the header asks for the whole window) decode to their bytes; a frame asking for more
/// than 2 GiB is a break that names its window.
#[test]
fn long_windows_up_to_2_gib_are_read() {
    let dir = TempDir::new("long");
    let plain = psv(5000);
    for log in 28..=31u32 {
        let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        enc.long_distance_matching(true).unwrap();
        enc.window_log(log).unwrap();
        enc.write_all(&plain).unwrap();
        let z = enc.finish().unwrap();
        // The header asks for 2^log bytes of window (window descriptor: exponent << 3).
        assert_eq!(z[4] & 0x20, 0, "not single-segment");
        assert_eq!(z[5], ((log - 10) << 3) as u8);
        let path = dir.join(&format!("w{log}.psv.zst"));
        std::fs::write(&path, &z).unwrap();
        let (n, bytes, broken) = read_all(&path, Format::Psv, 1 << 16);
        assert!(broken.is_empty(), "window 2^{log}: {broken:?}");
        assert_eq!((n, bytes == plain), (5000, true), "window 2^{log}");
        // The dry run states the memory the window costs.
        let cfg = dir.join("p.toml");
        let text = format!("[input]\npaths = [{:?}]\n", path.display().to_string());
        std::fs::write(&cfg, text).unwrap();
        let o = std::process::Command::new(bin())
            .args(["run", cfg.to_str().unwrap(), "--dry-run"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        let line = format!(
            "zstd window: {} (the largest, {})",
            indicatif::BinaryBytes(1u64 << log),
            path.display()
        );
        assert!(err.contains(&line), "{err}");
        if log == 31 {
            // Mantissa 1: 2 GiB + 256 MiB.
            let mut big = z.clone();
            big[5] |= 1;
            std::fs::write(&path, &big).unwrap();
            let (n, _, broken) = read_all(&path, Format::Psv, 1 << 16);
            assert_eq!(n, 0);
            assert!(broken[0].2.contains("2304 MiB window"), "{}", broken[0].2);
        }
    }
}

/// A frame whose content falls short of the size its header declares is a break after
/// its content, even when it ends in an empty block (which libzstd's streaming decoder
/// lets through; its one-pass decoder does not; found by fuzz/zstd_salvage).
#[test]
fn a_frame_shorter_than_it_declares_is_a_break() {
    let dir = TempDir::new("declared");
    let plain = psv(1000);
    let mut z = zstd::encode_all(&plain[..], 3).unwrap();
    let good = z.len();
    let mut empty = zstd::encode_all(&[][..], 3).unwrap();
    // Single segment, a 1-byte content size (0) right after the descriptor.
    assert_eq!((empty[4] & 0xe0, empty[5]), (0x20, 0));
    empty[5] = 40;
    z.extend_from_slice(&empty);
    let path = dir.join("short.psv.zst");
    std::fs::write(&path, &z).unwrap();
    let (n, bytes, broken) = read_all(&path, Format::Psv, 1 << 16);
    assert_eq!((n, bytes == plain), (1000, true));
    assert_eq!(broken.len(), 1);
    assert_eq!(broken[0].1, 40_000);
    let why = &broken[0].2;
    assert!(
        why.contains(&format!(
            "frame at compressed byte {good} declares 40 bytes"
        )),
        "{why}"
    );
}

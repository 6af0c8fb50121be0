//! Input (detection, mapped/zstd streams, batches with global indices, tails, psv games),
//! output shards, and `posfilter inspect` driven as a binary. Truth: the teacher files and
//! their game table (teacher.games.jsonl), the codec vectors, and a bitwise CRC-32.

use crate::support::{bin, data, jsonl};
use posfilter::codec::{self, CodecError, Format};
use posfilter::io::batch::{batches_of, BatchOptions, Batches, InputSpec};
use posfilter::io::detect::detect;
use posfilter::io::input::{expand, open_stream, InputError, MappedReader};
use posfilter::io::output::{OutputOptions, ShardWriter};
use std::io::Read;
use std::path::{Path, PathBuf};

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("posfilter-it-io-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn teacher(name: &str) -> Vec<u8> {
    zstd::decode_all(std::fs::File::open(data(name)).unwrap()).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

#[test]
fn detection_by_content_extension_and_explicit() {
    let d = tmpdir("detect");
    let psv = teacher("codec/teacher.psv.zst");
    let hcpe = teacher("codec/teacher.hcpe.zst");
    let vectors = jsonl("codec/codec_vectors.jsonl");
    let mut psfen = Vec::new();
    let mut hcp = Vec::new();
    for v in vectors.iter().take(500) {
        psfen.extend(unhex(v["psfen"].as_str().unwrap()));
        hcp.extend(unhex(v["hcp"].as_str().unwrap()));
    }
    let cases: Vec<(&str, Vec<u8>, Format)> = vec![
        ("a.dat", psv[..400_000].to_vec(), Format::Psv),
        ("b.dat", hcpe[..380_000].to_vec(), Format::Hcpe),
        ("c.dat", psfen.clone(), Format::Psfen),
        ("d.dat", hcp.clone(), Format::Hcp),
        (
            "e",
            zstd::encode_all(&psv[..400_017], 3).unwrap(),
            Format::Psv,
        ),
        (
            "f.txt",
            b"startpos moves 7g7f\nsfen 4k4/9/9/9/9/9/9/9/4K4 b G 1\n".to_vec(),
            Format::Usi,
        ),
        (
            "g.txt",
            b"sfen 4k4/9/9/9/9/9/9/9/4K4 b G 1\n".to_vec(),
            Format::Sfen,
        ),
    ];
    for (name, bytes, want) in cases {
        let p = d.join(name);
        std::fs::write(&p, &bytes).unwrap();
        let det = detect(&p, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(det.format, want, "{name}: {:?}", det.reasons);
        assert!(!det.reasons.is_empty());
    }
    // The extension is taken (through .zst) when the content agrees; PackedSfen named
    // .hcp is refused, naming both; an explicit format wins over everything.
    let p = d.join("x.psfen.zst");
    std::fs::write(&p, zstd::encode_all(&psfen[..], 1).unwrap()).unwrap();
    let det = detect(&p, None).unwrap();
    assert_eq!((det.format, det.compressed), (Format::Psfen, true));
    let p = d.join("x.hcp.zst");
    std::fs::write(&p, zstd::encode_all(&psfen[..], 1).unwrap()).unwrap();
    match detect(&p, None) {
        Err(InputError::Detect { reason, .. }) => assert!(
            reason.contains("the name says hcp, the content says psfen"),
            "{reason}"
        ),
        other => panic!("expected a refusal, got {other:?}"),
    }
    let det = detect(&p, Some(Format::Hcp)).unwrap();
    assert_eq!((det.format, det.compressed), (Format::Hcp, true));
    assert!(
        det.reasons.iter().any(|r| r.contains("warning")),
        "{:?}",
        det.reasons
    );
    assert_eq!(
        detect(&p, Some(Format::Psfen)).unwrap().format,
        Format::Psfen
    );
    // Records valid both as PackedSfen and as HCP: detection must refuse to guess.
    let mut both = Vec::new();
    for chunk in psfen.chunks(32) {
        if codec::decode(Format::Hcp, chunk).is_ok() && codec::decode(Format::Psfen, chunk).is_ok()
        {
            both.extend_from_slice(chunk);
        }
    }
    assert!(both.len() >= 32 * 20, "need some ambiguous records");
    let p = d.join("amb.bin");
    std::fs::write(&p, &both).unwrap();
    match detect(&p, None) {
        Err(InputError::Detect { reason, .. }) => assert!(reason.contains("ambiguous"), "{reason}"),
        other => panic!("expected ambiguity, got {other:?}"),
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn mapped_windows_and_zstd_stream_read_every_byte() {
    let d = tmpdir("stream");
    let psv = teacher("codec/teacher.psv.zst");
    let p = d.join("t.psv");
    std::fs::write(&p, &psv).unwrap();
    let mut got = Vec::new();
    MappedReader::with_window(&p, 4096 + 17)
        .unwrap()
        .read_to_end(&mut got)
        .unwrap();
    assert_eq!(got, psv);
    got.clear();
    open_stream(&data("codec/teacher.psv.zst"))
        .unwrap()
        .read_to_end(&mut got)
        .unwrap();
    assert_eq!(got, psv);
    let empty = d.join("empty.psv");
    std::fs::write(&empty, b"").unwrap();
    got.clear();
    open_stream(&empty).unwrap().read_to_end(&mut got).unwrap();
    assert!(got.is_empty());
    assert_eq!(
        batches_of(&empty, Format::Psv, BatchOptions::default()).count(),
        0
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// Batches say how far into their file on disk they were cut: for a plain file exactly the
/// bytes of the records so far (a psv batch may have read the next game's first record
/// ahead), for a .zst file a rising count of compressed bytes that ends at the file's size.
#[test]
fn batches_track_their_position_in_the_file_on_disk() {
    let d = tmpdir("disk");
    let psv = teacher("codec/teacher.psv.zst");
    let plain = d.join("t.psv");
    std::fs::write(&plain, &psv[..40 * 20_000]).unwrap();
    let compressed = data("codec/teacher.psv.zst");
    for (path, aligned) in [(&plain, false), (&plain, true), (&compressed, true)] {
        let opts = BatchOptions {
            records: 1000,
            align_games: aligned,
        };
        let size = std::fs::metadata(path).unwrap().len();
        let mut last = 0;
        for b in batches_of(path, Format::Psv, opts) {
            let b = b.unwrap();
            let end = b.offset + b.bytes.len() as u64;
            assert!(b.disk_end >= last && b.disk_end <= size);
            if path == &plain {
                let ahead = b.disk_end - end;
                assert!(ahead == 0 || aligned && ahead == 40, "{ahead} bytes ahead");
            }
            last = b.disk_end;
        }
        assert_eq!(last, size, "{}", path.display());
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// Game starts and aligned batches agree with the teacher game table.
#[test]
fn psv_batches_games_and_alignment() {
    let games = jsonl("codec/teacher.games.jsonl");
    let starts: std::collections::BTreeSet<u64> = games
        .iter()
        .map(|g| g["first_record"].as_u64().unwrap())
        .collect();
    let path = data("codec/teacher.psv.zst");
    for align in [false, true] {
        let opts = BatchOptions {
            records: 1000,
            align_games: align,
        };
        let mut next = 0u64;
        let mut found = Vec::new();
        for b in batches_of(&path, Format::Psv, opts) {
            let b = b.unwrap();
            assert_eq!(b.first_index, next);
            if align {
                assert!(
                    b.get(0).unwrap().new_game,
                    "aligned batch {} starts a game",
                    b.seq
                );
                // It ends at the first game start at or after the next multiple of the
                // batch size (or at the end of the file).
                let end = next + b.len() as u64;
                let multiple = (next / 1000 + 1) * 1000;
                assert!(
                    end == 97_609
                        || (end >= multiple
                            && starts.contains(&end)
                            && starts.range(multiple..end).next().is_none()),
                    "aligned batch {} ends at {end}",
                    b.seq
                );
            } else {
                assert!(b.len() == 1000 || next + b.len() as u64 == 97_609);
            }
            for r in b.iter() {
                assert_eq!(r.index, next);
                assert_eq!(r.offset, next * 40);
                if r.new_game {
                    found.push(r.index);
                }
                next += 1;
            }
        }
        assert_eq!(next, 97_609);
        assert_eq!(found, starts.iter().copied().collect::<Vec<_>>());
    }
}

#[test]
fn several_files_tail_and_global_indices() {
    let d = tmpdir("tail");
    let hcpe = teacher("codec/teacher.hcpe.zst");
    let a = d.join("a.hcpe");
    let b = d.join("b.hcpe");
    std::fs::write(&a, &hcpe[..38 * 100 + 5]).unwrap();
    std::fs::write(&b, &hcpe[..38 * 30]).unwrap();
    let listed = expand(&[d.join("*.hcpe").to_string_lossy().to_string()]).unwrap();
    assert_eq!(listed, vec![a.clone(), b.clone()]);
    // The same files again under other spellings are not read twice.
    let dir_name = d.file_name().unwrap();
    let again = expand(&[
        a.to_string_lossy().to_string(),
        d.join(".").join("a.hcpe").to_string_lossy().to_string(),
        d.join("..")
            .join(dir_name)
            .join("a.hcpe")
            .to_string_lossy()
            .to_string(),
        d.join("*.hcpe").to_string_lossy().to_string(),
    ])
    .unwrap();
    assert_eq!(again, vec![a.clone(), b.clone()]);
    assert!(matches!(
        expand(&[d.join("*.nothing").to_string_lossy().to_string()]),
        Err(InputError::NoMatch(_))
    ));
    let specs = listed
        .into_iter()
        .map(|path| InputSpec {
            path,
            format: Format::Hcpe,
        })
        .collect();
    let mut batches = Batches::new(
        specs,
        BatchOptions {
            records: 64,
            align_games: false,
        },
    );
    let mut all = Vec::new();
    let mut tails = Vec::new();
    for batch in batches.by_ref() {
        let batch = batch.unwrap();
        if let Some(t) = batch.tail() {
            tails.push(t);
        }
        for r in batch.iter() {
            let res = codec::decode(Format::Hcpe, r.bytes).map(|_| ());
            all.push((batch.path.to_path_buf(), r.index, r.offset, res));
        }
    }
    assert_eq!(batches.next_index(), 131);
    assert_eq!(all.len(), 131);
    assert_eq!(all[100].0, a);
    assert_eq!(all[100].2, 3800);
    assert_eq!(
        all[100].3,
        Err(CodecError::Length {
            format: Format::Hcpe,
            got: 5,
            need: 38
        })
    );
    assert!(all[..100].iter().chain(&all[101..]).all(|x| x.3.is_ok()));
    assert_eq!(
        (all[101].0.as_path(), all[101].1, all[101].2),
        (b.as_path(), 101, 0)
    );
    assert_eq!(tails.len(), 1);
    assert_eq!((tails[0].offset, tails[0].len), (3800, 5));
    std::fs::remove_dir_all(&d).unwrap();
}

/// The bytes a plain zstd decoder gets out of `compressed` before it fails.
fn decodable_prefix(compressed: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut dec = zstd::stream::read::Decoder::new(compressed).unwrap();
    assert!(dec.read_to_end(&mut out).is_err(), "the stream must break");
    out
}

#[test]
fn a_broken_zstd_stream_yields_its_whole_records_then_one_unreadable_record() {
    let d = tmpdir("broken");
    let psv = teacher("codec/teacher.psv.zst")[..40 * 10_000].to_vec();
    let text = std::fs::read_to_string(data("startpos.sfen")).unwrap();
    let good = d.join("z.psv");
    std::fs::write(&good, &psv[..40 * 30]).unwrap();
    for (format, plain, align) in [
        (Format::Psv, psv.as_slice(), false),
        (Format::Psv, psv.as_slice(), true),
        (Format::Sfen, text.as_bytes(), false),
    ] {
        let compressed = zstd::encode_all(plain, 1).unwrap();
        let cut = &compressed[..compressed.len() * 2 / 3];
        let readable = decodable_prefix(cut);
        // The whole records (binary) or whole lines (text) of what can be read.
        let whole = match format.record_size() {
            Some(size) => readable.len() - readable.len() % size,
            None => readable
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1),
        };
        let expected_records = match format.record_size() {
            Some(size) => whole / size,
            None => readable[..whole].iter().filter(|&&b| b == b'\n').count(),
        };
        assert!(whole > 0 && whole < plain.len(), "{format}: {whole}");
        let broken = d.join(format!("a.{format}.zst"));
        std::fs::write(&broken, cut).unwrap();
        let specs = vec![
            InputSpec {
                path: broken.clone(),
                format,
            },
            InputSpec {
                path: good.clone(),
                format: Format::Psv,
            },
        ];
        let opts = BatchOptions {
            records: 700,
            align_games: align,
        };
        let (mut read, mut records, mut unreadable) = (Vec::new(), 0u64, Vec::new());
        let mut after = Vec::new();
        for b in Batches::new(specs, opts) {
            let b = b.unwrap();
            if let Some(e) = b.unreadable() {
                let r = b.get(0).unwrap();
                assert_eq!(b.len(), 1);
                assert!(r.bytes.is_empty() && b.tail().is_none());
                unreadable.push((r.index, r.offset, e.to_string()));
                continue;
            }
            for r in b.iter() {
                if b.path.as_path() == good.as_path() {
                    after.push((r.index, r.offset));
                    continue;
                }
                assert_eq!(r.index, records);
                assert_eq!(r.offset, read.len() as u64);
                read.extend_from_slice(r.bytes);
                if format.is_text() {
                    read.push(b'\n');
                }
                records += 1;
            }
        }
        assert_eq!(read, &plain[..whole], "{format} align {align}");
        assert_eq!(records as usize, expected_records);
        assert_eq!(unreadable.len(), 1, "{format}");
        let (index, offset, why) = &unreadable[0];
        assert_eq!((*index, *offset), (records, whole as u64));
        assert!(
            why.contains("a.") && why.contains("truncated or corrupt"),
            "{why}"
        );
        assert_eq!(after.len(), 30);
        assert_eq!(after[0], (records + 1, 0));
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn text_batches_skip_blank_lines() {
    let d = tmpdir("text");
    let p = d.join("x.sfen");
    let lines = "sfen 4k4/9/9/9/9/9/9/9/4K4 b G 1\r\n\n  \n4k4/9/9/9/9/9/9/9/4K4 w G 1\nbad\n4k4/9/9/9/9/9/9/9/4K4 b - 1";
    std::fs::write(&p, lines).unwrap();
    let mut recs = Vec::new();
    for b in batches_of(
        &p,
        Format::Sfen,
        BatchOptions {
            records: 2,
            align_games: false,
        },
    ) {
        let b = b.unwrap();
        for r in b.iter() {
            recs.push((
                r.index,
                r.offset,
                String::from_utf8(r.bytes.to_vec()).unwrap(),
            ));
        }
    }
    let offs: Vec<u64> = recs.iter().map(|r| r.1).collect();
    assert_eq!(offs, vec![0, 38, 66, 70]);
    assert_eq!(recs[0].2, "sfen 4k4/9/9/9/9/9/9/9/4K4 b G 1");
    assert_eq!(recs[2].2, "bad");
    assert_eq!(
        recs.iter().map(|r| r.0).collect::<Vec<_>>(),
        vec![0, 1, 2, 3]
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// A line longer than MAX_LINE is one record of its first MAX_LINE bytes, last in its batch,
/// with its full length in `overlong`; the records around it keep their indices and offsets.
#[test]
fn overlong_text_lines_are_cut_and_flagged() {
    use posfilter::io::batch::MAX_LINE;
    let d = tmpdir("overlong");
    let p = d.join("x.sfen");
    let a = "4k4/9/9/9/9/9/9/9/4K4 b G 1";
    let long = "x".repeat(3 * MAX_LINE + 5);
    let tail = "y".repeat(MAX_LINE + 1);
    let text = format!("{a}\n{long}\n{a}\r\n\n{a}\n{tail}");
    std::fs::write(&p, &text).unwrap();
    let mut recs = Vec::new();
    for b in batches_of(&p, Format::Sfen, BatchOptions::default()) {
        let b = b.unwrap();
        let n = b.len();
        for (i, r) in b.iter().enumerate() {
            let flagged = if i + 1 == n { b.overlong } else { None };
            recs.push((r.index, r.offset, r.bytes.len(), flagged));
        }
    }
    let at_a2 = (a.len() + 1 + long.len() + 1) as u64;
    let at_a3 = at_a2 + (a.len() + 3) as u64;
    let at_tail = at_a3 + (a.len() + 1) as u64;
    assert_eq!(
        recs,
        vec![
            (0, 0, a.len(), None),
            (1, (a.len() + 1) as u64, MAX_LINE, Some(long.len() as u64)),
            (2, at_a2, a.len(), None),
            (3, at_a3, a.len(), None),
            (4, at_tail, MAX_LINE, Some(tail.len() as u64)),
        ]
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// Bitwise CRC-32 (IEEE, reflected), the textbook definition.
fn crc32_reference(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn shards_rotate_compress_and_checksum() {
    let d = tmpdir("shards");
    let psv = teacher("codec/teacher.psv.zst");
    let recs = &psv[..40 * 25_000];
    for level in [None, Some(5)] {
        let out = d.join(format!("kept-{level:?}"));
        let mut w = ShardWriter::new(
            &out,
            Format::Psv,
            OutputOptions {
                zstd_level: level,
                shard_records: 10_000,
                // The compressed series also carries an extension of its own.
                extension: level.map(|_| "bin".to_string()),
            },
        );
        for r in recs.chunks(40) {
            w.write_record(r).unwrap();
        }
        assert!(w.write_record(&recs[..39]).is_err());
        let shards = w.finish().unwrap();
        assert_eq!(
            shards.iter().map(|s| s.records).collect::<Vec<_>>(),
            vec![10_000, 10_000, 5_000]
        );
        let mut names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        names.sort();
        let z = if level.is_some() { "bin.zst" } else { "psv" };
        assert_eq!(
            names,
            (0..3)
                .map(|i| format!("part-0000{i}.{z}"))
                .collect::<Vec<_>>()
        );
        let mut joined = Vec::new();
        for s in &shards {
            let bytes = std::fs::read(&s.path).unwrap();
            assert_eq!(bytes.len() as u64, s.bytes);
            assert_eq!(s.crc32, format!("{:08x}", crc32_reference(&bytes)));
            joined.extend(match level {
                Some(_) => zstd::decode_all(&bytes[..]).unwrap(),
                None => bytes,
            });
        }
        assert_eq!(joined, recs);
    }
    // A single named file (the mates file), written even when empty; text gets newlines.
    let mut w = ShardWriter::single(&d.join("mates.sfen"), Format::Sfen, None);
    let pos = codec::decode(Format::Psv, &psv[..40]).unwrap().position;
    w.write_position(&pos, None).unwrap();
    w.write_record(b"4k4/9/9/9/9/9/9/9/4K4 b G 1").unwrap();
    let info = w.finish().unwrap();
    assert_eq!(info[0].records, 2);
    let text = std::fs::read_to_string(d.join("mates.sfen")).unwrap();
    assert_eq!(
        text,
        format!("{}\n4k4/9/9/9/9/9/9/9/4K4 b G 1\n", pos.to_sfen())
    );
    let info = ShardWriter::single(&d.join("none.psv"), Format::Psv, Some(3))
        .finish()
        .unwrap();
    assert_eq!(
        (info[0].records, info[0].path.clone()),
        (0, d.join("none.psv.zst"))
    );
    assert!(std::fs::read_dir(&d).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .ends_with(".tmp")));
    std::fs::remove_dir_all(&d).unwrap();
}

/// `posfilter inspect FILE ARGS` on `file`, which ends in part of a record: the report
/// still comes, then the command fails with status 2 naming the file and the offset.
fn run_inspect(args: &[&str], file: &Path) -> (String, String) {
    let out = std::process::Command::new(bin())
        .arg("inspect")
        .arg(file)
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let tail = err.lines().last().unwrap_or_default();
    let name = file.display().to_string();
    assert!(
        tail.starts_with(&format!("posfilter: error: {name}: ends in "))
            && tail.contains("offset 80000"),
        "{err}"
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn inspect_reports_counts_malformed_and_dumps() {
    let d = tmpdir("inspect");
    let mut psv = teacher("codec/teacher.psv.zst");
    psv.truncate(40 * 2000);
    psv[40 * 7] ^= 0xff; // corrupt record 7's header
    psv[40 * 9 + 34] = 40; // record 9: move field 1a5e, a move shape no piece can make
    psv[40 * 9 + 35] = 0x00;
    psv.extend_from_slice(&[1, 2, 3]);
    let p = d.join("t.bin");
    std::fs::write(&p, &psv).unwrap();
    let (stdout, _) = run_inspect(&["--json"], &p);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["format"], "psv");
    assert_eq!(v["records"], 2001);
    assert_eq!(v["malformed"], 2);
    assert_eq!(v["malformed_first"][0]["offset"], 280);
    assert_eq!(v["malformed_first"][1]["offset"], 80_000);
    assert_eq!(v["malformed_first"][1]["index"], 2000);
    assert_eq!(v["tail"]["bytes"], 3);
    let games = jsonl("codec/teacher.games.jsonl");
    let starts = games
        .iter()
        .filter(|g| g["first_record"].as_u64().unwrap() < 2000)
        .count();
    assert_eq!(v["games"], starts as u64);
    let ends = games
        .iter()
        .filter(|g| {
            let last = g["first_record"].as_u64().unwrap() + g["records"].as_u64().unwrap() - 1;
            last < 2000 && last != 7
        })
        .count() as u64;
    assert_eq!(v["moves"]["none"], ends);
    assert_eq!(v["moves"]["illegal"], 1);
    assert_eq!(v["moves"]["legal"], 1999 - ends - 1);
    let black = v["side_to_move"]["black"].as_u64().unwrap();
    assert_eq!(black + v["side_to_move"]["white"].as_u64().unwrap(), 1999);
    // An explicit format wins over detection, and says so.
    let (stdout, _) = run_inspect(&["--json", "--format", "psfen"], &p);
    let e: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(e["format"], "psfen");
    assert!(e["detection"][0].as_str().unwrap().contains("explicitly"));
    assert_eq!(e["records"], (80_003u64).div_ceil(32));
    let (dump, err) = run_inspect(&["--dump"], &p);
    let lines: Vec<&str> = dump.lines().collect();
    assert_eq!(lines.len(), 1999);
    assert!(err.contains("record 7 at offset 280"));
    let first: Vec<&str> = lines[0].split('\t').collect();
    assert_eq!(first.len(), 5);
    assert_eq!(
        first[0],
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
    );
    assert_eq!(first[3], "1");
    // Several files: one report each, in the order given.
    let hcpe = data("codec/teacher.hcpe.zst");
    let (stdout, _) = run_inspect(&["--json", hcpe.to_str().unwrap()], &p);
    let reports: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reports.len(), 2);
    assert_eq!(
        (&reports[0]["format"], &reports[0]["records"]),
        (&v["format"], &v["records"])
    );
    assert_eq!(
        (&reports[1]["format"], &reports[1]["records"]),
        (&"hcpe".into(), &97_609.into())
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// A reader that stops early (`posfilter inspect --dump FILE | head`) ends the dump
/// quietly: exit status 0 and nothing on stderr, not a "Broken pipe" error. The dump of
/// the bundled teacher file is far larger than a pipe's buffer, so the write that finds
/// the pipe closed is certain to happen.
#[test]
fn a_dump_into_a_closed_pipe_stops_quietly() {
    let teacher = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/teacher.psv");
    let mut child = std::process::Command::new(bin())
        .arg("inspect")
        .arg(&teacher)
        .arg("--dump")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 100];
    stdout.read_exact(&mut first).unwrap();
    assert!(
        first.starts_with(b"lnsgkgsnl/"),
        "{}",
        String::from_utf8_lossy(&first)
    );
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

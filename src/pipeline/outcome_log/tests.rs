//! Round trips of the outcome log: synthetic records that exercise every entry shape, the
//! real worker's batches (PackedSfen, psv with the mate filter, hcpe3 games), and damaged
//! logs refused with the file named.

use super::records::{get_records, put_records, record, Bytes, REPLAYED_KEY};
use super::*;
use crate::filter::{Decision, DropReason, RejectReason};
use crate::io::batch::{BatchOptions, Batches, InputSpec};
use crate::pipeline::config::{Config, Overrides, RawConfig};
use crate::pipeline::settings::Settings;
use crate::pipeline::worker::{MateOut, RecordExtra, RecordOutcome, Worker};
use crate::shogi::Fingerprint;
use serde_json::json;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("posfilter-outlog-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `r` as the log gives it back: its key replaced, an empty output range where the bytes
/// before it end (`out_end`), in a form that compares every field.
fn as_replayed(r: &RecordOutcome, out_end: &mut usize) -> String {
    let mut r = r.clone();
    r.dedup_key = r.dedup_key.map(|_| REPLAYED_KEY);
    match r.out.is_empty() {
        true => r.out = *out_end..*out_end,
        false => *out_end = r.out.end,
    }
    format!("{r:?}")
}

fn replayed_all(records: &[RecordOutcome]) -> Vec<String> {
    let mut end = 0;
    records.iter().map(|r| as_replayed(r, &mut end)).collect()
}

/// Asserts that `back` is `records` as the log gives them back, naming the first record
/// that differs.
fn assert_replayed(back: &[RecordOutcome], records: &[RecordOutcome]) {
    assert_eq!(back.len(), records.len());
    for (b, r) in replayed_all(back).iter().zip(replayed_all(records)) {
        assert_eq!(*b, r);
    }
}

fn extra(r: &mut RecordOutcome) -> &mut RecordExtra {
    r.extra.get_or_insert_with(Default::default)
}

fn kept(index: u64, offset: u64, out: std::ops::Range<usize>) -> RecordOutcome {
    let mut r = record(index, 0, offset);
    r.out = out;
    r.dedup_key = Some(Fingerprint(
        0x1234_5678_9abc_def0_u128 << 40 | index as u128,
    ));
    r
}

/// Every entry shape: runs of 32-byte records broken by drops, rejects, a mate, a searched
/// keep, varying lengths, a record of another file, bytes out of order, no key.
fn mixed_records() -> (Vec<RecordOutcome>, usize) {
    let mut v = Vec::new();
    let mut out = 0;
    let mut push = |v: &mut Vec<RecordOutcome>, mut r: RecordOutcome, len: usize| {
        r.index = 500 + v.len() as u64;
        r.offset = 7 + 32 * v.len() as u64;
        if len > 0 {
            r.out = out..out + len;
            out += len;
        }
        v.push(r);
    };
    for i in 0..40u64 {
        let r = kept(0, 0, 0..0);
        match i % 13 {
            3 => {
                let mut d = record(0, 0, 0);
                d.decision = Decision::Drop(DropReason::Declaration);
                extra(&mut d).detail = json!({"points": 28, "i": i});
                push(&mut v, d, 0);
            }
            5 => {
                let mut d = record(0, 0, 0);
                (d.searched, d.nodes, d.micros) = (true, 4321, 77);
                d.decision = Decision::Drop(DropReason::Mate);
                extra(&mut d).plies_exact = Some(true);
                extra(&mut d).mate = Some(MateOut {
                    sfen: "9/9/9/9/9/9/9/9/9 b - 1".into(),
                    kind: "mate",
                    plies: 3,
                    plies_exact: true,
                    pv: vec!["G*5b".into(), "5a4a".into(), "5b4b".into()],
                    nodes: 4321,
                    binary: vec![1, 2, 3],
                    game_result: Some(-1),
                });
                push(&mut v, d, 0);
            }
            7 => {
                let mut d = record(0, 0, 0);
                // A reject comes back as the kind and message it was logged with.
                let (kind, text) = ("malformed".into(), format!("does not decode: bad {i}"));
                d.decision = Decision::Reject(RejectReason::Recorded { kind, text });
                let e = extra(&mut d);
                (e.raw_hex, e.raw_text, e.raw_len) =
                    (Some("78797a0a".into()), Some("xyz".into()), 4);
                push(&mut v, d, 0);
            }
            9 => {
                let mut k = r;
                (k.searched, k.unknown, k.nodes, k.micros) = (true, true, 100_000, 900);
                extra(&mut k).detail = json!({"nodes": 100_000});
                push(&mut v, k, 32);
            }
            11 => push(&mut v, r, 17 + i as usize), // another length
            12 => {
                let mut k = r;
                k.dedup_key = None;
                push(&mut v, k, 32);
            }
            _ => push(&mut v, r, 32),
        }
    }
    // Another file, bytes that do not follow, an empty kept record, a second run.
    v[20].file = 3;
    v[30].out = 0..32;
    v[31].out = 0..0;
    (v, out)
}

#[test]
fn every_entry_shape_round_trips() {
    let (records, out_len) = mixed_records();
    let mut buf = Vec::new();
    put_records(&mut buf, &records, 500, 0).unwrap();
    let mut back = Vec::new();
    let mut bytes = Bytes::new(&buf);
    get_records(&mut bytes, records.len(), (500, 0, out_len), &mut back).unwrap();
    assert!(bytes.is_empty());
    assert_replayed(&back, &records);
    // Not consecutive: refused when written.
    let err = put_records(&mut Vec::new(), &records, 499, 0).unwrap_err();
    assert!(
        err.contains("record 500 given where record 499 was due"),
        "{err}"
    );
    // Cut anywhere: refused, never a panic or a record too many.
    for cut in 0..buf.len() {
        let mut short = Vec::new();
        let got = get_records(
            &mut Bytes::new(&buf[..cut]),
            records.len(),
            (500, 0, out_len),
            &mut short,
        );
        assert!(got.is_err(), "cut at {cut}");
    }
}

#[test]
fn a_run_of_plain_kept_records_is_one_entry() {
    let records: Vec<_> = (0..8192u64)
        .map(|i| {
            kept(
                1000 + i,
                64 + 32 * i,
                32 * i as usize..32 * (i + 1) as usize,
            )
        })
        .collect();
    let mut buf = Vec::new();
    put_records(&mut buf, &records, 1000, 0).unwrap();
    assert!(buf.len() < 16, "{} bytes", buf.len());
    let mut back = Vec::new();
    get_records(&mut Bytes::new(&buf), 8192, (1000, 0, 32 * 8192), &mut back).unwrap();
    assert_replayed(&back, &records);
}

/// Logs the worker's outcomes of every batch of `spec` under `config`, reads the log back
/// and compares every batch.
fn worker_round_trip(name: &str, config: &str, spec: InputSpec, batch_records: usize) {
    let dir = temp(name);
    let cfg_path = dir.join("pipeline.toml");
    let raw = RawConfig::parse(config, &cfg_path).unwrap();
    let settings =
        Settings::from_config(&Config::resolve(raw, &cfg_path, &Overrides::default()).unwrap());
    let mut worker = Worker::new(&settings);
    let opts = BatchOptions {
        records: batch_records,
        align_games: true,
    };
    let log = dir.join(OUTCOME_LOG);
    let mut writer = OutcomeLogWriter::create(&log).unwrap();
    let mut written = Vec::new();
    for batch in Batches::new(vec![spec], opts) {
        let batch = batch.unwrap();
        let outcome = worker.process(&batch, &settings, &|_| {}, BatchOutcome::default());
        writer.append(&batch, &outcome).unwrap();
        written.push((batch.next, outcome));
    }
    writer.finish().unwrap();
    let mut reader = OutcomeLogReader::open(&log).unwrap();
    for (next, outcome) in &written {
        let b = reader.next_batch().unwrap().unwrap();
        assert_eq!(b.next, *next);
        assert_eq!(
            replayed_all(&b.outcome.records),
            replayed_all(&outcome.records)
        );
        assert_eq!(b.outcome.out, outcome.out);
        assert_eq!(b.outcome.hcpe_games, outcome.hcpe_games);
        assert_eq!(
            format!("{:?}", b.outcome.games),
            format!("{:?}", outcome.games)
        );
    }
    assert!(reader.next_batch().unwrap().is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_workers_batches_round_trip() {
    let off = "[input]\npaths = [\"x\"]\n[filter.mate]\nenabled = false\n";
    let on = "[input]\npaths = [\"x\"]\n[filter.mate]\nnodes = 3000\n[workers]\ntable_mb = 4\n";
    let psfen = InputSpec {
        path: root().join("data/startpos.psfen"),
        format: Format::Psfen,
    };
    worker_round_trip("psfen", off, psfen, 1000);
    let psv = InputSpec {
        path: root().join("data/teacher.psv"),
        format: Format::Psv,
    };
    worker_round_trip("psv", on, psv, 256);
    let games = root().join("tests/data/games/teacher.hcpe3.zst");
    let hcpe3 = InputSpec {
        path: games,
        format: Format::Hcpe3,
    };
    worker_round_trip("hcpe3", off, hcpe3, 300);
}

/// The error of opening `log` and reading it to its end.
fn read_error(log: &Path) -> String {
    let mut r = match OutcomeLogReader::open(log) {
        Ok(r) => r,
        Err(e) => return e.to_string(),
    };
    loop {
        match r.next_batch() {
            Ok(Some(_)) => {}
            Ok(None) => return String::new(),
            Err(e) => return e.to_string(),
        }
    }
}

#[test]
fn damaged_logs_are_refused_naming_the_file() {
    let dir = temp("damaged");
    let spec = InputSpec {
        path: root().join("data/startpos.psfen"),
        format: Format::Psfen,
    };
    let log = dir.join(OUTCOME_LOG);
    let mut writer = OutcomeLogWriter::create(&log).unwrap();
    for batch in Batches::new(
        vec![spec],
        BatchOptions {
            records: 700,
            align_games: true,
        },
    ) {
        let batch = batch.unwrap();
        let records = (0..batch.len() as u64)
            .map(|i| kept(batch.first_index + i, 32 * i, 0..0))
            .collect();
        let outcome = BatchOutcome {
            records,
            ..Default::default()
        };
        writer.append(&batch, &outcome).unwrap();
    }
    writer.finish().unwrap();
    let good = std::fs::read(&log).unwrap();
    assert_eq!(read_error(&log), "");
    let name = log.display().to_string();
    let mut cases = vec![
        (good[..good.len() - 1].to_vec(), "ends early"),
        (good[..good.len() / 2].to_vec(), "ends early"),
        (
            [b"PFOUTC02".as_slice(), &good[8..]].concat(),
            "an outcome log of an earlier posfilter",
        ),
        (
            [b"PFKEYRUN".as_slice(), &good[8..]].concat(),
            "not a posfilter outcome log",
        ),
    ];
    let mut flipped = good.clone();
    flipped[good.len() / 3] ^= 0x10;
    cases.push((flipped, "fails its CRC-32"));
    for (bytes, why) in cases {
        std::fs::write(&log, bytes).unwrap();
        let err = read_error(&log);
        assert!(err.contains(&name) && err.contains(why), "{why}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rejects_keep_their_kind_and_message() {
    let mut r = kept(0, 0, 0..0);
    r.decision = Decision::Reject(RejectReason::Recorded {
        kind: "game_fault".into(),
        text: "t".into(),
    });
    r.extra = Some(Box::new(RecordExtra::default()));
    let mut buf = Vec::new();
    put_records(&mut buf, std::slice::from_ref(&r), 0, 0).unwrap();
    let mut back = Vec::new();
    get_records(&mut Bytes::new(&buf), 1, (0, 0, 0), &mut back).unwrap();
    assert_replayed(&back, &[r]);
}

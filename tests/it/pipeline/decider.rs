//! `pipeline::Decider` (records in memory, what the Python binding's `decide` uses) against
//! `posfilter run` on the same records: psv games and hcpe chains of best moves cut into
//! batches as the run cuts them, the same decisions for one and two threads, and a stop that
//! ends a call soon.

use super::{config, decisions, run_ok};
use crate::support::{data, TempDir};
use posfilter::codec::{self, Format};
use posfilter::pipeline::config::RawConfig;
use posfilter::pipeline::{Decider, PipelineError};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// index -> decision of the records a decider did not keep.
fn not_kept(decider: &mut Decider, format: Format, records: &[&[u8]]) -> BTreeMap<u64, String> {
    let got = decider.decide(format, records);
    assert_eq!(got.len(), records.len());
    assert!(got.iter().enumerate().all(|(i, r)| r.index() == i as u64));
    got.iter()
        .filter(|r| !r.decision().is_keep())
        .map(|r| (r.index(), r.decision().name().to_string()))
        .collect()
}

/// Runs `posfilter run` on `input` with `extra` config, then a [`Decider`] over the same
/// records (`size` bytes each) with 1 and 2 threads, and checks both drop and reject the
/// same records for the same reasons; the run's (index -> decision).
fn decider_agrees_with_run(
    dir: &TempDir,
    input: &Path,
    format: Format,
    extra: &str,
) -> BTreeMap<u64, String> {
    let bytes = std::fs::read(input).unwrap();
    let cfg = config(dir, &[input], extra);
    let out = dir.join("out");
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let from_run = decisions(&out);
    let size = format.record_size().unwrap();
    let records: Vec<&[u8]> = bytes.chunks(size).collect();
    for threads in [1, 2] {
        let mut raw = RawConfig::load(Path::new(&cfg)).unwrap();
        raw.workers.threads = threads;
        let mut decider = Decider::new(&raw).unwrap();
        let got = not_kept(&mut decider, format, &records);
        if got != from_run {
            let diff: Vec<_> = (got.keys().chain(from_run.keys()))
                .filter(|i| got.get(i) != from_run.get(i))
                .take(10)
                .map(|i| (i, got.get(i), from_run.get(i)))
                .collect();
            panic!("{threads} threads: decider vs run differ at (index, decider, run) {diff:?}");
        }
    }
    from_run
}

#[test]
fn a_decider_decides_psv_games_as_a_run_does_for_any_thread_count() {
    let file = std::fs::File::open(data("codec/teacher.psv.zst")).unwrap();
    let mut bytes = zstd::decode_all(file).unwrap();
    bytes.truncate(12_000 * 40);
    // Two records spoilt inside games, one with gamePly 0 (a game start to the batch cutter,
    // while the decoded game goes on around it).
    bytes[4_321 * 40..4_321 * 40 + 32].fill(0xff);
    bytes[7_777 * 40..7_778 * 40].fill(0);
    // A table per batch too: the solver then starts each batch afresh, so a batch cut
    // elsewhere than the run's would change verdicts near the budget.
    for scope in ["position", "batch"] {
        let dir = TempDir::new(&format!("decider-psv-{scope}"));
        let input = dir.join("in.psv");
        std::fs::write(&input, &bytes).unwrap();
        let extra = format!(
            "[workers]\nbatch_records = 300\n[filter.mate]\nnodes = 2000\ntable_scope = \"{scope}\"\ncache_mb = 0\n"
        );
        let from_run = decider_agrees_with_run(&dir, &input, Format::Psv, &extra);
        for name in ["rejected", "duplicate", "mate", "repetition"] {
            assert!(from_run.values().any(|d| d == name), "no {name} in the run");
        }
    }
}

#[test]
fn a_decider_cuts_hcpe_where_the_chain_of_best_moves_breaks_as_a_run_does() {
    // The whole teacher hcpe (97,609 records of real games). Its games run across the
    // 256-record batch size; a batch cut there loses the history before it, and the
    // decider then kept records the run drops as repetitions (43520, 51456, 54017, ...).
    let dir = TempDir::new("decider-hcpe");
    let file = std::fs::File::open(data("codec/teacher.hcpe.zst")).unwrap();
    let input = dir.join("in.hcpe");
    std::fs::write(&input, zstd::decode_all(file).unwrap()).unwrap();
    let extra = "[workers]\nbatch_records = 256\n[filter.mate]\nenabled = false\n";
    let from_run = decider_agrees_with_run(&dir, &input, Format::Hcpe, extra);
    for i in [43520, 51456, 54017, 54019, 54021, 68608, 68610] {
        assert_eq!(
            from_run.get(&i).map(String::as_str),
            Some("repetition"),
            "record {i}"
        );
    }
}

#[test]
fn a_stopped_decider_ends_its_call_within_a_second() {
    // cshogi leaves it unknown at 100,000 nodes, and we after 3,000,000.
    let sfen = "+S4+P2l/7g1/1P4g1P/p2P1l2p/1KS1P1kp1/P2G3r1/5+p+p2/2p6/LN7 b 2BG2S3NLPr5p 201";
    let pos = codec::text::parse_position(sfen).unwrap();
    let mut bytes = Vec::new();
    codec::encode(Format::Psfen, &pos, None, &mut bytes).unwrap();
    let records = vec![&bytes[..]; 4];
    let text = "[workers]\nthreads = 2\ntable_mb = 4\n\
                [filter.mate]\nnodes = 1000000000\ncache_mb = 0\ntime_ms = 0\n";
    let raw = RawConfig::parse(text, Path::new("decider.toml")).unwrap();
    let mut decider = Decider::new(&raw).unwrap();
    let stop = decider.stop_flag();
    let mut seen = 0;
    let (result, took) = std::thread::scope(|s| {
        let call = s.spawn(|| decider.decide_each(Format::Psfen, &records, |_| seen += 1));
        std::thread::sleep(Duration::from_millis(500));
        assert!(!call.is_finished());
        let stopped = Instant::now();
        stop.store(true, Ordering::SeqCst);
        (call.join().unwrap(), stopped.elapsed())
    });
    assert!(
        matches!(result, Err(PipelineError::Interrupted)),
        "{result:?}"
    );
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert_eq!(seen, 0);
}

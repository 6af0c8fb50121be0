//! The dedup of a job split over many tasks, at scale: `N` shards write the keys of
//! `KEYS` kept records (a quarter of them repeats of earlier positions) into `M` bucket
//! logs and sort them into runs (what a shard task does at its end), then each bucket is
//! reduced (`posfilter merge --dedup-partition J/M`). Prints the shards' keys/s, the
//! reduce's keys/s and each stage's peak RSS; every stage runs in a fresh process so that
//! the peak is its own.
//!
//! `cargo bench --bench dedup_reduce` (40 M keys, 4 shards, M = 1 and 4);
//! `DEDUP_REDUCE_KEYS`, `DEDUP_REDUCE_SHARDS`, `DEDUP_REDUCE_BUCKETS=1,4` pick others. Needs
//! 24 bytes a key of disk under target/.

use posfilter::cluster::manifest::{JobIdentity, ShardManifest, SHARD_MANIFEST};
use posfilter::cluster::reduce::reduce_bucket;
use posfilter::io::key_run::{KeyEntry, KeyRunWriter};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn peak_rss_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |kib| kib / 1024)
}

fn env(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.into())
}

/// The key of record `i`: every fourth record repeats the position of a record a little
/// earlier (often in an earlier shard), the others are distinct.
fn key(i: u64) -> u128 {
    let source = if i % 4 == 3 {
        i - 1 - (i * 7919) % i.min(5_000_000)
    } else {
        i
    };
    let a = (source ^ 0x9e37_79b9_7f4a_7c15).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let b = (a ^ (a >> 31)).wrapping_mul(0x94d0_49bb_1331_11eb);
    // As `filter::first_seen::identity` leaves it: the high half's bits 0..32 clear.
    ((b >> 32) as u128) << 96 | (a ^ (b >> 29)) as u128
}

/// One shard task's key work: append its keys, then sort them into runs.
fn shard(dir: &Path, i: usize, n: usize, keys: u64, m: u32) {
    let (from, to) = (keys * i as u64 / n as u64, keys * (i + 1) as u64 / n as u64);
    let start = Instant::now();
    let mut w = KeyRunWriter::create(&dir.join("keys"), m).unwrap();
    for index in from..to {
        w.append(KeyEntry {
            key: key(index),
            index,
        })
        .unwrap();
    }
    let runs = w.finish().unwrap();
    let secs = start.elapsed().as_secs_f64();
    let manifest = ShardManifest {
        shard: i,
        shards: n,
        job: JobIdentity {
            version: "bench".into(),
            config: serde_json::Value::Null,
            inputs: Vec::new(),
            plan: Vec::new(),
            file_records: Vec::new(),
            buckets: m,
        },
        runs,
        config_file: String::new(),
        working_dir: String::new(),
        records: to - from,
        resumed_from: None,
    };
    std::fs::write(
        dir.join(SHARD_MANIFEST),
        serde_json::to_vec(&manifest).unwrap(),
    )
    .unwrap();
    println!(
        "  shard {i}/{n}: {} keys in {secs:.2} s ({:.2} M keys/s), peak RSS {} MiB",
        to - from,
        (to - from) as f64 / secs / 1e6,
        peak_rss_mib()
    );
}

fn reduce(dirs: &[PathBuf], j: u32, m: u32, out: &Path) {
    let shards = posfilter::cluster::manifest::load_shard_set(dirs).unwrap();
    let start = Instant::now();
    let c = reduce_bucket(&shards, j, m, out).unwrap();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "  reduce {j}/{m}: {} keys, {} duplicates in {secs:.2} s ({:.2} M keys/s), peak RSS {} MiB",
        c.entries,
        c.duplicates,
        c.entries as f64 / secs / 1e6,
        peak_rss_mib()
    );
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-dedup-reduce");
    let keys: u64 = env("DEDUP_REDUCE_KEYS", "40000000").parse().unwrap();
    let n: usize = env("DEDUP_REDUCE_SHARDS", "4").parse().unwrap();
    let dirs: Vec<PathBuf> = (0..n).map(|i| root.join(format!("shard-{i}"))).collect();
    if let Ok(stage) = std::env::var("DEDUP_REDUCE_STAGE") {
        let m: u32 = env("DEDUP_REDUCE_M", "1").parse().unwrap();
        let i: usize = env("DEDUP_REDUCE_I", "0").parse().unwrap();
        match stage.as_str() {
            "shard" => shard(&dirs[i], i, n, keys, m),
            _ => reduce(&dirs, i as u32, m, &root.join("dups")),
        }
        return;
    }
    let me = std::env::current_exe().unwrap();
    let stage = |stage: &str, i: usize, m: u32| {
        let status = std::process::Command::new(&me)
            .env("DEDUP_REDUCE_STAGE", stage)
            .env("DEDUP_REDUCE_I", i.to_string())
            .env("DEDUP_REDUCE_M", m.to_string())
            .status()
            .unwrap();
        assert!(status.success());
    };
    for m in env("DEDUP_REDUCE_BUCKETS", "1,4")
        .split(',')
        .filter_map(|s| s.trim().parse::<u32>().ok())
    {
        let _ = std::fs::remove_dir_all(&root);
        println!("{keys} keys, {n} shards, {m} bucket(s)");
        for i in 0..n {
            stage("shard", i, m);
        }
        for j in 0..m {
            stage("reduce", j as usize, m);
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}

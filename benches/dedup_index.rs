//! The pipeline's dedup index ([`posfilter::filter::FirstSeen`]) at scale: inserts `N`
//! distinct pseudo-random 128-bit keys in the commit's pattern (64 keys warmed, then
//! decided in order) into an index reserved for 4 M keys, as a run reserves it, so larger
//! `N` pays every growth. Prints ns per key, the longest stop of one 64-key chunk (a growth
//! happens inside one) and the process's peak RSS.
//!
//! `cargo bench --bench dedup_index` (N = 4 M and 40 M); `DEDUP_BENCH_KEYS=4000000,100000000`
//! picks other sizes. Each size runs in a fresh process so that the peak RSS is its own.

use posfilter::filter::FirstSeen;
use posfilter::shogi::Fingerprint;
use std::time::{Duration, Instant};

/// Keys a run reserves room for up front (`pipeline::DEDUP_RESERVE_MAX`).
const RESERVED: usize = 1 << 22;

fn peak_rss_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

fn run(n: usize) {
    let mut index = FirstSeen::with_capacity(RESERVED);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut keys = Vec::with_capacity(64);
    let mut worst = Duration::ZERO;
    let start = Instant::now();
    for chunk in 0..n / 64 {
        let t = Instant::now();
        keys.clear();
        for _ in 0..64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key =
                Fingerprint((x as u128) << 64 | x.wrapping_mul(0x9e37_79b9_7f4a_7c15) as u128);
            index.warm(key);
            keys.push(key);
        }
        for (i, &key) in keys.iter().enumerate() {
            let first = index.first_or_insert(key, (chunk * 64 + i) as u64);
            assert!(
                first.is_none(),
                "xorshift64 repeats no state within 2^64 draws"
            );
        }
        worst = worst.max(t.elapsed());
    }
    let secs = start.elapsed().as_secs_f64();
    let rss = peak_rss_mib().map_or("?".to_string(), |m| format!("{m} MiB"));
    println!(
        "{n:>11} keys: {secs:6.2} s  {:6.1} ns/key  longest chunk {:8.2} ms  peak RSS {rss}",
        secs * 1e9 / n as f64,
        worst.as_secs_f64() * 1e3,
    );
}

fn main() {
    if let Some(n) = std::env::var("DEDUP_BENCH_ONE")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        run(n);
        return;
    }
    let sizes = std::env::var("DEDUP_BENCH_KEYS").unwrap_or_else(|_| "4000000,40000000".into());
    let me = std::env::current_exe().expect("bench executable");
    for n in sizes
        .split(',')
        .filter_map(|s| s.trim().parse::<usize>().ok())
    {
        let status = std::process::Command::new(&me)
            .env("DEDUP_BENCH_ONE", n.to_string())
            .status()
            .expect("re-run the bench for one size");
        assert!(status.success());
    }
}

//! What the mate benches (`mate.rs`, `mate_frontier.rs`) share: the positions they run on.
//!
//! The set is `MATE_BENCH_FILE` (one SFEN per line); else, with `MATE_BENCH_FRESH=SEED` or
//! `SEED,COUNT` (default count 2,000), a fresh playout set made by
//! `benches/fresh_positions.py SEED COUNT` (cshogi's move generator, Python's seeded
//! `random`: the same seed gives the same file) into the bench's temporary directory;
//! else the 2,000 positions of benches/data/dfpn_bench.sfen.

use posfilter::codec::text::parse_sfen_line;
use posfilter::shogi::Position;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// A file under benches/data.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("benches/data")
        .join(name)
}

/// The position file (see the module doc); a fresh set is generated once per process.
pub fn position_file() -> PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        if let Some(f) = std::env::var_os("MATE_BENCH_FILE") {
            return PathBuf::from(f);
        }
        match std::env::var("MATE_BENCH_FRESH") {
            Ok(spec) => fresh_set(&spec),
            Err(_) => data("dfpn_bench.sfen"),
        }
    })
    .clone()
}

/// Writes the fresh playout set `SEED[,COUNT]` (unless already there) and returns its path.
fn fresh_set(spec: &str) -> PathBuf {
    let mut parts = spec.split(',').map(str::trim);
    let seed: u64 = parts
        .next()
        .and_then(|s| s.parse().ok())
        .expect("MATE_BENCH_FRESH=SEED[,COUNT]");
    let count: u64 = parts
        .next()
        .map_or(2_000, |c| c.parse().expect("MATE_BENCH_FRESH=SEED[,COUNT]"));
    let path =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("fresh-{seed}-{count}.sfen"));
    if !path.exists() {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/fresh_positions.py");
        let out = Command::new("python3")
            .arg(script)
            .arg(seed.to_string())
            .arg(count.to_string())
            .output()
            .expect("python3 for benches/fresh_positions.py");
        assert!(
            out.status.success(),
            "fresh_positions.py failed (pip install cshogi==1.1.0): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(&path, &out.stdout).expect("write the fresh set");
    }
    path
}

/// The positions of the bench file; a line that is no valid position stops the bench
/// with its line number (every solver of a bench must see the same set).
pub fn positions() -> Vec<Position> {
    let path = position_file();
    let text = std::fs::read_to_string(&path).expect("bench positions");
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            parse_sfen_line(l).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

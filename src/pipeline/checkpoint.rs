//! Checkpoints of a run, so that a run that was stopped (killed, out of power, out of
//! time) goes on with `posfilter run … --resume` instead of starting over.
//!
//! A checkpoint is taken after the commit of the first batch that ends at or past each
//! multiple of `output.checkpoint_records` input records. Batches are cut the same way for
//! any thread count, so checkpoints fall at the same records in every run of the same input
//! and config, and the output of a resumed run is byte-identical to that of a run that was
//! never stopped (compressed files end a zstd frame at each checkpoint, whether or not the
//! run is ever resumed).
//!
//! # Files (in the output directory, removed when the run completes)
//! - `resume.json`: the [`Checkpoint`], written under a temporary name and renamed, after
//!   every output file has been flushed up to the state it records (not synced: a machine
//!   crash that loses bytes the checkpoint covers makes the resume refuse, see below).
//! - `resume.dedup`: with dedup on, one 24-byte entry per key the run added to the dedup
//!   index (fingerprint, then the first record's index, little-endian), in commit order;
//!   the index is rebuilt from it (after the reference pools) on resume.
//!
//! # Invariants
//! - Every output file's first `bytes` bytes at the checkpoint have the recorded CRC-32; a
//!   resume checks that, cuts off what was written after the checkpoint, and refuses with
//!   the file's name if a file is shorter or different.
//! - A resume refuses unless the configuration (the worker count aside) and every input
//!   file (path, size, modification time) are those of the checkpointed run.

use super::commit::{Commit, CommitMark, DedupIndex};
use super::config::Config;
use crate::io::batch::ResumePoint;
use crate::io::output::{Counted, FileMark};
use crate::shogi::Fingerprint;
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The checkpoint's file name in the output directory.
pub const CHECKPOINT_FILE: &str = "resume.json";
/// The dedup log's file name in the output directory.
pub const DEDUP_LOG_FILE: &str = "resume.dedup";
/// Bytes per dedup log entry: a 128-bit fingerprint and a 64-bit index.
const DEDUP_ENTRY: usize = 24;

/// Everything a resumed run needs to go on where a checkpoint was taken.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The posfilter version that wrote it.
    pub version: String,
    /// The run's configuration as JSON, `workers.threads` set to 0 (a resume may use
    /// another worker count: the output does not depend on it).
    pub config: serde_json::Value,
    /// The input files as they were.
    pub inputs: Vec<InputStamp>,
    /// Where the reader goes on.
    pub next: ResumePoint,
    /// Seconds the run had taken up to the checkpoint (over all its resumed parts).
    pub seconds: f64,
    /// Files of a previous run the first part removed (for the summary).
    pub replaced_files: usize,
    /// The input index at which each earlier part of the run was resumed.
    pub resumed_from: Vec<u64>,
    /// The commit's counts and its files' states.
    pub commit: CommitMark,
}

/// An input file as a checkpoint saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputStamp {
    /// The path.
    pub path: PathBuf,
    /// Size in bytes.
    pub bytes: u64,
    /// Modification time, nanoseconds since the Unix epoch (0 if the system has none).
    pub modified_ns: u128,
}

impl InputStamp {
    /// The stamp of `path` now.
    pub fn of(path: &Path) -> io::Result<InputStamp> {
        let meta = std::fs::metadata(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let modified_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        Ok(InputStamp {
            path: path.to_path_buf(),
            bytes: meta.len(),
            modified_ns,
        })
    }
}

/// The configuration as a checkpoint records it (see [`Checkpoint::config`]).
pub fn config_value(config: &Config) -> serde_json::Value {
    let mut raw = config.raw.clone();
    raw.workers.threads = 0;
    serde_json::to_value(&raw).unwrap_or_default()
}

impl Checkpoint {
    /// Reads `dir/resume.json`; `Ok(None)` if there is none.
    pub fn load(dir: &Path) -> io::Result<Option<Checkpoint>> {
        let path = dir.join(CHECKPOINT_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
        };
        serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: not a checkpoint posfilter can read: {e}",
                    path.display()
                ),
            )
        })
    }

    /// Why this checkpoint cannot be resumed with `config` reading `inputs`, if it cannot.
    pub fn mismatch(&self, config: &Config, inputs: &[PathBuf]) -> Option<String> {
        if self.version != env!("CARGO_PKG_VERSION") {
            return Some(format!(
                "it was written by posfilter {}, this is {}",
                self.version,
                env!("CARGO_PKG_VERSION")
            ));
        }
        let now = config_value(config);
        if now != self.config {
            let what = differing_keys(&self.config, &now, "");
            return Some(format!(
                "the configuration changed since ({})",
                what.join(", ")
            ));
        }
        if inputs.len() != self.inputs.len() {
            return Some(format!(
                "the inputs are {} files now, {} then",
                inputs.len(),
                self.inputs.len()
            ));
        }
        for (path, then) in inputs.iter().zip(&self.inputs) {
            match InputStamp::of(path) {
                Err(e) => return Some(e.to_string()),
                Ok(now) if now != *then => {
                    return Some(format!(
                        "{} changed since (size or modification time), or is another file",
                        path.display()
                    ))
                }
                Ok(_) => {}
            }
        }
        None
    }
}

/// The input index the last checkpoint of this process's run stands at (from which
/// `--resume` would go on), `u64::MAX` for none: for a message when the run is interrupted.
static LAST_CHECKPOINT: AtomicU64 = AtomicU64::new(u64::MAX);

/// Where `run --resume` would go on if this process stopped now: the input index of the
/// last checkpoint its run took (or resumed from), if any. Process-wide: the command line
/// runs one pipeline per process.
pub fn last_checkpoint() -> Option<u64> {
    match LAST_CHECKPOINT.load(Ordering::Relaxed) {
        u64::MAX => None,
        at => Some(at),
    }
}

/// Test hook: with this environment variable set to `k`, the process exits (status 75,
/// nothing flushed, as if killed) right after writing its `k`-th checkpoint.
pub const STOP_AFTER_CHECKPOINTS: &str = "POSFILTER_STOP_AFTER_CHECKPOINTS";

/// When a run takes its checkpoints, and what each records besides the commit's state.
///
/// Invariant: `next_at` is the first multiple of `every` above the input index of the last
/// checkpoint (or of the start), so checkpoints follow the same batches in every run of
/// the same input and config, resumed or not.
pub struct Checkpoints {
    /// Input records between checkpoints (0 = never).
    every: u64,
    /// The next checkpoint follows the first batch that ends at or past this index.
    next_at: u64,
    /// Checkpoints this process wrote.
    written: u64,
    /// [`STOP_AFTER_CHECKPOINTS`].
    stop_after: Option<u64>,
    /// The configuration as checkpoints record it.
    config: serde_json::Value,
    /// The inputs as they were when the run began.
    inputs: Vec<InputStamp>,
    /// Files of a previous run the first part of the run removed.
    replaced_files: usize,
    /// Seconds of the earlier parts of a resumed run.
    prior_seconds: f64,
    /// Where each earlier part was resumed.
    resumed_from: Vec<u64>,
    /// When this part began.
    start: Instant,
}

impl Checkpoints {
    /// The schedule of a run of `config` that began at `start`, going on from `resumed` if
    /// given.
    pub fn new(
        config: &Config,
        resumed: Option<&Checkpoint>,
        inputs: Vec<InputStamp>,
        replaced_files: usize,
        start: Instant,
    ) -> Checkpoints {
        let every = config.checkpoint_records();
        let from = resumed.map(|cp| cp.next.next_index);
        LAST_CHECKPOINT.store(from.unwrap_or(u64::MAX), Ordering::Relaxed);
        Checkpoints {
            every,
            next_at: next_multiple(from.unwrap_or(0), every),
            written: 0,
            stop_after: std::env::var(STOP_AFTER_CHECKPOINTS)
                .ok()
                .and_then(|v| v.parse().ok()),
            config: config_value(config),
            inputs,
            replaced_files,
            prior_seconds: resumed.map_or(0.0, |cp| cp.seconds),
            resumed_from: match resumed {
                Some(cp) => {
                    let mut r = cp.resumed_from.clone();
                    r.push(cp.next.next_index);
                    r
                }
                None => Vec::new(),
            },
            start,
        }
    }

    /// Whether a checkpoint is due after the batch that left the reader at `next`.
    pub fn due(&self, next: ResumePoint) -> bool {
        self.every > 0 && next.next_index >= self.next_at
    }

    /// Takes a checkpoint after the batch that left the reader at `next`: the commit's
    /// files flushed, then `dir/resume.json` written (under a temporary name, renamed).
    pub fn take(&mut self, dir: &Path, commit: &mut Commit, next: ResumePoint) -> io::Result<()> {
        let cp = Checkpoint {
            version: env!("CARGO_PKG_VERSION").to_string(),
            config: self.config.clone(),
            inputs: self.inputs.clone(),
            next,
            seconds: self.seconds(),
            replaced_files: self.replaced_files,
            resumed_from: self.resumed_from.clone(),
            commit: commit.checkpoint()?,
        };
        super::write_json(dir, CHECKPOINT_FILE, &cp)?;
        LAST_CHECKPOINT.store(next.next_index, Ordering::Relaxed);
        self.next_at = next_multiple(next.next_index, self.every);
        self.written += 1;
        if self.stop_after == Some(self.written) {
            std::process::exit(75);
        }
        Ok(())
    }

    /// Seconds of the whole run so far, earlier parts included.
    pub fn seconds(&self) -> f64 {
        self.prior_seconds + self.start.elapsed().as_secs_f64()
    }

    /// The input index at which each part of the run after the first began.
    pub fn resumed_from(&self) -> &[u64] {
        &self.resumed_from
    }
}

/// The first multiple of `every` above `index` (`u64::MAX` when `every` is 0).
fn next_multiple(index: u64, every: u64) -> u64 {
    match every {
        0 => u64::MAX,
        e => (index / e + 1).saturating_mul(e),
    }
}

/// The dotted keys whose values differ between two JSON trees.
fn differing_keys(a: &serde_json::Value, b: &serde_json::Value, prefix: &str) -> Vec<String> {
    match (a, b) {
        (serde_json::Value::Object(x), serde_json::Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter()
                .flat_map(|k| {
                    let null = serde_json::Value::Null;
                    let name = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    differing_keys(x.get(k).unwrap_or(&null), y.get(k).unwrap_or(&null), &name)
                })
                .collect()
        }
        _ if a == b => Vec::new(),
        _ => vec![prefix.to_string()],
    }
}

/// The keys a run added to its dedup index, appended in commit order (see the module).
pub struct DedupLog {
    sink: Counted,
    path: PathBuf,
}

impl DedupLog {
    /// Creates (truncates) `dir/resume.dedup`.
    pub fn create(dir: &Path) -> io::Result<DedupLog> {
        let path = dir.join(DEDUP_LOG_FILE);
        let sink = Counted::create(&path).map_err(|e| with_path(&path, e))?;
        Ok(DedupLog { sink, path })
    }

    /// Appends one key and the index of its first record.
    #[inline]
    pub fn append(&mut self, key: Fingerprint, index: u64) -> io::Result<()> {
        let mut entry = [0u8; DEDUP_ENTRY];
        entry[..16].copy_from_slice(&key.0.to_le_bytes());
        entry[16..].copy_from_slice(&index.to_le_bytes());
        self.sink
            .write_all(&entry)
            .map_err(|e| with_path(&self.path, e))
    }

    /// Flushes and syncs the log; its mark for a checkpoint.
    pub fn checkpoint(&mut self) -> io::Result<FileMark> {
        self.sink.mark().map_err(|e| with_path(&self.path, e))
    }

    /// Reopens the log of a stopped run at `mark` and puts its keys back into `index` in
    /// their order, as the stopped run had inserted them.
    pub fn resume(dir: &Path, mark: FileMark, index: &mut DedupIndex) -> io::Result<DedupLog> {
        let path = dir.join(DEDUP_LOG_FILE);
        if mark.bytes % DEDUP_ENTRY as u64 != 0 {
            return Err(with_path(
                &path,
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{} bytes is no whole number of entries", mark.bytes),
                ),
            ));
        }
        // One read of the log both checks it and rebuilds the index; entries may straddle
        // the pieces the check reads.
        let mut carry = Vec::with_capacity(DEDUP_ENTRY);
        mark.verify_reading(&path, |mut piece| {
            if !carry.is_empty() {
                let take = (DEDUP_ENTRY - carry.len()).min(piece.len());
                carry.extend_from_slice(&piece[..take]);
                piece = &piece[take..];
                if carry.len() == DEDUP_ENTRY {
                    insert_entry(index, &carry);
                    carry.clear();
                }
            }
            let mut entries = piece.chunks_exact(DEDUP_ENTRY);
            for entry in &mut entries {
                insert_entry(index, entry);
            }
            carry.extend_from_slice(entries.remainder());
        })
        .map_err(|e| with_path(&path, e))?;
        let sink = Counted::reopen_verified(&path, mark).map_err(|e| with_path(&path, e))?;
        Ok(DedupLog { sink, path })
    }
}

/// Puts one dedup log entry (fingerprint, first index; little-endian) into `index`.
fn insert_entry(index: &mut DedupIndex, entry: &[u8]) {
    let mut key = [0u8; 16];
    key.copy_from_slice(&entry[..16]);
    let mut first = [0u8; 8];
    first.copy_from_slice(&entry[16..DEDUP_ENTRY]);
    index.first_or_insert(
        Fingerprint(u128::from_le_bytes(key)),
        u64::from_le_bytes(first),
    );
}

/// `e` with `path` in its message.
fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A log longer than one read piece (1 MiB is no multiple of 24 bytes, so entries
    /// straddle pieces) gives back every key with its index, in order, and refuses once a
    /// byte within the checkpoint changes.
    #[test]
    fn dedup_log_rebuilds_the_index_it_recorded() {
        let dir = std::env::temp_dir().join(format!("posfilter-dedup-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let n = 50_000u64; // 1.2 MB
        let key = |i: u64| {
            Fingerprint((i as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) | 1)
        };
        let mut log = DedupLog::create(&dir).unwrap();
        for i in 0..n {
            log.append(key(i), 3 * i).unwrap();
        }
        let mark = log.checkpoint().unwrap();
        log.append(key(n), 0).unwrap(); // after the checkpoint: must be cut off
        drop(log);
        let mut index = DedupIndex::with_capacity(0);
        let mut log = DedupLog::resume(&dir, mark, &mut index).unwrap();
        assert_eq!(index.len() as u64, n);
        for i in 0..n {
            assert_eq!(index.get(key(i)), Some(3 * i), "entry {i}");
        }
        assert_eq!(index.get(key(n)), None);
        assert_eq!(log.checkpoint().unwrap(), mark);

        let path = dir.join(DEDUP_LOG_FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[(1 << 20) + 5] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        let err = DedupLog::resume(&dir, mark, &mut DedupIndex::with_capacity(0)).err();
        assert!(err.is_some_and(|e| e.to_string().contains("CRC-32 differs")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn differing_keys_names_each_changed_leaf() {
        let a = json!({"filter": {"mate": {"nodes": 1, "enabled": true}}, "output": {"dir": "x"}});
        let b = json!({"filter": {"mate": {"nodes": 2, "enabled": true}}, "output": {"dir": "y"}});
        assert_eq!(
            differing_keys(&a, &b, ""),
            vec!["filter.mate.nodes".to_string(), "output.dir".to_string()]
        );
        assert!(differing_keys(&a, &a, "").is_empty());
    }
}

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
//! - `resume.dedup`: with dedup on, the keys the run added to its dedup index
//!   ([`super::dedup_log`]), from which a resume rebuilds the index.
//!
//! # Invariants
//! - Every output file's first `bytes` bytes at the checkpoint have the recorded CRC-32; a
//!   resume checks that, cuts off what was written after the checkpoint, and refuses with
//!   the file's name if a file is shorter or different.
//! - A resume refuses unless the configuration (the worker count aside) and every input
//!   file (path, size, modification time) are those of the checkpointed run.
//! - resume.json carries the CRC-32 of its own JSON ([`Checkpoint::checksum`]); one that
//!   does not match (edited, damaged) is refused.

use super::commit::{Commit, CommitMark};
use super::config::Config;
use super::output::write_bytes;
use crate::io::batch::ResumePoint;
use crate::report::provenance::rfc3339;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime};

/// The checkpoint's file name in the output directory.
pub(crate) const CHECKPOINT_FILE: &str = "resume.json";

/// Everything a resumed run needs to go on where a checkpoint was taken.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Checkpoint {
    /// The posfilter version that wrote it.
    pub(crate) version: String,
    /// The run's configuration as JSON, `workers.threads` set to 0 (a resume may use
    /// another worker count: the output does not depend on it).
    pub(crate) config: serde_json::Value,
    /// The input files as they were.
    pub(crate) inputs: Vec<InputStamp>,
    /// Where the reader goes on.
    pub(crate) next: ResumePoint,
    /// Seconds the run had taken up to the checkpoint (over all its resumed parts).
    pub(crate) seconds: f64,
    /// When the run's first part started (UTC, RFC 3339).
    pub(crate) started: String,
    /// Files of a previous run the first part removed (for the summary).
    pub(crate) replaced_files: usize,
    /// The input index at which each earlier part of the run was resumed.
    pub(crate) resumed_from: Vec<u64>,
    /// The commit's counts and its files' states.
    pub(crate) commit: CommitMark,
    /// CRC-32 (hex) of resume.json's bytes with these 8 digits as `00000000`: a resume.json
    /// edited by hand (a changed `next.offset` skips records) is refused, not trusted. The
    /// last field, so it is the last `"checksum": "` of the file.
    #[serde(default)]
    pub(crate) checksum: String,
}

/// An input file as a checkpoint saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct InputStamp {
    /// The path.
    pub(crate) path: PathBuf,
    /// Size in bytes.
    pub(crate) bytes: u64,
    /// Modification time, nanoseconds since the Unix epoch (0 if the system has none).
    pub(crate) modified_ns: u128,
}

impl InputStamp {
    /// The stamp of `path` now.
    pub(crate) fn of(path: &Path) -> io::Result<InputStamp> {
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

impl Checkpoint {
    /// Reads `dir/resume.json`; `Ok(None)` if there is none.
    pub(crate) fn load(dir: &Path) -> io::Result<Option<Checkpoint>> {
        let path = dir.join(CHECKPOINT_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
        };
        let invalid = |why: String| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {why}", path.display()),
            )
        };
        let unreadable =
            |e: serde_json::Error| invalid(format!("not a checkpoint posfilter can read: {e}"));
        let (written, content) = checksums(&bytes);
        if written != Some(content) {
            return Err(invalid(format!(
                "its checksum does not match (it says {}, its content gives {content:08x}): \
                 it was changed after posfilter wrote it; run without --resume to start over",
                written.map_or("none".into(), |w| format!("{w:08x}"))
            )));
        }
        serde_json::from_slice(&bytes).map(Some).map_err(unreadable)
    }

    /// The checkpoint's JSON (pretty, with a newline) and its checksum filled in.
    fn to_sealed_json(&self) -> serde_json::Result<Vec<u8>> {
        let mut cp = self.clone();
        cp.checksum = UNSEALED.into();
        let mut bytes = serde_json::to_vec_pretty(&cp)?;
        bytes.push(b'\n');
        let crc = format!("{:08x}", crc32fast::hash(&bytes));
        if let Some(at) = checksum_at(&bytes) {
            bytes[at..at + 8].copy_from_slice(crc.as_bytes());
        }
        Ok(bytes)
    }

    /// Why this checkpoint cannot be resumed with `config` reading `inputs`, if it cannot.
    pub(crate) fn mismatch(&self, config: &Config, inputs: &[PathBuf]) -> Option<String> {
        if self.version != env!("CARGO_PKG_VERSION") {
            return Some(format!(
                "it was written by posfilter {}, this is {}",
                self.version,
                env!("CARGO_PKG_VERSION")
            ));
        }
        let now = config.echo(false);
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

/// Whether `dir` holds a checkpoint of an unfinished run (its resume.json), from which
/// `run --resume` would go on.
pub fn checkpoint_in(dir: &Path) -> bool {
    dir.join(CHECKPOINT_FILE).is_file()
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
pub(crate) const STOP_AFTER_CHECKPOINTS: &str = "POSFILTER_STOP_AFTER_CHECKPOINTS";

/// When a run takes its checkpoints, and what each records besides the commit's state.
///
/// Invariant: `next_at` is the first multiple of `every` above the input index of the last
/// checkpoint (or of the start), so checkpoints follow the same batches in every run of
/// the same input and config, resumed or not.
pub(crate) struct Checkpoints {
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
    /// When the run's first part began (UTC, RFC 3339).
    started: String,
}

impl Checkpoints {
    /// The schedule of a run of `config` that began at `start`, going on from `resumed` if
    /// given.
    pub(crate) fn new(
        config: &Config,
        resumed: Option<&Checkpoint>,
        inputs: Vec<InputStamp>,
        replaced_files: usize,
        start: Instant,
    ) -> Checkpoints {
        let every = config.checkpoint_records;
        let from = resumed.map(|cp| cp.next.next_index);
        LAST_CHECKPOINT.store(from.unwrap_or(u64::MAX), Ordering::Relaxed);
        Checkpoints {
            every,
            next_at: next_multiple(from.unwrap_or(0), every),
            written: 0,
            stop_after: std::env::var(STOP_AFTER_CHECKPOINTS)
                .ok()
                .and_then(|v| v.parse().ok()),
            config: config.echo(false),
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
            started: resumed.map_or_else(
                || rfc3339(SystemTime::now() - start.elapsed()),
                |cp| cp.started.clone(),
            ),
        }
    }

    /// Whether a checkpoint is due after the batch that left the reader at `next`.
    pub(crate) fn due(&self, next: ResumePoint) -> bool {
        self.every > 0 && next.next_index >= self.next_at
    }

    /// Takes a checkpoint after the batch that left the reader at `next`: the commit's
    /// files flushed, then `dir/resume.json` written (under a temporary name, renamed).
    pub(crate) fn take(
        &mut self,
        dir: &Path,
        commit: &mut Commit,
        next: ResumePoint,
    ) -> io::Result<()> {
        let cp = Checkpoint {
            version: env!("CARGO_PKG_VERSION").to_string(),
            config: self.config.clone(),
            inputs: self.inputs.clone(),
            next,
            seconds: self.seconds(),
            started: self.started.clone(),
            replaced_files: self.replaced_files,
            resumed_from: self.resumed_from.clone(),
            commit: commit.checkpoint()?,
            checksum: String::new(),
        };
        write_bytes(dir, CHECKPOINT_FILE, &cp.to_sealed_json()?)?;
        LAST_CHECKPOINT.store(next.next_index, Ordering::Relaxed);
        self.next_at = next_multiple(next.next_index, self.every);
        self.written += 1;
        if self.stop_after == Some(self.written) {
            std::process::exit(75);
        }
        Ok(())
    }

    /// Seconds of the whole run so far, earlier parts included.
    pub(crate) fn seconds(&self) -> f64 {
        self.prior_seconds + self.start.elapsed().as_secs_f64()
    }

    /// When the run's first part began (UTC, RFC 3339).
    pub(crate) fn started(&self) -> &str {
        &self.started
    }

    /// The input index at which each part of the run after the first began.
    pub(crate) fn resumed_from(&self) -> &[u64] {
        &self.resumed_from
    }
}

/// The checksum's 8 digits before sealing.
const UNSEALED: &str = "00000000";

/// Where the 8 digits of the checksum start in a checkpoint's JSON.
fn checksum_at(bytes: &[u8]) -> Option<usize> {
    const KEY: &[u8] = b"\"checksum\": \"";
    let at = bytes.windows(KEY.len()).rposition(|w| w == KEY)? + KEY.len();
    (bytes.len() >= at + 8).then_some(at)
}

/// The checksum a checkpoint's JSON says (if it has one) and the one its bytes give.
fn checksums(bytes: &[u8]) -> (Option<u32>, u32) {
    let mut unsealed = bytes.to_vec();
    let said = checksum_at(bytes).and_then(|at| {
        unsealed[at..at + 8].copy_from_slice(UNSEALED.as_bytes());
        let digits = std::str::from_utf8(&bytes[at..at + 8]).ok()?;
        u32::from_str_radix(digits, 16).ok()
    });
    (said, crc32fast::hash(&unsealed))
}

/// The first multiple of `every` above `index` (`u64::MAX` when `every` is 0).
pub(crate) fn next_multiple(index: u64, every: u64) -> u64 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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

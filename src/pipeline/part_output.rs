//! What a shard task writes as it goes, the outcome log and the key-bucket logs, and its
//! checkpoints (`shard-resume.json`), so that a task stopped after a checkpoint and run
//! again with `--resume-or-start` goes on from it and writes the bytes of a task that was
//! never stopped.
//!
//! # Invariants
//! - A checkpoint is taken after the first batch that ends at or past each multiple of
//!   `output.checkpoint_records` (the rule of [`super::checkpoint`]), once every log is
//!   flushed; it records each log's length and CRC-32, which a resume checks before cutting
//!   off what was written after it.
//! - A checkpoint is only gone on from by a task of the same part, plan, bucket count,
//!   configuration and inputs; any other is refused with the reason.

use super::checkpoint::{next_multiple, InputStamp, STOP_AFTER_CHECKPOINTS};
use super::config::Config;
use super::outcome_log::{OutcomeLogWriter, OUTCOME_LOG};
use super::output::{remove_if_present, write_json};
use super::worker::BatchOutcome;
use crate::filter::first_seen::identity;
use crate::io::batch::{Batch, ResumePoint};
use crate::io::key_run::{KeyEntry, KeyRunWriter, RunInfo};
use crate::io::output::FileMark;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};

/// The checkpoint's file name in a shard directory.
pub(crate) const PART_CHECKPOINT: &str = "shard-resume.json";

/// Which task and job a checkpoint belongs to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PartIdentity {
    /// The posfilter version.
    pub(crate) version: String,
    /// The configuration, as checkpoints record it.
    pub(crate) config: serde_json::Value,
    /// The inputs and reference pools as they were.
    pub(crate) inputs: Vec<InputStamp>,
    /// The part, the part count and the bucket count.
    pub(crate) part: (usize, usize, u32),
}

/// A shard task's checkpoint.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct PartCheckpoint {
    identity: PartIdentity,
    /// Where the reader goes on.
    next: ResumePoint,
    /// Records of the part logged so far.
    records: u64,
    /// The outcome log.
    log: FileMark,
    /// The key-bucket logs (empty with dedup off).
    keys: Vec<FileMark>,
}

/// The files of a shard task being written.
pub(crate) struct PartOutput {
    dir: PathBuf,
    identity: PartIdentity,
    log: OutcomeLogWriter,
    keys: Option<KeyRunWriter>,
    /// Records logged.
    pub(crate) records: u64,
    every: u64,
    next_at: u64,
    written: u64,
    stop_after: Option<u64>,
    /// Where the task went on from a checkpoint, if it did.
    pub(crate) resumed_at: Option<ResumePoint>,
}

impl PartOutput {
    /// Opens the files of the task `identity` in `dir`: with `resume`, those of the
    /// checkpoint there if there is one (refused, with the reason, unless it is this
    /// task's); else new ones (`buckets` key logs; 0 for none) for a part starting at
    /// `from`. `Err(Ok(why))` is a refused checkpoint.
    pub(crate) fn open(
        config: &Config,
        dir: &Path,
        identity: PartIdentity,
        buckets: u32,
        from: ResumePoint,
        resume: bool,
    ) -> Result<PartOutput, Result<String, io::Error>> {
        let saved = match resume {
            true => load(dir).map_err(Err)?,
            false => None,
        };
        let (log, keys, records, resumed_at) = match saved {
            Some(cp) if cp.identity != identity => {
                return Err(Ok(format!(
                    "its checkpoint ({PART_CHECKPOINT}) is of another task, configuration or \
                     input; remove it, or run without --resume-or-start, to start over"
                )))
            }
            Some(cp) => {
                let log = OutcomeLogWriter::resume(&dir.join(OUTCOME_LOG), cp.log);
                let keys = match cp.keys.is_empty() {
                    true => None,
                    false => Some(KeyRunWriter::resume(&dir.join("keys"), &cp.keys).map_err(Err)?),
                };
                (log.map_err(Err)?, keys, cp.records, Some(cp.next))
            }
            None => {
                // A stale checkpoint must never be gone on from with the new files.
                remove_if_present(&dir.join(PART_CHECKPOINT)).map_err(Err)?;
                let log = OutcomeLogWriter::create(&dir.join(OUTCOME_LOG)).map_err(Err)?;
                let keys = match buckets {
                    0 => None,
                    m => Some(KeyRunWriter::create(&dir.join("keys"), m).map_err(Err)?),
                };
                (log, keys, 0, None)
            }
        };
        let every = config.checkpoint_records;
        Ok(PartOutput {
            dir: dir.to_path_buf(),
            identity,
            log,
            keys,
            records,
            every,
            next_at: next_multiple(resumed_at.unwrap_or(from).next_index, every),
            written: 0,
            stop_after: std::env::var(STOP_AFTER_CHECKPOINTS)
                .ok()
                .and_then(|v| v.parse().ok()),
            resumed_at,
        })
    }

    /// The key logs (`None` with dedup off), for the reference pools' keys.
    pub(crate) fn keys(&mut self) -> Option<&mut KeyRunWriter> {
        self.keys.as_mut()
    }

    /// Logs one batch, appends its kept records' keys, and takes a checkpoint if one is due.
    pub(crate) fn append(&mut self, batch: &Batch, outcome: &BatchOutcome) -> io::Result<()> {
        self.log.append(batch, outcome)?;
        self.records += outcome.records.len() as u64;
        if let Some(keys) = self.keys.as_mut() {
            for r in outcome.records.iter().filter(|r| r.decision.is_keep()) {
                if let Some(key) = r.dedup_key {
                    keys.append(KeyEntry {
                        key: identity(key),
                        index: r.index,
                    })?;
                }
            }
        }
        if self.every > 0 && batch.next.next_index >= self.next_at {
            self.checkpoint(batch.next)?;
        }
        Ok(())
    }

    /// Flushes every log and writes the checkpoint after the batch that left the reader at
    /// `next`.
    fn checkpoint(&mut self, next: ResumePoint) -> io::Result<()> {
        let cp = PartCheckpoint {
            identity: self.identity.clone(),
            next,
            records: self.records,
            log: self.log.mark()?,
            keys: match self.keys.as_mut() {
                Some(k) => k.checkpoint()?,
                None => Vec::new(),
            },
        };
        write_json(&self.dir, PART_CHECKPOINT, &cp)?;
        self.next_at = next_multiple(next.next_index, self.every);
        self.written += 1;
        if self.stop_after == Some(self.written) {
            std::process::exit(75);
        }
        Ok(())
    }

    /// Completes the logs (the key runs sorted) and removes the checkpoint.
    pub(crate) fn finish(self) -> io::Result<Vec<RunInfo>> {
        self.log.finish()?;
        let runs = match self.keys {
            Some(k) => k.finish()?,
            None => Vec::new(),
        };
        remove_if_present(&self.dir.join(PART_CHECKPOINT))?;
        Ok(runs)
    }
}

/// The checkpoint in `dir`, if any.
fn load(dir: &Path) -> io::Result<Option<PartCheckpoint>> {
    let path = dir.join(PART_CHECKPOINT);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: not a shard checkpoint: {e}", path.display()),
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
    }
}

//! `shard.json`: what a shard task wrote, and the identity of the job it belongs to, so
//! that the merge stages take only the complete shards of one job and name any other.
//!
//! # Invariants
//! - A shard task writes `shard.json` last, after every other file of its directory is
//!   complete (under its final name): a directory without it holds an incomplete shard.
//! - Shards belong to one job iff their [`JobIdentity`] is equal: the posfilter version,
//!   the configuration (output directory and thread count aside), every input file (path
//!   and size), the shard plan and the bucket count.

use crate::io::batch::ResumePoint;
use crate::io::key_run::RunInfo;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The file name of a shard's manifest in its directory.
pub const SHARD_MANIFEST: &str = "shard.json";

/// An input file as the job's plan saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputIdentity {
    /// The path as the configuration resolved it.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// What every shard of one job shares (see the module).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobIdentity {
    /// The posfilter version.
    pub version: String,
    /// The configuration as resume checkpoints record it (`workers.threads` 0).
    pub config: serde_json::Value,
    /// The input files, in input order, then the reference pools.
    pub inputs: Vec<InputIdentity>,
    /// The shard plan's points (`shards + 1`).
    pub plan: Vec<ResumePoint>,
    /// Records per input file, as the plan counted them.
    pub file_records: Vec<u64>,
    /// Dedup key buckets (`M`); 0 with dedup off.
    pub buckets: u32,
}

/// A shard's `shard.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardManifest {
    /// This shard's number, from 0.
    pub shard: usize,
    /// The job's shard count (`N`).
    pub shards: usize,
    /// The job this shard belongs to.
    pub job: JobIdentity,
    /// The shard's key runs, one per bucket, in bucket order (empty with dedup off).
    pub runs: Vec<RunInfo>,
    /// The configuration file the shard ran, as it was named (the gather reads it again
    /// from `working_dir`, so that input file names in its output are those of one run).
    pub config_file: String,
    /// The shard task's working directory (absolute).
    pub working_dir: String,
    /// Input records in the shard's part.
    pub records: u64,
    /// The input record the task went on from after a stop (its last checkpoint), if any.
    #[serde(default)]
    pub resumed_from: Option<u64>,
}

/// Why a set of shard directories cannot be merged.
#[derive(Debug, Error)]
pub enum ShardSetError {
    /// No directory given.
    #[error("no shard directory given")]
    Empty,
    /// A directory without a readable shard.json.
    #[error("{dir}: not a complete shard ({why})")]
    Incomplete {
        /// The directory.
        dir: String,
        /// What is missing or unreadable.
        why: String,
    },
    /// A shard of another job.
    #[error("{dir} is shard {shard} of another job than {first}: {what} differ")]
    OtherJob {
        /// The directory.
        dir: String,
        /// Its shard number.
        shard: usize,
        /// The first directory given.
        first: String,
        /// What differs.
        what: String,
    },
    /// The same shard number twice.
    #[error("{a} and {b} both hold shard {shard} of {shards}")]
    Twice {
        /// One directory.
        a: String,
        /// The other.
        b: String,
        /// The shard number.
        shard: usize,
        /// The shard count.
        shards: usize,
    },
    /// Shards not given (or not complete).
    #[error("shard(s) {missing} of {shards} missing: give every shard's directory, each complete")]
    Missing {
        /// The missing numbers, comma-separated.
        missing: String,
        /// The shard count.
        shards: usize,
    },
}

impl ShardManifest {
    /// Reads `dir/shard.json`.
    pub fn load(dir: &Path) -> Result<ShardManifest, ShardSetError> {
        let path = dir.join(SHARD_MANIFEST);
        let incomplete = |why: String| ShardSetError::Incomplete {
            dir: dir.display().to_string(),
            why,
        };
        let bytes = std::fs::read(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => incomplete(format!(
                "no {SHARD_MANIFEST}: its task has not finished, or this is no shard directory"
            )),
            _ => incomplete(format!("{}: {e}", path.display())),
        })?;
        serde_json::from_slice(&bytes)
            .map_err(|e| incomplete(format!("{}: not a shard manifest: {e}", path.display())))
    }
}

/// The shards of one job, complete and in shard order: `dirs` in any order.
pub fn load_shard_set(dirs: &[PathBuf]) -> Result<Vec<(PathBuf, ShardManifest)>, ShardSetError> {
    let mut loaded = Vec::with_capacity(dirs.len());
    for dir in dirs {
        loaded.push((dir.clone(), ShardManifest::load(dir)?));
    }
    let Some((first_dir, first)) = loaded.first().cloned() else {
        return Err(ShardSetError::Empty);
    };
    let shards = first.shards;
    let mut slots: Vec<Option<(PathBuf, ShardManifest)>> = vec![None; shards];
    for (dir, m) in loaded {
        let what = differences(&first.job, &m.job, first.shards, m.shards);
        if !what.is_empty() || m.shard >= shards {
            return Err(ShardSetError::OtherJob {
                dir: dir.display().to_string(),
                shard: m.shard,
                first: first_dir.display().to_string(),
                what: if what.is_empty() {
                    "shard numbers".into()
                } else {
                    what.join(", ")
                },
            });
        }
        let at = m.shard;
        if let Some((other, _)) = &slots[at] {
            return Err(ShardSetError::Twice {
                a: other.display().to_string(),
                b: dir.display().to_string(),
                shard: at,
                shards,
            });
        }
        slots[at] = Some((dir, m));
    }
    let missing: Vec<String> = (0..shards)
        .filter(|&i| slots[i].is_none())
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(ShardSetError::Missing {
            missing: missing.join(", "),
            shards,
        });
    }
    Ok(slots.into_iter().flatten().collect())
}

/// What differs between two jobs' identities (empty when they are one job).
fn differences(a: &JobIdentity, b: &JobIdentity, na: usize, nb: usize) -> Vec<String> {
    let mut what = Vec::new();
    if a.version != b.version {
        what.push(format!(
            "posfilter versions ({} and {})",
            a.version, b.version
        ));
    }
    if a.config != b.config {
        what.push("configurations".into());
    }
    if a.inputs != b.inputs {
        what.push("input files (paths or sizes)".into());
    }
    if na != nb || a.plan != b.plan || a.file_records != b.file_records {
        what.push(format!("shard plans ({na} and {nb} shards)"));
    }
    if a.buckets != b.buckets {
        what.push(format!(
            "dedup bucket counts ({} and {})",
            a.buckets, b.buckets
        ));
    }
    what
}

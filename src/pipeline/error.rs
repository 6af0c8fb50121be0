//! [`PipelineError`]: why a run failed.

use crate::io::input::InputError;
use crate::io::output::LockError;
use std::path::Path;
use thiserror::Error;

/// Why a run failed (per-record problems are never errors: they are rejections).
#[derive(Debug, Error)]
pub enum PipelineError {
    /// Inputs could not be opened or read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// An output file could not be written.
    #[error("writing output in {dir}: {source}")]
    Output {
        /// The output directory.
        dir: String,
        /// The error.
        source: std::io::Error,
    },
    /// An input or reference pool is a file of the previous run that this run would replace.
    #[error(
        "{input} is output of a previous run in {dir}, which this run replaces; \
         move it or write to another directory (--out)"
    )]
    ReadsOwnOutput {
        /// The input or reference file.
        input: String,
        /// The output directory.
        dir: String,
    },
    /// Another run holds the output directory (or held it, on another host).
    #[error(transparent)]
    Locked(#[from] LockError),
    /// The worker pool could not be built.
    #[error("thread pool: {0}")]
    Pool(String),
    /// The counts do not add up (a bug: the run's output must not be trusted).
    #[error("{0}")]
    Reconciliation(String),
    /// The solver tables cannot fit in this machine's memory (the message names the keys).
    #[error("{0}")]
    Memory(String),
    /// The run was stopped through its [`super::control::RunControl`] (the output
    /// directory is as a killed run leaves it).
    #[error("the run was stopped before it finished")]
    Interrupted,
    /// An input cannot be written in the output format (the message says why).
    #[error("{0}")]
    Conversion(String),
    /// The shards of a job split over tasks cannot be merged (or a shard not written).
    #[error("{0}")]
    Shards(String),
    /// `--resume` found nothing it can go on from.
    #[error("cannot resume the run in {dir}: {why}")]
    Resume {
        /// The output directory.
        dir: String,
        /// Why not.
        why: String,
    },
}

impl PipelineError {
    /// The error for a failed write in the output directory `dir` (for `map_err`).
    pub(crate) fn output_in(dir: &Path) -> impl Fn(std::io::Error) -> PipelineError + '_ {
        move |source| PipelineError::Output {
            dir: dir.display().to_string(),
            source,
        }
    }
}

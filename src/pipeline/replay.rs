//! The gather of a job split over tasks: the one ordered commit of a single run, fed with
//! the outcomes the shard tasks logged ([`super::outcome_log`]) instead of the workers', and
//! with the duplicates the dedup reduce decided ([`super::known_dups`]) instead of its own
//! index. The same commit, checkpoints and finish as [`super::run`] write every file, so
//! the merged directory holds the bytes of one run (report timings aside).
//!
//! # Invariants
//! - The logged records come in input order with no index missing or repeated, and cover
//!   the whole input; anything else is refused before the run's files are in place.
//! - Checkpoints fall after the same batches as in one run (every part starts at a batch
//!   boundary of the whole input, [`crate::io::shard_plan`]), so zstd frames end where
//!   one run ends them.

use super::checkpoint::Checkpoints;
use super::commit::{Commit, CommitOptions};
use super::config::Config;
use super::error::PipelineError;
use super::known_dups::KnownDuplicates;
use super::outcome_log::LoggedBatch;
use super::plan::Plan;
use super::prepare::{commit_options, input_stamps, lock_dir, Prepared};
use super::report::Report;
use super::settings::Settings;
use std::io;
use std::time::Instant;

/// Commits the logged batches `next_batch` yields (shard after shard, in input order) into
/// `config`'s output directory, duplicates taken from `known` (`None`: dedup off); the
/// batches must hold the `total` records of the input.
pub(crate) fn replay(
    config: &Config,
    total: u64,
    known: Option<KnownDuplicates>,
    mut next_batch: impl FnMut() -> io::Result<Option<LoggedBatch>>,
) -> Result<Report, PipelineError> {
    let start = Instant::now();
    let settings = Settings::from_config(config);
    let plan = Plan::new(config, &settings)?;
    let out_dir = &config.out_dir;
    let out_err = PipelineError::output_in(out_dir);
    let stamps = input_stamps(&plan).map_err(&out_err)?;
    // One writer: the lock before anything in the directory is removed.
    std::fs::create_dir_all(out_dir).map_err(&out_err)?;
    let lock = lock_dir(out_dir, "posfilter merge", config.progress)?;
    let replaced_files = plan.previous.remove().map_err(&out_err)?;
    let Plan {
        paths, detections, ..
    } = plan;
    let options = CommitOptions {
        known,
        ..commit_options(config, &settings, &paths, &detections)
    };
    let commit = Commit::new(options).map_err(&out_err)?;
    let checkpoints = Checkpoints::new(config, None, stamps, replaced_files, start);
    let mut run = Prepared {
        paths,
        detections,
        resumed: None,
        commit,
        checkpoints,
        replaced_files,
        lock,
    };
    let mut expected = 0u64;
    while let Some(b) = next_batch().map_err(|e| PipelineError::Shards(e.to_string()))? {
        for r in &b.outcome.records {
            if r.index != expected {
                return Err(PipelineError::Shards(format!(
                    "the shards' records skip or repeat input records (record {} where {expected} \
                     was due): they are not the parts of one plan",
                    r.index
                )));
            }
            expected += 1;
        }
        run.commit.apply(b.format, &b.outcome).map_err(&out_err)?;
        run.commit.tallies.hcpe_games_inferred += b.outcome.hcpe_games;
        if run.checkpoints.due(b.next) {
            run.checkpoints
                .take(out_dir, &mut run.commit, b.next)
                .map_err(&out_err)?;
        }
    }
    if expected != total {
        return Err(PipelineError::Shards(format!(
            "the shards hold {expected} records, the input {total}: a shard's log is incomplete"
        )));
    }
    // Throughput samples are timing (report timings aside): the gather has its own.
    super::finish(config, run, Vec::new())
}

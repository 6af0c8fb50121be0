//! The first step of a run: from the [`Plan`] to an output directory ready for the first
//! batch (a fresh one, the previous run's files removed, or a checkpoint's state restored),
//! the dedup index filled with the reference pools, the commit and its checkpoints.
//!
//! # Invariants
//! The run holds the output directory's lock ([`OutputLock`]) from before it reads the
//! checkpoint or removes a file until it ends; a directory another live run holds is refused.
//! Nothing is removed or written before the plan holds (every input readable, none of them
//! a file the run would replace); a resume refuses unless the checkpoint matches the
//! configuration and the inputs.

use super::checkpoint::{Checkpoint, Checkpoints, InputStamp, CHECKPOINT_FILE};
use super::commit::{Commit, CommitOptions};
use super::config::Config;
use super::dedup_log::DedupLog;
use super::error::PipelineError;
use super::kept_shards::KeptShards;
use super::output::remove_if_present;
use super::plan::Plan;
use super::progress;
use super::settings::Settings;
use crate::codec;
use crate::filter::FirstSeen;
use crate::io::batch::{Batch, BatchOptions, Batches};
use crate::io::detect::Detection;
use crate::io::input::InputError;
use crate::io::output::OutputLock;
use crate::shogi::Fingerprint;
use std::path::PathBuf;
use std::time::Instant;

/// A run ready for its first batch.
pub(super) struct Prepared {
    /// Input files in order.
    pub paths: Vec<PathBuf>,
    /// Their formats.
    pub detections: Vec<Detection>,
    /// The checkpoint the run goes on from (`--resume`).
    pub resumed: Option<Checkpoint>,
    /// The ordered commit, its files open.
    pub commit: Commit,
    /// When checkpoints are taken.
    pub checkpoints: Checkpoints,
    /// Files of a previous run removed from the output directory.
    pub replaced_files: usize,
    /// The run's lock on the output directory, held until the run ends.
    pub lock: OutputLock,
}

/// Plans the run and readies the output directory, the dedup index and the commit.
pub(super) fn prepare(
    config: &Config,
    settings: &Settings,
    start: Instant,
) -> Result<Prepared, PipelineError> {
    let out_dir = &config.out_dir;
    let out_err = PipelineError::output_in(out_dir);
    let plan = Plan::new(config, settings)?;
    // Before the checkpoint is read or any file removed: the directory is this run's.
    std::fs::create_dir_all(out_dir).map_err(&out_err)?;
    let lock = lock_output(config)?;
    let stamps = input_stamps(&plan).map_err(&out_err)?;
    let resumed = match config.resume {
        true => Some(resumable(config, &plan)?),
        false => None,
    };
    if config.progress {
        warn_before(&plan, settings);
    }
    let mut dedup = match settings.dedup {
        // Growing the index re-places every key it holds; size it for the input up front
        // (uncompressed inputs tell their record count), within a bound.
        true => {
            let expected = plan.exact_records().unwrap_or(0).min(DEDUP_RESERVE_MAX) as usize;
            Some(reference_keys(&plan, settings, expected)?)
        }
        false => None,
    };
    let replaced_files = match &resumed {
        Some(cp) => {
            // From here on the directory must not claim a complete run (a run stopped
            // after writing its manifest but before removing its checkpoint).
            for name in ["manifest.json", "report.json", crate::report::REPORT_HTML] {
                remove_if_present(&out_dir.join(name)).map_err(&out_err)?;
            }
            cp.replaced_files
        }
        None => {
            if config.progress && plan.previous.unfinished() {
                progress::warn(&format!(
                    "{} holds a checkpoint of an unfinished run; starting over (`run --resume` \
                     would go on from it)",
                    out_dir.display()
                ));
            }
            plan.previous.remove().map_err(&out_err)?
        }
    };
    let dedup_log = open_dedup_log(config, dedup.as_mut(), resumed.as_ref())?;
    let Plan {
        paths, detections, ..
    } = plan;
    let options = CommitOptions {
        dedup,
        dedup_log,
        ..commit_options(config, settings, &paths, &detections)
    };
    let commit = match &resumed {
        Some(cp) => Commit::resume(options, &cp.commit).map_err(|e| damaged(config, e))?,
        None => Commit::new(options).map_err(&out_err)?,
    };
    let checkpoints = Checkpoints::new(config, resumed.as_ref(), stamps, replaced_files, start);
    Ok(Prepared {
        paths,
        detections,
        resumed,
        commit,
        checkpoints,
        replaced_files,
        lock,
    })
}

/// Takes the output directory's lock, saying so when it takes over a stale one.
fn lock_output(config: &Config) -> Result<OutputLock, PipelineError> {
    let purpose = match config.resume {
        true => "posfilter run --resume",
        false => "posfilter run",
    };
    lock_dir(&config.out_dir, purpose, config.progress)
}

/// Takes the lock on directory `dir` (which exists) for `purpose`, before anything in `dir`
/// is read or removed. Says so when it takes over a stale lock: with `progress`, and
/// always for an earlier attempt's lock from another host (the job's log keeps the line).
pub(crate) fn lock_dir(
    dir: &std::path::Path,
    purpose: &str,
    progress: bool,
) -> Result<OutputLock, PipelineError> {
    let lock = OutputLock::acquire(dir, purpose)?;
    if let Some(notice) = lock.takeover_notice() {
        if progress || lock.superseded() {
            progress::warn(&notice);
        }
    }
    Ok(lock)
}

/// How a run of `config` reading `paths` commits, dedup off (the caller sets it).
pub(super) fn commit_options<'a>(
    config: &'a Config,
    settings: &Settings,
    paths: &[PathBuf],
    detections: &[Detection],
) -> CommitOptions<'a> {
    CommitOptions {
        out_dir: &config.out_dir,
        out_format: settings.output_format,
        kept_shards: KeptShards::of_run(config, paths, detections),
        audit: config.audit,
        mates: config.mates_format,
        dedup: None,
        files: paths.iter().map(|p| p.display().to_string()).collect(),
        dedup_log: None,
        known: None,
    }
}

/// Said before the run starts rather than only in report.json: files that do not look like
/// their format (most of their records would be rejected) and a dedup index that may not
/// fit in memory (said before the reference pools are read: they sit in the same index).
fn warn_before(plan: &Plan, settings: &Settings) {
    let files = plan.paths.iter().zip(&plan.detections);
    let pools = plan.references.iter().zip(&plan.reference_detections);
    for (path, d) in files.chain(pools) {
        for note in d.reasons.iter().filter_map(|r| r.strip_prefix("warning: ")) {
            progress::warn(&format!("{}: {note}", path.display()));
        }
    }
    if settings.dedup {
        if let Some(warning) = plan.dedup_memory_warning() {
            progress::warn(&warning);
        }
    }
}

/// A file of the stopped run that does not match its checkpoint.
fn damaged(config: &Config, e: std::io::Error) -> PipelineError {
    PipelineError::Resume {
        dir: config.out_dir.display().to_string(),
        why: format!("{e}; run without --resume to start over"),
    }
}

/// The dedup log, with dedup and checkpoints on: the stopped run's, its keys put back into
/// `index`, or a new one.
fn open_dedup_log(
    config: &Config,
    index: Option<&mut FirstSeen>,
    resumed: Option<&Checkpoint>,
) -> Result<Option<DedupLog>, PipelineError> {
    let dir = &config.out_dir;
    match (index, resumed) {
        (Some(index), Some(cp)) => match cp.commit.dedup_log {
            Some(mark) => DedupLog::resume(dir, mark, index)
                .map(Some)
                .map_err(|e| damaged(config, e)),
            None => Ok(None),
        },
        (Some(_), None) if config.checkpoint_records > 0 => DedupLog::create(dir)
            .map(Some)
            .map_err(PipelineError::output_in(dir)),
        _ => Ok(None),
    }
}

/// The stamps of the inputs and reference pools, for checkpoints.
pub(super) fn input_stamps(plan: &Plan) -> std::io::Result<Vec<InputStamp>> {
    plan.paths
        .iter()
        .chain(&plan.references)
        .map(|p| InputStamp::of(p))
        .collect()
}

/// The checkpoint in the output directory, if this run can go on from it.
fn resumable(config: &Config, plan: &Plan) -> Result<Checkpoint, PipelineError> {
    let dir = &config.out_dir;
    let refuse = |why: String| PipelineError::Resume {
        dir: dir.display().to_string(),
        why,
    };
    let cp = Checkpoint::load(dir)
        .map_err(|e| refuse(e.to_string()))?
        .ok_or_else(|| {
            refuse(if dir.join("manifest.json").exists() {
                "the run there is complete (manifest.json), nothing to resume".into()
            } else {
                format!(
                    "it holds no checkpoint ({CHECKPOINT_FILE}); run without --resume to start \
                     from the beginning"
                )
            })
        })?;
    let read: Vec<_> = plan.paths.iter().chain(&plan.references).cloned().collect();
    match cp.mismatch(config, &read) {
        Some(why) => Err(refuse(why)),
        None => Ok(cp),
    }
}

/// The most dedup keys room is made for up front (2^23 slots of 16 bytes: 128 MiB, written
/// at allocation); larger runs grow from there, so an input of mostly duplicates does not
/// reserve for its whole record count.
const DEDUP_RESERVE_MAX: u64 = 1 << 22;

/// Dedup keys of the reference pools (index `u64::MAX` = "from a reference pool").
fn reference_keys(
    plan: &Plan,
    settings: &Settings,
    expected: usize,
) -> Result<FirstSeen, PipelineError> {
    let mut keys = FirstSeen::with_capacity(expected);
    let specs = super::plan::specs(&plan.references, &plan.reference_detections);
    let batches = Batches::new(specs, REFERENCE_BATCHES);
    each_reference_key(batches, settings, |key| {
        keys.first_or_insert(key, u64::MAX);
    })?;
    Ok(keys)
}

/// How reference pools are read (no game alignment: their records are only keys).
pub(crate) const REFERENCE_BATCHES: BatchOptions = BatchOptions {
    records: 4096,
    align_games: false,
};

/// Calls `each` with the dedup key of every record of reference pools in `batches` that
/// decodes (a record that does not is no position to drop).
pub(crate) fn each_reference_key(
    batches: impl Iterator<Item = Result<Batch, InputError>>,
    settings: &Settings,
    mut each: impl FnMut(Fingerprint),
) -> Result<(), PipelineError> {
    for batch in batches {
        let batch = batch?;
        if let Some(e) = batch.unreadable() {
            // A pool read only in part would let its other positions through as new.
            return Err(e.into());
        }
        for rec in batch.iter() {
            if let Ok(d) = codec::decode(batch.format, rec.bytes) {
                each(crate::filter::dedup_key(&d.position, settings.dedup_mirror));
            }
        }
    }
    Ok(())
}

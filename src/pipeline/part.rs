//! A shard task's part of the input (`posfilter run CONFIG --shard I/N`): the input cut by
//! the shard plan ([`crate::io::shard_plan`], the same in every task), part `I` read from
//! its start and run through the workers as a run does, and every batch's outcomes logged
//! ([`super::outcome_log`]) for the gather's commit instead of committed here. With dedup
//! on, the key of each record the stages keep (its identity, with its global index) and
//! the keys of part `I` of the reference pools go to `M` key-bucket runs
//! ([`crate::io::key_run`]) for the dedup reduce.
//!
//! # Invariants
//! - The part's records are exactly the single run's records from the part's start to the
//!   next part's start, in the same batches, with the same outcomes (workers are pure
//!   functions of their batch).
//! - Every file of the part is complete (written, synced, under its final name) when
//!   [`run_part`] returns.

use super::config::Config;
use super::error::PipelineError;
use super::outcome_log::{OutcomeLogWriter, OUTCOME_LOG};
use super::plan::{specs, Plan};
use super::prepare::{each_reference_key, REFERENCE_BATCHES};
use super::schedule::{batch_options, drive};
use super::settings::Settings;
use super::worker::BatchOutcome;
use crate::filter::first_seen::identity;
use crate::io::batch::{Batches, InputSpec};
use crate::io::key_run::{KeyEntry, KeyRunWriter, RunInfo, REFERENCE};
use crate::io::shard_plan::ShardPlan;
use std::path::PathBuf;

/// Which part a shard task runs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PartRequest {
    /// The part, from 0.
    pub(crate) part: usize,
    /// The number of parts (`N`).
    pub(crate) parts: usize,
    /// Dedup key buckets (`M`, at least 1; unused with dedup off).
    pub(crate) buckets: u32,
}

/// What a shard task's part run planned and wrote.
pub(crate) struct PartRun {
    /// The shard plan of the input.
    pub(crate) plan: ShardPlan,
    /// The input files, then the reference pools, with their sizes.
    pub(crate) inputs: Vec<(PathBuf, u64)>,
    /// Buckets the keys went to (0: dedup off).
    pub(crate) buckets: u32,
    /// The key runs, one per bucket.
    pub(crate) runs: Vec<RunInfo>,
    /// Input records of the part.
    pub(crate) records: u64,
}

/// Runs part `req.part` of `config`'s input into its output directory (see the module).
pub(crate) fn run_part(config: &Config, req: PartRequest) -> Result<PartRun, PipelineError> {
    let settings = Settings::from_config(config);
    let plan = Plan::new(config, &settings)?;
    let out_dir = &config.out_dir;
    let out_err = PipelineError::output_in(out_dir);
    let input_specs = specs(&plan.paths, &plan.detections);
    let shard_plan = ShardPlan::new(&input_specs, batch_options(config), req.parts)?;
    let (from, to) = shard_plan
        .part(req.part)
        .ok_or_else(|| PipelineError::Shards(format!("no part {} of {}", req.part, req.parts)))?;
    // The last part takes everything the reader yields (an empty batch at the very end).
    let end = match req.part + 1 == req.parts {
        true => u64::MAX,
        false => to.next_index,
    };
    let Plan {
        paths,
        detections,
        references,
        reference_detections,
        previous,
    } = plan;
    previous.remove().map_err(&out_err)?;
    std::fs::create_dir_all(out_dir).map_err(&out_err)?;
    let buckets = if settings.dedup {
        req.buckets.max(1)
    } else {
        0
    };
    let mut keys = match buckets {
        0 => None,
        m => Some(KeyRunWriter::create(&out_dir.join("keys"), m).map_err(&out_err)?),
    };
    if let Some(w) = keys.as_mut() {
        let pools = specs(&references, &reference_detections);
        reference_part(pools, &settings, req, w).map_err(|e| match e {
            RefError::Read(e) => e,
            RefError::Write(e) => out_err(e),
        })?;
    }
    let mut log = OutcomeLogWriter::create(&out_dir.join(OUTCOME_LOG)).map_err(&out_err)?;
    let mut records = 0u64;
    drive(
        config,
        &settings,
        &detections,
        |_| Batches::resume(input_specs, batch_options(config), from),
        end,
        |batch, outcome, _, _| {
            log.append(batch, outcome).map_err(&out_err)?;
            records += outcome.records.len() as u64;
            match keys.as_mut() {
                Some(w) => append_kept_keys(w, outcome).map_err(&out_err),
                None => Ok(()),
            }
        },
    )?;
    log.finish().map_err(&out_err)?;
    let runs = match keys {
        Some(w) => w.finish().map_err(&out_err)?,
        None => Vec::new(),
    };
    let inputs = paths
        .iter()
        .chain(&references)
        .map(|p| Ok((p.clone(), std::fs::metadata(p)?.len())))
        .collect::<std::io::Result<_>>()
        .map_err(&out_err)?;
    Ok(PartRun {
        plan: shard_plan,
        inputs,
        buckets,
        runs,
        records,
    })
}

/// Appends the key of every record the stages kept (its identity, with its index).
fn append_kept_keys(keys: &mut KeyRunWriter, outcome: &BatchOutcome) -> std::io::Result<()> {
    for r in outcome.records.iter().filter(|r| r.decision.is_keep()) {
        if let Some(key) = r.dedup_key {
            keys.append(KeyEntry {
                key: identity(key),
                index: r.index,
            })?;
        }
    }
    Ok(())
}

/// Writes the keys of part `req.part` of the reference pools (cut by a plan of their own)
/// with index [`REFERENCE`].
fn reference_part(
    pools: Vec<InputSpec>,
    settings: &Settings,
    req: PartRequest,
    keys: &mut KeyRunWriter,
) -> Result<(), RefError> {
    if pools.is_empty() {
        return Ok(());
    }
    let pool_plan = ShardPlan::new(&pools, REFERENCE_BATCHES, req.parts)
        .map_err(|e| RefError::Read(e.into()))?;
    let Some((from, to)) = pool_plan.part(req.part) else {
        return Ok(());
    };
    let batches = Batches::resume(pools, REFERENCE_BATCHES, from)
        .take_while(|b| !matches!(b, Ok(b) if b.first_index >= to.next_index));
    let mut failed = None;
    each_reference_key(batches, settings, |key| {
        if failed.is_none() {
            let entry = KeyEntry {
                key: identity(key),
                index: REFERENCE,
            };
            failed = keys.append(entry).err();
        }
    })
    .map_err(RefError::Read)?;
    match failed {
        Some(e) => Err(RefError::Write(e)),
        None => Ok(()),
    }
}

/// Why the reference keys of a part could not be written: a pool unreadable, or a key run
/// not writable.
enum RefError {
    Read(PipelineError),
    Write(std::io::Error),
}

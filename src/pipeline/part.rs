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

use super::checkpoint::InputStamp;
use super::config::Config;
use super::error::PipelineError;
use super::part_output::{PartIdentity, PartOutput};
use super::plan::{specs, Plan};
use super::prepare::{each_reference_key, REFERENCE_BATCHES};
use super::schedule::{batch_options, drive};
use super::settings::Settings;
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
    /// Go on from the shard directory's checkpoint when it holds one.
    pub(crate) resume: bool,
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
    /// The input record the task went on from (a checkpoint), if it did.
    pub(crate) resumed_at: Option<u64>,
}

/// Runs part `req.part` of `config`'s input into its output directory (see the module).
pub(crate) fn run_part(config: &Config, req: PartRequest) -> Result<PartRun, PipelineError> {
    let settings = Settings::from_config(config);
    let plan = Plan::new(config, &settings)?;
    let out_dir = &config.out_dir;
    let out_err = PipelineError::output_in(out_dir);
    let input_specs = specs(&plan.paths, &plan.detections);
    let shard_plan = ShardPlan::new(&input_specs, batch_options(config.batch_records), req.parts)?;
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
    // (The caller holds the directory's lock: `cluster::shard`.)
    previous.remove().map_err(&out_err)?;
    std::fs::create_dir_all(out_dir).map_err(&out_err)?;
    let buckets = if settings.dedup {
        req.buckets.max(1)
    } else {
        0
    };
    let identity = part_identity(config, &paths, &references, req, buckets).map_err(&out_err)?;
    let mut output = PartOutput::open(config, out_dir, identity, buckets, from, req.resume)
        .map_err(|e| match e {
            Ok(why) => PipelineError::Resume {
                dir: out_dir.display().to_string(),
                why,
            },
            Err(e) => out_err(e),
        })?;
    if let (None, Some(w)) = (output.resumed_at, output.keys()) {
        let pools = specs(&references, &reference_detections);
        reference_part(pools, &settings, req, w).map_err(|e| match e {
            RefError::Read(e) => e,
            RefError::Write(e) => out_err(e),
        })?;
    }
    let start = output.resumed_at.unwrap_or(from);
    drive(
        config,
        &settings,
        &detections,
        |_| Batches::resume(input_specs, batch_options(config.batch_records), start),
        end,
        |batch, outcome, _, _| output.append(batch, outcome).map_err(&out_err),
    )?;
    let (records, resumed_at) = (output.records, output.resumed_at);
    let runs = output.finish().map_err(&out_err)?;
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
        resumed_at: resumed_at.map(|p| p.next_index),
    })
}

/// Which task of which job this is, for its checkpoints.
fn part_identity(
    config: &Config,
    paths: &[PathBuf],
    references: &[PathBuf],
    req: PartRequest,
    buckets: u32,
) -> std::io::Result<PartIdentity> {
    Ok(PartIdentity {
        version: env!("CARGO_PKG_VERSION").to_string(),
        config: config.echo(false),
        inputs: paths
            .iter()
            .chain(references)
            .map(|p| InputStamp::of(p))
            .collect::<std::io::Result<_>>()?,
        part: (req.part, req.parts, buckets),
    })
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

//! The shard stage (`posfilter run CONFIG --shard I/N`): part `I` of the input run by
//! [`crate::pipeline::part`], then `shard.json` written last ([`super::manifest`]).

use super::manifest::{InputIdentity, JobIdentity, ShardManifest, SHARD_MANIFEST};
use crate::pipeline::config::Config;
use crate::pipeline::lock_dir;
use crate::pipeline::output::{remove_if_present, write_json};
use crate::pipeline::part::{run_part, PartRequest};
use crate::pipeline::PipelineError;
use std::path::Path;

/// Which shard of how many, and the dedup key buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardSpec {
    /// This shard, from 0.
    pub shard: usize,
    /// The job's shard count (`N`).
    pub shards: usize,
    /// Dedup key buckets (`M`, at least 1).
    pub buckets: u32,
    /// Go on from the shard directory's checkpoint when it holds one, else start
    /// (`--resume-or-start`).
    pub resume: bool,
}

/// Runs shard `spec.shard` of `config` (read from `config_path`) into its output
/// directory; returns its manifest (also written there, last).
pub fn run_shard(
    config: &Config,
    config_path: &Path,
    spec: ShardSpec,
) -> Result<ShardManifest, PipelineError> {
    let out_dir = config.out_dir();
    let out_err = PipelineError::output_in(out_dir);
    // One writer per shard directory, from before anything in it is read or removed until
    // shard.json is written (two tasks given the same index: the second stops, touching
    // nothing).
    std::fs::create_dir_all(out_dir).map_err(&out_err)?;
    let purpose = format!("posfilter run --shard {}/{}", spec.shard, spec.shards);
    let _lock = lock_dir(out_dir, &purpose, config.progress)?;
    // From here on the directory is not a complete shard, whatever it held.
    remove_if_present(&out_dir.join(SHARD_MANIFEST)).map_err(&out_err)?;
    let part = run_part(
        config,
        PartRequest {
            part: spec.shard,
            parts: spec.shards,
            buckets: spec.buckets,
            resume: spec.resume,
        },
    )?;
    let working_dir = std::env::current_dir().map_err(&out_err)?;
    let manifest = ShardManifest {
        shard: spec.shard,
        shards: spec.shards,
        job: JobIdentity {
            version: env!("CARGO_PKG_VERSION").to_string(),
            config: config.echo(false),
            inputs: part
                .inputs
                .iter()
                .map(|(path, bytes)| InputIdentity {
                    path: path.display().to_string(),
                    bytes: *bytes,
                })
                .collect(),
            plan: part.plan.points.clone(),
            file_records: part.plan.file_records.clone(),
            buckets: part.buckets,
        },
        runs: part.runs,
        config_file: config_path.display().to_string(),
        working_dir: working_dir.display().to_string(),
        records: part.records,
        resumed_from: part.resumed_at,
    };
    write_json(out_dir, SHARD_MANIFEST, &manifest).map_err(&out_err)?;
    Ok(manifest)
}

//! The streaming, parallel, deterministic run (`posfilter run pipeline.toml`).
//!
//! ```text
//! inputs (io::input: mmap | zstd from the map) → io::batch::Batches (global indices, whole psv games)
//!   → at most 16 × threads batches in flight on a rayon pool, one Worker per thread (own solver + table)
//!       decode → validity → repetition → declaration → terminal / mate
//!   → Commit in input order (dedup here) → kept shards, mates, audit, rejected
//!       (every `checkpoint_records` input records: a checkpoint, see [`checkpoint`])
//!   → manifest.json, report.json, report.html, summary; input = kept + dropped + rejected checked
//! ```
//!
//! # Determinism
//! Batches are cut the same way whatever the thread count, workers are pure functions of
//! their batch (fresh solver generation per root or per batch, history rebuilt per batch)
//! and the commit applies outcomes in input order, so every output file is byte-identical
//! for 1 or N threads. The one exception is the optional wall-time guard
//! (`filter.mate.time_ms`), which turns a position `unknown` when a machine is too slow; its
//! default is far above what the node budget needs, and report.json counts its hits
//! (`unknown_timed_out`), so a run that depended on the clock says so. The verdict cache
//! (`filter.mate.cache_mb`, [`crate::mate::cache`]) shared by the workers changes no
//! decision: a repeated position gets the verdict a new search would give; only
//! report.json's hit count depends on scheduling. With
//! `filter.mate.table_scope = "batch"` a worker's table lives for a whole batch, so a
//! verdict also depends on the batch's earlier positions (an input property, the same for
//! any thread count); that is why it requires the verdict cache to be off.
//!
//! # Memory
//! At most 16 × threads batches are in flight or waiting for commit, so memory does not grow
//! with the input, dedup aside: its index ([`crate::filter::FirstSeen`]) holds 16 bytes per
//! distinct position in 256 tables at most 70 % full, reserved up front for up to 4 M keys
//! (128 MiB), each doubling on its own (so a growth adds 1/256 of the index, never a second
//! copy of all of it). The verdict cache is fixed at `cache_mb` (plus the PVs of the mates it
//! holds).

pub(crate) mod checkpoint;
pub(crate) mod commit;
pub mod config;
mod control;
mod decide;
pub(crate) mod dedup_log;
mod error;
mod games_out;
mod gather;
pub(crate) mod kept_shards;
pub(crate) mod known_dups;
pub(crate) mod outcome_log;
pub(crate) mod output;
pub(crate) mod part;
mod part_output;
pub(crate) mod plan;
pub mod preflight;
mod prepare;
pub(crate) mod previous;
pub(crate) mod progress;
mod rejected_line;
pub(crate) mod replay;
pub mod report;
mod schedule;
pub(crate) mod settings;
pub(crate) mod worker;

use crate::report::provenance::RunInfo;
use crate::report::record::{RunRecord, Sample};
use checkpoint::CHECKPOINT_FILE;
pub use checkpoint::{checkpoint_in, last_checkpoint};
use config::Config;
pub use control::{RunControl, RunProgress};
pub use decide::Decider;
use dedup_log::DEDUP_LOG_FILE;
pub use error::PipelineError;
use output::{remove_if_present, write_json};
use plan::Plan;
pub(crate) use prepare::lock_dir;
use prepare::Prepared;
use report::Report;
use settings::Settings;
use std::time::Instant;
pub use worker::{MateOut, RecordOutcome};

/// What a run of `config` would read and write, without reading the records or writing
/// anything (`posfilter run --dry-run`); fails where the run would fail before starting.
pub fn dry_run(config: &Config) -> Result<String, PipelineError> {
    let settings = Settings::from_config(config);
    Ok(Plan::new(config, &settings)?.describe(config, &settings))
}

/// Runs the pipeline; returns the report (also written to report.json, and shown in
/// report.html).
///
/// Three steps: [`prepare`] (the plan, a resumed or fresh output directory, the dedup
/// index, the commit and its checkpoints), [`schedule`] (batches through the workers and the
/// ordered commit), [`finish`] (report, manifest, page, reconciliation).
pub fn run(config: &Config) -> Result<Report, PipelineError> {
    let start = Instant::now();
    let settings = Settings::from_config(config);
    let mut prepared = prepare::prepare(config, &settings, start)?;
    let throughput = schedule::schedule(config, &settings, &mut prepared)?;
    finish(config, prepared, throughput)
}

/// Whether the run counted, in every input whose size tells its record count (uncompressed
/// binary files), that many records: fewer or more means records were skipped or read twice
/// (say, by a resume from a checkpoint that was changed), which `reconcile` cannot see.
fn read_whole(
    paths: &[std::path::PathBuf],
    detections: &[crate::io::detect::Detection],
    per_file: &[gather::FileTally],
) -> Result<(), String> {
    for ((path, d), tally) in paths.iter().zip(detections).zip(per_file) {
        let counted = tally.counts.input;
        match plan::exact_records(d) {
            Some(holds) if holds != counted => {
                return Err(format!(
                    "{} holds {holds} records, but the run counted {counted}: records were \
                     skipped or read twice; the output must not be trusted",
                    path.display()
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Writes the manifest, report.json and report.html and removes the checkpoint files once
/// every output file is in place; then checks `input = kept + dropped + rejected`.
fn finish(
    config: &Config,
    prepared: Prepared,
    throughput: Vec<Sample>,
) -> Result<Report, PipelineError> {
    let Prepared {
        paths,
        detections,
        commit,
        checkpoints,
        replaced_files,
        lock,
        ..
    } = prepared;
    let out_dir = &config.out_dir;
    let out_err = PipelineError::output_in(out_dir);
    let seconds = checkpoints.seconds();
    let gathered = &commit.gathered;
    let report = Report {
        records: commit.counts.clone(),
        tallies: commit.tallies.clone(),
        seconds,
        positions_per_second: if seconds > 0.0 {
            commit.counts.input as f64 / seconds
        } else {
            0.0
        },
        threads: config.threads.max(1),
        inputs: gather::input_summaries(&paths, &detections, &gathered.per_file),
        config: config.echo(true),
        version: env!("CARGO_PKG_VERSION").to_string(),
        replaced_files,
        resumed_from: checkpoints.resumed_from().to_vec(),
        record: RunRecord {
            run: RunInfo::now(checkpoints.started()),
            histograms: gathered.histograms.clone(),
            throughput,
            mates_vs_game_result: gathered.vs_results.clone(),
        },
    };
    let reconciled =
        report
            .records
            .reconcile()
            .and(read_whole(&paths, &detections, &gathered.per_file));
    let files_written = commit.finish().map_err(&out_err)?;
    let manifest = serde_json::json!({
        "version": report.version,
        "records": report.records,
        "files": files_written,
    });
    write_json(out_dir, "manifest.json", &manifest).map_err(&out_err)?;
    write_json(out_dir, "report.json", &report).map_err(&out_err)?;
    // The page is made from report.json as written, as `posfilter report` makes it.
    crate::report::write_run_page(out_dir)
        .map_err(|e| out_err(std::io::Error::other(e.to_string())))?;
    for name in [CHECKPOINT_FILE, DEDUP_LOG_FILE] {
        remove_if_present(&out_dir.join(name)).map_err(&out_err)?;
    }
    drop(lock);
    reconciled.map_err(PipelineError::Reconciliation)?;
    Ok(report)
}

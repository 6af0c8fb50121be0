//! The streaming, parallel, deterministic run (`posfilter run pipeline.toml`).
//!
//! ```text
//! inputs (mmap | zstd from the map) → FileReader → WorkBatch (global indices, whole psv games)
//!   → windows of 2 × threads batches → rayon pool, one Worker per thread (own solver + table)
//!       decode → validity → repetition → declaration → terminal / mate
//!   → Commit in input order (dedup here) → kept shards, mates, audit, rejected
//!   → manifest.json, report.json, summary; input = kept + dropped + rejected checked
//! ```
//!
//! # Determinism
//! Batches are cut the same way whatever the thread count, workers are pure functions of
//! their batch (fresh solver generation per root, history rebuilt per batch) and the commit
//! applies outcomes in input order, so every output file is byte-identical for 1 or N
//! threads. The one exception is the optional wall-time guard (`filter.mate.time_ms`), which
//! turns a position `unknown` when a machine is too slow; its default is far above what the
//! node budget needs.
//!
//! # Memory
//! At most one window of batches is in flight, so memory does not grow with the input
//! (dedup keys aside: 16 bytes plus hash-set overhead per kept position).

pub mod batch;
pub mod commit;
pub mod config;
pub mod input;
pub mod output;
pub mod progress;
pub mod report;
pub mod settings;
pub mod worker;

use crate::codec::{self, Format};
use commit::{Commit, CommitOptions};
use config::{Compression, Config};
use input::{FileReader, InputError, InputFile};
use progress::Progress;
use report::{InputSummary, Report};
use settings::Settings;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;
use thiserror::Error;
use worker::{BatchOutcome, Worker};

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
    /// The worker pool could not be built.
    #[error("thread pool: {0}")]
    Pool(String),
    /// The counts do not add up (a bug: the run's output must not be trusted).
    #[error("{0}")]
    Reconciliation(String),
}

/// Runs the pipeline; returns the report (also written to report.json).
pub fn run(config: &Config) -> Result<Report, PipelineError> {
    let start = Instant::now();
    let out_dir = &config.out_dir;
    let out_err = |source| PipelineError::Output {
        dir: out_dir.display().to_string(),
        source,
    };
    let explicit = settings::format_of(config.raw.input.format);
    let paths = input::expand(&config.input_paths)?;
    let files: Vec<InputFile> = paths
        .iter()
        .map(|p| InputFile::open(p, explicit))
        .collect::<Result<_, _>>()?;
    let settings = Settings::from_config(config);

    let dedup = if settings.dedup {
        Some(reference_keys(config, &settings)?)
    } else {
        None
    };
    std::fs::create_dir_all(out_dir).map_err(out_err)?;
    let mut commit = Commit::new(CommitOptions {
        out_dir,
        out_format: settings.output_format,
        shard_records: config.raw.output.shard_records,
        zstd_level: (config.raw.output.compression == Compression::Zstd)
            .then_some(config.raw.output.zstd_level),
        audit: config.raw.output.audit,
        mates: config.raw.mates.enabled.then_some(settings.mates_format),
        dedup,
        files: files.iter().map(|f| f.path.display().to_string()).collect(),
    })
    .map_err(out_err)?;

    let threads = config.threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| PipelineError::Pool(e.to_string()))?;
    // One worker per pool thread, indexed by rayon's thread index (rayon's `map_init` may
    // call its init once per job split, which would reallocate tables).
    let workers: Vec<Mutex<Worker>> = (0..threads)
        .map(|_| Mutex::new(Worker::new(&settings)))
        .collect();
    let total: Option<u64> = files.iter().map(InputFile::known_records).sum();
    let progress = Progress::new(total, config.progress);
    let window = 2 * threads;
    let mut next_index = 0u64;

    for (file_no, file) in files.iter().enumerate() {
        let mut reader = FileReader::new(file, file_no as u32)?;
        loop {
            let mut batches = Vec::with_capacity(window);
            while batches.len() < window {
                match reader.next_batch(config.raw.workers.batch_records, &mut next_index)? {
                    Some(b) => batches.push(b),
                    None => break,
                }
            }
            if batches.is_empty() {
                break;
            }
            let outcomes: Vec<BatchOutcome> = pool.install(|| {
                use rayon::prelude::*;
                batches
                    .par_iter()
                    .map(|b| {
                        let slot = rayon::current_thread_index().unwrap_or(0) % workers.len();
                        match workers[slot].lock() {
                            Ok(mut w) => w.process(b, &settings),
                            Err(poisoned) => poisoned.into_inner().process(b, &settings),
                        }
                    })
                    .collect()
            });
            for (b, o) in batches.iter().zip(outcomes) {
                let n = o.records.len() as u64;
                commit.apply(b.format, o).map_err(out_err)?;
                let c = &commit.counts;
                progress.advance(n, c.kept, c.dropped.total(), commit.unknown);
            }
        }
        if let Some((offset, bytes)) = reader.tail.take() {
            let size = file.format.record_size().unwrap_or(0);
            let reason = format!(
                "truncated record: {} bytes at the end of the file, {} needs {size}",
                bytes.len(),
                file.format
            );
            commit
                .reject_tail(next_index, file_no as u32, offset, &bytes, &reason)
                .map_err(out_err)?;
            next_index += 1;
        }
    }
    progress.finish();

    let seconds = start.elapsed().as_secs_f64();
    let inputs: Vec<InputSummary> = files
        .iter()
        .zip(&commit.per_file)
        .map(|(f, &n)| InputSummary {
            file: f.path.display().to_string(),
            format: f.format.name().to_string(),
            detected_by: f.detected_by.clone(),
            records: n,
        })
        .collect();
    let report = Report {
        records: commit.counts.clone(),
        unknown: commit.unknown,
        nodes: commit.nodes,
        seconds,
        positions_per_second: if seconds > 0.0 {
            commit.counts.input as f64 / seconds
        } else {
            0.0
        },
        threads,
        mates_written: commit.mates_written,
        move_field: commit.move_field.clone(),
        open_path_tagged: commit.open_path_tagged,
        rejected_reasons: commit.rejected_reasons.clone(),
        repetition: commit.repetition.clone(),
        inputs,
        config: serde_json::to_value(&config.raw).unwrap_or_default(),
        version: env!("CARGO_PKG_VERSION").to_string(),
    };
    let reconciled = report.records.reconcile();
    let files_written = commit.finish().map_err(out_err)?;
    let manifest = serde_json::json!({
        "version": report.version,
        "records": report.records,
        "files": files_written,
    });
    write_json(out_dir, "manifest.json", &manifest).map_err(out_err)?;
    write_json(out_dir, "report.json", &report).map_err(out_err)?;
    reconciled.map_err(PipelineError::Reconciliation)?;
    Ok(report)
}

/// Dedup keys of the reference pools (index `u64::MAX` = "from a reference pool").
fn reference_keys(
    config: &Config,
    settings: &Settings,
) -> Result<HashMap<crate::shogi::Fingerprint, u64>, PipelineError> {
    let mut keys = HashMap::new();
    if config.reference_paths.is_empty() {
        return Ok(keys);
    }
    let explicit: Option<Format> = None;
    for path in input::expand(&config.reference_paths)? {
        let file = InputFile::open(&path, explicit)?;
        let mut reader = FileReader::new(&file, 0)?;
        let mut index = 0;
        while let Some(batch) = reader.next_batch(4096, &mut index)? {
            for rec in batch.records() {
                if let Ok(d) = codec::decode(batch.format, rec.bytes) {
                    keys.insert(
                        crate::filter::dedup_key(&d.position, settings.dedup_mirror),
                        u64::MAX,
                    );
                }
            }
        }
    }
    Ok(keys)
}

/// Writes `value` as pretty JSON to `dir/name` via a temporary file.
fn write_json<T: serde::Serialize>(
    dir: &std::path::Path,
    name: &str,
    value: &T,
) -> std::io::Result<()> {
    let mut f = output::AtomicFile::create(dir, name, None)?;
    let mut bytes = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    f.write(&bytes, 1)?;
    f.finish().map(|_| ())
}

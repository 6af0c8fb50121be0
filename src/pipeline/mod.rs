//! The streaming, parallel, deterministic run (`posfilter run pipeline.toml`).
//!
//! ```text
//! inputs (io::input: mmap | zstd from the map) → io::batch::Batches (global indices, whole psv games)
//!   → at most 16 × threads batches in flight on a rayon pool, one Worker per thread (own solver + table)
//!       decode → validity → repetition → declaration → terminal / mate
//!   → Commit in input order (dedup here) → kept shards, mates, audit, rejected
//!       (every `checkpoint_records` input records: a checkpoint, see [`checkpoint`])
//!   → manifest.json, report.json, summary; input = kept + dropped + rejected checked
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

pub mod checkpoint;
pub mod commit;
pub mod config;
pub mod dedup_log;
pub mod error;
pub mod output;
pub mod plan;
pub mod preflight;
pub mod previous;
pub mod progress;
pub mod report;
pub mod settings;
pub mod worker;

use crate::codec;
use crate::io::batch::{Batch, BatchOptions, Batches, InputSpec};
use checkpoint::{Checkpoint, Checkpoints, InputStamp, CHECKPOINT_FILE};
use commit::{Commit, CommitOptions};
use config::{Compression, Config};
use dedup_log::{DedupLog, DEDUP_LOG_FILE};
pub use error::PipelineError;
use output::{remove_if_present, write_json};
use plan::Plan;
use progress::Progress;
use report::{InputSummary, Report};
use settings::Settings;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;
use worker::{BatchOutcome, Worker};

/// What a run of `config` would read and write, without reading the records or writing
/// anything (`posfilter run --dry-run`); fails where the run would fail before starting.
pub fn dry_run(config: &Config) -> Result<String, PipelineError> {
    let settings = Settings::from_config(config);
    Ok(Plan::new(config, &settings)?.describe(config, &settings))
}

/// Runs the pipeline; returns the report (also written to report.json).
pub fn run(config: &Config) -> Result<Report, PipelineError> {
    let start = Instant::now();
    let out_dir = &config.out_dir;
    let out_err = |source| PipelineError::Output {
        dir: out_dir.display().to_string(),
        source,
    };
    let settings = Settings::from_config(config);
    let plan = Plan::new(config, &settings)?;
    let stamps = input_stamps(&plan).map_err(out_err)?;
    let resumed = if config.resume {
        Some(resumable(config, &plan)?)
    } else {
        None
    };
    let total = plan.exact_records();
    // Progress counts bytes on disk: file `i` starts at `disk_start[i]` of the whole input.
    let disk_start: Vec<u64> = plan
        .detections
        .iter()
        .scan(0u64, |done, d| {
            let start = *done;
            *done += d.file_bytes;
            Some(start)
        })
        .collect();
    let disk_total = plan.disk_bytes();
    if config.progress {
        // A file that does not look like its format (probed at detection) is said before
        // the run, not only in report.json: most of its records would be rejected.
        let files = plan.paths.iter().zip(&plan.detections);
        let pools = plan.references.iter().zip(&plan.reference_detections);
        for (path, d) in files.chain(pools) {
            for note in d.reasons.iter().filter_map(|r| r.strip_prefix("warning: ")) {
                progress::warn(&format!("{}: {note}", path.display()));
            }
        }
    }
    if settings.dedup && config.progress {
        // Before the reference pools are read: they sit in the same index.
        if let Some(warning) = plan.dedup_memory_warning() {
            progress::warn(&warning);
        }
    }
    let mut dedup = if settings.dedup {
        // Growing the index re-places every key it holds; size it for the input up front
        // (uncompressed inputs tell their record count), within a bound.
        let expected = total.unwrap_or(0).min(DEDUP_RESERVE_MAX) as usize;
        Some(reference_keys(&plan, &settings, expected)?)
    } else {
        None
    };
    let Plan {
        paths,
        detections,
        previous,
        ..
    } = plan;
    let checkpoint_every = config.checkpoint_records();
    // A file of the stopped run that does not match its checkpoint.
    let damaged = |e: std::io::Error| PipelineError::Resume {
        dir: out_dir.display().to_string(),
        why: format!("{e}; run without --resume to start over"),
    };
    let replaced_files = match &resumed {
        Some(cp) => {
            // From here on the directory must not claim a complete run (a run stopped
            // after writing its manifest but before removing its checkpoint).
            for name in ["manifest.json", "report.json"] {
                remove_if_present(&out_dir.join(name)).map_err(out_err)?;
            }
            cp.replaced_files
        }
        None => {
            if config.progress && previous.unfinished() {
                progress::warn(&format!(
                    "{} holds a checkpoint of an unfinished run; starting over (`run --resume` \
                     would go on from it)",
                    out_dir.display()
                ));
            }
            previous.remove().map_err(out_err)?
        }
    };
    std::fs::create_dir_all(out_dir).map_err(out_err)?;
    let dedup_log = match (&mut dedup, &resumed) {
        (Some(index), Some(cp)) => match cp.commit.dedup_log {
            Some(mark) => Some(DedupLog::resume(out_dir, mark, index).map_err(damaged)?),
            None => None,
        },
        (Some(_), None) if checkpoint_every > 0 => {
            Some(DedupLog::create(out_dir).map_err(out_err)?)
        }
        _ => None,
    };
    let options = CommitOptions {
        out_dir,
        out_format: settings.output_format,
        shard_records: config.raw.output.shard_records,
        zstd_level: (config.raw.output.compression == Compression::Zstd)
            .then_some(config.raw.output.zstd_level),
        audit: config.raw.output.audit,
        mates: config.raw.mates.enabled.then_some(settings.mates_format),
        dedup,
        files: paths.iter().map(|p| p.display().to_string()).collect(),
        dedup_log,
    };
    let mut commit = match &resumed {
        Some(cp) => Commit::resume(options, &cp.commit).map_err(damaged)?,
        None => Commit::new(options).map_err(out_err)?,
    };
    let mut checkpoints = Checkpoints::new(config, resumed.as_ref(), stamps, replaced_files, start);

    let threads = config.threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        // df-pn recurses once per ply of the search path; give workers the headroom of a
        // main thread and more, whatever the platform default for spawned threads.
        .stack_size(64 << 20)
        .build()
        .map_err(|e| PipelineError::Pool(e.to_string()))?;
    // One worker per pool thread, indexed by rayon's thread index (rayon's `map_init` may
    // call its init once per job split, which would reallocate tables).
    let workers: Vec<Mutex<Worker>> = (0..threads)
        .map(|_| Mutex::new(Worker::new(&settings)))
        .collect();
    let progress = Progress::new(disk_total, config.progress, config.log_every);
    if let Some(cp) = &resumed {
        progress.resuming(cp.next.next_index);
    }
    let specs = paths
        .iter()
        .zip(&detections)
        .map(|(p, d)| InputSpec {
            path: p.clone(),
            format: d.format,
        })
        .collect();
    let batch_options = BatchOptions {
        records: config.batch_records(),
        align_games: true,
    };
    let mut batches = match &resumed {
        Some(cp) => Batches::resume(specs, batch_options, cp.next),
        None => Batches::new(specs, batch_options),
    };
    // Streaming ordered commit: up to `limit` batches are in flight or waiting; finished
    // batches wait in `pending` until every earlier one is committed, so output order and
    // dedup are those of the input whatever finishes first, and no worker waits for a slow
    // batch of another (fd's bounded channel plus reorder buffer).
    let limit = 16 * threads;
    let tick = |n: u64| progress.tick(n);
    // Committed outcomes go back to the workers through `spare` (allocations reused); it
    // never holds more than the `limit` batches that can be in flight.
    let spare: Mutex<Vec<BatchOutcome>> = Mutex::new(Vec::new());
    let take_spare = || match spare.lock() {
        Ok(mut s) => s.pop().unwrap_or_default(),
        Err(poisoned) => poisoned.into_inner().pop().unwrap_or_default(),
    };
    let process = |b: &Batch| {
        let slot = rayon::current_thread_index().unwrap_or(0) % workers.len();
        let outcome = take_spare();
        match workers[slot].lock() {
            Ok(mut w) => w.process(b, &settings, &tick, outcome),
            Err(poisoned) => poisoned.into_inner().process(b, &settings, &tick, outcome),
        }
    };
    pool.in_place_scope(|scope| -> Result<(), PipelineError> {
        let (done_tx, done_rx) = std::sync::mpsc::channel::<(u64, Batch, BatchOutcome)>();
        let mut pending: BTreeMap<u64, (Batch, BatchOutcome)> = BTreeMap::new();
        let (mut issued, mut committed, mut exhausted) = (0u64, 0u64, false);
        loop {
            while !exhausted && issued - committed < limit as u64 {
                match batches.next() {
                    Some(batch) => {
                        let batch = batch?;
                        let (tx, seq, process) = (done_tx.clone(), issued, &process);
                        scope.spawn(move |_| {
                            let outcome = process(&batch);
                            // The receiver outlives every task of the scope.
                            let _ = tx.send((seq, batch, outcome));
                        });
                        issued += 1;
                    }
                    None => exhausted = true,
                }
            }
            if committed == issued {
                return Ok(());
            }
            let Ok((seq, batch, outcome)) = done_rx.recv() else {
                return Err(PipelineError::Pool(
                    "a worker stopped without a result".into(),
                ));
            };
            pending.insert(seq, (batch, outcome));
            while let Some((batch, mut outcome)) = pending.remove(&committed) {
                commit.apply(batch.format, &outcome).map_err(out_err)?;
                if checkpoints.due(batch.next) {
                    checkpoints
                        .take(out_dir, &mut commit, batch.next)
                        .map_err(out_err)?;
                }
                let disk_done = disk_start.get(batch.file).copied().unwrap_or(0) + batch.disk_end;
                outcome.recycle();
                if let Ok(mut s) = spare.lock() {
                    s.push(outcome);
                }
                batches.recycle(batch);
                committed += 1;
                let c = &commit.counts;
                progress.committed(
                    disk_done,
                    c.kept,
                    c.dropped.total(),
                    commit.tallies.unknown_kept,
                );
            }
        }
    })?;
    progress.finish();

    let seconds = checkpoints.seconds();
    let inputs: Vec<InputSummary> = paths
        .iter()
        .zip(&detections)
        .zip(&commit.per_file)
        .map(|((p, d), &n)| InputSummary {
            file: p.display().to_string(),
            format: d.format.name().to_string(),
            detected_by: d.reasons.join("; "),
            records: n,
        })
        .collect();
    let report = Report {
        records: commit.counts.clone(),
        tallies: commit.tallies.clone(),
        seconds,
        positions_per_second: if seconds > 0.0 {
            commit.counts.input as f64 / seconds
        } else {
            0.0
        },
        threads,
        inputs,
        config: serde_json::to_value(&config.raw).unwrap_or_default(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        replaced_files,
        resumed_from: checkpoints.resumed_from().to_vec(),
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
    for name in [CHECKPOINT_FILE, DEDUP_LOG_FILE] {
        remove_if_present(&out_dir.join(name)).map_err(out_err)?;
    }
    reconciled.map_err(PipelineError::Reconciliation)?;
    Ok(report)
}

/// The stamps of the inputs and reference pools, for checkpoints.
fn input_stamps(plan: &Plan) -> std::io::Result<Vec<InputStamp>> {
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
) -> Result<commit::DedupIndex, PipelineError> {
    let mut keys = commit::DedupIndex::with_capacity(expected);
    let specs = plan
        .references
        .iter()
        .zip(&plan.reference_detections)
        .map(|(path, d)| InputSpec {
            path: path.clone(),
            format: d.format,
        })
        .collect();
    for batch in Batches::new(
        specs,
        BatchOptions {
            records: 4096,
            align_games: false,
        },
    ) {
        let batch = batch?;
        if let Some(e) = batch.unreadable() {
            // A pool read only in part would let its other positions through as new.
            return Err(e.into());
        }
        for rec in batch.iter() {
            if let Ok(d) = codec::decode(batch.format, rec.bytes) {
                let key = crate::filter::dedup_key(&d.position, settings.dedup_mirror);
                keys.first_or_insert(key, u64::MAX);
            }
        }
    }
    Ok(keys)
}

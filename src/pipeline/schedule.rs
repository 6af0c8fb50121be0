//! The second step of a run: batches through the workers and the ordered commit.
//!
//! Up to `16 × threads` batches are in flight or waiting for commit. Finished batches wait in
//! a reorder buffer until every earlier one is committed, so output order and dedup are those
//! of the input whatever finishes first, and no worker waits for a slow batch of another
//! (fd's bounded channel plus reorder buffer).
//!
//! # Invariants
//! - One [`Worker`] per pool thread, indexed by rayon's thread index (rayon's `map_init` may
//!   call its init once per job split, which would reallocate tables); no rayon call inside a
//!   worker.
//! - Batches are committed in their input order, each exactly once; a checkpoint follows the
//!   commit of the batch that makes it due.

use super::config::Config;
use super::error::PipelineError;
use super::prepare::Prepared;
use super::progress::Progress;
use super::settings::Settings;
use super::worker::{BatchOutcome, Worker};
use crate::io::batch::{Batch, BatchOptions, Batches};
use crate::report::record::Sample;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Batches in flight or waiting for commit, per worker thread.
const IN_FLIGHT_PER_THREAD: usize = 16;

/// Runs every batch of the input through the workers and commits them in order; returns
/// the throughput samples taken at the commits.
pub(super) fn schedule(
    config: &Config,
    settings: &Settings,
    run: &mut Prepared,
) -> Result<Vec<Sample>, PipelineError> {
    let threads = config.threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        // df-pn recurses once per ply of the search path; give workers the headroom of a
        // main thread and more, whatever the platform default for spawned threads.
        .stack_size(64 << 20)
        .build()
        .map_err(|e| PipelineError::Pool(e.to_string()))?;
    let workers: Vec<Mutex<Worker>> = (0..threads)
        .map(|_| Mutex::new(Worker::new(settings)))
        .collect();
    // Progress counts bytes on disk: file `i` starts at `disk_start[i]` of the whole input.
    let disk_start: Vec<u64> = run
        .detections
        .iter()
        .scan(0u64, |done, d| {
            let start = *done;
            *done += d.file_bytes;
            Some(start)
        })
        .collect();
    let disk_total = run.detections.iter().map(|d| d.file_bytes).sum();
    let progress = Progress::new(disk_total, config.progress, config.log_every);
    let mut batches = batches(config, run, &progress);
    let tick = |n: u64| progress.tick(n);
    // Committed outcomes go back to the workers through `spare` (allocations reused); it
    // never holds more than the batches that can be in flight.
    let spare: Mutex<Vec<BatchOutcome>> = Mutex::new(Vec::new());
    let process = |b: &Batch| {
        let slot = rayon::current_thread_index().unwrap_or(0) % workers.len();
        let outcome = match spare.lock() {
            Ok(mut s) => s.pop().unwrap_or_default(),
            Err(poisoned) => poisoned.into_inner().pop().unwrap_or_default(),
        };
        match workers[slot].lock() {
            Ok(mut w) => w.process(b, settings, &tick, outcome),
            Err(poisoned) => poisoned.into_inner().process(b, settings, &tick, outcome),
        }
    };
    let limit = (IN_FLIGHT_PER_THREAD * threads) as u64;
    pool.in_place_scope(|scope| {
        in_order(
            scope,
            &mut batches,
            &process,
            limit,
            |batch, mut outcome| {
                let disk_done = disk_start.get(batch.file).copied().unwrap_or(0) + batch.disk_end;
                commit_batch(config, run, &batch, &outcome, &progress, disk_done)?;
                outcome.recycle();
                if let Ok(mut s) = spare.lock() {
                    s.push(outcome);
                }
                Ok(batch)
            },
        )
    })?;
    Ok(progress.finish(run.commit.counts.input))
}

/// The input's batches, from the checkpoint's point when the run is resumed.
fn batches(config: &Config, run: &Prepared, progress: &Progress) -> Batches {
    let specs = super::plan::specs(&run.paths, &run.detections);
    let options = BatchOptions {
        records: config.batch_records,
        align_games: true,
    };
    match &run.resumed {
        Some(cp) => {
            progress.resuming(cp.next.next_index);
            Batches::resume(specs, options, cp.next)
        }
        None => Batches::new(specs, options),
    }
}

/// Spawns `process` on the batches of `batches` with at most `limit` in flight or waiting,
/// and hands each outcome to `commit` in input order; `commit` gives the batch back for its
/// buffer to be reused.
fn in_order<'s, P, C>(
    scope: &rayon::Scope<'s>,
    batches: &mut Batches,
    process: &'s P,
    limit: u64,
    mut commit: C,
) -> Result<(), PipelineError>
where
    P: Fn(&Batch) -> BatchOutcome + Sync,
    C: FnMut(Batch, BatchOutcome) -> Result<Batch, PipelineError>,
{
    let (done_tx, done_rx) = std::sync::mpsc::channel::<(u64, Batch, BatchOutcome)>();
    let mut pending: BTreeMap<u64, (Batch, BatchOutcome)> = BTreeMap::new();
    let (mut issued, mut committed, mut exhausted) = (0u64, 0u64, false);
    loop {
        while !exhausted && issued - committed < limit {
            let Some(batch) = batches.next() else {
                exhausted = true;
                break;
            };
            let batch = batch?;
            let (tx, seq) = (done_tx.clone(), issued);
            scope.spawn(move |_| {
                let outcome = process(&batch);
                // The receiver outlives every task of the scope.
                let _ = tx.send((seq, batch, outcome));
            });
            issued += 1;
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
        while let Some((batch, outcome)) = pending.remove(&committed) {
            let batch = commit(batch, outcome)?;
            batches.recycle(batch);
            committed += 1;
        }
    }
}

/// Commits one batch in input order, takes a checkpoint if one is due after it, and reports
/// the progress (`disk_done` bytes of the input on disk read).
fn commit_batch(
    config: &Config,
    run: &mut Prepared,
    batch: &Batch,
    outcome: &BatchOutcome,
    progress: &Progress,
    disk_done: u64,
) -> Result<(), PipelineError> {
    let out_err = PipelineError::output_in(&config.out_dir);
    run.commit.apply(batch.format, outcome).map_err(&out_err)?;
    if run.checkpoints.due(batch.next) {
        run.checkpoints
            .take(&config.out_dir, &mut run.commit, batch.next)
            .map_err(&out_err)?;
    }
    let c = &run.commit.counts;
    let unknown = run.commit.tallies.unknown_kept;
    progress.committed(disk_done, [c.input, c.kept, c.dropped.total(), unknown]);
    Ok(())
}

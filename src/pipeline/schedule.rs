//! The second step of a run: batches through the workers and the ordered commit.
//!
//! Up to `16 × threads` batches are in flight or waiting for commit. Finished batches wait in
//! a reorder buffer until every earlier one is committed, so output order and dedup are those
//! of the input whatever finishes first, and no worker waits for a slow batch of another
//! (fd's bounded channel plus reorder buffer). The same [`Crew`] runs the records of a
//! [`super::Decider`].
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
use crate::io::detect::Detection;
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
    let crew = Crew::new(config.threads, settings)?;
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
    let progress = Progress::new(disk_total, config.progress, config.log_every)
        .watched(config.control.clone(), disk_total);
    let mut batches = batches(config, run, &progress);
    let tick = |n: u64| progress.tick(n);
    let process = |b: &Batch| crew.work(|w, outcome| w.process(b, settings, &tick, outcome));
    crew.in_order(&mut batches, &process, |batch, outcome| {
        let disk_done = disk_start.get(batch.file).copied().unwrap_or(0) + batch.disk_end;
        commit_batch(config, run, &batch, &outcome, &progress, disk_done)?;
        crew.give_back(outcome);
        Ok(batch)
    })?;
    Ok(progress.finish(run.commit.counts.input))
}

/// A rayon pool with one [`Worker`] per thread, and the outcomes of committed batches kept
/// for reuse: what runs the stages for a run and for a [`super::Decider`].
pub(super) struct Crew {
    pool: rayon::ThreadPool,
    workers: Vec<Mutex<Worker>>,
    /// Committed outcomes go back to the workers through `spare` (allocations reused); it
    /// never holds more than the batches that can be in flight.
    spare: Mutex<Vec<BatchOutcome>>,
}

/// Where [`Crew::in_order`] takes its pieces of work from: the run's [`Batches`], or a
/// decider's records in memory.
pub(super) trait Feed {
    /// One piece of work (a batch).
    type Piece: Send + 'static;
    /// The next piece, `None` after the last.
    fn next_piece(&mut self) -> Option<Result<Self::Piece, PipelineError>>;
    /// A committed piece back, for its buffers to be reused.
    fn recycle(&mut self, piece: Self::Piece);
}

impl Feed for Batches {
    type Piece = Batch;

    fn next_piece(&mut self) -> Option<Result<Batch, PipelineError>> {
        self.next().map(|b| b.map_err(PipelineError::from))
    }

    fn recycle(&mut self, batch: Batch) {
        Batches::recycle(self, batch);
    }
}

impl Crew {
    /// `threads` workers (at least one) with `settings`, on a pool of their own.
    pub(super) fn new(threads: usize, settings: &Settings) -> Result<Crew, PipelineError> {
        let threads = threads.max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            // df-pn recurses once per ply of the search path; give workers the headroom of a
            // main thread and more, whatever the platform default for spawned threads.
            .stack_size(64 << 20)
            .build()
            .map_err(|e| PipelineError::Pool(e.to_string()))?;
        let workers = (0..threads)
            .map(|_| Mutex::new(Worker::new(settings)))
            .collect();
        Ok(Crew {
            pool,
            workers,
            spare: Mutex::new(Vec::new()),
        })
    }

    /// Runs `work` with the calling pool thread's worker and an outcome to fill (a reused
    /// one when there is one).
    pub(super) fn work(
        &self,
        work: impl FnOnce(&mut Worker, BatchOutcome) -> BatchOutcome,
    ) -> BatchOutcome {
        let slot = rayon::current_thread_index().unwrap_or(0) % self.workers.len();
        let outcome = match self.spare.lock() {
            Ok(mut s) => s.pop().unwrap_or_default(),
            Err(poisoned) => poisoned.into_inner().pop().unwrap_or_default(),
        };
        match self.workers[slot].lock() {
            Ok(mut w) => work(&mut w, outcome),
            Err(poisoned) => work(&mut poisoned.into_inner(), outcome),
        }
    }

    /// Gives a committed outcome back for reuse.
    pub(super) fn give_back(&self, mut outcome: BatchOutcome) {
        outcome.recycle();
        if let Ok(mut s) = self.spare.lock() {
            s.push(outcome);
        }
    }

    /// Runs `process` on the pool over the pieces of `feed`, at most
    /// [`IN_FLIGHT_PER_THREAD`] per thread in flight or waiting, and hands each outcome to
    /// `commit` on the calling thread in input order.
    pub(super) fn in_order<F, P, C>(
        &self,
        feed: &mut F,
        process: &P,
        commit: C,
    ) -> Result<(), PipelineError>
    where
        F: Feed,
        P: Fn(&F::Piece) -> BatchOutcome + Sync,
        C: FnMut(F::Piece, BatchOutcome) -> Result<F::Piece, PipelineError>,
    {
        let limit = (IN_FLIGHT_PER_THREAD * self.workers.len()) as u64;
        self.pool
            .in_place_scope(|scope| in_order(scope, feed, process, limit, commit))
    }
}

/// How a run cuts its input into batches of `batch_records` (a shard task and the in-memory
/// decider cut the same way).
pub(crate) fn batch_options(batch_records: usize) -> BatchOptions {
    BatchOptions {
        records: batch_records,
        align_games: true,
    }
}

/// Runs the batches `open` gives (stopping before the first that starts at or past record
/// `end`) through a [`Crew`] and hands each outcome to `commit` in input order, with the
/// progress and the bytes of the input on disk read so far: a shard task's part.
pub(super) fn drive<O, C>(
    config: &Config,
    settings: &Settings,
    detections: &[Detection],
    open: O,
    end: u64,
    mut commit: C,
) -> Result<(), PipelineError>
where
    O: FnOnce(&Progress) -> Batches,
    C: FnMut(&Batch, &BatchOutcome, &Progress, u64) -> Result<(), PipelineError>,
{
    let crew = Crew::new(config.threads, settings)?;
    let disk_start: Vec<u64> = detections
        .iter()
        .scan(0u64, |done, d| {
            let start = *done;
            *done += d.file_bytes;
            Some(start)
        })
        .collect();
    let disk_total = detections.iter().map(|d| d.file_bytes).sum();
    let progress = Progress::new(disk_total, config.progress, config.log_every)
        .watched(config.control.clone(), disk_total);
    let mut feed = Until {
        batches: open(&progress),
        end,
    };
    let tick = |n: u64| progress.tick(n);
    let process = |b: &Batch| crew.work(|w, outcome| w.process(b, settings, &tick, outcome));
    crew.in_order(&mut feed, &process, |batch, outcome| {
        if config.control.as_ref().is_some_and(|c| c.stopped()) {
            return Err(PipelineError::Interrupted);
        }
        let disk_done = disk_start.get(batch.file).copied().unwrap_or(0) + batch.disk_end;
        commit(&batch, &outcome, &progress, disk_done)?;
        crew.give_back(outcome);
        Ok(batch)
    })?;
    progress.finish(0);
    Ok(())
}

/// The batches of `batches` that start before record `end` (a shard task's part).
struct Until {
    batches: Batches,
    end: u64,
}

impl Feed for Until {
    type Piece = Batch;

    fn next_piece(&mut self) -> Option<Result<Batch, PipelineError>> {
        match self.batches.next_piece()? {
            Ok(b) if b.first_index >= self.end => None,
            other => Some(other),
        }
    }

    fn recycle(&mut self, batch: Batch) {
        self.batches.recycle(batch);
    }
}

/// The input's batches, from the checkpoint's point when the run is resumed.
fn batches(config: &Config, run: &Prepared, progress: &Progress) -> Batches {
    let specs = super::plan::specs(&run.paths, &run.detections);
    let options = batch_options(config.batch_records);
    match &run.resumed {
        Some(cp) => {
            progress.resuming(cp.next.next_index);
            Batches::resume(specs, options, cp.next)
        }
        None => Batches::new(specs, options),
    }
}

/// Spawns `process` on the pieces of `feed` with at most `limit` in flight or waiting,
/// and hands each outcome to `commit` in input order; `commit` gives the piece back for its
/// buffer to be reused.
fn in_order<'s, F, P, C>(
    scope: &rayon::Scope<'s>,
    feed: &mut F,
    process: &'s P,
    limit: u64,
    mut commit: C,
) -> Result<(), PipelineError>
where
    F: Feed,
    P: Fn(&F::Piece) -> BatchOutcome + Sync,
    C: FnMut(F::Piece, BatchOutcome) -> Result<F::Piece, PipelineError>,
{
    let (done_tx, done_rx) = std::sync::mpsc::channel::<(u64, F::Piece, BatchOutcome)>();
    let mut pending: BTreeMap<u64, (F::Piece, BatchOutcome)> = BTreeMap::new();
    let (mut issued, mut committed, mut exhausted) = (0u64, 0u64, false);
    loop {
        while !exhausted && issued - committed < limit {
            let Some(piece) = feed.next_piece() else {
                exhausted = true;
                break;
            };
            let piece = piece?;
            let (tx, seq) = (done_tx.clone(), issued);
            scope.spawn(move |_| {
                let outcome = process(&piece);
                // The receiver outlives every task of the scope.
                let _ = tx.send((seq, piece, outcome));
            });
            issued += 1;
        }
        if committed == issued {
            return Ok(());
        }
        let Ok((seq, piece, outcome)) = done_rx.recv() else {
            return Err(PipelineError::Pool(
                "a worker stopped without a result".into(),
            ));
        };
        pending.insert(seq, (piece, outcome));
        while let Some((piece, outcome)) = pending.remove(&committed) {
            let piece = commit(piece, outcome)?;
            feed.recycle(piece);
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
    if config.control.as_ref().is_some_and(|c| c.stopped()) {
        // Workers leave their batches unfinished once stopped: commit none.
        return Err(PipelineError::Interrupted);
    }
    let out_err = PipelineError::output_in(&config.out_dir);
    run.commit.apply(batch.format, outcome).map_err(&out_err)?;
    run.commit.tallies.hcpe_games_inferred += outcome.hcpe_games;
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

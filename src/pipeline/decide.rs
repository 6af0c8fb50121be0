//! The per-record stages of a run for records held in memory (what a Python binding's
//! `decide` needs): the same settings, stages, batches, workers and dedup as [`super::run`],
//! without files.
//!
//! # Invariants
//! - A record gets the decision a run with the same `[filter]` and `[workers]` settings gives
//!   it when the records of each `decide` call are one input file of that run, in call order:
//!   dedup carries over from call to call as from file to file, psv and hcpe games and their
//!   history do not (a run starts a game at each file).
//! - A call's records are cut into batches by the run's own rule for a file
//!   ([`CutRule`]: `workers.batch_records`, a psv or hcpe batch only where a game starts),
//!   decided on `workers.threads` workers (the run's [`Crew`]) and committed in input order,
//!   so the outcomes are the same for any thread count.
//! - Record indices count from 0 over all calls; a duplicate names the index of its first
//!   record.
//! - Once [`Decider::stop_flag`] is set, a call stops within a record (a search within 1,024
//!   nodes) and hands out no more outcomes; the decider's dedup then holds part of the call.

use super::commit::duplicate_of;
use super::config::{self, Config, ConfigError, RawConfig};
use super::error::PipelineError;
use super::schedule::{batch_options, Crew, Feed};
use super::settings::Settings;
use super::worker::RecordOutcome;
use crate::codec::Format;
use crate::filter::{Decision, DropReason, FirstSeen};
use crate::io::batch::{starts_new_game, CutRule, RecordRef};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Decides records in memory as a run would (see the module doc).
pub struct Decider {
    settings: Settings,
    /// The pool and its workers (each with its solver and table), kept between calls.
    crew: Crew,
    /// Records per batch, as a run's.
    batch_records: usize,
    /// Keys of the positions kept so far (with dedup on).
    seen: Option<FirstSeen>,
    /// Index of the next record.
    next: u64,
    /// Set to stop (polled by the workers and their solvers).
    abort: Arc<AtomicBool>,
}

impl Decider {
    /// A decider with `raw`'s `[filter]` stages and `[workers]` threads (0: every core),
    /// table and batch size, and `output.keep_moveless_hcpe` (hcpe records are decided as
    /// a run writing them as hcpe would; the other inputs and outputs play no part); an
    /// error names a bad key.
    pub fn new(raw: &RawConfig) -> Result<Decider, ConfigError> {
        Config::check_stages(raw)?;
        let mates = raw
            .mates
            .enabled
            .then(|| raw.mates.format.format())
            .flatten();
        let abort = Arc::new(AtomicBool::new(false));
        let settings = Settings {
            abort: Some(abort.clone()),
            drop_moveless_hcpe: !raw.output.keep_moveless_hcpe,
            ..Settings::new(&raw.filter, raw.workers.table_mb, None, mates)
        };
        let threads = config::worker_threads(raw.workers.threads);
        let crew = Crew::new(threads, &settings).map_err(|e| ConfigError::Value {
            path: PathBuf::new(),
            line: None,
            key: "workers.threads",
            reason: format!("cannot start {threads} worker threads: {e}"),
        })?;
        Ok(Decider {
            crew,
            batch_records: config::batch_records(raw),
            seen: settings.dedup.then(|| FirstSeen::with_capacity(0)),
            settings,
            next: 0,
            abort,
        })
    }

    /// The flag that stops the decider (from any thread); it stays set until cleared.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.abort.clone()
    }

    /// Decides `records` (each the bytes of one record of `format`; a text record without
    /// its newline): one outcome each, in order (fewer only when stopped).
    pub fn decide(&mut self, format: Format, records: &[&[u8]]) -> Vec<RecordOutcome> {
        let mut decided = Vec::with_capacity(records.len());
        // Only a stop ends a call early; `decided` then holds what was committed before it.
        let _ = self.decide_each(format, records, |r| decided.push(r));
        decided
    }

    /// Decides `records` as [`Decider::decide`] does and hands each outcome to `each` in
    /// input order as its batch is committed, so that memory holds only the batches in
    /// flight. Fails with [`PipelineError::Interrupted`] when stopped.
    pub fn decide_each(
        &mut self,
        format: Format,
        records: &[&[u8]],
        mut each: impl FnMut(RecordOutcome),
    ) -> Result<(), PipelineError> {
        let first = self.next;
        self.next += records.len() as u64;
        let (settings, crew, abort) = (&self.settings, &self.crew, &self.abort);
        let seen = &mut self.seen;
        let process = |range: &Range<usize>| {
            crew.work(|worker, mut outcome| {
                outcome.recycle();
                let refs = (range.clone()).map(|i| RecordRef {
                    index: first + i as u64,
                    offset: 0,
                    bytes: records[i],
                    new_game: starts_new_game(
                        format,
                        i.checked_sub(1).map(|j| records[j]),
                        records[i],
                    ),
                });
                worker.decide_all(format, 0, refs, None, settings, &|_| {}, &mut outcome);
                outcome
            })
        };
        let opts = batch_options(self.batch_records);
        let mut cuts = Cuts {
            rule: CutRule::new(format, format.record_size().unwrap_or(0), opts),
            records,
            at: 0,
        };
        crew.in_order(&mut cuts, &process, |range, mut outcome| {
            if abort.load(Ordering::Relaxed) {
                // Workers leave their batches unfinished once stopped: commit none.
                return Err(PipelineError::Interrupted);
            }
            for mut r in outcome.records.drain(..) {
                if let (Some(seen), Some(key), true) =
                    (seen.as_mut(), r.dedup_key, r.decision.is_keep())
                {
                    if duplicate_of(seen, key, r.index).is_some() {
                        r.decision = Decision::Drop(DropReason::Duplicate);
                    }
                }
                each(r);
            }
            crew.give_back(outcome);
            Ok(range)
        })
    }
}

/// A call's records cut into batches as a run cuts a file (by the reader's [`CutRule`]).
struct Cuts<'a> {
    rule: CutRule,
    records: &'a [&'a [u8]],
    /// The first record of the next batch.
    at: usize,
}

impl Feed for Cuts<'_> {
    type Piece = Range<usize>;

    fn next_piece(&mut self) -> Option<Result<Range<usize>, PipelineError>> {
        if self.at == self.records.len() {
            return None;
        }
        let end = self.rule.end_in(self.records, self.at);
        let piece = self.at..end;
        self.at = end;
        Some(Ok(piece))
    }

    fn recycle(&mut self, _: Range<usize>) {}
}

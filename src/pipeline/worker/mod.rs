//! One worker per thread: decodes a batch's records and runs the per-position stages
//! (validity → repetition → declaration → terminal / mate) with its own solver and table.
//! Dedup is not decided here but in the ordered commit; the worker only computes the key.
//! `stages.rs` holds one function per stage, `outcome.rs` what they decide, `games.rs` the
//! path of the game formats (a game decoded once, its positions decided in order).
//!
//! # Invariants
//! - `process` is a pure function of the batch and the settings: the solver starts each root
//!   on a fresh table generation (or, with `table_scope = "batch"`, each batch) and the game
//!   history is rebuilt from the batch, so the outcome never depends on which batches this
//!   worker saw before (thread-count independence).
//! - Every input record yields exactly one [`RecordOutcome`], in input order (unless the
//!   run is stopped, `control.rs`: the worker then leaves the batch at the next record, and
//!   the run commits nothing more).

mod games;
mod outcome;
mod stages;

pub(crate) use outcome::{BatchOutcome, GameOut, RecordExtra};
pub use outcome::{MateOut, RecordOutcome};

use super::settings::Settings;
use crate::codec::game::Game;
use crate::codec::{self, Decoded, Format};
use crate::filter::{GameHistory, RejectReason};
use crate::io::batch::{Batch, RecordRef, MAX_LINE};
use crate::mate::Solver;
use std::ops::ControlFlow;
use std::sync::atomic::Ordering;

/// A worker's private state: the solver (table allocated once) and scratch.
pub(crate) struct Worker {
    solver: Option<Solver>,
    history: GameHistory,
    /// The records being decided (two: binary records are decoded in pairs), decoded in place
    /// (the same two positions are reused for every record).
    decoded: [Decoded; 2],
    /// Game formats: the game being decided (kept to reuse its allocations).
    game: Option<Game>,
    /// hcpe: the previous record's position and best move, when it decoded (the chain of
    /// best moves that makes consecutive records one game, `codec::game::infer`).
    chain: Option<(crate::shogi::Position, crate::shogi::Move)>,
    /// hcpe: games inferred in the batch being decided.
    hcpe_games: u64,
}

/// Records between two calls of the progress tick.
const TICK_EVERY: u64 = 64;

impl Worker {
    /// A worker with a solver of `table_mb` MiB if the mate stage is on.
    pub(crate) fn new(settings: &Settings) -> Worker {
        Worker {
            solver: settings.mate.as_ref().map(|m| {
                let mut solver = Solver::new(m.table_mb);
                solver.set_reuse(m.table_per_batch);
                solver.set_abort(settings.abort.clone());
                solver
            }),
            history: GameHistory::new(),
            decoded: Default::default(),
            game: None,
            chain: None,
            hcpe_games: 0,
        }
    }

    /// Decides every record of `batch` into `outcome` (emptied first; a recycled one keeps
    /// its allocations, see [`BatchOutcome::recycle`]).
    /// `tick(n)` is called every few records with the number decided since the last call.
    pub(crate) fn process(
        &mut self,
        batch: &Batch,
        settings: &Settings,
        tick: &(dyn Fn(u64) + Sync),
        mut outcome: BatchOutcome,
    ) -> BatchOutcome {
        outcome.recycle();
        outcome.records.reserve(batch.len());
        outcome.out.reserve(batch.bytes.len());
        if let Some(e) = batch.unreadable() {
            // The rest of a broken stream: one rejected record, and the run goes on.
            for rec in batch.iter() {
                let reason = RejectReason::Unreadable(e.to_string());
                let r = RecordOutcome::new().reject(reason, &[], false);
                outcome.records.push(r.at(&rec, batch.file));
            }
            tick(1);
            return outcome;
        }
        if batch.format.is_game() {
            self.decide_games(batch, settings, tick, &mut outcome);
            return outcome;
        }
        // Only the first MAX_LINE bytes of an overlong last line were read.
        let last_index = (batch.first_index + batch.len() as u64).saturating_sub(1);
        let overlong = batch.overlong.map(|len| (last_index, len));
        let records = batch.iter();
        self.decide_all(
            batch.format,
            batch.file,
            records,
            overlong,
            settings,
            tick,
            &mut outcome,
        );
        outcome.hcpe_games = std::mem::take(&mut self.hcpe_games);
        outcome
    }

    /// Decides `records` (of one game sequence: the history and, with
    /// `table_scope = "batch"`, the solver's table start afresh) into `outcome`, in order.
    /// `overlong`: the index and full length of a record that holds only the first
    /// [`MAX_LINE`] bytes of its line.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn decide_all<'a>(
        &mut self,
        format: Format,
        file: usize,
        mut records: impl Iterator<Item = RecordRef<'a>>,
        overlong: Option<(u64, u64)>,
        settings: &Settings,
        tick: &(dyn Fn(u64) + Sync),
        outcome: &mut BatchOutcome,
    ) {
        self.start_sequence(settings);
        let mut since_tick = 0;
        // Binary records are decoded two at a time (interleaved: faster), then decided one
        // by one in input order.
        let pairs = !format.is_text();
        let abort = settings.abort.as_deref();
        while let Some(first) = records.next() {
            if abort.is_some_and(|a| a.load(Ordering::Relaxed)) {
                break; // the run stops and commits nothing more (`control.rs`)
            }
            if let Some((_, len)) = overlong.filter(|&(at, _)| at == first.index) {
                // Rejected, never decoded: a USI line cut short could read as another,
                // valid record.
                let why = format!(
                    "line of {len} bytes, longer than any {format} record can be ({MAX_LINE} at \
                     most)"
                );
                let reason = RejectReason::Malformed(why);
                let r = RecordOutcome::new().reject(reason, first.bytes, format.is_text());
                outcome.records.push(r.at(&first, file));
                tick(1);
                continue;
            }
            let second = if pairs { records.next() } else { None };
            let decoded = match &second {
                Some(next) => {
                    let [a, b] = &mut self.decoded;
                    codec::decode_pair_into(format, [first.bytes, next.bytes], [a, b])
                }
                None => [
                    codec::decode_into(format, first.bytes, &mut self.decoded[0]),
                    Ok(()),
                ],
            };
            let records = std::iter::once(first).chain(second).zip(decoded);
            for (slot, (rec, decoded)) in records.enumerate() {
                since_tick += 1;
                if since_tick == TICK_EVERY {
                    tick(since_tick);
                    since_tick = 0;
                }
                let r = self.decide(slot, decoded, format, rec.bytes, settings, &mut outcome.out);
                outcome.records.push(r.at(&rec, file));
            }
        }
        tick(since_tick);
    }

    /// Starts a sequence of records (a batch): an empty history and, with
    /// `table_scope = "batch"`, a fresh solver table.
    fn start_sequence(&mut self, settings: &Settings) {
        self.history.clear();
        self.chain = None;
        self.hcpe_games = 0;
        if let (Some(solver), Some(true)) = (
            &mut self.solver,
            settings.mate.as_ref().map(|m| m.table_per_batch),
        ) {
            // A batch sees what its own earlier positions left in the table, never what an
            // earlier batch left (per position, `solve` starts each root afresh).
            solver.forget();
        }
    }

    /// Runs the stages on one record, decoded (`decoded`) into `self.decoded[slot]`; the first
    /// stage that decides ends it (see `stages.rs`).
    fn decide(
        &mut self,
        slot: usize,
        decoded: Result<(), codec::CodecError>,
        format: Format,
        bytes: &[u8],
        s: &Settings,
        out: &mut Vec<u8>,
    ) -> RecordOutcome {
        if format == Format::Hcpe {
            self.hcpe_games += self.follow_chain(slot, decoded.is_ok()) as u64;
        }
        let mut record = stages::Record {
            decoded: &mut self.decoded[slot],
            format,
            bytes,
        };
        let steps = || -> stages::Step {
            let r = stages::validity(RecordOutcome::new(), decoded, &record, s)?;
            let r = stages::repetition(r, &mut self.history, &record, s.repetition)?;
            let r = stages::declaration(r, &record, s.declaration.as_ref())?;
            let r = stages::mate(r, self.solver.as_mut(), &mut record, s)?;
            ControlFlow::Continue(stages::keep(r, &record, s, out))
        };
        match steps() {
            ControlFlow::Continue(r) | ControlFlow::Break(r) => r,
        }
    }
}

//! The per-record stages of a run for records held in memory (what a Python binding's
//! `decide` needs): the same settings, stages and dedup as [`super::run`], without files.
//!
//! # Invariants
//! - A record gets the decision a run with the same `[filter]` settings gives it when the
//!   records of all `decide` calls so far, in order, are the run's input (one batch per call:
//!   psv games and `table_scope = "batch"` do not cross calls, as a run's batches hold whole
//!   games).
//! - Record indices count from 0 over all calls; a duplicate names the index of its first
//!   record.

use super::commit::duplicate_of;
use super::config::{Config, ConfigError, RawConfig};
use super::settings::Settings;
use super::worker::{BatchOutcome, RecordOutcome, Worker};
use crate::codec::Format;
use crate::filter::{Decision, DropReason, FirstSeen};
use crate::io::batch::RecordRef;

/// Decides records in memory as a run would (see the module doc).
pub struct Decider {
    settings: Settings,
    worker: Worker,
    /// Keys of the positions kept so far (with dedup on).
    seen: Option<FirstSeen>,
    /// Index of the next record.
    next: u64,
}

impl Decider {
    /// A decider with `raw`'s `[filter]` stages and `[workers] table_mb` (inputs, outputs and
    /// threads play no part); an error names a bad key.
    pub fn new(raw: &RawConfig) -> Result<Decider, ConfigError> {
        Config::check_stages(raw)?;
        let mates = raw
            .mates
            .enabled
            .then(|| raw.mates.format.format())
            .flatten();
        let settings = Settings::new(&raw.filter, raw.workers.table_mb, None, mates);
        Ok(Decider {
            worker: Worker::new(&settings),
            seen: settings.dedup.then(|| FirstSeen::with_capacity(0)),
            settings,
            next: 0,
        })
    }

    /// Decides `records` (each the bytes of one record of `format`; a text record without
    /// its newline), in order: one outcome each.
    pub fn decide(&mut self, format: Format, records: &[&[u8]]) -> Vec<RecordOutcome> {
        let first = self.next;
        let refs = records.iter().enumerate().map(|(i, bytes)| RecordRef {
            index: first + i as u64,
            offset: 0,
            bytes,
            new_game: true,
        });
        let mut outcome = BatchOutcome::default();
        let settings = &self.settings;
        self.worker
            .decide_all(format, 0, refs, None, settings, &|_| {}, &mut outcome);
        self.next += records.len() as u64;
        let mut decided = outcome.records;
        for r in decided.iter_mut().filter(|r| r.decision.is_keep()) {
            if let (Some(seen), Some(key)) = (self.seen.as_mut(), r.dedup_key) {
                if duplicate_of(seen, key, r.index).is_some() {
                    r.decision = Decision::Drop(DropReason::Duplicate);
                }
            }
        }
        decided
    }
}

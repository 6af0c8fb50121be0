//! What the run report gathers in the ordered commit, one record at a time in input order:
//! each input file's decision counts, the histograms of mate lengths, solver nodes and time
//! per position, and mate verdicts against the records' game results
//! ([`crate::report::record`] holds the types and their invariants).
//!
//! # Invariants
//! [`Gathered::add`] is called once per record with its final decision (a duplicate as a
//! duplicate), so each file's counts reconcile as the run's do and sum to them. Everything
//! here is a function of the records in input order (the solver's time aside), so it is the
//! same for any thread count and for a resumed run, which restores it from its checkpoint.

use super::report::{Counts, InputSummary};
use super::worker::RecordOutcome;
use crate::filter::{Decision, DropReason};
use crate::io::detect::Detection;
use crate::report::provenance::FileIdentity;
use crate::report::record::{Histograms, MateExample, MatesVsGameResult};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// One input file's tallies.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileTally {
    /// Its records by final decision.
    pub(crate) counts: Counts,
    /// Its positions the solver left undecided (before dedup).
    pub(crate) unknown: u64,
}

/// The run report's tallies (see the module doc).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Gathered {
    /// Per input file, by file number.
    pub(crate) per_file: Vec<FileTally>,
    /// Mate lengths, nodes and time per position.
    pub(crate) histograms: Histograms,
    /// Mate verdicts on records with a game result (`None` while there has been none).
    pub(crate) vs_results: Option<MatesVsGameResult>,
}

impl Gathered {
    /// Empty tallies for `files` input files.
    pub(crate) fn new(files: usize) -> Gathered {
        Gathered {
            per_file: vec![FileTally::default(); files],
            ..Default::default()
        }
    }

    /// Record `r` of input file `file_name`, whose final decision is `decision`.
    pub(crate) fn add(&mut self, r: &RecordOutcome, decision: &Decision, file_name: &str) {
        if let Some(f) = self.per_file.get_mut(r.file as usize) {
            f.counts.add(decision);
            f.unknown += u64::from(r.unknown);
        }
        if r.searched {
            let micros = (!r.cached).then_some(u64::from(r.micros));
            self.histograms
                .record_search(result_name(r), r.nodes, micros);
        }
        let Some(m) = &r.extra().mate else {
            return;
        };
        self.histograms.record_mate(m.kind, m.plies);
        if let Some(result) = m.game_result {
            let example = || MateExample {
                index: r.index,
                file: file_name.to_string(),
                kind: m.kind.to_string(),
                plies: m.plies,
                sfen: m.sfen.clone(),
            };
            self.vs_results
                .get_or_insert_with(Default::default)
                .record(m.kind, result, example);
        }
    }
}

/// The solver's result on a searched record, as the histograms name it.
fn result_name(r: &RecordOutcome) -> &'static str {
    match &r.decision {
        Decision::Drop(DropReason::Unknown) => "unknown",
        Decision::Drop(
            reason @ (DropReason::Mate
            | DropReason::Mated
            | DropReason::Checkmated
            | DropReason::NoLegalMoves),
        ) => reason.name(),
        _ if r.unknown => "unknown",
        _ => "no_mate",
    }
}

/// report.json's `inputs`: each file's format, why, its counts, and its identity read now
/// (size, modification time, fingerprint; `None` for a file that can no longer be read).
pub(crate) fn input_summaries(
    paths: &[PathBuf],
    detections: &[Detection],
    per_file: &[FileTally],
) -> Vec<InputSummary> {
    paths
        .iter()
        .zip(detections)
        .zip(per_file)
        .map(|((p, d), tally)| InputSummary {
            file: p.display().to_string(),
            format: d.format.name().to_string(),
            detected_by: d.reasons.join("; "),
            records: tally.counts.input,
            identity: FileIdentity::of(p).ok(),
            counts: tally.counts.clone(),
            unknown: tally.unknown,
        })
        .collect()
}

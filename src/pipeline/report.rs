//! report.json and the end-of-run summary table.
//!
//! # Contract
//! report.json carries at least the keys of the output contract (docs/references.md,
//! "Output contract"), because other tools read them:
//! `records.{input, kept, rejected, dropped.{checkmated, no_legal_moves, mate, mated,
//! repetition, declaration, duplicate}}`, `unknown`, `nodes`, `seconds`,
//! `positions_per_second`, `threads`, `config`. Extra keys may be added, never removed.
//! [`Counts::reconcile`] checks `input = kept + dropped + rejected`.

use crate::filter::{Decision, DropReason};
use crate::report::provenance::FileIdentity;
use crate::report::record::RunRecord;
use indicatif::HumanCount;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// With `input.max_rejected` unset, a completed run that rejected more than this share of
/// its input (in percent) exits with status 1: so many bad records mean a wrong format.
pub const DEFAULT_MAX_REJECTED_PERCENT: u64 = 10;

/// Dropped records per reason (the decision names of docs/references.md).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Dropped {
    /// In check with no legal move.
    pub checkmated: u64,
    /// No legal move, not in check.
    pub no_legal_moves: u64,
    /// The side to move has a forced mate.
    pub mate: u64,
    /// The side to move is in check and every evasion is mated.
    pub mated: u64,
    /// Repeats an earlier position of its game.
    pub repetition: u64,
    /// The side to move can declare an entering-king win.
    pub declaration: u64,
    /// Already kept earlier in the run (or present in a reference pool).
    pub duplicate: u64,
    /// Undecided within the solver's budget, dropped because `filter.mate.unknown = "drop"`
    /// (0 with the default `keep`).
    pub unknown: u64,
    /// hcpe records that would be written without a move (`output.keep_moveless_hcpe`).
    #[serde(default)]
    pub no_move: u64,
}

impl Dropped {
    /// Counts one record dropped for `reason`.
    pub fn add(&mut self, reason: DropReason) {
        let n = match reason {
            DropReason::Checkmated => &mut self.checkmated,
            DropReason::NoLegalMoves => &mut self.no_legal_moves,
            DropReason::Mate => &mut self.mate,
            DropReason::Mated => &mut self.mated,
            DropReason::Repetition => &mut self.repetition,
            DropReason::Declaration => &mut self.declaration,
            DropReason::Duplicate => &mut self.duplicate,
            DropReason::Unknown => &mut self.unknown,
            DropReason::NoMove => &mut self.no_move,
        };
        *n += 1;
    }

    /// Sum over all reasons.
    pub fn total(&self) -> u64 {
        self.checkmated
            + self.no_legal_moves
            + self.mate
            + self.mated
            + self.repetition
            + self.declaration
            + self.duplicate
            + self.unknown
            + self.no_move
    }
}

/// Record counts; every input record is counted in exactly one of kept, dropped, rejected.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Counts {
    /// Records read (whole records plus rejected tails).
    pub input: u64,
    /// Records written to the kept shards.
    pub kept: u64,
    /// Malformed or impossible records.
    pub rejected: u64,
    /// Dropped records per reason.
    pub dropped: Dropped,
}

impl Counts {
    /// Counts one record with its final `decision`.
    pub fn add(&mut self, decision: &Decision) {
        self.input += 1;
        match decision {
            Decision::Keep => self.kept += 1,
            Decision::Drop(reason) => self.dropped.add(*reason),
            Decision::Reject(_) => self.rejected += 1,
        }
    }

    /// Whether `input = kept + dropped + rejected`; the error message shows the numbers.
    pub fn reconcile(&self) -> Result<(), String> {
        let sum = self.kept + self.dropped.total() + self.rejected;
        if sum == self.input {
            Ok(())
        } else {
            Err(format!(
                "reconciliation failed: input {} != kept {} + dropped {} + rejected {} (= {sum})",
                self.input,
                self.kept,
                self.dropped.total(),
                self.rejected
            ))
        }
    }
}

/// One input file as the run saw it.
#[derive(Debug, Clone, Serialize)]
pub struct InputSummary {
    /// Path as given/expanded.
    pub file: String,
    /// Format used.
    pub format: String,
    /// Why that format (explicit, extension, magic, probe …).
    pub detected_by: String,
    /// Records read from it (rejected tails included).
    pub records: u64,
    /// Size, modification time and fingerprint, read at the end of the run (`None` if the
    /// file could not be read then).
    #[serde(flatten)]
    pub identity: Option<FileIdentity>,
    /// Its records by decision.
    pub counts: Counts,
    /// Its positions the solver left undecided within its budget (before dedup).
    pub unknown: u64,
}

/// Everything report.json holds.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Record counts.
    pub records: Counts,
    /// Tallies kept by the commit (unknowns, nodes, mates, move fields, tags, reasons).
    #[serde(flatten)]
    pub tallies: Tallies,
    /// Wall-clock seconds of the run.
    pub seconds: f64,
    /// Input records per second.
    pub positions_per_second: f64,
    /// Worker threads.
    pub threads: usize,
    /// Inputs in order.
    pub inputs: Vec<InputSummary>,
    /// The effective configuration.
    pub config: serde_json::Value,
    /// posfilter's version.
    pub version: String,
    /// Files of a previous run removed from the output directory (not in report.json, which
    /// must not depend on what the directory held before).
    #[serde(skip)]
    pub replaced_files: usize,
    /// The input index at which each resumed part of the run began (`run --resume`), in
    /// order; absent for a run that was never stopped.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resumed_from: Vec<u64>,
    /// What ran on what, and the data behind report.html's plots.
    #[serde(flatten)]
    pub record: RunRecord,
}

/// Per-run tallies besides the record counts, kept by the ordered commit and written into
/// report.json at the top level.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Tallies {
    /// Positions the solver could not decide within its budget (kept by the mate stage;
    /// dedup may still drop them).
    pub unknown: u64,
    /// Of those, the ones written to the kept shards: undecided positions in the output.
    pub unknown_kept: u64,
    /// Of the unknowns, those the wall-time guard (`filter.mate.time_ms`) stopped before
    /// the node budget: while this is not 0, the output depends on the machine's speed.
    pub unknown_timed_out: u64,
    /// df-pn nodes searched in total (verdicts answered by the cache not counted again).
    pub nodes: u64,
    /// Positions answered by the verdict cache instead of a new search.
    pub verdict_cache: CacheCounts,
    /// Mates written to the mate corpus (mate, mated, checkmated).
    pub mates_written: u64,
    /// `mate` and `mated` drops by whether their length was proven shortest.
    #[serde(default)]
    pub mate_lengths: MateLengthCounts,
    /// psv/hcpe records whose move field is not legal in their position, and what was done.
    pub move_field: MoveFieldCounts,
    /// Kept positions whose side to move has an open entering-king path (`open_path = "tag"`).
    pub open_path_tagged: u64,
    /// Rejections per reason kind.
    pub rejected_reasons: BTreeMap<String, u64>,
    /// Repetition drops per kind (`exact`, `inferior`) and how many were perpetual checks.
    pub repetition: BTreeMap<String, u64>,
    /// Game formats written as themselves: games (and segments) written.
    #[serde(default)]
    pub games_written: u64,
    /// Of the input games, those cut into segments (.pack / sbinpack cannot skip a
    /// dropped position inside a game).
    #[serde(default)]
    pub games_cut: u64,
    /// hcpe input: the games inferred from the chain of best moves (a record whose
    /// position the previous record's best move does not lead to starts one).
    #[serde(default)]
    pub hcpe_games_inferred: u64,
}

/// Verdict-cache statistics (`filter.mate.cache_mb`). They depend on scheduling (which
/// worker meets a repeated position first), unlike every decision.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CacheCounts {
    /// Positions whose verdict came from the cache.
    pub hits: u64,
    /// Nodes those positions would have searched again.
    pub nodes_saved: u64,
}

/// Mate lengths of the `mate` and `mated` drops (mates files on or off).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct MateLengthCounts {
    /// The search proved no shorter mate exists (`plies_exact` in mates.jsonl).
    pub exact: u64,
    /// The shortening ran out of nodes first: a shorter mate may exist.
    pub inexact: u64,
}

/// Move-field statistics (`filter.move_field`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct MoveFieldCounts {
    /// Records whose move field is not a legal move (MOVE_NONE excluded).
    pub illegal: u64,
    /// Of those, records kept with the field zeroed.
    pub cleared: u64,
    /// Of those, records rejected.
    pub rejected: u64,
}

impl Report {
    /// Why the run, though complete, did not read all of its input (exit status 1): input
    /// files that could not be read to the end, more rejected records than `max_rejected`
    /// or, with it unset, more than [`DEFAULT_MAX_REJECTED_PERCENT`] % of the input (a
    /// wrong `input.format`, or a book read as SFEN text). Empty for a clean run.
    pub fn incomplete_input(&self, max_rejected: Option<u64>) -> Vec<String> {
        let mut why = Vec::new();
        if let Some(n) = self.tallies.rejected_reasons.get("unreadable") {
            why.push(format!("{n} input file(s) could not be read to the end"));
        }
        let (rejected, input) = (self.records.rejected, self.records.input);
        match max_rejected {
            Some(max) if rejected > max => why.push(format!(
                "{rejected} records were rejected, more than input.max_rejected = {max}"
            )),
            None if rejected * 100 > input * DEFAULT_MAX_REJECTED_PERCENT => why.push(format!(
                "{rejected} of {input} records ({:.1} %) were rejected, more than \
                 {DEFAULT_MAX_REJECTED_PERCENT} %: is input.format right? (set \
                 input.max_rejected to accept that many)",
                100.0 * rejected as f64 / input as f64
            )),
            _ => {}
        }
        why
    }

    /// The line printed under the summary: the whole input accounted for as kept, dropped
    /// and rejected (the run checks that the sum holds before it reports).
    pub fn reconciled_line(&self) -> String {
        let c = &self.records;
        format!(
            "  reconciled: input {} = kept {} + dropped {} + rejected {}",
            c.input,
            c.kept,
            c.dropped.total(),
            c.rejected
        )
    }

    /// The summary's line on games (empty when the run had none): game formats' games
    /// written and cut, hcpe games inferred.
    fn games_line(&self) -> String {
        let t = &self.tallies;
        let mut parts = Vec::new();
        if t.games_written > 0 || t.games_cut > 0 {
            parts.push(format!(
                "{} games written ({} cut into segments around dropped positions)",
                HumanCount(t.games_written),
                HumanCount(t.games_cut)
            ));
        }
        if t.hcpe_games_inferred > 0 {
            parts.push(format!(
                "{} hcpe games inferred from the best moves",
                HumanCount(t.hcpe_games_inferred)
            ));
        }
        match parts.is_empty() {
            true => String::new(),
            false => format!("  {}\n", parts.join("; ")),
        }
    }

    /// The human summary printed to stderr at the end of a run: a row per count, so that
    /// the rows after `input` (bar `unknown (kept)`, which `kept` holds) add up to it.
    pub fn summary_table(&self) -> String {
        let c = &self.records;
        let d = &c.dropped;
        let pct = |n: u64| {
            if c.input == 0 {
                0.0
            } else {
                100.0 * n as f64 / c.input as f64
            }
        };
        let mut s = String::new();
        let mut row = |name: &str, n: u64| {
            let n_text = HumanCount(n).to_string();
            s.push_str(&format!("  {name:<16} {n_text:>14}  {:>6.2}%\n", pct(n)));
        };
        row("input", c.input);
        row("kept", c.kept);
        row("rejected", c.rejected);
        row("checkmated", d.checkmated);
        row("no_legal_moves", d.no_legal_moves);
        row("mate", d.mate);
        row("mated", d.mated);
        row("repetition", d.repetition);
        row("declaration", d.declaration);
        row("duplicate", d.duplicate);
        row("unknown (kept)", self.tallies.unknown_kept);
        if d.unknown > 0 {
            row("unknown (dropped)", d.unknown);
        }
        if d.no_move > 0 {
            row("no_move", d.no_move);
        }
        s.push_str(&self.games_line());
        s.push_str(&format!(
            "  {:.2} s, {} positions/s, {} threads, {} df-pn nodes\n",
            self.seconds,
            HumanCount(self.positions_per_second as u64),
            self.threads,
            HumanCount(self.tallies.nodes)
        ));
        if self.tallies.unknown_timed_out > 0 {
            s.push_str(&format!(
                "  {} positions stopped on the wall-time guard (filter.mate.time_ms) before \
                 the node budget: this output may differ on a faster or less loaded machine\n",
                HumanCount(self.tallies.unknown_timed_out)
            ));
        }
        // Two outcomes that nearly always mean a wrong path or format, not a clean dataset.
        if c.input == 0 {
            s.push_str(&format!(
                "  the input holds no records ({} file(s), all empty): check input.paths\n",
                self.inputs.len()
            ));
        } else if c.rejected == c.input {
            let formats: BTreeSet<&str> = self.inputs.iter().map(|i| i.format.as_str()).collect();
            let formats: Vec<&str> = formats.into_iter().collect();
            s.push_str(&format!(
                "  every record was rejected: are the files really {}? (input.format)\n  \
                 see rejected.jsonl for the reasons, `posfilter inspect FILE` for what a file holds\n",
                formats.join(" / ")
            ));
        }
        if let Some(n) = self.tallies.rejected_reasons.get("unreadable") {
            s.push_str(&format!(
                "  {n} input file(s) could not be read to the end: see rejected.jsonl\n"
            ));
        }
        let cache = &self.tallies.verdict_cache;
        if cache.hits > 0 {
            s.push_str(&format!(
                "  {} repeated positions answered from the verdict cache ({} nodes not searched again)\n",
                HumanCount(cache.hits),
                HumanCount(cache.nodes_saved)
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report of a 2-second run on 2 threads with these counts.
    fn report_of(records: Counts, tallies: Tallies) -> Report {
        Report {
            records,
            tallies,
            seconds: 2.0,
            positions_per_second: 1.0,
            threads: 2,
            inputs: Vec::new(),
            config: serde_json::Value::Null,
            version: String::new(),
            replaced_files: 0,
            resumed_from: Vec::new(),
            record: Default::default(),
        }
    }

    #[test]
    fn reconcile_detects_a_lost_record() {
        let mut c = Counts {
            input: 10,
            kept: 5,
            rejected: 1,
            ..Default::default()
        };
        c.dropped.mate = 4;
        assert!(c.reconcile().is_ok());
        c.dropped.mate = 3;
        let e = c.reconcile().unwrap_err();
        assert!(e.contains("input 10") && e.contains("= 9"), "{e}");
    }

    #[test]
    fn summary_rows_line_up_with_thousands_separated_counts() {
        let mut records = Counts {
            input: 123_456_789,
            kept: 100_000_000,
            rejected: 1,
            ..Default::default()
        };
        records.dropped.mate = 23_456_788;
        let mut tallies = Tallies::default();
        tallies.rejected_reasons.insert("unreadable".into(), 1);
        let report = Report {
            positions_per_second: 61_728_394.5,
            ..report_of(records, tallies)
        };
        let table = report.summary_table();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines[0], "  input               123,456,789  100.00%");
        assert_eq!(lines[5], "  mate                 23,456,788   19.00%");
        assert!(lines
            .iter()
            .all(|l| !l.contains("%") || l.len() == lines[0].len()));
        assert!(table.contains("61,728,394 positions/s"), "{table}");
        assert!(
            table.contains("1 input file(s) could not be read to the end"),
            "{table}"
        );
    }

    #[test]
    fn the_summary_rows_add_up_to_the_input_with_every_drop_reason() {
        let mut records = Counts {
            input: 100,
            kept: 60,
            rejected: 2,
            ..Default::default()
        };
        records.dropped.no_move = 7;
        records.dropped.unknown = 3;
        records.dropped.duplicate = 28;
        let mut tallies = Tallies {
            games_written: 12,
            games_cut: 2,
            hcpe_games_inferred: 9,
            ..Default::default()
        };
        tallies.unknown_kept = 4;
        let report = report_of(records, tallies);
        let table = report.summary_table();
        // Each row: the name (maybe two words), the count, the share.
        let rows: Vec<(String, u64)> = table
            .lines()
            .filter(|l| l.ends_with('%'))
            .map(|l| {
                let mut words: Vec<&str> = l.split_whitespace().collect();
                words.pop();
                let n = words.pop().unwrap().replace(',', "").parse().unwrap();
                (words.join(" "), n)
            })
            .collect();
        let sum: u64 = rows
            .iter()
            .filter(|(name, _)| !["input", "unknown (kept)"].contains(&name.as_str()))
            .map(|(_, n)| n)
            .sum();
        assert_eq!(sum, 100, "{table}");
        assert!(table.contains("12 games written (2 cut"), "{table}");
        assert!(table.contains("9 hcpe games inferred"), "{table}");
    }
}

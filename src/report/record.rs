//! The parts of report.json behind the plots (issue 38), and the tallies that gather them
//! during a run: histograms of mate lengths, solver nodes and time per position, throughput
//! samples, and mate verdicts against the records' own game results.
//!
//! # Invariants (checked by the tests of the run and of the page)
//! - `histograms.mate_plies.mate.count` = `records.dropped.mate`, and the same for `mated`.
//! - `histograms.nodes.<result>` counts every position the solver was asked about, by its
//!   result (`mate`, `mated`, `checkmated`, `no_legal_moves`, `no_mate`, `unknown`); the
//!   `unknown` count is `unknown`, and the sums over all results add up to `nodes +
//!   verdict_cache.nodes_saved` (a verdict from the cache counts the nodes it cost when it
//!   was found, so the histograms do not depend on which worker met a position first).
//! - `throughput` samples are in increasing `seconds` and non-decreasing `records`.

use super::histogram::{Histogram, Scale};
use super::provenance::RunInfo;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The top-level keys the run report adds to report.json (flattened into it): what ran on
/// what, and the data behind the plots. Each input's additions are
/// [`super::provenance::FileIdentity`] (flattened) and its decision counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Timestamps, command line, host, version, git revision.
    pub run: RunInfo,
    /// Mate lengths, nodes and time per position.
    pub histograms: Histograms,
    /// Records committed against elapsed time.
    pub throughput: Vec<Sample>,
    /// Mate verdicts against the records' game results (absent when no input has them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mates_vs_game_result: Option<MatesVsGameResult>,
}

/// `histograms` in report.json.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Histograms {
    /// Mate length in plies ([`Scale::Exact`]), by kind: `mate`, `mated`.
    pub mate_plies: BTreeMap<String, Histogram>,
    /// Solver nodes per position ([`Scale::LeadingDigit`]), by the solver's result.
    pub nodes: BTreeMap<String, Histogram>,
    /// Wall time per searched position in microseconds ([`Scale::LeadingDigit`]), by the
    /// solver's result; verdicts from the cache are not timed (and not in here).
    pub micros: BTreeMap<String, Histogram>,
}

impl Histograms {
    /// One position the solver was asked about: its result name, the nodes it cost, and
    /// the microseconds it took (`None` for a verdict from the cache).
    pub fn record_search(&mut self, result: &str, nodes: u64, micros: Option<u64>) {
        bump(&mut self.nodes, result, nodes, Scale::LeadingDigit);
        if let Some(us) = micros {
            bump(&mut self.micros, result, us, Scale::LeadingDigit);
        }
    }

    /// One mate written: its kind (`mate`, `mated`; `checkmated` has no length and is not
    /// recorded) and length.
    pub fn record_mate(&mut self, kind: &str, plies: u32) {
        if kind != "checkmated" {
            bump(&mut self.mate_plies, kind, u64::from(plies), Scale::Exact);
        }
    }

    /// Adds another part's histograms (a resumed run, a merged shard).
    pub fn merge(&mut self, other: &Histograms) {
        for (mine, theirs) in [
            (&mut self.mate_plies, &other.mate_plies),
            (&mut self.nodes, &other.nodes),
            (&mut self.micros, &other.micros),
        ] {
            for (key, h) in theirs {
                mine.entry(key.clone()).or_default().merge(h);
            }
        }
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.mate_plies.is_empty() && self.nodes.is_empty() && self.micros.is_empty()
    }
}

/// Records `v` in `map[key]` (created on first use; no allocation after that).
fn bump(map: &mut BTreeMap<String, Histogram>, key: &str, v: u64, scale: Scale) {
    match map.get_mut(key) {
        Some(h) => h.record(v, scale),
        None => {
            let mut h = Histogram::default();
            h.record(v, scale);
            map.insert(key.to_string(), h);
        }
    }
}

/// One throughput sample: `records` input records committed `seconds` after the start.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Seconds since the run (this part of it, for a resumed run) started.
    pub seconds: f64,
    /// Input records committed by then (counting those of earlier parts).
    pub records: u64,
}

/// The most samples kept: when full, every other one is dropped and the interval doubles,
/// so a run of any length leaves between half and all of this many, evenly spaced.
pub const MAX_SAMPLES: usize = 256;

/// Throughput samples taken at commits, at most one per interval.
#[derive(Debug, Clone)]
pub struct ThroughputSampler {
    every: f64,
    samples: Vec<Sample>,
}

impl ThroughputSampler {
    /// A sampler whose first interval is `every` seconds, starting with `records` already
    /// decided (a resumed run's earlier parts).
    pub fn new(every: f64, records: u64) -> ThroughputSampler {
        ThroughputSampler {
            every,
            samples: vec![Sample {
                seconds: 0.0,
                records,
            }],
        }
    }

    /// `records` committed at `seconds`: kept if an interval has passed since the last
    /// sample.
    pub fn observe(&mut self, seconds: f64, records: u64) {
        let last = self.samples.last().map_or(0.0, |s| s.seconds);
        if seconds - last < self.every {
            return;
        }
        self.samples.push(Sample { seconds, records });
        if self.samples.len() > MAX_SAMPLES {
            let mut i = 0;
            self.samples.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.every *= 2.0;
        }
    }

    /// The samples, ending with `records` at `seconds` (the end of the run). A last sample
    /// less than one interval before the end gives way to the end's: the ordered commit
    /// writes batches that finished out of order in bursts, and a rate over the few
    /// milliseconds between would show a burst as the run's speed.
    pub fn finish(mut self, seconds: f64, records: u64) -> Vec<Sample> {
        if self.samples.len() > 1
            && self
                .samples
                .last()
                .is_some_and(|s| seconds - s.seconds < self.every)
        {
            self.samples.pop();
        }
        if self.samples.last().is_some_and(|s| s.seconds < seconds) {
            self.samples.push(Sample { seconds, records });
        }
        self.samples
    }
}

/// How often the side a mate verdict says is mated went on to lose, win or draw its game,
/// for one kind of verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultRow {
    /// The mated side lost the game: expected.
    pub mated_side_lost: u64,
    /// The mated side won the game: worth a look (a weak generator or a wrong verdict).
    pub mated_side_won: u64,
    /// The game was drawn (or its result not recorded: psv writes 0 for both).
    pub draw: u64,
}

/// A mate whose mated side won its game, listed in report.json for a look.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MateExample {
    /// Index of the record in the whole input.
    pub index: u64,
    /// Its input file.
    pub file: String,
    /// `mate`, `mated` or `checkmated`.
    pub kind: String,
    /// Mate length in plies.
    pub plies: u32,
    /// The position.
    pub sfen: String,
}

/// Mate examples listed in report.json (the first in input order).
pub const MAX_EXAMPLES: usize = 10;

/// `mates_vs_game_result` in report.json: mate verdicts on records that carry a game
/// result (psv, hcpe) against that result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatesVsGameResult {
    /// The side to move mates (the mated side is the other one).
    pub mate: ResultRow,
    /// The side to move is mated.
    pub mated: ResultRow,
    /// The side to move is checkmated now.
    pub checkmated: ResultRow,
    /// The first [`MAX_EXAMPLES`] verdicts, in input order, whose mated side won.
    pub mated_side_won_examples: Vec<MateExample>,
}

impl MatesVsGameResult {
    /// One verdict of `kind` on a record whose game ended `side_to_move_result` for the
    /// side to move (psv's view: 1 won, -1 lost, 0 draw); `example` builds its listing.
    pub fn record(
        &mut self,
        kind: &str,
        side_to_move_result: i8,
        example: impl FnOnce() -> MateExample,
    ) {
        let (row, mated_is_mover) = match kind {
            "mate" => (&mut self.mate, false),
            "mated" => (&mut self.mated, true),
            "checkmated" => (&mut self.checkmated, true),
            _ => return,
        };
        let mover_won = side_to_move_result.signum();
        let mated_won = if mated_is_mover {
            mover_won
        } else {
            -mover_won
        };
        match mated_won {
            1 => {
                row.mated_side_won += 1;
                if self.mated_side_won_examples.len() < MAX_EXAMPLES {
                    self.mated_side_won_examples.push(example());
                }
            }
            -1 => row.mated_side_lost += 1,
            _ => row.draw += 1,
        }
    }

    /// Verdicts counted.
    pub fn total(&self) -> u64 {
        [self.mate, self.mated, self.checkmated]
            .iter()
            .map(|r| r.mated_side_lost + r.mated_side_won + r.draw)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sampler_stays_bounded_and_evenly_spaced() {
        let mut s = ThroughputSampler::new(0.5, 100);
        for i in 1..=100_000u64 {
            s.observe(i as f64 * 0.01, 100 + i * 3);
        }
        let samples = s.finish(1000.5, 300_103);
        assert!(samples.len() <= MAX_SAMPLES + 1 && samples.len() >= MAX_SAMPLES / 2);
        assert_eq!(samples[0].records, 100);
        assert_eq!(samples.last().unwrap().records, 300_103);
        assert!(samples.windows(2).all(|w| w[0].seconds < w[1].seconds));
        assert!(samples.windows(2).all(|w| w[0].records <= w[1].records));
        let gaps: Vec<f64> = samples
            .windows(2)
            .map(|w| w[1].seconds - w[0].seconds)
            .collect();
        let (lo, hi) = gaps[..gaps.len() - 1]
            .iter()
            .fold((f64::MAX, 0f64), |(a, b), g| (a.min(*g), b.max(*g)));
        assert!(hi <= 2.0 * lo + 0.02, "gaps from {lo} to {hi}");
    }

    #[test]
    fn a_burst_of_commits_just_before_the_end_is_not_a_rate() {
        let mut s = ThroughputSampler::new(0.25, 0);
        s.observe(1.0, 100);
        s.observe(2.0, 200);
        // The last batches commit at once, 3 ms after the last sample.
        let samples = s.finish(2.003, 5000);
        let at: Vec<(f64, u64)> = samples.iter().map(|x| (x.seconds, x.records)).collect();
        assert_eq!(at, [(0.0, 0), (1.0, 100), (2.003, 5000)]);
        // A run shorter than one interval keeps its start.
        let samples = ThroughputSampler::new(0.25, 7).finish(0.1, 9);
        assert_eq!(samples.len(), 2);
        assert_eq!((samples[0].records, samples[1].records), (7, 9));
    }

    #[test]
    fn the_mated_side_is_read_from_the_kind() {
        let mut t = MatesVsGameResult::default();
        let ex = |i| {
            move || MateExample {
                index: i,
                file: "f".into(),
                kind: "mate".into(),
                plies: 3,
                sfen: String::new(),
            }
        };
        // The side to move mates and won: the mated side lost.
        t.record("mate", 1, ex(0));
        // The side to move mates but lost its game: worth a look.
        t.record("mate", -1, ex(1));
        // The side to move is mated and won its game: worth a look.
        t.record("mated", 1, ex(2));
        t.record("checkmated", -1, ex(3));
        t.record("mated", 0, ex(4));
        assert_eq!(
            (t.mate, t.mated, t.checkmated),
            (
                ResultRow {
                    mated_side_lost: 1,
                    mated_side_won: 1,
                    draw: 0
                },
                ResultRow {
                    mated_side_lost: 0,
                    mated_side_won: 1,
                    draw: 1
                },
                ResultRow {
                    mated_side_lost: 1,
                    mated_side_won: 0,
                    draw: 0
                },
            )
        );
        let listed: Vec<u64> = t.mated_side_won_examples.iter().map(|e| e.index).collect();
        assert_eq!(listed, [1, 2]);
        assert_eq!(t.total(), 5);
    }

    #[test]
    fn search_histograms_split_by_result() {
        let mut h = Histograms::default();
        h.record_search("mate", 120, Some(40));
        h.record_search("unknown", 100_003, Some(90_000));
        h.record_search("no_mate", 7, None);
        h.record_mate("mate", 5);
        h.record_mate("checkmated", 0);
        assert_eq!(h.nodes["unknown"].buckets[0].lo, 100_000);
        assert_eq!(h.micros.get("no_mate"), None);
        assert_eq!(h.mate_plies.keys().collect::<Vec<_>>(), ["mate"]);
        let mut twice = h.clone();
        twice.merge(&h);
        assert_eq!(twice.nodes["mate"].count, 2);
        assert_eq!(twice.nodes["mate"].sum, 240);
    }
}

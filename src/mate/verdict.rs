//! What the solver is asked and what it answers: [`Limits`] for one root, the
//! [`MateResult`] and the [`Verdict`] (the contract is in the `mate` module doc).

use crate::shogi::Move;
use std::time::Duration;

/// Limits for one root position.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Node budget (visits of the df-pn loop).
    pub nodes: u64,
    /// Optional maximum mate length in plies.
    pub max_plies: Option<u32>,
    /// Optional wall-time guard: a search it stops is `Unknown`; it does not apply once
    /// the root is proven (see the contract in the module doc).
    pub time: Option<Duration>,
    /// After a proof, the nodes spent looking for a shorter mate and showing that none is
    /// shorter, as a multiple of the larger of the nodes the proof took and a third of
    /// `nodes` (0 = report the first mate line found; never more than what is left of
    /// `nodes`). See [`Solver::solve`].
    pub shorten: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            nodes: 100_000,
            max_plies: None,
            time: None,
            shorten: 1,
        }
    }
}

/// The answer for one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MateResult {
    /// The side to move mates by force (when in check, starting with an evasion that gives
    /// check).
    Mate,
    /// Proved: the side to move has no forced mate and, when in check, is not mated.
    NoMate,
    /// The side to move is in check and every evasion loses to a forced mate.
    Mated,
    /// The side to move is in check and has no legal move.
    Checkmated,
    /// The side to move is not in check and has no legal move.
    NoLegalMoves,
    /// A limit was reached before an answer.
    Unknown,
}

impl MateResult {
    /// The lower-case name used in JSON (`mate`, `no_mate`, `mated`, `checkmated`,
    /// `no_legal_moves`, `unknown`).
    pub fn as_str(self) -> &'static str {
        match self {
            MateResult::Mate => "mate",
            MateResult::NoMate => "no_mate",
            MateResult::Mated => "mated",
            MateResult::Checkmated => "checkmated",
            MateResult::NoLegalMoves => "no_legal_moves",
            MateResult::Unknown => "unknown",
        }
    }
}

/// The verdict for one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The answer.
    pub result: MateResult,
    /// Length of `pv` in plies (0 unless `Mate`/`Mated`).
    pub plies: u32,
    /// The search proved that no mate is shorter than `pv` (a search capped at `plies` − 2
    /// was disproven, or `plies` ≤ 2); false when the shortening ran out of nodes first, and
    /// for every result but `Mate`/`Mated`.
    pub plies_exact: bool,
    /// The verified mate line (empty unless `Mate`/`Mated`).
    pub pv: Vec<Move>,
    /// Nodes searched.
    pub nodes: u64,
    /// The wall-time guard stopped the search (`result` is then `Unknown`): the one verdict
    /// that depends on the machine and its load rather than on the position and the limits.
    pub timed_out: bool,
}

impl Verdict {
    /// The answer as `posfilter mate --json` prints it: `{"result", "plies", "plies_exact",
    /// "pv" (USI moves), "nodes", "seconds"}`, with `seconds` the time the caller measured.
    pub fn to_json(&self, seconds: f64) -> serde_json::Value {
        let pv: Vec<String> = self.pv.iter().map(|m| m.to_usi()).collect();
        serde_json::json!({"result": self.result.as_str(), "plies": self.plies,
            "plies_exact": self.plies_exact, "pv": pv, "nodes": self.nodes, "seconds": seconds})
    }
}

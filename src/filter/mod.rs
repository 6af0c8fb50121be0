//! Per-position decisions: what happens to one record, and why.
//!
//! # Stage order (docs/references.md, "Stage order")
//! `validity → repetition → declaration → terminal / mate → dedup`. The first stage that
//! decides ends the record's way through the filter ([`Stage::ORDER`]):
//! 1. **validity**: a record that does not decode or decodes to an impossible position is
//!    [`Decision::Reject`]ed with a reason;
//! 2. **repetition** ([`repetition`]): exact / inferior repetition against the whole history
//!    of its game → `repetition`;
//! 3. **declaration** ([`declaration`]): the side to move can declare an entering-king win →
//!    `declaration`;
//! 4. **terminal / mate** (built by the pipeline / solver): `checkmated`, `no_legal_moves`,
//!    `mate`, `mated`;
//! 5. **dedup** ([`dedup`]), in the ordered commit so that it never depends on scheduling →
//!    `duplicate`.
//!
//! Every record ends in exactly one of keep / drop / reject.

pub mod declaration;
pub mod dedup;
pub mod first_seen;
mod keyhash;
pub mod repetition;

pub use declaration::{
    open_path_info, DeclarationConfig, DeclarationStage, DeclarationVerdict, EnteringKingConfig,
    OpenPathInfo, OpenPathMode, OpenPathStats, RuleSetting,
};
pub use dedup::{dedup_key, DedupConfig};
pub use first_seen::FirstSeen;
pub use keyhash::{BuildKeyHasher, KeyHasher};
pub use repetition::{
    GameHistory, HistoryEntry, Perpetual, RepetitionConfig, RepetitionKind, RepetitionScan,
    RepetitionSelect,
};

use crate::codec::game::GameError;
use crate::codec::{CodecError, Format};
use crate::shogi::Invalid;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why a position is dropped. The serde names are the keys of `report.json`'s
/// `records.dropped` and the `decision` of audit lines (docs/references.md, "Decision
/// names").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// In check with no legal move.
    Checkmated,
    /// No legal move without being in check (also a loss in shogi).
    NoLegalMoves,
    /// The side to move has a forced mate.
    Mate,
    /// The side to move is in check and every evasion loses to a forced mate.
    Mated,
    /// Repeats an earlier position of its game (exact or inferior).
    Repetition,
    /// The side to move can declare an entering-king win.
    Declaration,
    /// The same position was already kept in this run (or is in a reference pool).
    Duplicate,
    /// The solver ran out of budget and `filter.mate.unknown = "drop"` asked to drop such
    /// positions (by default they are kept).
    Unknown,
    /// An hcpe record to be written without a move (bestMove16 = 0): dlshogi's loader
    /// would train its policy on move 0, and reads a file that ends in one as hcpe3
    /// (`output.keep_moveless_hcpe = true` keeps them).
    NoMove,
}

impl DropReason {
    /// Every reason, in report order.
    pub const ALL: [DropReason; 9] = [
        DropReason::Checkmated,
        DropReason::NoLegalMoves,
        DropReason::Mate,
        DropReason::Mated,
        DropReason::Repetition,
        DropReason::Declaration,
        DropReason::Duplicate,
        DropReason::Unknown,
        DropReason::NoMove,
    ];

    /// The snake_case name (same as serde).
    pub const fn name(self) -> &'static str {
        match self {
            DropReason::Checkmated => "checkmated",
            DropReason::NoLegalMoves => "no_legal_moves",
            DropReason::Mate => "mate",
            DropReason::Mated => "mated",
            DropReason::Repetition => "repetition",
            DropReason::Declaration => "declaration",
            DropReason::Duplicate => "duplicate",
            DropReason::Unknown => "unknown",
            DropReason::NoMove => "no_move",
        }
    }

    /// The stage that produces this reason.
    pub const fn stage(self) -> Stage {
        match self {
            DropReason::Checkmated
            | DropReason::NoLegalMoves
            | DropReason::Mate
            | DropReason::Mated
            | DropReason::Unknown => Stage::Terminal,
            DropReason::Repetition => Stage::Repetition,
            DropReason::NoMove => Stage::Validity,
            DropReason::Declaration => Stage::Declaration,
            DropReason::Duplicate => Stage::Dedup,
        }
    }
}

impl std::fmt::Display for DropReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a record is rejected (malformed or impossible).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RejectReason {
    /// The record decoded to an impossible position.
    #[error("invalid position: {0}")]
    Invalid(#[from] Invalid),
    /// The file ends inside a record: its last `got` bytes are less than one record.
    #[error(
        "does not decode: truncated record: {got} bytes at the end of the file, {format} needs \
         {need}"
    )]
    Truncated {
        /// The file's format.
        format: Format,
        /// Bytes present.
        got: usize,
        /// Bytes in a record.
        need: usize,
    },
    /// The record does not decode.
    #[error("does not decode: {0}")]
    Malformed(String),
    /// The rest of the file could not be read (a broken .zst stream): one record stands
    /// for it.
    #[error("{0}")]
    Unreadable(String),
    /// A game (hcpe3, .pack, sbinpack) stops at a fault: its records from there on.
    #[error("{0}")]
    Game(GameError),
    /// A reject another task decided and recorded (a shard of a job split over tasks,
    /// replayed by the gather): its kind and message as they were.
    #[error("{text}")]
    Recorded {
        /// The kind ([`RejectReason::kind`] of the original).
        kind: String,
        /// The message (the original's `to_string`).
        text: String,
    },
}

impl RejectReason {
    /// The kind's name in report.json's `rejected_reasons`.
    pub fn kind(&self) -> &str {
        match self {
            RejectReason::Invalid(_) => "invalid",
            RejectReason::Truncated { .. } => "truncated",
            RejectReason::Malformed(_) => "malformed",
            RejectReason::Unreadable(_) => "unreadable",
            RejectReason::Game(e) => e.kind.code(),
            RejectReason::Recorded { kind, .. } => kind,
        }
    }
}

impl From<CodecError> for RejectReason {
    /// The rejection for a record that does not decode: an impossible position, a short
    /// record (only a file's truncated tail can be one), or the codec's reason.
    fn from(e: CodecError) -> RejectReason {
        match e {
            CodecError::Invalid(inv) => RejectReason::Invalid(inv),
            CodecError::Length { format, got, need } => {
                RejectReason::Truncated { format, got, need }
            }
            other => RejectReason::Malformed(other.to_string()),
        }
    }
}

/// The fate of one record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Written to the kept shards.
    Keep,
    /// Dropped with a reason (and written to the audit).
    Drop(DropReason),
    /// Rejected (written to rejected.jsonl).
    Reject(RejectReason),
}

impl Decision {
    /// The name written as `decision` in audit lines: `keep`, a [`DropReason`] name, or
    /// `rejected`.
    pub fn name(&self) -> &'static str {
        match self {
            Decision::Keep => "keep",
            Decision::Drop(r) => r.name(),
            Decision::Reject(_) => "rejected",
        }
    }

    /// Whether the record is kept.
    pub fn is_keep(&self) -> bool {
        matches!(self, Decision::Keep)
    }
}

/// A filter stage, in the documented order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Decoding and the validity check.
    Validity,
    /// Exact / inferior repetition against the game history.
    Repetition,
    /// Entering-king declaration (and the open-path scan).
    Declaration,
    /// Checkmated, no legal moves, mate, mated (the solver).
    Terminal,
    /// Duplicates, in the ordered commit.
    Dedup,
}

impl Stage {
    /// The order in which stages run.
    pub const ORDER: [Stage; 5] = [
        Stage::Validity,
        Stage::Repetition,
        Stage::Declaration,
        Stage::Terminal,
        Stage::Dedup,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_serde() {
        for r in DropReason::ALL {
            let json = serde_json::to_string(&r).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", r.name()));
            let back: DropReason = serde_json::from_str(&json).unwrap_or(DropReason::Mate);
            assert_eq!(back, r);
        }
        // Stages of the reasons follow the documented order.
        let mut stages: Vec<Stage> = DropReason::ALL.iter().map(|r| r.stage()).collect();
        stages.sort();
        assert_eq!(stages.first(), Some(&Stage::Validity));
        assert_eq!(stages.last(), Some(&Stage::Dedup));
    }
}

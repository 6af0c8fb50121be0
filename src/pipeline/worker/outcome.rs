//! What the worker decides about each record ([`RecordOutcome`], in a [`BatchOutcome`] per
//! batch) and the builders the stages use to fill it in.
//!
//! # Invariants
//! A `RecordOutcome` starts as a kept record ([`RecordOutcome::new`]) and each stage that
//! decides turns it into a drop or a reject exactly once; what only some records carry (audit
//! detail, mate, raw bytes of a reject) lives in its boxed `extra`.

use crate::codec::game::Game;
use crate::filter::{
    declaration::KingPath, Decision, DropReason, Perpetual, RejectReason, RepetitionKind,
    RepetitionScan,
};
use crate::io::batch::RecordRef;
use crate::shogi::Fingerprint;
use serde_json::{json, Value};
use std::ops::Range;

/// A mate found in a record, for mates.jsonl and the binary mates file.
#[derive(Debug, Clone)]
pub struct MateOut {
    /// SFEN of the position.
    pub sfen: String,
    /// `mate`, `mated` or `checkmated`.
    pub kind: &'static str,
    /// Mate length in plies (0 for checkmated).
    pub plies: u32,
    /// The search proved that no mate is shorter than `plies` ([`crate::mate::Verdict`]);
    /// false for checkmated.
    pub plies_exact: bool,
    /// The verified PV, USI.
    pub pv: Vec<String>,
    /// Solver nodes.
    pub nodes: u64,
    /// The record in the mates file's format (empty with mates off).
    pub binary: Vec<u8>,
    /// How the record's game ended for its side to move (1 won, −1 lost, 0 draw), when the
    /// record carries a game result (psv, hcpe).
    pub game_result: Option<i8>,
}

/// What happened to one record. Kept for every record until its batch is committed, so
/// the common case (a kept or plainly dropped record) is small: everything that only some
/// records carry lives in [`RecordOutcome::extra`].
#[derive(Debug, Clone)]
pub struct RecordOutcome {
    /// Global record index.
    pub(crate) index: u64,
    /// Input file number.
    pub(crate) file: u32,
    /// Byte offset in that file (in the decompressed stream for .zst).
    pub(crate) offset: u64,
    /// The decision before dedup.
    pub(crate) decision: Decision,
    /// Dedup key for a kept position.
    pub(crate) dedup_key: Option<Fingerprint>,
    /// The bytes to write if kept, as a range of [`BatchOutcome::out`].
    pub(crate) out: Range<usize>,
    /// Solver nodes spent.
    pub(crate) nodes: u64,
    /// Wall time of the solver's search in microseconds (0 when not searched, or answered
    /// by the verdict cache).
    pub(crate) micros: u32,
    /// The mate stage asked the solver (or its cache) about the record.
    pub(crate) searched: bool,
    /// The solver ran out of budget (the record is kept).
    pub(crate) unknown: bool,
    /// That was the wall-time guard, not the node budget.
    pub(crate) timed_out: bool,
    /// The verdict came from the run's verdict cache: `nodes` were not searched again.
    pub(crate) cached: bool,
    /// The move field is not a legal move in the position.
    pub(crate) move_illegal: bool,
    /// The move field was zeroed (`move_field = "clear"`).
    pub(crate) move_cleared: bool,
    /// The side to move's king has an open entering-king path (tag mode).
    pub(crate) open_path: bool,
    /// Audit detail, mate, repetition kind, raw bytes: `None` when the record has none.
    pub(crate) extra: Option<Box<RecordExtra>>,
}

/// The parts of a [`RecordOutcome`] that only some records carry (boxed: one pointer in the
/// common case).
#[derive(Debug, Clone, Default)]
pub(crate) struct RecordExtra {
    /// Audit detail (`Value::Null` when none).
    pub(crate) detail: Value,
    /// The mate, for dropped mate / mated / checkmated records.
    pub(crate) mate: Option<MateOut>,
    /// The open entering-king path's audit detail (tag mode): files reached, in camp.
    pub(crate) open_path_detail: Value,
    /// For mate and mated drops: whether the length was proven shortest (counted in the
    /// report with mates off too).
    pub(crate) plies_exact: Option<bool>,
    /// For repetition drops: `exact` or `inferior`, and whether it was perpetual check.
    pub(crate) repetition: Option<(&'static str, bool)>,
    /// For rejects: the raw record bytes, hex (the first [`MAX_RAW_BYTES`] of them).
    pub(crate) raw_hex: Option<String>,
    /// For rejects from a text format: the same bytes as text (invalid UTF-8 replaced,
    /// line ending trimmed), so that a reader of rejected.jsonl sees the line itself.
    pub(crate) raw_text: Option<String>,
    /// For rejects: the record's length in bytes.
    pub(crate) raw_len: usize,
}

/// The most bytes of a rejected record written to rejected.jsonl: a text file read with the
/// wrong format can hold one enormous "line".
pub(crate) const MAX_RAW_BYTES: usize = 4096;

/// The extra part of a record without one.
static NO_EXTRA: RecordExtra = RecordExtra {
    detail: Value::Null,
    mate: None,
    open_path_detail: Value::Null,
    plies_exact: None,
    repetition: None,
    raw_hex: None,
    raw_text: None,
    raw_len: 0,
};

/// A processed batch: outcomes in input order and the bytes of kept records.
#[derive(Debug, Default)]
pub(crate) struct BatchOutcome {
    /// One per input record, in order.
    pub(crate) records: Vec<RecordOutcome>,
    /// Output bytes of kept records, concatenated.
    pub(crate) out: Vec<u8>,
    /// A game format written as itself: each game of the batch, in order (the commit writes
    /// it with the positions it keeps); empty otherwise.
    pub(crate) games: Vec<GameOut>,
    /// hcpe: games inferred in the batch (records that start one, `Worker::follow_chain`).
    pub(crate) hcpe_games: u64,
}

/// A decoded game and how many of the batch's records are its own (its records as
/// decoded, then the rejected rest).
#[derive(Debug)]
pub(crate) struct GameOut {
    /// The game.
    pub(crate) game: Game,
    /// Its records among [`BatchOutcome::records`].
    pub(crate) records: u32,
}

impl BatchOutcome {
    /// Empties it for the next batch, keeping the allocations: the run hands committed
    /// outcomes back to the workers instead of freeing ~1 MB per batch on the commit thread
    /// and allocating it again on a worker.
    pub(crate) fn recycle(&mut self) {
        self.records.clear();
        self.out.clear();
        self.games.clear();
        self.hcpe_games = 0;
    }
}

impl RecordOutcome {
    /// The record's global index (from 0 over the whole input).
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The decision (a duplicate only once the commit, or a [`crate::pipeline::Decider`],
    /// has seen the record).
    pub fn decision(&self) -> &Decision {
        &self.decision
    }

    /// Solver nodes spent on the record.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Whether the solver left the record undecided within its budget.
    pub fn is_unknown(&self) -> bool {
        self.unknown
    }

    /// The audit detail: what the stage that decided found (`null` when none).
    pub fn detail(&self) -> &Value {
        &self.extra().detail
    }

    /// The mate of a mate / mated / checkmated record.
    pub fn mate(&self) -> Option<&MateOut> {
        self.extra().mate.as_ref()
    }

    /// A kept record at index 0 with nothing recorded yet (the caller fills in the place).
    pub(crate) fn new() -> RecordOutcome {
        RecordOutcome {
            index: 0,
            file: 0,
            offset: 0,
            decision: Decision::Keep,
            dedup_key: None,
            out: 0..0,
            nodes: 0,
            micros: 0,
            searched: false,
            unknown: false,
            timed_out: false,
            cached: false,
            move_illegal: false,
            move_cleared: false,
            open_path: false,
            extra: None,
        }
    }

    /// The extra part (an empty one when the record has none).
    pub(crate) fn extra(&self) -> &RecordExtra {
        self.extra.as_deref().unwrap_or(&NO_EXTRA)
    }

    /// The extra part, created on first use.
    pub(super) fn extra_mut(&mut self) -> &mut RecordExtra {
        self.extra.get_or_insert_with(Default::default)
    }

    /// This outcome placed at record `rec` of input file `file`.
    pub(super) fn at(self, rec: &RecordRef<'_>, file: usize) -> RecordOutcome {
        RecordOutcome {
            index: rec.index,
            file: file as u32,
            offset: rec.offset,
            ..self
        }
    }

    /// This outcome as a reject of record `bytes` (`text`: a line of a text format).
    pub(super) fn reject(
        mut self,
        reason: RejectReason,
        bytes: &[u8],
        text: bool,
    ) -> RecordOutcome {
        let extra = self.extra_mut();
        extra.detail = json!(reason.to_string());
        let shown = &bytes[..bytes.len().min(MAX_RAW_BYTES)];
        extra.raw_hex = Some(hex(shown));
        extra.raw_text = text.then(|| {
            String::from_utf8_lossy(shown)
                .trim_end_matches(['\r', '\n'])
                .to_string()
        });
        extra.raw_len = bytes.len();
        self.decision = Decision::Reject(reason);
        self
    }

    /// This outcome as a repetition drop, with the scan as its detail.
    pub(super) fn repetition(
        mut self,
        kind: RepetitionKind,
        scan: &RepetitionScan,
    ) -> RecordOutcome {
        let perpetual = matches!(
            scan.perpetual,
            Perpetual::BySideToMove | Perpetual::ByOpponent
        );
        let name = match kind {
            RepetitionKind::Exact => "exact",
            RepetitionKind::Inferior => "inferior",
        };
        let extra = self.extra_mut();
        extra.repetition = Some((name, perpetual));
        extra.detail = json!({
            "kind": name,
            "occurrences": scan.occurrences(),
            "exact": scan.exact,
            "inferior": scan.inferior,
            "nearest_exact_back": scan.nearest_exact_back,
            "nearest_inferior_back": scan.nearest_inferior_back,
            "perpetual_check": scan.perpetual,
        });
        self.decision = Decision::Drop(DropReason::Repetition);
        self
    }

    /// Marks an open entering-king path (tag mode) with its audit detail.
    pub(super) fn tag_open_path(&mut self, path: KingPath) {
        self.open_path = path.open;
        if path.open {
            let files: Vec<u32> = (0..9)
                .filter(|f| path.files >> f & 1 != 0)
                .map(|f| f + 1)
                .collect();
            self.extra_mut().open_path_detail =
                json!({"open_path": true, "in_camp": path.in_camp, "files": files});
        }
    }
}

/// Lower-case hex of `bytes` (rejected.jsonl's raw record).
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

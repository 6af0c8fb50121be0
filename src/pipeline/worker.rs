//! One worker per thread: decodes a batch's records and runs the per-position stages
//! (validity → repetition → declaration → terminal / mate) with its own solver and table.
//! Dedup is not decided here but in the ordered commit; the worker only computes the key.
//!
//! # Invariants
//! - `process` is a pure function of the batch and the settings: the solver starts each root
//!   on a fresh table generation (or, with `table_scope = "batch"`, each batch) and the game
//!   history is rebuilt from the batch, so the outcome never depends on which batches this
//!   worker saw before (thread-count independence).
//! - Every input record yields exactly one [`RecordOutcome`], in input order.

use super::settings::Settings;
use crate::codec::{self, Decoded, Format, GameResult, TeacherFields};
use crate::filter::{
    declaration::KingPath, Decision, DropReason, GameHistory, HistoryEntry, Perpetual,
    RejectReason, RepetitionKind, RepetitionScan,
};
use crate::io::batch::{Batch, RecordRef};
use crate::mate::{MateResult, Solver, Verdict};
use crate::shogi::{Fingerprint, Move, Position};
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
    /// The verified PV, USI.
    pub pv: Vec<String>,
    /// Solver nodes.
    pub nodes: u64,
    /// The record in the mates file's format.
    pub binary: Vec<u8>,
}

/// What happened to one record. Kept for every record until its batch is committed, so
/// the common case (a kept or plainly dropped record) is small: everything that only some
/// records carry lives in [`RecordOutcome::extra`].
#[derive(Debug, Clone)]
pub struct RecordOutcome {
    /// Global record index.
    pub index: u64,
    /// Input file number.
    pub file: u32,
    /// Byte offset in that file (in the decompressed stream for .zst).
    pub offset: u64,
    /// The decision before dedup.
    pub decision: Decision,
    /// Dedup key for a kept position.
    pub dedup_key: Option<Fingerprint>,
    /// The bytes to write if kept, as a range of [`BatchOutcome::out`].
    pub out: Range<usize>,
    /// Solver nodes spent.
    pub nodes: u64,
    /// The solver ran out of budget (the record is kept).
    pub unknown: bool,
    /// That was the wall-time guard, not the node budget.
    pub timed_out: bool,
    /// The verdict came from the run's verdict cache: `nodes` were not searched again.
    pub cached: bool,
    /// The move field is not a legal move in the position.
    pub move_illegal: bool,
    /// The move field was zeroed (`move_field = "clear"`).
    pub move_cleared: bool,
    /// The side to move's king has an open entering-king path (tag mode).
    pub open_path: bool,
    /// Audit detail, mate, repetition kind, raw bytes: `None` when the record has none.
    pub extra: Option<Box<RecordExtra>>,
}

/// The parts of a [`RecordOutcome`] that only some records carry (boxed: one pointer in the
/// common case).
#[derive(Debug, Clone, Default)]
pub struct RecordExtra {
    /// Audit detail (`Value::Null` when none).
    pub detail: Value,
    /// The mate, for dropped mate / mated / checkmated records.
    pub mate: Option<MateOut>,
    /// The open entering-king path's audit detail (tag mode): files reached, in camp.
    pub open_path_detail: Value,
    /// For repetition drops: `exact` or `inferior`, and whether it was perpetual check.
    pub repetition: Option<(&'static str, bool)>,
    /// For rejects: the raw record bytes, hex (the first [`MAX_RAW_BYTES`] of them).
    pub raw_hex: Option<String>,
    /// For rejects from a text format: the same bytes as text (invalid UTF-8 replaced,
    /// line ending trimmed), so that a reader of rejected.jsonl sees the line itself.
    pub raw_text: Option<String>,
    /// For rejects: the record's length in bytes.
    pub raw_len: usize,
}

/// The most bytes of a rejected record written to rejected.jsonl: a text file read with the
/// wrong format can hold one enormous "line".
pub const MAX_RAW_BYTES: usize = 4096;

/// The extra part of a record without one.
static NO_EXTRA: RecordExtra = RecordExtra {
    detail: Value::Null,
    mate: None,
    open_path_detail: Value::Null,
    repetition: None,
    raw_hex: None,
    raw_text: None,
    raw_len: 0,
};

/// A processed batch: outcomes in input order and the bytes of kept records.
#[derive(Debug, Default)]
pub struct BatchOutcome {
    /// One per input record, in order.
    pub records: Vec<RecordOutcome>,
    /// Output bytes of kept records, concatenated.
    pub out: Vec<u8>,
}

impl BatchOutcome {
    /// Empties it for the next batch, keeping the allocations: the run hands committed
    /// outcomes back to the workers instead of freeing ~1 MB per batch on the commit thread
    /// and allocating it again on a worker.
    pub fn recycle(&mut self) {
        self.records.clear();
        self.out.clear();
    }
}

/// A worker's private state: the solver (table allocated once) and scratch.
pub struct Worker {
    solver: Option<Solver>,
    history: GameHistory,
    /// The records being decided (two: binary records are decoded in pairs), decoded in place
    /// (the same two positions are reused for every record).
    decoded: [Decoded; 2],
}

impl Worker {
    /// A worker with a solver of `table_mb` MiB if the mate stage is on.
    pub fn new(settings: &Settings) -> Worker {
        Worker {
            solver: settings.mate.as_ref().map(|m| {
                let mut solver = Solver::new(m.table_mb);
                solver.set_reuse(m.table_per_batch);
                solver
            }),
            history: GameHistory::new(),
            decoded: Default::default(),
        }
    }

    /// Decides every record of `batch` into `outcome` (emptied first; a recycled one keeps
    /// its allocations, see [`BatchOutcome::recycle`]).
    /// `tick(n)` is called every few records with the number decided since the last call.
    pub fn process(
        &mut self,
        batch: &Batch,
        settings: &Settings,
        tick: &(dyn Fn(u64) + Sync),
        mut outcome: BatchOutcome,
    ) -> BatchOutcome {
        outcome.recycle();
        outcome.records.reserve(batch.len());
        outcome.out.reserve(batch.bytes.len());
        self.history.clear();
        if let (Some(solver), Some(m)) = (self.solver.as_mut(), settings.mate.as_ref()) {
            if m.table_per_batch {
                // A batch sees what its own earlier positions left in the table, never
                // what an earlier batch left (per position, `solve` starts each root afresh).
                solver.forget();
            }
        }
        if let Some(e) = batch.unreadable() {
            // The rest of a broken stream: one rejected record, and the run goes on.
            for rec in batch.iter() {
                let r = RecordOutcome::new().reject(
                    RejectReason::Unreadable(e.to_string()),
                    &[],
                    false,
                );
                outcome.records.push(r.at(&rec, batch.file));
            }
            tick(1);
            return outcome;
        }
        let mut since_tick = 0;
        // Binary records are decoded two at a time (interleaved: faster), then decided one
        // by one in input order.
        let pairs = !batch.format.is_text();
        let last_index = (batch.first_index + batch.len() as u64).saturating_sub(1);
        let mut records = batch.iter();
        while let Some(first) = records.next() {
            if let Some(len) = batch.overlong.filter(|_| first.index == last_index) {
                // Only its first MAX_LINE bytes were read: rejected, never decoded (a USI
                // line cut short could read as another, valid record).
                let why = format!(
                    "line of {len} bytes, longer than any {} record can be ({} at most)",
                    batch.format,
                    crate::io::batch::MAX_LINE
                );
                let r = RecordOutcome::new().reject(
                    RejectReason::Malformed(why),
                    first.bytes,
                    batch.format.is_text(),
                );
                outcome.records.push(r.at(&first, batch.file));
                tick(1);
                continue;
            }
            let second = if pairs { records.next() } else { None };
            let decoded = match &second {
                Some(next) => {
                    let [a, b] = &mut self.decoded;
                    codec::decode_pair_into(batch.format, [first.bytes, next.bytes], [a, b])
                }
                None => [
                    codec::decode_into(batch.format, first.bytes, &mut self.decoded[0]),
                    Ok(()),
                ],
            };
            for (slot, (rec, decoded)) in std::iter::once(first)
                .chain(second)
                .zip(decoded)
                .enumerate()
            {
                since_tick += 1;
                if since_tick == 64 {
                    tick(since_tick);
                    since_tick = 0;
                }
                let r = self.decide(
                    slot,
                    decoded,
                    batch.format,
                    rec.bytes,
                    settings,
                    &mut outcome.out,
                );
                outcome.records.push(r.at(&rec, batch.file));
            }
        }
        tick(since_tick);
        outcome
    }

    /// Runs the stages on one record, decoded (`decoded`) into `self.decoded[slot]`; the first
    /// stage that decides ends it.
    fn decide(
        &mut self,
        slot: usize,
        decoded: Result<(), codec::CodecError>,
        format: Format,
        bytes: &[u8],
        s: &Settings,
        out: &mut Vec<u8>,
    ) -> RecordOutcome {
        let mut r = RecordOutcome::new();
        // 1. validity
        if let Err(e) = decoded {
            return r.reject(reject_reason(e), bytes, format.is_text());
        }
        let Decoded {
            position: pos,
            teacher,
            history,
        } = &mut self.decoded[slot];
        let teacher = *teacher;
        if let Some(t) = teacher
            .as_ref()
            .filter(|t| t.raw_move != 0 && !t.move_legal)
        {
            r.move_illegal = true;
            if s.move_field_reject {
                let why = format!(
                    "move field 0x{:04x} is not a legal move in the position",
                    t.raw_move
                );
                return r.reject(RejectReason::Malformed(why), bytes, format.is_text());
            }
        }
        // 2. repetition: USI lines carry their own history; psv records are walked in game
        // order within the (game-aligned) batch.
        if let Some(select) = s.repetition {
            let scan = match (&history, &teacher) {
                (Some(h), _) => self.history.load_usi(h, pos),
                (None, Some(t)) if format == Format::Psv => match t.game_ply {
                    Some(ply) => self.history.push_at(HistoryEntry::of(pos), ply as u32),
                    None => self.history.push_position(pos),
                },
                _ => Default::default(),
            };
            if let Some(kind) = scan.verdict(select) {
                return r.repetition(kind, &scan);
            }
        }
        // 3. declaration (and the open-path scan)
        if let Some(stage) = &s.declaration {
            let v = stage.evaluate(pos);
            if let Some(info) = v.open_path {
                r.tag_open_path(info.of(pos.side_to_move()));
            }
            if v.drop {
                let open_path = r.open_path;
                r.extra_mut().detail = json!({
                    "declared": format!("{:?}", v.declared).to_lowercase(),
                    "points": v.points,
                    "pieces_in_camp": v.pieces_in_camp,
                    "open_path": open_path,
                });
                r.decision = Decision::Drop(DropReason::Declaration);
                return r;
            }
        }
        // 4. terminal / mate / mated
        if let (Some(m), Some(solver)) = (&s.mate, self.solver.as_mut()) {
            // `pos` passed `validate` when it was decoded (stage 1), so the solver need
            // not check it again.
            let v = if pos.in_check() && !m.and_root {
                // Only the terminal test: a position in check is not searched.
                terminal_only(pos)
            } else if let Some(cache) = &m.cache {
                let fp = pos.fingerprint();
                match cache.get(fp) {
                    Some(v) => {
                        r.cached = true;
                        v
                    }
                    None => {
                        let v = solver.solve_valid(pos, &m.limits);
                        cache.insert(fp, &v, &m.limits);
                        v
                    }
                }
            } else {
                solver.solve_valid(pos, &m.limits)
            };
            r.nodes = v.nodes;
            r.unknown = v.result == MateResult::Unknown;
            r.timed_out = v.timed_out;
            if let Some(reason) = drop_reason(v.result) {
                let pv: Vec<String> = v.pv.iter().map(|m| m.to_usi()).collect();
                r.extra_mut().detail = json!({"plies": v.plies, "pv": pv, "nodes": v.nodes});
                if reason != DropReason::NoLegalMoves {
                    r.extra_mut().mate =
                        Some(mate_out(pos, reason, &v, teacher.as_ref(), s.mates_format));
                }
                r.decision = Decision::Drop(reason);
                return r;
            }
            if r.unknown && m.drop_unknown {
                r.extra_mut().detail = json!({"nodes": v.nodes, "timed_out": v.timed_out});
                r.decision = Decision::Drop(DropReason::Unknown);
                return r;
            }
            if r.unknown && m.tag_unknown {
                // The commit lists a kept record that has a detail in the audit (unless its
                // dedup drops it as a duplicate).
                r.extra_mut().detail =
                    json!({"nodes": v.nodes, "timed_out": v.timed_out, "sfen": pos.to_sfen()});
            }
        }
        // Kept: the dedup key, and the output bytes (original, move field cleared, or
        // converted).
        r.dedup_key = s
            .dedup
            .then(|| crate::filter::dedup_key(pos, s.dedup_mirror));
        let start = out.len();
        let target = s.output_format.unwrap_or(format);
        r.move_cleared = r.move_illegal && s.move_field_clear;
        if target == format {
            out.extend_from_slice(bytes);
            if r.move_cleared {
                // psv and hcpe both keep the 16-bit move at bytes 34..36.
                out[start + MOVE_FIELD.start..start + MOVE_FIELD.end].fill(0);
            }
        } else {
            let mut t = teacher;
            if let (true, Some(t)) = (r.move_cleared, t.as_mut()) {
                t.raw_move = 0;
                t.mv = None;
                t.move_encoding = None;
            }
            if let Err(e) = codec::encode(target, pos, t.as_ref(), out) {
                out.truncate(start);
                r.dedup_key = None;
                return r.reject(
                    RejectReason::Malformed(format!("cannot convert to {target}: {e}")),
                    bytes,
                    format.is_text(),
                );
            }
            if target.is_text() && out.last() == Some(&b'\n') {
                out.pop(); // the shard writer ends text records itself
            }
        }
        r.out = start..out.len();
        r
    }
}

/// Where psv and hcpe records hold their 16-bit move.
const MOVE_FIELD: std::ops::Range<usize> = 34..36;

impl RecordOutcome {
    /// A kept record at index 0 with nothing recorded yet (the caller fills in the place).
    fn new() -> RecordOutcome {
        RecordOutcome {
            index: 0,
            file: 0,
            offset: 0,
            decision: Decision::Keep,
            dedup_key: None,
            out: 0..0,
            nodes: 0,
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
    pub fn extra(&self) -> &RecordExtra {
        self.extra.as_deref().unwrap_or(&NO_EXTRA)
    }

    /// The extra part, created on first use.
    fn extra_mut(&mut self) -> &mut RecordExtra {
        self.extra.get_or_insert_with(Default::default)
    }

    /// This outcome placed at record `rec` of input file `file`.
    fn at(self, rec: &RecordRef<'_>, file: usize) -> RecordOutcome {
        RecordOutcome {
            index: rec.index,
            file: file as u32,
            offset: rec.offset,
            ..self
        }
    }

    /// This outcome as a reject of record `bytes` (`text`: a line of a text format).
    fn reject(mut self, reason: RejectReason, bytes: &[u8], text: bool) -> RecordOutcome {
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

    fn repetition(mut self, kind: RepetitionKind, scan: &RepetitionScan) -> RecordOutcome {
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

    fn tag_open_path(&mut self, path: KingPath) {
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

/// The rejection for a record that does not decode.
fn reject_reason(e: codec::CodecError) -> RejectReason {
    match e {
        codec::CodecError::Invalid(inv) => RejectReason::Invalid(inv),
        codec::CodecError::Length { format, got, need } => RejectReason::Malformed(format!(
            "truncated record: {got} bytes at the end of the file, {format} needs {need}"
        )),
        other => RejectReason::Malformed(other.to_string()),
    }
}

/// The verdict without search for a position in check when `and_root` is off.
fn terminal_only(pos: &Position) -> Verdict {
    let result = if crate::shogi::movegen::has_legal_move(pos) {
        MateResult::NoMate
    } else {
        MateResult::Checkmated
    };
    Verdict {
        result,
        plies: 0,
        pv: Vec::new(),
        nodes: 0,
        timed_out: false,
    }
}

/// The drop reason for a solver result; `None` keeps the position.
fn drop_reason(result: MateResult) -> Option<DropReason> {
    match result {
        MateResult::Mate => Some(DropReason::Mate),
        MateResult::Mated => Some(DropReason::Mated),
        MateResult::Checkmated => Some(DropReason::Checkmated),
        MateResult::NoLegalMoves => Some(DropReason::NoLegalMoves),
        MateResult::NoMate | MateResult::Unknown => None,
    }
}

/// The mate record: SFEN, PV, and the binary form (psv: move = first PV move, score =
/// ±(32000 − plies) from the side to move, game_result ±1).
fn mate_out(
    pos: &Position,
    reason: DropReason,
    v: &Verdict,
    teacher: Option<&TeacherFields>,
    format: Format,
) -> MateOut {
    let winning = reason == DropReason::Mate;
    let score = (32000 - v.plies.min(32000) as i32) as i16;
    let score = if winning { score } else { -score };
    let first = v.pv.first().copied();
    let fields = TeacherFields {
        score,
        raw_move: first
            .map(|m: Move| match format {
                Format::Hcpe => m.raw(),
                _ => m.to_yo16(),
            })
            .unwrap_or(0),
        mv: first,
        move_encoding: first.map(|_| match format {
            Format::Hcpe => codec::MoveEncoding::Apery,
            _ => codec::MoveEncoding::YaneuraOu,
        }),
        move_legal: first.is_some(),
        game_ply: teacher
            .and_then(|t| t.game_ply)
            .or(Some(pos.ply().min(u16::MAX as u32) as u16)),
        game_result: GameResult::Psv(if winning { 1 } else { -1 }),
        padding: 0,
    };
    let mut binary = Vec::new();
    if codec::encode(format, pos, Some(&fields), &mut binary).is_err() {
        binary.clear();
    }
    if format.is_text() && binary.last() == Some(&b'\n') {
        binary.pop(); // the writer ends text records itself
    }
    MateOut {
        sfen: pos.to_sfen(),
        kind: reason.name(),
        plies: v.plies,
        pv: v.pv.iter().map(|m| m.to_usi()).collect(),
        nodes: v.nodes,
        binary,
    }
}

/// Lower-case hex of `bytes` (rejected.jsonl's raw record).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

//! The stages, one function each, in the order [`crate::filter::Stage::ORDER`] gives:
//! validity (with the move field), repetition, declaration, terminal / mate, then
//! [`keep`] (the dedup key and the bytes to write). A stage breaks with the finished outcome
//! when it decides the record, and continues to let the next stage look at it.

use super::outcome::{MateOut, RecordOutcome};
use crate::codec::{self, CodecError, Decoded, Format, GameResult, MoveEncoding, TeacherFields};
use crate::filter::{
    Decision, DeclarationStage, DropReason, GameHistory, HistoryEntry, RejectReason,
    RepetitionSelect,
};
use crate::mate::{MateResult, Solver, Verdict};
use crate::pipeline::settings::{MateSettings, Settings};
use crate::shogi::{Move, Position};
use serde_json::json;
use std::ops::ControlFlow::{self, Break, Continue};

/// `Continue`: on to the next stage; `Break`: decided, the record goes no further.
pub(super) type Step = ControlFlow<RecordOutcome, RecordOutcome>;

/// The record the stages look at: its decoded form, format and bytes.
pub(super) struct Record<'a> {
    /// The record decoded (its position is searched in place by the mate stage).
    pub decoded: &'a mut Decoded,
    /// Its format.
    pub format: Format,
    /// Its bytes as read.
    pub bytes: &'a [u8],
}

impl Record<'_> {
    /// `r` as a reject of this record.
    fn reject(&self, r: RecordOutcome, reason: RejectReason) -> RecordOutcome {
        r.reject(reason, self.bytes, self.format.is_text())
    }
}

/// Stage 1, validity: the record decoded to a possible position, and its move field (psv / hcpe)
/// is a legal move or is allowed not to be.
pub(super) fn validity(
    mut r: RecordOutcome,
    decoded: Result<(), CodecError>,
    rec: &Record<'_>,
    s: &Settings,
) -> Step {
    if let Err(e) = decoded {
        return Break(rec.reject(r, RejectReason::from(e)));
    }
    let teacher = rec.decoded.teacher.as_ref();
    if let Some(t) = teacher.filter(|t| t.raw_move != 0 && !t.move_legal) {
        r.move_illegal = true;
        if s.move_field_reject {
            let why = format!(
                "move field 0x{:04x} is not a legal move in the position",
                t.raw_move
            );
            return Break(rec.reject(r, RejectReason::Malformed(why)));
        }
    }
    Continue(r)
}

/// Stage 2, repetition: USI lines carry their own history; psv records are walked in game order
/// within the (game-aligned) batch, hcpe records along their inferred games, game formats
/// along their games.
pub(super) fn repetition(
    r: RecordOutcome,
    history: &mut GameHistory,
    rec: &Record<'_>,
    select: Option<RepetitionSelect>,
) -> Step {
    let Some(select) = select else {
        return Continue(r);
    };
    let d = &*rec.decoded;
    let scan = match (&d.history, &d.teacher) {
        (Some(h), _) => history.load_usi(h, &d.position),
        (None, Some(t)) if rec.format == Format::Psv => match t.game_ply {
            Some(ply) => history.push_at(HistoryEntry::of(&d.position), ply as u32),
            None => history.push_position(&d.position),
        },
        // The worker feeds a game's positions in order (`games.rs`); for hcpe it clears the
        // history where the chain of best moves breaks (`Worker::follow_chain`).
        (None, Some(_)) if rec.format.is_game() || rec.format == Format::Hcpe => {
            history.push_position(&d.position)
        }
        _ => Default::default(),
    };
    match scan.verdict(select) {
        Some(kind) => Break(r.repetition(kind, &scan)),
        None => Continue(r),
    }
}

/// Stage 3, declaration, and the open-path scan (which only tags).
pub(super) fn declaration(
    mut r: RecordOutcome,
    rec: &Record<'_>,
    stage: Option<&DeclarationStage>,
) -> Step {
    let Some(stage) = stage else {
        return Continue(r);
    };
    let pos = &rec.decoded.position;
    let v = stage.evaluate(pos);
    if let Some(info) = v.open_path {
        r.tag_open_path(info.of(pos.side_to_move()));
    }
    if !v.drop {
        return Continue(r);
    }
    let open_path = r.open_path;
    r.extra_mut().detail = json!({
        "declared": format!("{:?}", v.declared).to_lowercase(),
        "points": v.points,
        "pieces_in_camp": v.pieces_in_camp,
        "open_path": open_path,
    });
    r.decision = Decision::Drop(DropReason::Declaration);
    Break(r)
}

/// Stage 4, terminal / mate / mated, and what an undecided position becomes.
pub(super) fn mate(
    mut r: RecordOutcome,
    solver: Option<&mut Solver>,
    rec: &mut Record<'_>,
    s: &Settings,
) -> Step {
    let (Some(m), Some(solver)) = (&s.mate, solver) else {
        return Continue(r);
    };
    let pos = &mut rec.decoded.position;
    // A position in check with `and_root` off gets only the terminal test, no search.
    r.searched = !pos.in_check() || m.and_root;
    let started = std::time::Instant::now();
    let v = verdict(solver, m, pos, &mut r.cached);
    if r.searched && !r.cached {
        r.micros = u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
    }
    r.nodes = v.nodes;
    r.unknown = v.result == MateResult::Unknown;
    r.timed_out = v.timed_out;
    if let Some(reason) = drop_reason(v.result) {
        let pv: Vec<String> = v.pv.iter().map(|m| m.to_usi()).collect();
        r.extra_mut().detail = json!({"plies": v.plies, "pv": pv, "nodes": v.nodes});
        if matches!(reason, DropReason::Mate | DropReason::Mated) {
            r.extra_mut().plies_exact = Some(v.plies_exact);
        }
        if reason != DropReason::NoLegalMoves {
            // With mates off too: the run report counts mate lengths and game results.
            let teacher = rec.decoded.teacher.as_ref();
            let mate = mate_out(&rec.decoded.position, reason, &v, teacher, s.mates_format);
            r.extra_mut().mate = Some(mate);
        }
        r.decision = Decision::Drop(reason);
        return Break(r);
    }
    if r.unknown && m.drop_unknown {
        r.extra_mut().detail = json!({"nodes": v.nodes, "timed_out": v.timed_out});
        r.decision = Decision::Drop(DropReason::Unknown);
        return Break(r);
    }
    if r.unknown && m.tag_unknown {
        // The commit lists a kept record that has a detail in the audit (unless its dedup
        // drops it as a duplicate).
        let sfen = rec.decoded.position.to_sfen();
        r.extra_mut().detail = json!({"nodes": v.nodes, "timed_out": v.timed_out, "sfen": sfen});
    }
    Continue(r)
}

/// The solver's verdict on `pos` (from the run's verdict cache when it has one; `cached`
/// set then). `pos` passed `validate` when it was decoded (stage 1), so the solver need not
/// check it again.
fn verdict(
    solver: &mut Solver,
    m: &MateSettings,
    pos: &mut Position,
    cached: &mut bool,
) -> Verdict {
    if pos.in_check() && !m.and_root {
        // Only the terminal test: a position in check is not searched.
        return terminal_only(pos);
    }
    let Some(cache) = &m.cache else {
        return solver.solve_valid(pos, &m.limits);
    };
    let fp = pos.fingerprint();
    if let Some(v) = cache.get(fp) {
        *cached = true;
        return v;
    }
    let v = solver.solve_valid(pos, &m.limits);
    cache.insert(fp, &v, &m.limits);
    v
}

/// After the stages, a kept record: the dedup key, and the output bytes (original, move field cleared, or
/// converted); a record that cannot be converted to the output format is rejected.
pub(super) fn keep(
    mut r: RecordOutcome,
    rec: &Record<'_>,
    s: &Settings,
    out: &mut Vec<u8>,
) -> RecordOutcome {
    let (pos, format) = (&rec.decoded.position, rec.format);
    r.dedup_key = s
        .dedup
        .then(|| crate::filter::dedup_key(pos, s.dedup_mirror));
    let start = out.len();
    let target = s.output_format.unwrap_or(format);
    r.move_cleared = r.move_illegal && s.move_field_clear;
    if target == format && format.is_game() {
        // Written game by game by the commit, with the positions it keeps.
    } else if target == format {
        out.extend_from_slice(rec.bytes);
        if r.move_cleared {
            codec::clear_move_field(format, &mut out[start..]);
        }
    } else {
        let mut t = rec.decoded.teacher;
        if let (true, Some(t)) = (r.move_cleared, t.as_mut()) {
            t.raw_move = 0;
            t.mv = None;
            t.move_encoding = None;
        }
        if let Err(e) = codec::encode(target, pos, t.as_ref(), out) {
            out.truncate(start);
            r.dedup_key = None;
            let why = format!("cannot convert to {target}: {e}");
            return rec.reject(r, RejectReason::Malformed(why));
        }
        if target.is_text() && out.last() == Some(&b'\n') {
            out.pop(); // the shard writer ends text records itself
        }
    }
    if target == Format::Hcpe
        && s.drop_moveless_hcpe
        && out.get(start + 34..start + 36) == Some(&[0, 0])
    {
        // dlshogi would train on move 0, and reads a file ending in such a record as hcpe3.
        out.truncate(start);
        r.dedup_key = None;
        r.extra_mut().detail = json!({"written_as": "hcpe", "best_move16": 0});
        r.decision = Decision::Drop(DropReason::NoMove);
        return r;
    }
    r.out = start..out.len();
    r
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
        plies_exact: false,
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

/// The mate record: SFEN, PV, the record's game result, and the binary form in `format`
/// (none with mates off; psv: move = first PV move, score = ±(32000 − plies) from the side
/// to move, game_result ±1).
fn mate_out(
    pos: &Position,
    reason: DropReason,
    v: &Verdict,
    teacher: Option<&TeacherFields>,
    format: Option<Format>,
) -> MateOut {
    let binary = format.map_or_else(Vec::new, |f| mate_record(pos, reason, v, teacher, f));
    MateOut {
        sfen: pos.to_sfen(),
        kind: reason.name(),
        plies: v.plies,
        plies_exact: v.plies_exact,
        pv: v.pv.iter().map(|m| m.to_usi()).collect(),
        nodes: v.nodes,
        binary,
        game_result: teacher.map(|t| t.game_result.to_psv(pos.side_to_move())),
    }
}

/// The mate as a record of `format` (empty if it cannot be encoded).
fn mate_record(
    pos: &Position,
    reason: DropReason,
    v: &Verdict,
    teacher: Option<&TeacherFields>,
    format: Format,
) -> Vec<u8> {
    let first = v.pv.first().copied();
    if matches!(format, Format::Hcpe | Format::Psv) && first.is_none() {
        // A checkmated position has no move: in mates.jsonl only, never a move-less teacher
        // record (dlshogi reads an hcpe file ending in one as hcpe3; YaneuraOu's learner
        // searches it for a first move it has not: docs/formats.md).
        return Vec::new();
    }
    let winning = reason == DropReason::Mate;
    let score = (32000 - v.plies.min(32000) as i32) as i16;
    let score = if winning { score } else { -score };
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
            Format::Hcpe => MoveEncoding::Apery,
            _ => MoveEncoding::YaneuraOu,
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
    binary
}

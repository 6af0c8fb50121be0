//! A record's extra part (audit detail, mate, repetition kind, raw bytes of a reject) as the
//! outcome log holds it: JSON with owned names, read back into the worker's
//! [`RecordExtra`] with the static names the commit compares.
//!
//! # Invariants
//! `extra_of(repr_of(e))` equals `e` in every field; a name that is none of the worker's
//! (a damaged log) is refused.

use crate::pipeline::worker::{MateOut, RecordExtra};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A record's extra part as the log holds it (owned names).
#[derive(Serialize, Deserialize)]
pub(super) struct ExtraRepr {
    detail: Value,
    mate: Option<MateRepr>,
    open_path_detail: Value,
    repetition: Option<(String, bool)>,
    raw_hex: Option<String>,
    raw_text: Option<String>,
    raw_len: usize,
    plies_exact: Option<bool>,
}

/// A mate as the log holds it.
#[derive(Serialize, Deserialize)]
struct MateRepr {
    sfen: String,
    kind: String,
    plies: u32,
    pv: Vec<String>,
    nodes: u64,
    binary: Vec<u8>,
    plies_exact: bool,
    game_result: Option<i8>,
}

/// The extra part as the log holds it.
pub(super) fn repr_of(e: &RecordExtra) -> ExtraRepr {
    ExtraRepr {
        detail: e.detail.clone(),
        mate: e.mate.as_ref().map(|m| MateRepr {
            sfen: m.sfen.clone(),
            kind: m.kind.to_string(),
            plies: m.plies,
            pv: m.pv.clone(),
            nodes: m.nodes,
            binary: m.binary.clone(),
            plies_exact: m.plies_exact,
            game_result: m.game_result,
        }),
        open_path_detail: e.open_path_detail.clone(),
        repetition: e.repetition.map(|(n, p)| (n.to_string(), p)),
        raw_hex: e.raw_hex.clone(),
        raw_text: e.raw_text.clone(),
        raw_len: e.raw_len,
        plies_exact: e.plies_exact,
    }
}

/// The worker's extra part of `repr`; `Err` names what is damaged.
pub(super) fn extra_of(repr: ExtraRepr) -> Result<RecordExtra, &'static str> {
    let repetition = match repr.repetition {
        Some((name, perpetual)) => Some((
            interned(&name, &["exact", "inferior"]).ok_or("damaged record (repetition kind)")?,
            perpetual,
        )),
        None => None,
    };
    let mate = match repr.mate {
        Some(m) => Some(MateOut {
            kind: interned(&m.kind, &["mate", "mated", "checkmated"])
                .ok_or("damaged record (mate kind)")?,
            sfen: m.sfen,
            plies: m.plies,
            pv: m.pv,
            nodes: m.nodes,
            binary: m.binary,
            plies_exact: m.plies_exact,
            game_result: m.game_result,
        }),
        None => None,
    };
    Ok(RecordExtra {
        detail: repr.detail,
        mate,
        open_path_detail: repr.open_path_detail,
        repetition,
        raw_hex: repr.raw_hex,
        raw_text: repr.raw_text,
        raw_len: repr.raw_len,
        plies_exact: repr.plies_exact,
    })
}

/// The static name among `names` equal to `name`.
fn interned(name: &str, names: &[&'static str]) -> Option<&'static str> {
    names.iter().copied().find(|n| *n == name)
}

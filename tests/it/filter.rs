//! The per-position filter layer (src/filter, src/shogi/declaration.rs) against independent
//! truth: cshogi's declaration results and our Python labels on all 20,000 corpus
//! positions, a breadth-first reference for the seed-004 scan (docs/references.md), a
//! history scan written in Python for repetition, cshogi `is_draw` for perpetual check, and
//! hand-built edge cases.
//!
//! Data: tests/data/filter/labels_filter.jsonl.zst (the fields of the corpus labels these
//! tests need, with the SFEN) and startpos.usi.zst (the game history of each position).

mod dedup;
mod entering;
mod repetition;

use crate::support::data;
use posfilter::shogi::Position;
use serde_json::Value;
use std::sync::OnceLock;

/// Reads a zstd-compressed text file under tests/data.
fn zst_text(name: &str) -> String {
    let bytes = std::fs::read(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let raw = zstd::decode_all(&bytes[..]).unwrap_or_else(|e| panic!("{name}: {e}"));
    String::from_utf8(raw).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The 20,000 corpus labels (slim), parsed once.
fn labels() -> &'static [Value] {
    static LABELS: OnceLock<Vec<Value>> = OnceLock::new();
    LABELS.get_or_init(|| {
        zst_text("filter/labels_filter.jsonl.zst")
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    })
}

/// The 20,000 corpus positions (same order as the labels).
fn positions() -> &'static [Position] {
    static POS: OnceLock<Vec<Position>> = OnceLock::new();
    POS.get_or_init(|| {
        labels()
            .iter()
            .map(|l| {
                let sfen = l["sfen"].as_str().unwrap_or_default();
                Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"))
            })
            .collect()
    })
}

/// The USI game histories (same order as the labels).
fn usi_lines() -> Vec<String> {
    zst_text("filter/startpos.usi.zst")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Parses a SFEN that the test wrote by hand.
fn sfen(text: &str) -> Position {
    let p = Position::from_sfen(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    p.validate().unwrap_or_else(|e| panic!("{text}: {e}"));
    p
}

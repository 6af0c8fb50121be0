//! Shared helpers for the integration tests.

use std::path::PathBuf;

/// Path of a file under tests/data.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// Reads a JSON-lines file under tests/data.
pub fn jsonl(name: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: {e}: {l}")))
        .collect()
}

/// Path of the built `posfilter` binary.
#[allow(dead_code)]
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_posfilter"))
}

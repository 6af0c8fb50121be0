//! One rejected.jsonl line: the record's index, file, offset, reason and bytes, with the
//! bytes left out once a file's rejected records have shown [`MAX_REJECTED_RAW_PER_FILE`].

use super::worker::RecordOutcome;
use crate::filter::RejectReason;
use serde_json::{json, Value};

/// The most bytes of rejected records of one input file shown in rejected.jsonl (each
/// record shows at most its first 4 KiB): past it, a file's rejected lines keep their index,
/// offset, reason and length but not the bytes, and say `"raw_cut": true`. A 2 KB zstd bomb
/// of long lines wrote 445 MB of rejected.jsonl before.
pub(crate) const MAX_REJECTED_RAW_PER_FILE: u64 = 1 << 20;

/// The line for rejected record `r` of input `file`; `shown` counts the bytes its file's
/// rejected lines have shown so far (monotone: once past the cap, no later record of the
/// file shows bytes).
pub(super) fn line(
    reason: &RejectReason,
    r: &RecordOutcome,
    file: &str,
    shown: Option<&mut u64>,
) -> Value {
    let extra = r.extra();
    let mut line = json!({
        "index": r.index, "file": file, "offset": r.offset,
        "decision": "rejected", "detail": reason.to_string(),
        "raw": extra.raw_hex, "bytes": extra.raw_len,
    });
    if let Some(text) = &extra.raw_text {
        line["text"] = json!(text);
    }
    if let Some(shown) = shown {
        if *shown >= MAX_REJECTED_RAW_PER_FILE {
            line["raw"] = json!("");
            line["raw_cut"] = json!(true);
            if let Some(obj) = line.as_object_mut() {
                obj.remove("text");
            }
        } else {
            *shown += extra.raw_hex.as_ref().map_or(0, |h| h.len() as u64 / 2);
        }
    }
    line
}

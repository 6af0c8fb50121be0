//! One rejected.jsonl line: the record's index, file, offset, reason and bytes, with the
//! bytes left out once a file's rejected records have shown [`MAX_REJECTED_RAW_PER_FILE`];
//! and the summary lines ([`RejectRuns`]) that stand for a file's rejects of one reason past
//! [`MAX_REJECTED_LINES_PER_REASON`].
//!
//! # Invariants
//! - Every rejected record is in exactly one line: its own, or the `count` of one summary.
//! - The lines depend only on the rejects in input order (the state is in the checkpoint),
//!   so a resumed run and the gather of a split job write the same bytes as one run.

use super::output::AtomicFile;
use super::worker::RecordOutcome;
use crate::filter::RejectReason;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::io;

/// Rejected records of one reason (its kind, as `rejected_reasons` counts it) in one input
/// file that get a line each; the later ones of that file and reason make one summary line
/// (count, first and last index and offset) after the file's other rejected lines. A 2 KB
/// zstd bomb of bad records wrote 365 MB of rejected.jsonl before.
pub(crate) const MAX_REJECTED_LINES_PER_REASON: u64 = 1000;

/// The rejects of the input file being committed, by reason, and the summaries of those past
/// [`MAX_REJECTED_LINES_PER_REASON`] (a file's records are committed together, in order).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RejectRuns {
    /// The input file of the latest reject.
    file: u32,
    /// Per reason kind, in the order first met: the file's rejects of it so far.
    seen: Vec<(String, u64)>,
    /// The file's summaries not yet written, in the order their reasons passed the limit.
    pending: Vec<Summary>,
}

/// The rejects of one reason in one file past the limit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Summary {
    kind: String,
    /// The first summarised record's reason.
    detail: String,
    count: u64,
    first: (u64, u64),
    last: (u64, u64),
}

impl RejectRuns {
    /// Notes the reject of record `r` for `reason`. Returns the summary lines of the previous
    /// file when `r` is of another one (to write before anything of `r`'s), and whether `r`
    /// gets a line of its own (if not, a summary counts it).
    pub(super) fn note(
        &mut self,
        reason: &RejectReason,
        r: &RecordOutcome,
        files: &[String],
    ) -> (Vec<Value>, bool) {
        let before = if r.file != self.file {
            let lines = self.flush(files);
            self.file = r.file;
            lines
        } else {
            Vec::new()
        };
        let kind = reason.kind();
        let i = match self.seen.iter().position(|(k, _)| k == kind) {
            Some(i) => i,
            None => {
                self.seen.push((kind.to_string(), 0));
                self.seen.len() - 1
            }
        };
        self.seen[i].1 += 1;
        if self.seen[i].1 <= MAX_REJECTED_LINES_PER_REASON {
            return (before, true);
        }
        let at = (r.index, r.offset);
        match self.pending.iter_mut().find(|s| s.kind == kind) {
            Some(s) => {
                s.count += 1;
                s.last = at;
            }
            None => self.pending.push(Summary {
                kind: kind.to_string(),
                detail: reason.to_string(),
                count: 1,
                first: at,
                last: at,
            }),
        }
        (before, false)
    }

    /// Writes the summary lines not written yet (at the end of the run).
    pub(super) fn finish(&mut self, out: &mut AtomicFile, files: &[String]) -> io::Result<()> {
        self.flush(files)
            .iter()
            .try_for_each(|line| out.write_json_line(line))
    }

    /// The summary lines not written yet (the current file's), and a fresh start.
    fn flush(&mut self, files: &[String]) -> Vec<Value> {
        let file = file_name(files, self.file);
        self.seen.clear();
        let lines = self.pending.drain(..).map(|s| {
            json!({
                "file": file, "decision": "rejected", "summary": true, "reason": s.kind,
                "detail": s.detail, "count": s.count,
                "first_index": s.first.0, "first_offset": s.first.1,
                "last_index": s.last.0, "last_offset": s.last.1,
            })
        });
        lines.collect()
    }
}

/// The most bytes of rejected records of one input file shown in rejected.jsonl (each
/// record shows at most its first 4 KiB): past it, a file's rejected lines keep their index,
/// offset, reason and length but not the bytes, and say `"raw_cut": true`. A 2 KB zstd bomb
/// of long lines wrote 445 MB of rejected.jsonl before.
pub(crate) const MAX_REJECTED_RAW_PER_FILE: u64 = 1 << 20;

/// Writes what rejected.jsonl gets for record `r`, rejected for `reason`: the summaries of
/// the file before it when `r` is of another file, then `r`'s own line (see [`line`]) unless
/// a summary counts it. `shown`: as for [`line`].
pub(super) fn write(
    out: &mut AtomicFile,
    runs: &mut RejectRuns,
    shown: Option<&mut u64>,
    reason: &RejectReason,
    r: &RecordOutcome,
    files: &[String],
) -> io::Result<()> {
    let (summaries, own_line) = runs.note(reason, r, files);
    for line in &summaries {
        out.write_json_line(line)?;
    }
    if !own_line {
        return Ok(());
    }
    out.write_json_line(&line(reason, r, file_name(files, r.file), shown))
}

/// The name of input file number `file` ("?" for none).
pub(super) fn file_name(files: &[String], file: u32) -> &str {
    files.get(file as usize).map_or("?", String::as_str)
}

/// The line for rejected record `r` of input `file`; `shown` counts the bytes its file's
/// rejected lines have shown so far (monotone: once past the cap, no later record of the
/// file shows bytes).
fn line(reason: &RejectReason, r: &RecordOutcome, file: &str, shown: Option<&mut u64>) -> Value {
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

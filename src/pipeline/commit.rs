//! The ordered commit: applies batch outcomes strictly in input order, decides duplicates
//! (so dedup never depends on scheduling), writes kept records, mates, audit and rejected
//! lines, and keeps the counts.
//!
//! # Invariants
//! Each outcome passed to [`Commit::apply`] adds exactly one to `counts.input` and exactly one
//! to kept, one drop reason or rejected; [`Counts::reconcile`] checks it at the end.

use super::dedup_log::DedupLog;
use super::output::{AtomicFile, AtomicMark, FileInfo};
use super::report::{Counts, Tallies};
use super::worker::{BatchOutcome, RecordOutcome};
use crate::codec::Format;
use crate::filter::FirstSeen;
use crate::filter::{Decision, DropReason};
use crate::io::output::{FileMark, OutputOptions, ShardWriter, ShardWriterMark};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::io;
use std::path::Path;

/// Dedup keys seen so far and the global index of the first record with each (reference
/// pools: `u64::MAX`).
pub type DedupIndex = FirstSeen;

/// One audit.jsonl line, serialised straight from borrowed fields (no JSON tree per line);
/// fields in the sorted order a JSON map writes them.
#[derive(Serialize)]
struct AuditLine<'a> {
    decision: &'a str,
    detail: Detail<'a>,
    file: &'a str,
    index: u64,
    offset: u64,
}

/// An audit line's `detail`: a stage's tree, or a duplicate's first record / reference pool.
#[derive(Serialize)]
#[serde(untagged)]
enum Detail<'a> {
    Tree(&'a Value),
    FirstIndex { first_index: u64 },
    Reference { reference: bool },
}

/// Records whose dedup slots are touched ahead of deciding them: enough misses in flight,
/// few enough pages that they are all still mapped in the TLB when the decisions come.
const WARM_CHUNK: usize = 64;

/// Running state of the commit: counts, the dedup map and the open writers.
pub struct Commit {
    /// Record counts.
    pub counts: Counts,
    /// Unknowns, nodes, mates, move fields, tags and reasons.
    pub tallies: Tallies,
    /// Records read per input file.
    pub per_file: Vec<u64>,
    dedup: Option<DedupIndex>,
    /// With checkpoints on: every key added to `dedup`, for a resumed run.
    dedup_log: Option<DedupLog>,
    /// Kept-record writers, one per output format met so far (a handful: searched linearly).
    kept: Vec<(Format, ShardWriter)>,
    out_format: Option<Format>,
    audit: Option<AtomicFile>,
    rejected: AtomicFile,
    mates_jsonl: Option<AtomicFile>,
    mates_bin: Option<ShardWriter>,
    files: Vec<String>,
    out_dir: std::path::PathBuf,
    shard_records: u64,
    zstd_level: Option<i32>,
}

/// How the commit writes.
pub struct CommitOptions<'a> {
    /// Output directory.
    pub out_dir: &'a Path,
    /// Output format (`None` = same as each input).
    pub out_format: Option<Format>,
    /// Records per shard.
    pub shard_records: u64,
    /// zstd level for shards, `None` for plain.
    pub zstd_level: Option<i32>,
    /// Write audit.jsonl.
    pub audit: bool,
    /// Write `mates.jsonl` and `mates.<fmt>` in this format.
    pub mates: Option<Format>,
    /// Dedup on (with reference keys pre-filled, index `u64::MAX`).
    pub dedup: Option<DedupIndex>,
    /// Input file names, by file number.
    pub files: Vec<String>,
    /// Where to log the keys added to `dedup` (checkpoints on).
    pub dedup_log: Option<DedupLog>,
}

/// The commit's state at a checkpoint: its counts and every writer's mark.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CommitMark {
    /// Record counts.
    pub counts: Counts,
    /// Tallies.
    pub tallies: Tallies,
    /// Records read per input file.
    pub per_file: Vec<u64>,
    /// Kept-record writers in the order they were opened.
    pub kept: Vec<(Format, ShardWriterMark)>,
    /// The binary mates file.
    pub mates_bin: Option<ShardWriterMark>,
    /// audit.jsonl.
    pub audit: Option<AtomicMark>,
    /// rejected.jsonl.
    pub rejected: AtomicMark,
    /// mates.jsonl.
    pub mates_jsonl: Option<AtomicMark>,
    /// The dedup log.
    pub dedup_log: Option<FileMark>,
}

impl Commit {
    /// Opens the side files (under temporary names).
    pub fn new(o: CommitOptions<'_>) -> io::Result<Commit> {
        let dir = o.out_dir;
        Ok(Commit {
            counts: Counts::default(),
            tallies: Tallies::default(),
            per_file: vec![0; o.files.len()],
            dedup: o.dedup,
            dedup_log: o.dedup_log,
            kept: Vec::new(),
            out_format: o.out_format,
            audit: if o.audit {
                Some(AtomicFile::create(dir, "audit.jsonl")?)
            } else {
                None
            },
            rejected: AtomicFile::create(dir, "rejected.jsonl")?,
            mates_jsonl: match o.mates {
                Some(_) => Some(AtomicFile::create(dir, "mates.jsonl")?),
                None => None,
            },
            mates_bin: o.mates.map(|f| {
                ShardWriter::single(&dir.join(format!("mates.{}", f.extension())), f, None)
            }),
            files: o.files,
            out_dir: dir.to_path_buf(),
            shard_records: o.shard_records,
            zstd_level: o.zstd_level,
        })
    }

    /// A commit that goes on from `mark` (taken by [`Commit::checkpoint`] in a run of the
    /// same configuration): counts restored, every file checked against its mark and
    /// reopened there. `o.dedup` must already hold the keys of the dedup log.
    pub fn resume(o: CommitOptions<'_>, mark: &CommitMark) -> io::Result<Commit> {
        let dir = o.out_dir;
        if o.audit != mark.audit.is_some()
            || o.mates.is_some() != mark.mates_jsonl.is_some()
            || o.dedup.is_some() != mark.dedup_log.is_some()
        {
            // Equal configurations cannot get here (the run compares them first).
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the checkpoint and the configuration disagree on the files to write",
            ));
        }
        let resume_atomic = |rel: &str, m: Option<AtomicMark>| match m {
            Some(m) => AtomicFile::resume(dir, rel, m).map(Some),
            None => Ok(None),
        };
        let opts = OutputOptions {
            zstd_level: o.zstd_level,
            shard_records: o.shard_records,
        };
        let mut kept = Vec::new();
        for (format, m) in &mark.kept {
            let w = ShardWriter::resume(&dir.join("kept"), *format, opts, None, m)
                .map_err(io::Error::other)?;
            kept.push((*format, w));
        }
        let mates_bin = match (o.mates, &mark.mates_bin) {
            (Some(f), Some(m)) => Some(
                ShardWriter::resume(
                    dir,
                    f,
                    OutputOptions {
                        zstd_level: None,
                        shard_records: 0,
                    },
                    Some(format!("mates.{}", f.extension())),
                    m,
                )
                .map_err(io::Error::other)?,
            ),
            (None, None) => None,
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the checkpoint and the configuration disagree on the mates file",
                ))
            }
        };
        Ok(Commit {
            counts: mark.counts.clone(),
            tallies: mark.tallies.clone(),
            per_file: mark.per_file.clone(),
            dedup: o.dedup,
            dedup_log: o.dedup_log,
            kept,
            out_format: o.out_format,
            audit: resume_atomic("audit.jsonl", mark.audit)?,
            rejected: AtomicFile::resume(dir, "rejected.jsonl", mark.rejected)?,
            mates_jsonl: resume_atomic("mates.jsonl", mark.mates_jsonl)?,
            mates_bin,
            files: o.files,
            out_dir: dir.to_path_buf(),
            shard_records: o.shard_records,
            zstd_level: o.zstd_level,
        })
    }

    /// Makes everything committed so far durable (flushed and synced) and returns the
    /// state a resumed run goes on from.
    pub fn checkpoint(&mut self) -> io::Result<CommitMark> {
        let mut kept = Vec::new();
        for (format, w) in &mut self.kept {
            kept.push((*format, w.checkpoint().map_err(io::Error::other)?));
        }
        let mates_bin = match self.mates_bin.as_mut() {
            Some(w) => Some(w.checkpoint().map_err(io::Error::other)?),
            None => None,
        };
        let mark = |f: Option<&mut AtomicFile>| f.map(AtomicFile::checkpoint).transpose();
        Ok(CommitMark {
            counts: self.counts.clone(),
            tallies: self.tallies.clone(),
            per_file: self.per_file.clone(),
            kept,
            mates_bin,
            audit: mark(self.audit.as_mut())?,
            rejected: self.rejected.checkpoint()?,
            mates_jsonl: mark(self.mates_jsonl.as_mut())?,
            dedup_log: self
                .dedup_log
                .as_mut()
                .map(DedupLog::checkpoint)
                .transpose()?,
        })
    }

    fn file_name(&self, file: u32) -> &str {
        self.files
            .get(file as usize)
            .map(String::as_str)
            .unwrap_or("?")
    }

    fn bump_file(&mut self, file: u32) {
        if let Some(n) = self.per_file.get_mut(file as usize) {
            *n += 1;
        }
    }

    /// Applies one batch's outcomes in order.
    pub fn apply(&mut self, format: Format, outcome: &BatchOutcome) -> io::Result<()> {
        for chunk in outcome.records.chunks(WARM_CHUNK) {
            if let Some(index) = &self.dedup {
                // The index is far larger than the caches and the TLB: touch the slots of a
                // few dozen keys first, in a loop of independent loads the CPU overlaps, so
                // that the ordered pass (which decides) finds them cached instead of missing
                // one record at a time.
                for key in chunk.iter().filter_map(|r| r.dedup_key) {
                    index.warm(key);
                }
            }
            for r in chunk {
                self.apply_record(format, r, &outcome.out)?;
            }
        }
        Ok(())
    }

    fn apply_record(&mut self, format: Format, r: &RecordOutcome, out: &[u8]) -> io::Result<()> {
        self.counts.input += 1;
        self.bump_file(r.file);
        if r.cached {
            self.tallies.verdict_cache.hits += 1;
            self.tallies.verdict_cache.nodes_saved += r.nodes;
        } else {
            self.tallies.nodes += r.nodes;
        }
        self.tallies.unknown += r.unknown as u64;
        self.tallies.unknown_timed_out += r.timed_out as u64;
        self.tallies.move_field.illegal += r.move_illegal as u64;
        let mut decision = r.decision.clone();
        let extra = r.extra();
        let mut detail = Detail::Tree(&extra.detail);
        if decision.is_keep() {
            if let (Some(map), Some(key)) = (self.dedup.as_mut(), r.dedup_key) {
                if let Some(first) = map.first_or_insert(key, r.index) {
                    decision = Decision::Drop(DropReason::Duplicate);
                    detail = if first == u64::MAX {
                        Detail::Reference { reference: true }
                    } else {
                        Detail::FirstIndex { first_index: first }
                    };
                } else if let Some(log) = self.dedup_log.as_mut() {
                    log.append(key, r.index)?;
                }
            }
        }
        let file = self
            .files
            .get(r.file as usize)
            .map(String::as_str)
            .unwrap_or("?");
        match &decision {
            Decision::Keep => {
                self.counts.kept += 1;
                // Only a kept record is written, so only it is counted as cleared (the
                // worker clears the field of every record it keeps, duplicates included).
                self.tallies.move_field.cleared += r.move_cleared as u64;
                self.tallies.unknown_kept += r.unknown as u64;
                // A kept record carries an audit detail only when the worker tagged it
                // (`filter.mate.unknown = "tag"`: its nodes and SFEN).
                let tag_unknown = r.unknown && !extra.detail.is_null();
                if r.open_path || tag_unknown {
                    // `open_path = "tag"` / `unknown = "tag"`: counted, and written to the
                    // audit as a kept record (one line with both details when both apply).
                    self.tallies.open_path_tagged += r.open_path as u64;
                    if let Some(audit) = self.audit.as_mut() {
                        let mut detail = if r.open_path {
                            extra.open_path_detail.clone()
                        } else {
                            json!({})
                        };
                        if tag_unknown {
                            detail["unknown"] = extra.detail.clone();
                        }
                        audit.write_json_line(&AuditLine {
                            decision: "keep",
                            detail: Detail::Tree(&detail),
                            file,
                            index: r.index,
                            offset: r.offset,
                        })?;
                    }
                }
                let target = self.out_format.unwrap_or(format);
                let at = match self.kept.iter().position(|(f, _)| *f == target) {
                    Some(at) => at,
                    None => {
                        let opts = OutputOptions {
                            zstd_level: self.zstd_level,
                            shard_records: self.shard_records,
                        };
                        let dir = self.out_dir.join("kept");
                        self.kept
                            .push((target, ShardWriter::new(&dir, target, opts)));
                        self.kept.len() - 1
                    }
                };
                let writer = &mut self.kept[at].1;
                writer
                    .write_record(out.get(r.out.clone()).unwrap_or(&[]))
                    .map_err(io::Error::other)?;
            }
            Decision::Drop(reason) => {
                let d = &mut self.counts.dropped;
                match reason {
                    DropReason::Checkmated => d.checkmated += 1,
                    DropReason::NoLegalMoves => d.no_legal_moves += 1,
                    DropReason::Mate => d.mate += 1,
                    DropReason::Mated => d.mated += 1,
                    DropReason::Repetition => d.repetition += 1,
                    DropReason::Declaration => d.declaration += 1,
                    DropReason::Duplicate => d.duplicate += 1,
                    DropReason::Unknown => d.unknown += 1,
                }
                if let Some((kind, perpetual)) = extra.repetition {
                    *self.tallies.repetition.entry(kind.to_string()).or_default() += 1;
                    if perpetual {
                        *self
                            .tallies
                            .repetition
                            .entry("perpetual_check".into())
                            .or_default() += 1;
                    }
                }
                if let Some(audit) = self.audit.as_mut() {
                    audit.write_json_line(&AuditLine {
                        decision: reason.name(),
                        detail,
                        file,
                        index: r.index,
                        offset: r.offset,
                    })?;
                }
                if let Some(m) = &extra.mate {
                    if let Some(j) = self.mates_jsonl.as_mut() {
                        j.write_json_line(&json!({
                            "index": r.index, "sfen": m.sfen, "kind": m.kind, "plies": m.plies,
                            "pv": m.pv, "nodes": m.nodes,
                        }))?;
                        self.tallies.mates_written += 1;
                    }
                    if let (Some(b), false) = (self.mates_bin.as_mut(), m.binary.is_empty()) {
                        b.write_record(&m.binary).map_err(io::Error::other)?;
                    }
                }
            }
            Decision::Reject(reason) => {
                self.counts.rejected += 1;
                if r.move_illegal && !r.move_cleared {
                    self.tallies.move_field.rejected += 1;
                }
                let kind = match reason {
                    crate::filter::RejectReason::Invalid(_) => "invalid",
                    crate::filter::RejectReason::Malformed(m) if m.starts_with("truncated") => {
                        "truncated"
                    }
                    crate::filter::RejectReason::Malformed(_) => "malformed",
                    crate::filter::RejectReason::Unreadable(_) => "unreadable",
                };
                *self
                    .tallies
                    .rejected_reasons
                    .entry(kind.into())
                    .or_default() += 1;
                let mut line = json!({
                    "index": r.index, "file": self.file_name(r.file), "offset": r.offset,
                    "decision": "rejected", "detail": reason.to_string(),
                    "raw": extra.raw_hex, "bytes": extra.raw_len,
                });
                if let Some(text) = &extra.raw_text {
                    line["text"] = json!(text);
                }
                self.rejected.write_json_line(&line)?;
            }
        }
        Ok(())
    }

    /// Finishes every file (renaming them into place); returns them for the manifest, kept
    /// shards first in format order.
    pub fn finish(self) -> io::Result<Vec<FileInfo>> {
        let mut files = Vec::new();
        let mut writers = self.kept;
        writers.sort_by_key(|(f, _)| f.name());
        let mates = self.mates_bin.map(|w| (Format::Psv, w));
        for (_, w) in writers.into_iter().chain(mates) {
            let shards = w.finish().map_err(io::Error::other)?;
            files.extend(shards.iter().map(|s| FileInfo::of_shard(s, &self.out_dir)));
        }
        for f in [self.mates_jsonl, self.audit].into_iter().flatten() {
            files.push(f.finish()?);
        }
        files.push(self.rejected.finish()?);
        Ok(files)
    }
}

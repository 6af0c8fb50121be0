//! The ordered commit: applies batch outcomes strictly in input order, decides duplicates
//! (so dedup never depends on scheduling), writes kept records, mates, audit and rejected
//! lines, and keeps the counts.
//!
//! # Invariants
//! Each outcome passed to [`Commit::apply`] adds exactly one to `counts.input` and exactly one
//! to kept, one drop reason or rejected; [`Counts::reconcile`] checks it at the end.

use super::dedup_log::DedupLog;
use super::gather::Gathered;
use super::kept_shards::KeptShards;
use super::known_dups::KnownDuplicates;
use super::output::{AtomicFile, AtomicMark, FileInfo};
use super::rejected_line::{self, file_name, RejectRuns};
use super::report::{Counts, Tallies};
use super::worker::{BatchOutcome, RecordOutcome};
use crate::codec::Format;
use crate::filter::FirstSeen;
use crate::filter::{Decision, DropReason, RejectReason};
use crate::io::output::{FileMark, OutputOptions, ShardWriter, ShardWriterMark};
use crate::shogi::Fingerprint;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::io;
use std::path::Path;

/// Dedup keys seen so far and the global index of the first record with each (reference
/// pools: `u64::MAX`).
pub(crate) type DedupIndex = FirstSeen;

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
pub(crate) struct Commit {
    /// Record counts.
    pub(crate) counts: Counts,
    /// Unknowns, nodes, mates, move fields, tags and reasons.
    pub(crate) tallies: Tallies,
    /// Per-file counts, histograms and game results for the run report.
    pub(crate) gathered: Gathered,
    /// Bytes of rejected records shown in rejected.jsonl per input file (see
    /// [`MAX_REJECTED_RAW_PER_FILE`]).
    rejected_raw: Vec<u64>,
    /// Rejects per reason of the file being committed, and their summaries.
    rejected_runs: RejectRuns,
    dedup: Option<DedupIndex>,
    /// With checkpoints on: every key added to `dedup`, for a resumed run.
    dedup_log: Option<DedupLog>,
    /// Duplicates decided elsewhere (the gather of a job split over tasks): used instead
    /// of `dedup`.
    known: Option<KnownDuplicates>,
    /// Kept-record writers, one per output format met so far (a handful: searched linearly).
    pub(super) kept: Vec<(Format, ShardWriter)>,
    out_format: Option<Format>,
    audit: Option<AtomicFile>,
    rejected: AtomicFile,
    mates_jsonl: Option<AtomicFile>,
    mates_bin: Option<ShardWriter>,
    files: Vec<String>,
    pub(super) out_dir: std::path::PathBuf,
    /// Names and compression of the kept shards.
    pub(super) kept_shards: KeptShards,
}

/// How the commit writes.
pub(crate) struct CommitOptions<'a> {
    /// Output directory.
    pub(crate) out_dir: &'a Path,
    /// Output format (`None` = same as each input).
    pub(crate) out_format: Option<Format>,
    /// Names, size and compression of the kept shards.
    pub(crate) kept_shards: KeptShards,
    /// Write audit.jsonl.
    pub(crate) audit: bool,
    /// Write `mates.jsonl` and `mates.<fmt>` in this format.
    pub(crate) mates: Option<Format>,
    /// Dedup on (with reference keys pre-filled, index `u64::MAX`).
    pub(crate) dedup: Option<DedupIndex>,
    /// Input file names, by file number.
    pub(crate) files: Vec<String>,
    /// Where to log the keys added to `dedup` (checkpoints on).
    pub(crate) dedup_log: Option<DedupLog>,
    /// Duplicates decided elsewhere, instead of `dedup` (the gather).
    pub(crate) known: Option<KnownDuplicates>,
}

/// The commit's state at a checkpoint: its counts and every writer's mark.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CommitMark {
    /// Record counts.
    pub(crate) counts: Counts,
    /// Tallies.
    pub(crate) tallies: Tallies,
    /// Per-file counts, histograms and game results.
    pub(crate) gathered: Gathered,
    /// Bytes of rejected records shown in rejected.jsonl per input file.
    #[serde(default)]
    pub(crate) rejected_raw: Vec<u64>,
    /// Rejects per reason of the file being committed, and their summaries.
    #[serde(default)]
    pub(crate) rejected_runs: RejectRuns,
    /// Kept-record writers in the order they were opened.
    pub(crate) kept: Vec<(Format, ShardWriterMark)>,
    /// The binary mates file.
    pub(crate) mates_bin: Option<ShardWriterMark>,
    /// audit.jsonl.
    pub(crate) audit: Option<AtomicMark>,
    /// rejected.jsonl.
    pub(crate) rejected: AtomicMark,
    /// mates.jsonl.
    pub(crate) mates_jsonl: Option<AtomicMark>,
    /// The dedup log.
    pub(crate) dedup_log: Option<FileMark>,
}

impl Commit {
    /// Opens the side files (under temporary names).
    pub(crate) fn new(o: CommitOptions<'_>) -> io::Result<Commit> {
        let dir = o.out_dir;
        Ok(Commit {
            counts: Counts::default(),
            tallies: Tallies::default(),
            gathered: Gathered::new(o.files.len()),
            rejected_raw: vec![0; o.files.len()],
            rejected_runs: RejectRuns::default(),
            dedup: o.dedup,
            dedup_log: o.dedup_log,
            known: o.known,
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
            kept_shards: o.kept_shards,
        })
    }

    /// A commit that goes on from `mark` (taken by [`Commit::checkpoint`] in a run of the
    /// same configuration): counts restored, every file checked against its mark and
    /// reopened there. `o.dedup` must already hold the keys of the dedup log.
    pub(crate) fn resume(o: CommitOptions<'_>, mark: &CommitMark) -> io::Result<Commit> {
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
        let mut kept = Vec::new();
        for (format, m) in &mark.kept {
            let opts = o.kept_shards.options(*format);
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
                        extension: None,
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
            gathered: mark.gathered.clone(),
            rejected_raw: mark.rejected_raw.clone(),
            rejected_runs: mark.rejected_runs.clone(),
            dedup: o.dedup,
            dedup_log: o.dedup_log,
            known: o.known,
            kept,
            out_format: o.out_format,
            audit: resume_atomic("audit.jsonl", mark.audit)?,
            rejected: AtomicFile::resume(dir, "rejected.jsonl", mark.rejected)?,
            mates_jsonl: resume_atomic("mates.jsonl", mark.mates_jsonl)?,
            mates_bin,
            files: o.files,
            out_dir: dir.to_path_buf(),
            kept_shards: o.kept_shards,
        })
    }

    /// Makes everything committed so far durable (flushed and synced) and returns the
    /// state a resumed run goes on from.
    pub(crate) fn checkpoint(&mut self) -> io::Result<CommitMark> {
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
            gathered: self.gathered.clone(),
            rejected_raw: self.rejected_raw.clone(),
            rejected_runs: self.rejected_runs.clone(),
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

    /// Applies one batch's outcomes in order.
    pub(crate) fn apply(&mut self, format: Format, outcome: &BatchOutcome) -> io::Result<()> {
        if !outcome.games.is_empty() {
            return self.apply_games(format, outcome);
        }
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

    /// Applies one record (tallies, dedup, the files its decision writes); true if kept.
    pub(super) fn apply_record(
        &mut self,
        format: Format,
        r: &RecordOutcome,
        out: &[u8],
    ) -> io::Result<bool> {
        self.tally(r);
        let extra = r.extra();
        let (decision, detail) = match self.dedup(r)? {
            Some(detail) => (Decision::Drop(DropReason::Duplicate), detail),
            None => (r.decision.clone(), Detail::Tree(&extra.detail)),
        };
        self.gathered
            .add(r, &decision, file_name(&self.files, r.file));
        match &decision {
            Decision::Keep => self.keep(format, r, out)?,
            Decision::Drop(reason) => self.drop(*reason, r, detail)?,
            Decision::Reject(reason) => self.reject(reason, r)?,
        }
        Ok(decision.is_keep())
    }

    /// Counts the record and adds what the worker spent and saw.
    fn tally(&mut self, r: &RecordOutcome) {
        self.counts.input += 1;
        let t = &mut self.tallies;
        if r.cached {
            t.verdict_cache.hits += 1;
            t.verdict_cache.nodes_saved += r.nodes;
        } else {
            t.nodes += r.nodes;
        }
        t.unknown += r.unknown as u64;
        t.unknown_timed_out += r.timed_out as u64;
        t.move_field.illegal += r.move_illegal as u64;
    }

    /// For a record the worker kept: the audit detail of a duplicate (its first record's
    /// index, or a reference pool) if an earlier record or a pool had its key; else its key
    /// is recorded (and logged) as first seen here, and `None`.
    fn dedup(&mut self, r: &RecordOutcome) -> io::Result<Option<Detail<'static>>> {
        let (Some(key), true) = (r.dedup_key, r.decision.is_keep()) else {
            return Ok(None);
        };
        let first = match (&mut self.dedup, &mut self.known) {
            (_, Some(known)) => known.first_of(r.index)?,
            (Some(index), None) => {
                let first = duplicate_of(index, key, r.index);
                if let (None, Some(log)) = (first, self.dedup_log.as_mut()) {
                    log.append(key, r.index)?;
                }
                first
            }
            (None, None) => None,
        };
        Ok(first.map(|first| match first {
            u64::MAX => Detail::Reference { reference: true },
            first => Detail::FirstIndex { first_index: first },
        }))
    }

    /// A kept record: counted, tagged in the audit if the worker tagged it, written.
    fn keep(&mut self, format: Format, r: &RecordOutcome, out: &[u8]) -> io::Result<()> {
        self.counts.kept += 1;
        // Only a kept record is written, so only it is counted as cleared (the worker clears
        // the field of every record it keeps, duplicates included).
        self.tallies.move_field.cleared += r.move_cleared as u64;
        self.tallies.unknown_kept += r.unknown as u64;
        self.tallies.open_path_tagged += r.open_path as u64;
        self.audit_kept(r)?;
        let target = self.out_format.unwrap_or(format);
        if target.is_game() {
            return Ok(()); // written with its game (`apply_games`)
        }
        let at = self.kept_writer(target);
        let bytes = out.get(r.out.clone()).unwrap_or(&[]);
        self.kept[at]
            .1
            .write_record(bytes)
            .map_err(io::Error::other)
    }

    /// The audit line of a kept record the worker tagged (`open_path = "tag"`,
    /// `unknown = "tag"`: one line with both details when both apply); none otherwise.
    fn audit_kept(&mut self, r: &RecordOutcome) -> io::Result<()> {
        let extra = r.extra();
        // A kept record carries an audit detail only when the worker tagged it unknown.
        let tag_unknown = r.unknown && !extra.detail.is_null();
        let Some(audit) = self.audit.as_mut().filter(|_| r.open_path || tag_unknown) else {
            return Ok(());
        };
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
            file: file_name(&self.files, r.file),
            index: r.index,
            offset: r.offset,
        })
    }

    /// A dropped record: counted, audited, and its mate written to the mates files.
    fn drop(
        &mut self,
        reason: DropReason,
        r: &RecordOutcome,
        detail: Detail<'_>,
    ) -> io::Result<()> {
        self.counts.dropped.add(reason);
        let extra = r.extra();
        if let Some(exact) = extra.plies_exact {
            let lengths = &mut self.tallies.mate_lengths;
            *if exact {
                &mut lengths.exact
            } else {
                &mut lengths.inexact
            } += 1;
        }
        if let Some((kind, perpetual)) = extra.repetition {
            let kinds = &mut self.tallies.repetition;
            *kinds.entry(kind.to_string()).or_default() += 1;
            if perpetual {
                *kinds.entry("perpetual_check".into()).or_default() += 1;
            }
        }
        if let Some(audit) = self.audit.as_mut() {
            audit.write_json_line(&AuditLine {
                decision: reason.name(),
                detail,
                file: file_name(&self.files, r.file),
                index: r.index,
                offset: r.offset,
            })?;
        }
        let Some(m) = &extra.mate else {
            return Ok(());
        };
        if let Some(j) = self.mates_jsonl.as_mut() {
            j.write_json_line(&json!({
                "index": r.index, "sfen": m.sfen, "kind": m.kind, "plies": m.plies,
                "plies_exact": m.plies_exact, "pv": m.pv, "nodes": m.nodes,
            }))?;
            self.tallies.mates_written += 1;
        }
        if let (Some(b), false) = (self.mates_bin.as_mut(), m.binary.is_empty()) {
            b.write_record(&m.binary).map_err(io::Error::other)?;
        }
        Ok(())
    }

    /// A rejected record: counted by kind and written to rejected.jsonl with its bytes.
    fn reject(&mut self, reason: &RejectReason, r: &RecordOutcome) -> io::Result<()> {
        self.counts.rejected += 1;
        if r.move_illegal && !r.move_cleared {
            self.tallies.move_field.rejected += 1;
        }
        *self
            .tallies
            .rejected_reasons
            .entry(reason.kind().into())
            .or_default() += 1;
        let shown = self.rejected_raw.get_mut(r.file as usize);
        let runs = &mut self.rejected_runs;
        rejected_line::write(&mut self.rejected, runs, shown, reason, r, &self.files)
    }

    /// Finishes every file (renaming them into place); returns them for the manifest, kept
    /// shards first in format order.
    pub(crate) fn finish(mut self) -> io::Result<Vec<FileInfo>> {
        self.rejected_runs.finish(&mut self.rejected, &self.files)?;
        if let Some(known) = self.known {
            known.finish()?;
        }
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

/// The dedup decision of the kept record number `index` with `key`: the index of the first
/// record with that key (`u64::MAX` for a reference pool) if there was one, else `None` and
/// the key is recorded as first seen at `index`.
#[inline]
pub(crate) fn duplicate_of(seen: &mut FirstSeen, key: Fingerprint, index: u64) -> Option<u64> {
    seen.first_or_insert(key, index)
}

//! The shard plan: the input cut into `N` parts for `N` tasks that each run part of it
//! (`posfilter run CONFIG --shard I/N`), computed from the input files alone, so that every
//! task computes the same plan without talking to the others.
//!
//! # Contract
//! - A plan is `N + 1` [`ResumePoint`]s, non-decreasing: part `i` is every record from
//!   `points[i]` (inclusive) to `points[i + 1]` (exclusive), the first point is the input's
//!   start and the last its end. Indices are those of the whole input, so the parts together
//!   hold every record once, in input order.
//! - Every point is a batch boundary of one reader over the whole input with the same
//!   [`BatchOptions`] (or the start of a file, or the end of the input): a reader resumed at
//!   `points[i]` ([`Batches::resume`]) yields exactly the batches the whole reader yields
//!   between the two points. A part therefore holds whole batches, whole psv games among
//!   them, and a run of the parts decides every record as one run over the input does.
//! - Parts are balanced by record count: point `i` is the first boundary at or after record
//!   `ceil(i × records / N)`; a part may be empty (fewer boundaries than parts).
//!
//! # What is read
//! - Uncompressed fixed-size records: nothing but the file's size (boundaries are multiples
//!   of the batch size from the file's start; [`super::batch`]); for psv and hcpe read with
//!   game alignment, the records from each wanted multiple to the next game start (hcpe:
//!   also the 65,536 records around it, to see that no chain of best moves there is long
//!   enough for the reader to cut it without a game start; if one is, the whole file is read
//!   as below).
//! - Text files, `.zst` files and game formats (hcpe3, .pack, sbinpack: a batch holds whole
//!   games, framed from the file's start): the whole file, once, by the batch reader itself
//!   (a line, a compressed stream or a game's framing cannot be entered in the middle); it
//!   keeps at most [`MAX_SCANNED_POINTS`] boundaries per file, evenly spread.

use super::batch::{BatchOptions, Batches, CutRule, InputSpec, ResumePoint, MAX_ALIGN_EXTRA};
use super::input::{self, InputError};
use crate::codec::psfen::psv_game_ply;
use crate::codec::Format;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The most batch boundaries a scanned file keeps for the plan (the plan's cuts in it are
/// then within 1/65,536 of the file from where the record counts would put them).
pub const MAX_SCANNED_POINTS: usize = 1 << 16;

/// The input cut into parts (see the module).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardPlan {
    /// Records in each input file (a truncated tail or an unreadable rest counts as one).
    pub file_records: Vec<u64>,
    /// `parts + 1` points: part `i` runs from `points[i]` to `points[i + 1]`.
    pub points: Vec<ResumePoint>,
}

/// Where a file's batch boundaries are, as far as the plan needs them.
enum Cuts {
    /// Uncompressed records of this size: a boundary at every multiple of the batch size
    /// (psv: with the gamePly of the record before, which tells whether a game starts).
    Fixed { size: u64, psv: bool },
    /// Uncompressed psv or hcpe read with game alignment: the first game start (by `rule`)
    /// at or after each multiple of the batch size.
    Aligned { size: u64, psv: bool, rule: CutRule },
    /// Boundaries found by reading the file (file-relative indices, file number 0), the
    /// file's start excluded and its end excluded.
    Scanned(Vec<ResumePoint>),
}

/// One input file for planning.
struct PlannedFile {
    spec: InputSpec,
    records: u64,
    /// Index of its first record in the whole input.
    first: u64,
    cuts: Cuts,
}

impl ShardPlan {
    /// The plan of `files` read with `opts`, in `parts` parts (at least 1).
    pub fn new(
        files: &[InputSpec],
        opts: BatchOptions,
        parts: usize,
    ) -> Result<ShardPlan, InputError> {
        let parts = parts.max(1);
        let mut planned = Vec::with_capacity(files.len());
        let mut first = 0u64;
        for spec in files {
            let (records, cuts) = file_cuts(spec, opts)?;
            planned.push(PlannedFile {
                spec: spec.clone(),
                records,
                first,
                cuts,
            });
            first += records;
        }
        let total = first;
        let end = ResumePoint {
            file: files.len(),
            offset: 0,
            next_index: total,
            seq: 0,
            last_ply: None,
            chunk_left: 0,
        };
        let mut points = vec![start_of(&planned, 0)];
        for i in 1..parts as u64 {
            // u128: records × parts cannot overflow.
            let target = ((i as u128 * total as u128).div_ceil(parts as u128)) as u64;
            let p = boundary_at_or_after(&planned, target, opts)?.unwrap_or(end);
            points.push(p);
        }
        points.push(end);
        Ok(ShardPlan {
            file_records: planned.iter().map(|f| f.records).collect(),
            points,
        })
    }

    /// The number of parts.
    pub fn parts(&self) -> usize {
        self.points.len() - 1
    }

    /// Records in the whole input.
    pub fn total_records(&self) -> u64 {
        self.file_records.iter().sum()
    }

    /// Where part `i` starts and where it ends (the next part's start).
    pub fn part(&self, i: usize) -> Option<(ResumePoint, ResumePoint)> {
        Some((*self.points.get(i)?, *self.points.get(i + 1)?))
    }
}

/// The point at the start of file `f` (the input's end past the last file).
fn start_of(files: &[PlannedFile], f: usize) -> ResumePoint {
    ResumePoint {
        file: f,
        offset: 0,
        next_index: files
            .get(f)
            .map_or_else(|| files.iter().map(|x| x.records).sum(), |x| x.first),
        seq: 0,
        last_ply: None,
        chunk_left: 0,
    }
}

/// The first batch boundary at or after global record `target`; `None` for the input's end.
fn boundary_at_or_after(
    files: &[PlannedFile],
    target: u64,
    opts: BatchOptions,
) -> Result<Option<ResumePoint>, InputError> {
    let Some(f) = files
        .iter()
        .position(|x| target < x.first + x.records && x.records > 0)
    else {
        return Ok(None);
    };
    let file = &files[f];
    let rel = target - file.first;
    if rel == 0 {
        return Ok(Some(start_of(files, f)));
    }
    let batch = opts.records.max(1) as u64;
    let multiple = rel.div_ceil(batch) * batch;
    let at = |at: u64, size: u64, last_ply: Option<u16>| ResumePoint {
        file: f,
        offset: at * size,
        next_index: file.first + at,
        seq: 0,
        last_ply,
        chunk_left: 0,
    };
    let path = &file.spec.path;
    let found = match &file.cuts {
        Cuts::Fixed { size, psv } if multiple < file.records => {
            let last = read_records(path, *size, multiple - 1, 1)?;
            let ply = if *psv { psv_game_ply(&last) } else { None };
            Some(at(multiple, *size, ply))
        }
        Cuts::Fixed { .. } => None,
        Cuts::Aligned { size, psv, rule } => {
            // hcpe has no bound on a game's length: look around for a cut without a start.
            let back = if *psv {
                0
            } else {
                MAX_ALIGN_EXTRA as u64 + batch
            };
            match game_start(path, *size, *rule, multiple, back)? {
                Start::At(p, last) => {
                    let ply = if *psv { psv_game_ply(&last) } else { None };
                    Some(at(p, *size, ply))
                }
                Start::None => None,
                Start::Unsure => match scan(&file.spec, opts)? {
                    (_, Cuts::Scanned(points)) => scanned_at(&points, rel, f, file.first),
                    _ => None,
                },
            }
        }
        Cuts::Scanned(points) => scanned_at(points, rel, f, file.first),
    };
    Ok(Some(found.unwrap_or_else(|| start_of(files, f + 1))))
}

/// The first of a scanned file's `points` at or after file-relative record `rel`, as a
/// point of the whole input (file `f`, whose first record is `first`).
fn scanned_at(points: &[ResumePoint], rel: u64, f: usize, first: u64) -> Option<ResumePoint> {
    let i = points.partition_point(|p| p.next_index < rel);
    points.get(i).map(|p| ResumePoint {
        file: f,
        next_index: first + p.next_index,
        ..*p
    })
}

/// A file's record count and boundaries.
fn file_cuts(spec: &InputSpec, opts: BatchOptions) -> Result<(u64, Cuts), InputError> {
    let io = |err| InputError::Io {
        path: spec.path.clone(),
        err,
    };
    if let (Some(size), false) = (spec.format.record_size(), input::is_zstd(&spec.path)?) {
        let len = std::fs::metadata(&spec.path).map_err(io)?.len();
        let (size, psv) = (size as u64, spec.format == Format::Psv);
        let records = len.div_ceil(size);
        let rule = CutRule::new(spec.format, size as usize, opts);
        let cuts = match rule.is_aligned() {
            true => Cuts::Aligned { size, psv, rule },
            false => Cuts::Fixed { size, psv },
        };
        return Ok((records, cuts));
    }
    scan(spec, opts)
}

/// Reads the whole file with the batch reader: its record count and batch boundaries.
fn scan(spec: &InputSpec, opts: BatchOptions) -> Result<(u64, Cuts), InputError> {
    let mut batches = Batches::new(vec![spec.clone()], opts);
    let mut points = Vec::new();
    let mut stride = 1u64;
    let mut seen = 0u64;
    for batch in &mut batches {
        let next = batch?.next;
        if next.file != 0 {
            continue; // past the end of the file (after its unreadable rest)
        }
        seen += 1;
        if seen % stride == 0 {
            points.push(next);
            if points.len() >= MAX_SCANNED_POINTS {
                // Keep every other one: boundaries stay evenly spread over the file.
                let mut keep = false;
                points.retain(|_| {
                    keep = !keep;
                    !keep
                });
                stride *= 2;
            }
        }
    }
    let records = batches.next_index();
    // The end of the file is no boundary inside it (the next file's start stands for it).
    points.retain(|p| p.next_index < records);
    Ok((records, Cuts::Scanned(points)))
}

/// Up to `n` whole records of `size` bytes of an uncompressed file from record `at`.
fn read_records(path: &Path, size: u64, at: u64, n: u64) -> Result<Vec<u8>, InputError> {
    let io = |err| InputError::Io {
        path: path.to_path_buf(),
        err,
    };
    let mut file = File::open(path).map_err(io)?;
    file.seek(SeekFrom::Start(at * size)).map_err(io)?;
    let mut bytes = Vec::with_capacity((n * size) as usize);
    file.take(n * size).read_to_end(&mut bytes).map_err(io)?;
    bytes.truncate(bytes.len() - bytes.len() % size as usize);
    Ok(bytes)
}

/// Where the batch reader cuts at a wanted multiple (see [`game_start`]).
enum Start {
    /// At this record (a game start), with the bytes of the record before it.
    At(u64, Vec<u8>),
    /// Nowhere: the file's rest belongs to the batch before.
    None,
    /// The records around hold a stretch of [`MAX_ALIGN_EXTRA`] without a game start, where
    /// the reader cuts without one: only reading the file tells the cuts.
    Unsure,
}

/// The first game start (record `p` with `rule.starts_game(record p - 1, record p)`) at or after
/// record `from` of an uncompressed file of `size`-byte records, within the
/// [`MAX_ALIGN_EXTRA`] records the reader looks ahead. With `back` > 0 the records from
/// `from - back` are read too, and any stretch of `MAX_ALIGN_EXTRA` records without a start
/// between there and the look-ahead's end makes the answer [`Start::Unsure`].
fn game_start(
    path: &Path,
    size: u64,
    rule: CutRule,
    from: u64,
    back: u64,
) -> Result<Start, InputError> {
    let full = std::fs::metadata(path)
        .map_err(|err| InputError::Io {
            path: path.to_path_buf(),
            err,
        })?
        .len()
        / size;
    if from == 0 || from >= full {
        return Ok(Start::None);
    }
    let extra = MAX_ALIGN_EXTRA as u64;
    let lo = from.saturating_sub(back.max(1));
    let hi = full.min(from + extra);
    let (mut found, mut last_start, mut longest) = (None, lo, 0u64);
    let chunk = 4096;
    let mut prev: Vec<u8> = Vec::new();
    let mut p = lo;
    while p < hi && (found.is_none() || back > 0) {
        let records = read_records(path, size, p, chunk.min(hi - p))?;
        if records.is_empty() {
            break;
        }
        for rec in records.chunks_exact(size as usize) {
            if p > lo && rule.starts_game(&prev, rec) {
                longest = longest.max(p - last_start);
                last_start = p;
                if p >= from && found.is_none() {
                    found = Some(Start::At(p, prev.clone()));
                }
            }
            prev.clear();
            prev.extend_from_slice(rec);
            p += 1;
        }
    }
    let tail = if hi < full { hi - last_start } else { 0 };
    if back > 0 && longest.max(tail) >= extra {
        return Ok(Start::Unsure);
    }
    Ok(match found {
        Some(at) => at,
        None if hi == full => Start::None,
        None => Start::Unsure,
    })
}

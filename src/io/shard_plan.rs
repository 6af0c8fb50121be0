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
//!   of the batch size from the file's start; [`super::batch`]); for psv games, the records
//!   from each wanted multiple to the next game start.
//! - Text files and `.zst` files: the whole file, once, by the batch reader itself (a line
//!   or a compressed stream cannot be entered in the middle); it keeps at most
//!   [`MAX_SCANNED_POINTS`] boundaries per file, evenly spread.

use super::batch::{BatchOptions, Batches, InputSpec, ResumePoint};
use super::input::{self, InputError};
use crate::codec::psfen::psv_game_ply;
use crate::codec::psfen::PSV_SIZE;
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
    /// Uncompressed psv read with game alignment: the first game start at or after each
    /// multiple of the batch size.
    PsvGames,
    /// Boundaries found by reading the file (file-relative indices, file number 0), the
    /// file's start excluded and its end excluded.
    Scanned(Vec<ResumePoint>),
}

/// One input file for planning.
struct PlannedFile {
    path: std::path::PathBuf,
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
        let batch = opts.records.max(1) as u64;
        let mut planned = Vec::with_capacity(files.len());
        let mut first = 0u64;
        for spec in files {
            let (records, cuts) = file_cuts(spec, opts)?;
            planned.push(PlannedFile {
                path: spec.path.clone(),
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
        };
        let mut points = vec![start_of(&planned, 0)];
        for i in 1..parts as u64 {
            // u128: records × parts cannot overflow.
            let target = ((i as u128 * total as u128).div_ceil(parts as u128)) as u64;
            let p = boundary_at_or_after(&planned, target, batch)?.unwrap_or(end);
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
    }
}

/// The first batch boundary at or after global record `target`; `None` for the input's end.
fn boundary_at_or_after(
    files: &[PlannedFile],
    target: u64,
    batch: u64,
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
    let multiple = rel.div_ceil(batch) * batch;
    let found = match &file.cuts {
        Cuts::Fixed { size, psv } if multiple < file.records => Some(ResumePoint {
            file: f,
            offset: multiple * size,
            next_index: file.first + multiple,
            seq: 0,
            last_ply: match psv {
                true => psv_ply_of(&file.path, multiple - 1)?,
                false => None,
            },
        }),
        Cuts::Fixed { .. } => None,
        Cuts::PsvGames => psv_game_start(&file.path, multiple)?.map(|(at, last_ply)| ResumePoint {
            file: f,
            offset: at * PSV_SIZE as u64,
            next_index: file.first + at,
            seq: 0,
            last_ply: Some(last_ply),
        }),
        Cuts::Scanned(points) => {
            let i = points.partition_point(|p| p.next_index < rel);
            points.get(i).map(|p| ResumePoint {
                file: f,
                next_index: file.first + p.next_index,
                ..*p
            })
        }
    };
    Ok(Some(found.unwrap_or_else(|| start_of(files, f + 1))))
}

/// A file's record count and boundaries.
fn file_cuts(spec: &InputSpec, opts: BatchOptions) -> Result<(u64, Cuts), InputError> {
    let io = |err| InputError::Io {
        path: spec.path.clone(),
        err,
    };
    if let (Some(size), false) = (spec.format.record_size(), input::is_zstd(&spec.path)?) {
        let len = std::fs::metadata(&spec.path).map_err(io)?.len();
        let records = len.div_ceil(size as u64);
        let cuts = if spec.format == Format::Psv && opts.align_games {
            Cuts::PsvGames
        } else {
            Cuts::Fixed {
                size: size as u64,
                psv: spec.format == Format::Psv,
            }
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

/// The gamePly of record `at` of an uncompressed psv file (`None` for a truncated one).
fn psv_ply_of(path: &Path, at: u64) -> Result<Option<u16>, InputError> {
    let io = |err| InputError::Io {
        path: path.to_path_buf(),
        err,
    };
    let mut file = File::open(path).map_err(io)?;
    file.seek(SeekFrom::Start(at * PSV_SIZE as u64))
        .map_err(io)?;
    let mut rec = Vec::with_capacity(PSV_SIZE);
    file.take(PSV_SIZE as u64)
        .read_to_end(&mut rec)
        .map_err(io)?;
    Ok(psv_game_ply(&rec))
}

/// The first game start at or after record `from` of an uncompressed psv file (a record
/// whose gamePly is not above the one before it), with the gamePly of the record before
/// it; `None` when the file has none (its rest belongs to the batch before).
fn psv_game_start(path: &Path, from: u64) -> Result<Option<(u64, u16)>, InputError> {
    let io = |err| InputError::Io {
        path: path.to_path_buf(),
        err,
    };
    let size = PSV_SIZE as u64;
    let mut file = File::open(path).map_err(io)?;
    let full = file.metadata().map_err(io)?.len() / size;
    if from == 0 || from >= full {
        return Ok(None);
    }
    file.seek(SeekFrom::Start((from - 1) * size)).map_err(io)?;
    let mut chunk = vec![0u8; 4096 * PSV_SIZE];
    let mut prev: Option<u16> = None;
    let mut at = from - 1;
    while at < full {
        let want = ((full - at) * size).min(chunk.len() as u64) as usize;
        file.read_exact(&mut chunk[..want]).map_err(io)?;
        for rec in chunk[..want].chunks_exact(PSV_SIZE) {
            let ply = psv_game_ply(rec);
            if let (Some(p), Some(c)) = (prev, ply) {
                if c <= p {
                    return Ok(Some((at, p)));
                }
            }
            prev = ply;
            at += 1;
        }
    }
    Ok(None)
}

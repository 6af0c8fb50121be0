//! Batches of records with stable global indices.
//!
//! # Contract
//! - Records are numbered from 0 across all input files in order (the `index` of audit and
//!   rejected lines); each record also has its byte offset within its file (in the
//!   decompressed stream for `.zst` files).
//! - A batch owns its bytes (`Send`), holds records of one file only, and batches come in
//!   input order with consecutive indices.
//! - Binary files: a final piece shorter than a record (a truncated tail) is yielded as one
//!   more record of that length, so decoding rejects it with its offset and nothing is lost;
//!   [`Batch::tail`] also reports it.
//! - Text files: one record per non-blank line (the newline and a trailing `\r` are not part
//!   of the record); blank lines are skipped and get no index. A line longer than
//!   [`MAX_LINE`] (a file read with the wrong format) is one record holding only its first
//!   [`MAX_LINE`] bytes, last in its batch, and [`Batch::overlong`] gives its full length, so
//!   that memory stays bounded and the record is rejected, never read as a shorter one.
//! - psv game boundaries: a record starts a new game when its gamePly is not greater than the
//!   previous record's of the same file (and at the start of each file). With
//!   [`BatchOptions::align_games`] a psv batch is cut only at a game start, so a whole game is
//!   in one batch (a game has at most 65,536 records, as gamePly is a strictly increasing u16).
//!   Other formats carry no game order: every record starts its own game. A truncated tail
//!   starts no game.
//! - A stream that breaks off (a truncated or corrupt .zst) yields the whole records read
//!   before the break, then one batch holding a single empty record for the unreadable rest
//!   ([`Batch::unreadable`] says why), then goes on with the next file: the run rejects the
//!   rest as one record and counts it instead of stopping.
//! - Each batch carries the reader's state after it ([`Batch::next`]); a reader started by
//!   [`Batches::resume`] at that point yields exactly the batches that followed it.

use super::input::{open_stream_tracked, read_until_error, DiskPosition, InputError};
use crate::codec::psfen::{psv_game_ply, PSV_SIZE};
use crate::codec::Format;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The longest text line read whole (a USI game of thousands of plies is a few tens of KB).
pub const MAX_LINE: usize = 1 << 20;
/// A text batch stops growing at this many bytes, whatever its record count.
const MAX_TEXT_BATCH: usize = 64 << 20;

/// Where a reader stands between two batches: enough to start a new reader
/// ([`Batches::resume`]) that yields exactly the batches the first would have yielded from
/// there (a checkpointed run goes on from it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResumePoint {
    /// Index of the file in the input list.
    pub file: usize,
    /// Byte offset in that file's (decompressed) stream.
    pub offset: u64,
    /// Global index of the next record.
    pub next_index: u64,
    /// Number of the next batch.
    pub seq: u64,
    /// psv: gamePly of the record before `offset` in the same file (game boundaries).
    pub last_ply: Option<u16>,
}

/// How to cut batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchOptions {
    /// Target records per batch (at least 1).
    pub records: usize,
    /// Cut psv batches only at game starts.
    pub align_games: bool,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            records: 1 << 16,
            align_games: false,
        }
    }
}

/// One input file and its format.
#[derive(Clone, Debug)]
pub struct InputSpec {
    /// The file.
    pub path: PathBuf,
    /// Its format (from [`detect`](super::input::detect) or the configuration).
    pub format: Format,
}

/// A truncated final piece of a binary file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tail {
    /// The file.
    pub path: Arc<PathBuf>,
    /// Byte offset of the piece.
    pub offset: u64,
    /// Its length (less than a record).
    pub len: usize,
}

/// One record of a batch.
#[derive(Clone, Copy, Debug)]
pub struct RecordRef<'a> {
    /// Global index across all input files.
    pub index: u64,
    /// Byte offset in its file.
    pub offset: u64,
    /// The record's bytes (a text line without its newline).
    pub bytes: &'a [u8],
    /// Whether this record starts a game (see the module doc).
    pub new_game: bool,
}

/// A run of consecutive records of one file, owning its bytes.
#[derive(Clone, Debug)]
pub struct Batch {
    /// Batch number, from 0, in input order.
    pub seq: u64,
    /// Index of the file in the input list.
    pub file: usize,
    /// The file.
    pub path: Arc<PathBuf>,
    /// The file's format.
    pub format: Format,
    /// Global index of the first record.
    pub first_index: u64,
    /// Byte offset of `bytes[0]` in the file.
    pub offset: u64,
    /// The raw bytes (binary: whole records, maybe a tail; text: the lines with newlines).
    pub bytes: Vec<u8>,
    /// Text formats: (start, len) of each record in `bytes`.
    spans: Vec<(u32, u32)>,
    /// Whether the first record starts a game.
    first_new_game: bool,
    /// Bytes of the file on disk read when this batch was cut (compressed bytes for .zst,
    /// where the decoder reads a little ahead): for progress over a known total.
    pub disk_end: u64,
    /// Set on the batch that stands for the unreadable rest of a broken stream: the read
    /// error. Such a batch has one empty record at the offset of the break.
    broken: Option<String>,
    /// The full length of the batch's last record when that is a text line longer than
    /// [`MAX_LINE`] (its bytes hold only the first [`MAX_LINE`]).
    pub overlong: Option<u64>,
    /// Where the reader stood right after cutting this batch.
    pub next: ResumePoint,
}

impl Batch {
    /// Number of records (a truncated tail counts as one, the rest of a broken stream too).
    pub fn len(&self) -> usize {
        if self.broken.is_some() {
            return 1;
        }
        match self.format.record_size() {
            Some(size) => self.bytes.len().div_ceil(size),
            None => self.spans.len(),
        }
    }

    /// Whether the batch has no record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th record; `None` past the end.
    pub fn get(&self, i: usize) -> Option<RecordRef<'_>> {
        if self.broken.is_some() {
            return (i == 0).then_some(RecordRef {
                index: self.first_index,
                offset: self.offset,
                bytes: &[],
                new_game: true,
            });
        }
        let (start, len) = match self.format.record_size() {
            Some(size) => {
                let start = i.checked_mul(size)?;
                if start >= self.bytes.len() {
                    return None;
                }
                (start, size.min(self.bytes.len() - start))
            }
            None => {
                let &(s, l) = self.spans.get(i)?;
                (s as usize, l as usize)
            }
        };
        let bytes = &self.bytes[start..start + len];
        let new_game = if self.format != Format::Psv {
            true
        } else if bytes.len() != PSV_SIZE {
            false // a truncated tail starts nothing
        } else if i == 0 {
            self.first_new_game
        } else {
            match (psv_game_ply(self.get_raw(i - 1)), psv_game_ply(bytes)) {
                (Some(prev), Some(cur)) => cur <= prev,
                _ => true,
            }
        };
        Some(RecordRef {
            index: self.first_index + i as u64,
            offset: self.offset + start as u64,
            bytes,
            new_game,
        })
    }

    fn get_raw(&self, i: usize) -> &[u8] {
        let size = self.format.record_size().unwrap_or(1);
        let start = i * size;
        &self.bytes[start..(start + size).min(self.bytes.len())]
    }

    /// The records in order.
    pub fn iter(&self) -> impl Iterator<Item = RecordRef<'_>> + '_ {
        (0..self.len()).filter_map(move |i| self.get(i))
    }

    /// Why the rest of the file cannot be read, if this batch stands for it (its one
    /// record is empty and sits at the offset of the break).
    pub fn unreadable(&self) -> Option<InputError> {
        self.broken.as_ref().map(|reason| InputError::Unreadable {
            path: self.path.to_path_buf(),
            offset: self.offset,
            reason: reason.clone(),
        })
    }

    /// The truncated tail of the file, if this batch ends with one.
    pub fn tail(&self) -> Option<Tail> {
        if self.broken.is_some() {
            return None;
        }
        let size = self.format.record_size()?;
        let rem = self.bytes.len() % size;
        (rem != 0).then(|| Tail {
            path: self.path.clone(),
            offset: self.offset + (self.bytes.len() - rem) as u64,
            len: rem,
        })
    }
}

/// (start, len) of each text record in a batch's bytes.
type Spans = Vec<(u32, u32)>;

/// Iterates over the batches of a list of files (see the module contract).
pub struct Batches {
    files: Vec<InputSpec>,
    opts: BatchOptions,
    file: usize,
    stream: Option<Box<dyn BufRead + Send>>,
    /// How far `stream` has read into its file on disk.
    disk: Option<DiskPosition>,
    /// Bytes of an overlong line read past its kept part: the next batch starts that much
    /// further into the file, and the batch just cut gets `overlong`.
    skipped: Option<(u64, u64)>,
    path: Arc<PathBuf>,
    offset: u64,
    next_index: u64,
    seq: u64,
    /// psv: gamePly of the last record handed out from this file.
    last_ply: Option<u16>,
    /// psv alignment: a record read ahead that starts the next batch.
    carry: Vec<u8>,
    /// Byte buffers of consumed batches, reused for the next ones ([`Batches::recycle`]).
    spare: Vec<Vec<u8>>,
    /// The current file's stream broke off at this offset with this error: the next batch
    /// stands for the unreadable rest.
    broken: Option<(u64, String)>,
    failed: bool,
    /// A resumed reader: the stream of its first file starts at this point.
    start: Option<ResumePoint>,
}

impl Batches {
    /// Hands a consumed batch's byte buffer back for reuse (binary formats), so a long run
    /// does not allocate and free a batch-sized buffer per batch. At most a few are kept.
    pub fn recycle(&mut self, batch: Batch) {
        if self.spare.len() < 4 {
            self.spare.push(batch.bytes);
        }
    }

    /// Batches over `files`, in order.
    pub fn new(files: Vec<InputSpec>, opts: BatchOptions) -> Batches {
        Batches {
            files,
            opts: BatchOptions {
                records: opts.records.max(1),
                ..opts
            },
            file: 0,
            stream: None,
            disk: None,
            skipped: None,
            path: Arc::new(PathBuf::new()),
            offset: 0,
            next_index: 0,
            seq: 0,
            last_ply: None,
            carry: Vec::new(),
            spare: Vec::new(),
            broken: None,
            failed: false,
            start: None,
        }
    }

    /// Batches over `files` from `point` on (a point of a [`Batch::next`] of a reader over
    /// the same files and options): the batches that reader yielded after that one.
    pub fn resume(files: Vec<InputSpec>, opts: BatchOptions, point: ResumePoint) -> Batches {
        let mut b = Batches::new(files, opts);
        b.file = point.file;
        b.next_index = point.next_index;
        b.seq = point.seq;
        b.start = Some(point);
        b
    }

    /// The reader's state now (between batches).
    fn point(&self) -> ResumePoint {
        ResumePoint {
            file: self.file,
            offset: self.offset,
            next_index: self.next_index,
            seq: self.seq,
            last_ply: self.last_ply,
        }
    }

    /// Global index the next record will get (after the iterator ends: the record count).
    pub fn next_index(&self) -> u64 {
        self.next_index
    }

    /// Moves the just-opened stream of a resumed reader to `point`.
    fn skip_to(&mut self, point: ResumePoint) -> Result<(), InputError> {
        let path = self.path.as_ref().clone();
        let Some(stream) = self.stream.as_mut() else {
            return Ok(());
        };
        let mut left = point.offset;
        while left > 0 {
            let avail = match stream.fill_buf() {
                Ok(buf) => buf.len() as u64,
                Err(e) => {
                    return Err(InputError::Unreadable {
                        path,
                        offset: point.offset - left,
                        reason: e.to_string(),
                    })
                }
            };
            if avail == 0 {
                return Err(InputError::Unreadable {
                    path,
                    offset: point.offset - left,
                    reason: format!(
                        "the stream ends before byte {}, where the checkpoint stopped (the \
                         file changed)",
                        point.offset
                    ),
                });
            }
            let used = avail.min(left);
            stream.consume(used as usize);
            left -= used;
        }
        self.offset = point.offset;
        self.last_ply = point.last_ply;
        Ok(())
    }

    fn read_binary(&mut self, size: usize, psv: bool) -> Result<Vec<u8>, InputError> {
        let mut bytes = match self.spare.pop() {
            Some(mut b) => {
                b.clear();
                b.extend_from_slice(&self.carry);
                self.carry.clear();
                b
            }
            None => std::mem::take(&mut self.carry),
        };
        let want = self.opts.records * size;
        let have = bytes.len();
        bytes.resize(want.max(have), 0);
        let Some(stream) = self.stream.as_mut() else {
            return Ok(Vec::new());
        };
        let (n, mut failure) = read_until_error(stream, &mut bytes[have..]);
        bytes.truncate(have + n);
        if failure.is_none()
            && psv
            && self.opts.align_games
            && bytes.len() == want
            && bytes.len() % size == 0
        {
            let mut next = [0u8; 40];
            loop {
                let (n, f) = read_until_error(stream, &mut next);
                if f.is_some() {
                    bytes.extend_from_slice(&next[..n]);
                    failure = f;
                    break;
                }
                let last = psv_game_ply(&bytes[bytes.len() - size..]);
                if n == size && psv_game_ply(&next).zip(last).is_some_and(|(c, p)| c <= p) {
                    self.carry.extend_from_slice(&next);
                    break;
                }
                bytes.extend_from_slice(&next[..n]);
                if n < size {
                    break;
                }
            }
        }
        if let Some(e) = failure {
            // A record cut by the break belongs to the unreadable rest, not to a tail.
            let whole = bytes.len() - bytes.len() % size;
            bytes.truncate(whole);
            self.broken = Some((self.offset + whole as u64, e.to_string()));
        }
        Ok(bytes)
    }

    fn read_text(&mut self) -> Result<(Vec<u8>, Spans), InputError> {
        let mut bytes = Vec::new();
        let mut spans = Vec::new();
        let Some(stream) = self.stream.as_mut() else {
            return Ok((bytes, spans));
        };
        while spans.len() < self.opts.records && bytes.len() < MAX_TEXT_BATCH {
            let start = bytes.len();
            let n = match Read::take(&mut **stream, MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut bytes)
            {
                Ok(n) => n,
                Err(e) => {
                    // The line cut by the break is no record (a USI move list cut short
                    // would read as another, valid one): it belongs to the unreadable rest.
                    bytes.truncate(start);
                    self.broken = Some((self.offset + start as u64, e.to_string()));
                    break;
                }
            };
            if n == 0 {
                break;
            }
            if n > MAX_LINE && bytes.last() != Some(&b'\n') {
                // Keep the first MAX_LINE bytes; skip the rest of the line, newline included.
                bytes.truncate(start + MAX_LINE);
                let mut skipped = 1u64; // the byte read past MAX_LINE
                let mut newline = false;
                loop {
                    let buf = match stream.fill_buf() {
                        Ok(buf) => buf,
                        Err(e) => {
                            bytes.truncate(start);
                            self.broken = Some((self.offset + start as u64, e.to_string()));
                            return Ok((bytes, spans));
                        }
                    };
                    if buf.is_empty() {
                        break;
                    }
                    let (used, found) = match buf.iter().position(|&b| b == b'\n') {
                        Some(i) => (i + 1, true),
                        None => (buf.len(), false),
                    };
                    stream.consume(used);
                    skipped += used as u64;
                    if found {
                        newline = true;
                        break;
                    }
                }
                spans.push((start as u32, MAX_LINE as u32));
                let len = (MAX_LINE as u64 + skipped) - newline as u64;
                self.skipped = Some((skipped, len));
                break;
            }
            let mut line = &bytes[start..];
            while let [rest @ .., b'\n' | b'\r'] = line {
                line = rest;
            }
            if !line.trim_ascii().is_empty() {
                spans.push((start as u32, line.len() as u32));
            }
        }
        Ok((bytes, spans))
    }
}

impl Iterator for Batches {
    type Item = Result<Batch, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.failed && self.file < self.files.len() {
            let spec = self.files[self.file].clone();
            if let Some((offset, reason)) = self.broken.take() {
                let mut batch = Batch {
                    seq: self.seq,
                    file: self.file,
                    path: self.path.clone(),
                    format: spec.format,
                    first_index: self.next_index,
                    offset,
                    bytes: Vec::new(),
                    spans: Vec::new(),
                    first_new_game: true,
                    disk_end: self.disk.as_ref().map_or(0, DiskPosition::len),
                    broken: Some(reason),
                    overlong: None,
                    next: self.point(),
                };
                self.seq += 1;
                self.next_index += 1;
                self.stream = None;
                self.file += 1;
                self.offset = 0;
                self.last_ply = None;
                batch.next = self.point();
                return Some(Ok(batch));
            }
            if self.stream.is_none() {
                match open_stream_tracked(&spec.path) {
                    Ok((s, disk)) => {
                        self.stream = Some(s);
                        self.disk = Some(disk);
                    }
                    Err(e) => {
                        self.failed = true;
                        return Some(Err(e));
                    }
                }
                self.path = Arc::new(spec.path.clone());
                self.offset = 0;
                self.last_ply = None;
                self.carry.clear();
                if let Some(point) = self.start.take() {
                    if let Err(e) = self.skip_to(point) {
                        self.failed = true;
                        return Some(Err(e));
                    }
                }
            }
            let read = match spec.format.record_size() {
                Some(size) => self
                    .read_binary(size, spec.format == Format::Psv)
                    .map(|b| (b, Vec::new())),
                None => self.read_text(),
            };
            let (bytes, spans) = match read {
                Ok(x) => x,
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            };
            if bytes.is_empty() {
                if self.broken.is_none() {
                    self.stream = None;
                    self.file += 1;
                }
                continue;
            }
            let first_ply = bytes.get(..40).and_then(psv_game_ply);
            let first_new_game = match (self.last_ply, first_ply) {
                (Some(prev), Some(cur)) => cur <= prev,
                _ => true,
            };
            let mut batch = Batch {
                seq: self.seq,
                file: self.file,
                path: self.path.clone(),
                format: spec.format,
                first_index: self.next_index,
                offset: self.offset,
                bytes,
                spans,
                first_new_game,
                disk_end: self.disk.as_ref().map_or(0, DiskPosition::get),
                broken: None,
                overlong: None,
                next: self.point(),
            };
            let n = batch.len();
            if n == 0 {
                // Only blank lines: consume them without a batch.
                self.offset += batch.bytes.len() as u64;
                continue;
            }
            if spec.format == Format::Psv {
                let last = batch.get_raw(n - 1);
                self.last_ply = psv_game_ply(last);
            }
            self.seq += 1;
            self.offset += batch.bytes.len() as u64;
            if let Some((skipped, len)) = self.skipped.take() {
                self.offset += skipped;
                batch.overlong = Some(len);
            }
            self.next_index += n as u64;
            batch.next = self.point();
            return Some(Ok(batch));
        }
        None
    }
}

/// Convenience: the batches of one file of a known format.
pub fn batches_of(path: &Path, format: Format, opts: BatchOptions) -> Batches {
    Batches::new(
        vec![InputSpec {
            path: path.to_path_buf(),
            format,
        }],
        opts,
    )
}

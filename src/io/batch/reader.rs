//! The reader that cuts the input files into [`Batch`]es ([`Batches`], an iterator), and
//! goes on from a [`ResumePoint`]. See the contract in `batch/mod.rs`.

use super::cut::CutRule;
use super::games::GameReader;
use super::records::{
    Batch, BatchOptions, GameSpan, InputSpec, ResumePoint, MAX_LINE, MAX_TEXT_BATCH,
};
use crate::codec::game::GameFormat;
use crate::codec::psfen::psv_game_ply;
use crate::codec::{Format, Framing};
use crate::io::detect::UTF8_BOM;
use crate::io::input::{open_stream_tracked, read_until_error, DiskPosition, InputError};
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// psv / hcpe alignment: a record read ahead that starts the next batch.
    carry: Vec<u8>,
    /// Game formats: the current file's framing and read-ahead.
    games: GameReader,
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
            games: GameReader::default(),
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
            chunk_left: self.games.chunk_left(),
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

    /// Reads the next batch's records of a fixed-size format, cut by `rule` (see
    /// [`CutRule`]).
    fn read_binary(&mut self, rule: CutRule, size: usize) -> Result<Vec<u8>, InputError> {
        let mut bytes = match self.spare.pop() {
            Some(mut b) => {
                b.clear();
                b.extend_from_slice(&self.carry);
                self.carry.clear();
                b
            }
            None => std::mem::take(&mut self.carry),
        };
        // Batch boundaries depend on the few records around them, so a plan can find them
        // without reading the file up to there (see [`crate::io::shard_plan`]).
        let want = rule.base_len(self.offset / size as u64) as usize * size;
        let have = bytes.len();
        bytes.resize(want.max(have), 0);
        let Some(stream) = self.stream.as_mut() else {
            return Ok(Vec::new());
        };
        let (n, mut failure) = read_until_error(stream, &mut bytes[have..]);
        bytes.truncate(have + n);
        if failure.is_none() && bytes.len() == want {
            failure = Self::align(stream, rule, size, &mut bytes, &mut self.carry);
        }
        if let Some(e) = failure {
            // A record cut by the break belongs to the unreadable rest, not to a tail.
            let whole = bytes.len() - bytes.len() % size;
            bytes.truncate(whole);
            self.broken = Some((self.offset + whole as u64, e.to_string()));
        }
        Ok(bytes)
    }

    /// Goes on reading records into `bytes` past the batch's base length while `rule` lets
    /// it and no game starts; the record that starts one goes to `carry`. The read error
    /// that stopped it, if any.
    fn align(
        stream: &mut Box<dyn BufRead + Send>,
        rule: CutRule,
        size: usize,
        bytes: &mut Vec<u8>,
        carry: &mut Vec<u8>,
    ) -> Option<std::io::Error> {
        let mut next = [0u8; 40];
        let next = &mut next[..size.min(40)];
        let mut extra = 0;
        while rule.may_extend(extra) {
            let (n, f) = read_until_error(stream, next);
            if f.is_some() {
                bytes.extend_from_slice(&next[..n]);
                return f;
            }
            if rule.starts_game(&bytes[bytes.len() - size..], &next[..n]) {
                carry.extend_from_slice(next);
                break;
            }
            bytes.extend_from_slice(&next[..n]);
            extra += 1;
            if n < size {
                break;
            }
        }
        None
    }

    /// Reads the next batch's whole games (see `games.rs`); moves `offset` past them.
    fn read_games(&mut self) -> (Vec<u8>, Vec<GameSpan>) {
        let Some(stream) = self.stream.as_mut() else {
            return (Vec::new(), Vec::new());
        };
        let buffer = self.spare.pop().unwrap_or_default();
        let read = self
            .games
            .read(&mut **stream, self.opts.records, &mut self.offset, buffer);
        if let Some(broken) = read.broken {
            self.broken = Some(broken);
        }
        (read.bytes, read.spans)
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
            // A byte-order mark (a Windows editor's, at the start of the file or of a file
            // joined after another) is not part of the line.
            let from = start + UTF8_BOM.len() * bytes[start..].starts_with(UTF8_BOM) as usize;
            let mut line = &bytes[from..];
            while let [rest @ .., b'\n' | b'\r'] = line {
                line = rest;
            }
            if !line.trim_ascii().is_empty() {
                spans.push((from as u32, line.len() as u32));
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
                return Some(Ok(self.unreadable_rest(spec.format, offset, reason)));
            }
            if self.stream.is_none() {
                if let Err(e) = self.open(&spec) {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
            let (bytes, spans, games) = match self.read_framed(spec.format) {
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
            if let Some(batch) = self.batch_of(spec.format, bytes, spans, games) {
                return Some(Ok(batch));
            }
        }
        None
    }
}

impl Batches {
    /// The next stretch of the open file, cut by its format's framing: the bytes, with the
    /// spans of its lines (line formats) or its games (game formats).
    fn read_framed(
        &mut self,
        format: Format,
    ) -> Result<(Vec<u8>, Spans, Vec<GameSpan>), InputError> {
        match format.framing() {
            Framing::Fixed(size) => self
                .read_binary(CutRule::new(format, size, self.opts), size)
                .map(|b| (b, Vec::new(), Vec::new())),
            Framing::Line => self.read_text().map(|(b, s)| (b, s, Vec::new())),
            Framing::Game => {
                let (bytes, games) = self.read_games();
                Ok((bytes, Vec::new(), games))
            }
        }
    }

    /// The batch of `bytes` just read (not empty), numbered and placed after the previous
    /// one, with the reader moved past it; `None` when they hold only blank lines (then
    /// consumed without a batch).
    fn batch_of(
        &mut self,
        format: Format,
        bytes: Vec<u8>,
        spans: Spans,
        games: Vec<GameSpan>,
    ) -> Option<Batch> {
        let first_ply = bytes.get(..40).and_then(psv_game_ply);
        let first_new_game = match (self.last_ply, first_ply) {
            (Some(prev), Some(cur)) => cur <= prev,
            _ => true,
        };
        let by_games = !games.is_empty();
        let mut batch = Batch {
            seq: self.seq,
            file: self.file,
            path: self.path.clone(),
            format,
            first_index: self.next_index,
            offset: games.first().map_or(self.offset, |g| g.offset),
            bytes,
            spans,
            games,
            first_new_game,
            disk_end: self.disk.as_ref().map_or(0, DiskPosition::get),
            broken: None,
            overlong: None,
            next: self.point(),
        };
        let n = batch.len();
        if n == 0 && !by_games {
            // Only blank lines: consume them without a batch.
            self.offset += batch.bytes.len() as u64;
            return None;
        }
        if format == Format::Psv {
            let last = batch.get_raw(n - 1);
            self.last_ply = psv_game_ply(last);
        }
        self.seq += 1;
        if !by_games {
            // A game reader has moved `offset` past the games (and chunk headers) itself.
            self.offset += batch.bytes.len() as u64;
        }
        if let Some((skipped, len)) = self.skipped.take() {
            self.offset += skipped;
            batch.overlong = Some(len);
        }
        self.next_index += n as u64;
        batch.next = self.point();
        Some(batch)
    }
}

impl Batches {
    /// Opens the stream of file `spec` (at the resume point for a resumed reader's first
    /// file).
    fn open(&mut self, spec: &InputSpec) -> Result<(), InputError> {
        let (s, disk) = open_stream_tracked(&spec.path)?;
        self.stream = Some(s);
        self.disk = Some(disk);
        self.path = Arc::new(spec.path.clone());
        self.offset = 0;
        self.last_ply = None;
        self.carry.clear();
        let mut chunk_left = 0;
        if let Some(point) = self.start.take() {
            self.skip_to(point)?;
            chunk_left = point.chunk_left;
        }
        if let Some(format) = GameFormat::of(spec.format) {
            self.games = GameReader::start(format, chunk_left);
        }
        Ok(())
    }

    /// The batch that stands for the unreadable rest of the current file (from `offset`,
    /// for `reason`); the reader goes on with the next file.
    fn unreadable_rest(&mut self, format: Format, offset: u64, reason: String) -> Batch {
        let mut batch = Batch {
            seq: self.seq,
            file: self.file,
            path: self.path.clone(),
            format,
            first_index: self.next_index,
            offset,
            bytes: Vec::new(),
            spans: Vec::new(),
            games: Vec::new(),
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
        self.games = GameReader::default();
        batch.next = self.point();
        batch
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

//! Input files: glob expansion, memory maps, zstd streams from the map, format detection,
//! and the reader that cuts them into [`WorkBatch`]es with global record indices.
//!
//! # Invariants
//! - Global indices count every record of every file in order, rejected tails included, so
//!   the audit's `index` is the record's position in the whole input.
//! - Offsets are byte offsets in the (decompressed) file.
//! - psv batches end at game boundaries (a record whose gamePly does not increase starts a
//!   new game), unless a single game exceeds four batches' worth of records.
//! - Memory does not grow with the file: at most one batch is buffered per reader call.

use super::batch::{RecordMeta, WorkBatch};
use crate::codec::{self, Format};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why inputs could not be opened or read.
#[derive(Debug, Error)]
pub enum InputError {
    /// A pattern matched no file.
    #[error("input {pattern:?} matches no file")]
    NoMatch {
        /// The pattern as configured.
        pattern: String,
    },
    /// A pattern is not a valid glob.
    #[error("input pattern {pattern:?}: {reason}")]
    BadPattern {
        /// The pattern.
        pattern: String,
        /// What is wrong.
        reason: String,
    },
    /// Opening, mapping or reading a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: io::Error,
    },
    /// The format could not be decided.
    #[error("{path}: cannot detect the format: {reason}; set input.format explicitly")]
    Undetected {
        /// The file.
        path: String,
        /// Why not.
        reason: String,
    },
}

/// An opened input file.
pub struct InputFile {
    /// The path.
    pub path: PathBuf,
    /// The record format.
    pub format: Format,
    /// Why this format (explicit, extension, probe …).
    pub detected_by: String,
    /// zstd-compressed.
    pub compressed: bool,
    /// Length of the (compressed) file in bytes.
    pub len: u64,
    map: Option<memmap2::Mmap>,
}

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Expands patterns (globs allowed) into files, in pattern order, each pattern's matches
/// sorted; a file named twice is read twice.
pub fn expand(patterns: &[PathBuf]) -> Result<Vec<PathBuf>, InputError> {
    let mut out = Vec::new();
    for p in patterns {
        let text = p.to_string_lossy().to_string();
        if p.exists() {
            out.push(p.clone());
            continue;
        }
        let paths = glob::glob(&text).map_err(|e| InputError::BadPattern {
            pattern: text.clone(),
            reason: e.to_string(),
        })?;
        let mut found: Vec<PathBuf> = paths
            .filter_map(Result::ok)
            .filter(|p| p.is_file())
            .collect();
        if found.is_empty() {
            return Err(InputError::NoMatch { pattern: text });
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

impl InputFile {
    /// Opens and maps `path`, then detects its format unless `explicit` is given.
    pub fn open(path: &Path, explicit: Option<Format>) -> Result<InputFile, InputError> {
        let io_err = |source| InputError::Io {
            path: path.display().to_string(),
            source,
        };
        let file = File::open(path).map_err(io_err)?;
        let len = file.metadata().map_err(io_err)?.len();
        let map = if len == 0 {
            None
        } else {
            // SAFETY: the map is read-only and posfilter requires that input files are not
            // modified while a run reads them (README, "Safety"); a concurrent truncation
            // could fault, which is the documented contract of every mmap-based reader.
            #[allow(unsafe_code)]
            let m = unsafe { memmap2::Mmap::map(&file) }.map_err(io_err)?;
            Some(m)
        };
        let head = map.as_deref().unwrap_or(&[]);
        let compressed = head.starts_with(&ZSTD_MAGIC);
        let mut f = InputFile {
            path: path.to_path_buf(),
            format: Format::Psfen,
            detected_by: String::new(),
            compressed,
            len,
            map,
        };
        match explicit {
            Some(fmt) => {
                f.format = fmt;
                f.detected_by = "explicit (input.format)".into();
            }
            None => {
                let (fmt, why) = f.detect()?;
                f.format = fmt;
                f.detected_by = why;
            }
        }
        Ok(f)
    }

    /// A reader over the decompressed bytes.
    fn stream(&self) -> Result<Box<dyn BufRead + '_>, InputError> {
        let bytes = self.map.as_deref().unwrap_or(&[]);
        if self.compressed {
            let dec = zstd::stream::read::Decoder::with_buffer(bytes).map_err(|source| {
                InputError::Io {
                    path: self.path.display().to_string(),
                    source,
                }
            })?;
            Ok(Box::new(BufReader::with_capacity(1 << 20, dec)))
        } else {
            Ok(Box::new(bytes))
        }
    }

    /// Number of records if known without reading (uncompressed binary files).
    pub fn known_records(&self) -> Option<u64> {
        match (self.compressed, self.format.record_size()) {
            (false, Some(size)) => Some(self.len.div_ceil(size as u64)),
            _ => None,
        }
    }

    fn detect(&self) -> Result<(Format, String), InputError> {
        let undetected = |reason: String| InputError::Undetected {
            path: self.path.display().to_string(),
            reason,
        };
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        let stem = name.strip_suffix(".zst").unwrap_or(&name);
        let zst = if self.compressed { "zstd magic, " } else { "" };
        if let Some(fmt) = stem.rsplit('.').next().and_then(Format::from_extension) {
            return Ok((fmt, format!("{zst}extension .{}", fmt.extension())));
        }
        // Content: the first 64 KiB of the decompressed stream.
        let mut head = Vec::new();
        self.stream()?
            .take(1 << 16)
            .read_to_end(&mut head)
            .map_err(|source| InputError::Io {
                path: self.path.display().to_string(),
                source,
            })?;
        if head.is_empty() {
            return Err(undetected("the file is empty".into()));
        }
        let text = head
            .iter()
            .all(|&b| b == b'\n' || b == b'\r' || b == b'\t' || (0x20..0x7f).contains(&b));
        if text {
            let first = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
            let fmt = if first.starts_with(b"startpos")
                || first.windows(7).any(|w| w == b" moves ")
                || first.ends_with(b" moves")
            {
                Format::Usi
            } else {
                Format::Sfen
            };
            return Ok((
                fmt,
                format!("{zst}text content, first line looks like {fmt}"),
            ));
        }
        let probe = |fmt: Format| -> usize {
            let size = fmt.record_size().unwrap_or(1);
            head.chunks_exact(size)
                .take(16)
                .filter(|r| codec::decode(fmt, r).is_ok())
                .count()
        };
        let records = |size: usize| (head.len() / size).min(16);
        let mut fits = Vec::new();
        for fmt in Format::BINARY {
            let size = fmt.record_size().unwrap_or(1);
            let divisible = self.compressed || self.len % size as u64 == 0;
            let n = records(size);
            if divisible && n > 0 && probe(fmt) == n {
                fits.push(fmt);
            }
        }
        match fits.as_slice() {
            [one] => Ok((
                *one,
                format!("{zst}decode probe: the first records decode only as {one}"),
            )),
            [] => Err(undetected(
                "no binary format decodes the first records".into(),
            )),
            many => Err(undetected(format!(
                "the first records decode as {}",
                many.iter()
                    .map(|f| f.name())
                    .collect::<Vec<_>>()
                    .join(" and ")
            ))),
        }
    }
}

/// Cuts one file into batches. Call [`FileReader::next_batch`] until it returns `None`.
pub struct FileReader<'a> {
    file: &'a InputFile,
    file_no: u32,
    stream: Box<dyn BufRead + 'a>,
    offset: u64,
    carry: Vec<u8>,
    last_ply: Option<u16>,
    done: bool,
    /// A trailing partial record: (offset, bytes).
    pub tail: Option<(u64, Vec<u8>)>,
}

impl<'a> FileReader<'a> {
    /// A reader over `file`, which is input number `file_no`.
    pub fn new(file: &'a InputFile, file_no: u32) -> Result<FileReader<'a>, InputError> {
        Ok(FileReader {
            file,
            file_no,
            stream: file.stream()?,
            offset: 0,
            carry: Vec::new(),
            last_ply: None,
            done: false,
            tail: None,
        })
    }

    fn io_err(&self, source: io::Error) -> InputError {
        InputError::Io {
            path: self.file.path.display().to_string(),
            source,
        }
    }

    /// The next batch of up to about `max_records` records, numbered from `*next_index`
    /// (advanced). `None` at the end of the file; then [`FileReader::tail`] holds a partial
    /// record, if any.
    pub fn next_batch(
        &mut self,
        max_records: usize,
        next_index: &mut u64,
    ) -> Result<Option<WorkBatch>, InputError> {
        if self.done {
            return Ok(None);
        }
        let fmt = self.file.format;
        let mut batch = WorkBatch {
            file: self.file_no,
            format: fmt,
            data: Vec::new(),
            records: Vec::new(),
        };
        match fmt.record_size() {
            Some(size) => self.fill_binary(&mut batch, size, max_records, next_index)?,
            None => self.fill_text(&mut batch, max_records, next_index)?,
        }
        if batch.is_empty() {
            self.done = true;
            return Ok(None);
        }
        Ok(Some(batch))
    }

    fn fill_binary(
        &mut self,
        batch: &mut WorkBatch,
        size: usize,
        max: usize,
        next: &mut u64,
    ) -> Result<(), InputError> {
        let psv = self.file.format == Format::Psv;
        let hard_max = max * 4;
        let mut rec = vec![0u8; size];
        loop {
            // Read one record (from the carried-over game start first).
            let got = if !self.carry.is_empty() {
                let c = std::mem::take(&mut self.carry);
                rec.copy_from_slice(&c);
                size
            } else {
                read_full(&mut self.stream, &mut rec).map_err(|e| self.io_err(e))?
            };
            if got == 0 {
                self.done = true;
                return Ok(());
            }
            if got < size {
                self.tail = Some((self.offset, rec[..got].to_vec()));
                self.done = true;
                return Ok(());
            }
            let game_start = if psv {
                let ply = codec::psfen::psv_game_ply(&rec);
                let start = match (self.last_ply, ply) {
                    (Some(prev), Some(p)) => p <= prev,
                    _ => true,
                };
                if start && batch.len() >= max {
                    // End the batch at the game boundary; this record opens the next one.
                    self.carry = rec.clone();
                    return Ok(());
                }
                self.last_ply = ply;
                start
            } else {
                true
            };
            let start = batch.data.len();
            batch.data.extend_from_slice(&rec);
            batch.records.push(RecordMeta {
                index: *next,
                offset: self.offset,
                range: start..start + size,
                game_start,
            });
            *next += 1;
            self.offset += size as u64;
            if (!psv && batch.len() >= max) || batch.len() >= hard_max {
                return Ok(());
            }
        }
    }

    fn fill_text(
        &mut self,
        batch: &mut WorkBatch,
        max: usize,
        next: &mut u64,
    ) -> Result<(), InputError> {
        let mut line = Vec::new();
        while batch.len() < max {
            line.clear();
            let n = self
                .stream
                .read_until(b'\n', &mut line)
                .map_err(|e| self.io_err(e))?;
            if n == 0 {
                self.done = true;
                return Ok(());
            }
            let offset = self.offset;
            self.offset += n as u64;
            let mut body: &[u8] = &line;
            while let [rest @ .., b'\n' | b'\r'] = body {
                body = rest;
            }
            if body.iter().all(|b| b.is_ascii_whitespace()) {
                continue; // blank lines are not records
            }
            let start = batch.data.len();
            batch.data.extend_from_slice(body);
            batch.records.push(RecordMeta {
                index: *next,
                offset,
                range: start..batch.data.len(),
                game_start: true,
            });
            *next += 1;
        }
        Ok(())
    }
}

/// Reads until `buf` is full or the stream ends; returns the bytes read.
fn read_full(r: &mut dyn BufRead, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

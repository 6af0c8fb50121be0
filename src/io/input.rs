//! Input files: path and glob expansion, memory-mapped reading in windows, zstd streams
//! decoded straight from the map, and format detection that explains itself.
//!
//! # Memory
//! A file is mapped one window ([`WINDOW`] bytes) at a time; a window is unmapped as soon as
//! the reader moves past it, so resident memory stays bounded whatever the file size. The
//! bytes are copied out of the map into batches (which must own them to cross threads).
//!
//! # Safety contract
//! The mapped files must not be modified or truncated while posfilter runs (see
//! [`MappedReader`]). Besides this map, the crate's only `unsafe` are the calls of the BMI2
//! builds of the record decoder after runtime detection (src/codec/packed/decode.rs), the
//! SSE prefetch of large tables (src/prefetch.rs, no-op off x86-64) and the huge-page advice
//! for the mate table (src/hugepages.rs, Linux only).

use super::zstd_stream::SalvagingDecoder;
use crate::codec::{self, Format};
use memmap2::{Advice, Mmap, MmapOptions};
use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use thiserror::Error;

/// Bytes mapped at a time.
pub const WINDOW: usize = 64 << 20;
/// The zstd frame magic number, little-endian bytes.
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// Bytes of (decompressed) data the detector looks at.
pub const PROBE_BYTES: usize = 64 << 10;
/// Records the detector tries to decode per candidate format.
pub const PROBE_RECORDS: usize = 64;

/// Errors opening, listing or recognising input files.
#[derive(Debug, Error)]
pub enum InputError {
    /// A glob pattern is malformed.
    #[error("bad glob pattern {pattern:?}: {reason}")]
    Glob {
        /// The pattern.
        pattern: String,
        /// Why.
        reason: String,
    },
    /// A path or pattern matched no file.
    #[error("{0:?} matches no file")]
    NoMatch(String),
    /// A path names a directory, not files.
    #[error("{0:?} is a directory: name its files, e.g. \"{0}/*.psv\"")]
    Directory(String),
    /// An I/O error on a file.
    #[error("{}: {err}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        err: io::Error,
    },
    /// The file's (decompressed) stream broke off: its rest cannot be read.
    #[error(
        "{}: unreadable after byte {offset}: {reason} (the file is truncated or corrupt)",
        path.display()
    )]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Offset of the first byte not read (in the decompressed stream for .zst).
        offset: u64,
        /// The read error.
        reason: String,
    },
    /// The format could not be recognised.
    #[error("{}: cannot tell the format: {reason}", path.display())]
    Detect {
        /// The file.
        path: PathBuf,
        /// Why, with what was tried.
        reason: String,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> InputError + '_ {
    move |source| InputError::Io {
        path: path.to_path_buf(),
        err: source,
    }
}

/// Expands paths and glob patterns (`*`, `?`, `[...]`) into files, in the order given; each
/// pattern's matches sorted by name; a file named twice (in any spelling) is listed once,
/// the first time. A pattern matching nothing is an error.
pub fn expand(patterns: &[String]) -> Result<Vec<PathBuf>, InputError> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for pattern in patterns {
        let mut found = Vec::new();
        if Path::new(pattern).is_file() {
            found.push(PathBuf::from(pattern));
        } else if pattern.contains(['*', '?', '[']) {
            let paths = glob::glob(pattern).map_err(|e| InputError::Glob {
                pattern: pattern.clone(),
                reason: e.to_string(),
            })?;
            for p in paths.flatten() {
                if p.is_file() {
                    found.push(p);
                }
            }
            found.sort();
        }
        if found.is_empty() {
            if Path::new(pattern).is_dir() {
                return Err(InputError::Directory(
                    pattern.trim_end_matches('/').to_string(),
                ));
            }
            return Err(InputError::NoMatch(pattern.clone()));
        }
        for p in found {
            // The same file under two spellings (`data/x`, `./data/x`, a symlink) is one file.
            let identity = p.canonicalize().unwrap_or_else(|_| p.clone());
            if seen.insert(identity) {
                out.push(p);
            }
        }
    }
    Ok(out)
}

/// Reads a file through successive memory-mapped windows (a [`BufRead`] whose buffer is the
/// current window).
pub struct MappedReader {
    file: File,
    len: u64,
    map: Option<Mmap>,
    /// File offset of the current window, or of the next one when none is mapped.
    map_offset: u64,
    pos: usize,
    window: usize,
    /// Bytes of the file consumed so far, for a reader behind a decoder (see
    /// [`open_stream_tracked`]).
    consumed: Arc<AtomicU64>,
}

impl MappedReader {
    /// Opens `path` for windowed mapping.
    pub fn open(path: &Path) -> Result<MappedReader, InputError> {
        Self::with_window(path, WINDOW)
    }

    /// Opens `path` with a given window size (tests use small windows).
    pub fn with_window(path: &Path, window: usize) -> Result<MappedReader, InputError> {
        let file = File::open(path).map_err(io_err(path))?;
        let len = file.metadata().map_err(io_err(path))?.len();
        Ok(MappedReader {
            file,
            len,
            map: None,
            map_offset: 0,
            pos: 0,
            window: window.max(1),
            consumed: Arc::new(AtomicU64::new(0)),
        })
    }

    /// The file's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl BufRead for MappedReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let exhausted = self.map.as_ref().is_none_or(|m| self.pos >= m.len());
        if exhausted {
            if let Some(m) = self.map.take() {
                // Unmap before mapping the next window.
                self.map_offset += m.len() as u64;
            }
            let next = self.map_offset;
            if next >= self.len {
                return Ok(&[]);
            }
            let len = (self.len - next).min(self.window as u64) as usize;
            // SAFETY: the map is read-only and private to this reader. The caller of posfilter
            // guarantees the input files are not modified or truncated during a run (stated in
            // the README and the `io::input` docs); under that contract the mapped bytes are
            // an ordinary immutable byte slice for the lifetime of `Mmap`.
            #[allow(unsafe_code)]
            let map = unsafe { MmapOptions::new().offset(next).len(len).map(&self.file)? };
            let _ = map.advise(Advice::Sequential);
            self.map = Some(map);
            self.pos = 0;
        }
        Ok(self.map.as_ref().map_or(&[][..], |m| &m[self.pos..]))
    }

    fn consume(&mut self, amt: usize) {
        self.pos += amt;
        // With no window mapped (at the end), `pos` belongs to the window unmapped before.
        let at = self.map_offset + self.map.as_ref().map_or(0, |_| self.pos as u64);
        self.consumed.store(at, Ordering::Relaxed);
    }
}

impl Read for MappedReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// Whether the file starts with the zstd magic number.
pub fn is_zstd(path: &Path) -> Result<bool, InputError> {
    let mut head = [0u8; 4];
    let mut f = File::open(path).map_err(io_err(path))?;
    let n = read_full(&mut f, &mut head).map_err(io_err(path))?;
    Ok(n == 4 && head == ZSTD_MAGIC)
}

/// Opens a file as a stream of its (decompressed) bytes: the map itself, or a zstd decoder
/// reading from the map.
pub fn open_stream(path: &Path) -> Result<Box<dyn BufRead + Send>, InputError> {
    open_stream_tracked(path).map(|(stream, _)| stream)
}

/// How far a stream has read into its file on disk: compressed bytes for .zst, so that
/// progress over compressed inputs has a known total.
#[derive(Clone, Debug)]
pub struct DiskPosition {
    consumed: Arc<AtomicU64>,
    len: u64,
}

impl DiskPosition {
    /// Bytes of the file read so far (a decoder reads a little ahead of what it hands out).
    pub fn get(&self) -> u64 {
        self.consumed.load(Ordering::Relaxed)
    }

    /// The file's size on disk.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// [`open_stream`] with a handle on how far it has read into the file.
pub fn open_stream_tracked(
    path: &Path,
) -> Result<(Box<dyn BufRead + Send>, DiskPosition), InputError> {
    let reader = MappedReader::open(path)?;
    let position = DiskPosition {
        consumed: reader.consumed.clone(),
        len: reader.len,
    };
    let stream: Box<dyn BufRead + Send> = if is_zstd(path)? {
        Box::new(SalvagingDecoder::new(reader).map_err(io_err(path))?)
    } else {
        Box::new(reader)
    };
    Ok((stream, position))
}

/// Reads until `buf` is full or the stream ends; returns the bytes read.
pub fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    match read_until_error(r, buf) {
        (_, Some(e)) => Err(e),
        (n, None) => Ok(n),
    }
}

/// Reads until `buf` is full, the stream ends or a read fails; returns the bytes read
/// before that and the failure (a broken zstd stream still hands out what came before).
pub fn read_until_error(r: &mut impl Read, buf: &mut [u8]) -> (usize, Option<io::Error>) {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (n, Some(e)),
        }
    }
    (n, None)
}

/// The outcome of format detection for one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detection {
    /// The format chosen.
    pub format: Format,
    /// Whether the file is zstd-compressed.
    pub compressed: bool,
    /// The size on disk.
    pub file_bytes: u64,
    /// Why: one line per piece of evidence, in the order it was considered.
    pub reasons: Vec<String>,
}

/// Recognises the format of `path`. An `explicit` format always wins (the evidence is still
/// reported). Otherwise: the zstd magic, the extension (after removing `.zst`), text versus
/// binary, and for binary files a decode probe of the first records of each binary format,
/// with record-size divisibility of the (uncompressed) length as a tie-breaker. Two formats
/// that both survive (PackedSfen and HCP share the record size) stop with an error asking
/// for an explicit format.
pub fn detect(path: &Path, explicit: Option<Format>) -> Result<Detection, InputError> {
    let compressed = is_zstd(path)?;
    let file_bytes = std::fs::metadata(path).map_err(io_err(path))?.len();
    let mut reasons = Vec::new();
    if compressed {
        reasons.push("zstd magic number 28 b5 2f fd: decompressed as a stream".to_string());
    }
    let mut sample = vec![0u8; PROBE_BYTES];
    // A stream that breaks after its first bytes is still detected from them; the batch
    // reader then rejects the unreadable rest. One that breaks at once is rejected whole
    // when its format is named or in its name, and cannot be recognised otherwise.
    let (n, broken) = read_until_error(&mut open_stream(path)?, &mut sample);
    sample.truncate(n);
    let unreadable = |e: &io::Error| InputError::Unreadable {
        path: path.to_path_buf(),
        offset: 0,
        reason: e.to_string(),
    };
    if let (0, Some(e)) = (n, &broken) {
        reasons.push(format!(
            "no byte can be read ({e}): the file is rejected as unreadable"
        ));
    }
    let known_len = (!compressed).then_some(file_bytes);
    let done = |format, reasons| {
        Ok(Detection {
            format,
            compressed,
            file_bytes,
            reasons,
        })
    };
    if let Some(f) = explicit {
        reasons.push(format!("format {f} given explicitly"));
        if let Some(note) = probe_note(f, &sample, known_len) {
            reasons.push(note);
        }
        return done(f, reasons);
    }
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase());
    let name = name.unwrap_or_default();
    let stem = name.strip_suffix(".zst").unwrap_or(&name);
    let ext = Path::new(stem)
        .extension()
        .map(|e| e.to_string_lossy().to_string());
    if let Some(f) = ext.as_deref().and_then(Format::from_extension) {
        reasons.push(format!("extension .{}", f.extension()));
        if let Some(note) = probe_note(f, &sample, known_len) {
            reasons.push(note);
        }
        return done(f, reasons);
    }
    if let (0, Some(e)) = (n, &broken) {
        return Err(unreadable(e));
    }
    if sample.is_empty() {
        return Err(InputError::Detect {
            path: path.to_path_buf(),
            reason: "the file is empty and its name has no format extension".into(),
        });
    }
    if looks_like_text(&sample) {
        let f = text_format(&sample);
        reasons.push(format!(
            "text (printable UTF-8 lines); first line {}",
            if f == Format::Usi {
                "is a USI position (startpos / moves)"
            } else {
                "is an SFEN"
            }
        ));
        if let Some(note) = probe_note(f, &sample, known_len) {
            reasons.push(note);
        }
        return done(f, reasons);
    }
    reasons.push("binary (not printable text)".into());
    let mut survivors = Vec::new();
    for f in Format::BINARY {
        let (ok, tried) = probe(f, &sample);
        let size = f.record_size().unwrap_or(1);
        let divides = known_len.map(|l| l % size as u64 == 0);
        let fits = tried > 0 && ok * 10 >= tried * 9;
        reasons.push(format!(
            "{f}: {ok} of the first {tried} records decode{}",
            match divides {
                Some(true) => format!(", length is a multiple of {size}"),
                Some(false) => format!(", length is not a multiple of {size}"),
                None => String::new(),
            }
        ));
        if fits {
            survivors.push((f, divides != Some(false)));
        }
    }
    if survivors.len() > 1 && survivors.iter().any(|s| s.1) {
        survivors.retain(|s| s.1);
    }
    match survivors.as_slice() {
        [(f, _)] => {
            reasons.push(format!("only {f} fits"));
            done(*f, reasons)
        }
        [] => Err(InputError::Detect {
            path: path.to_path_buf(),
            reason: format!(
                "no binary format decodes its first records ({}); give the format explicitly",
                reasons.join("; ")
            ),
        }),
        many => Err(InputError::Detect {
            path: path.to_path_buf(),
            reason: format!(
                "ambiguous: {} all decode ({}); give the format explicitly",
                many.iter()
                    .map(|s| s.0.name())
                    .collect::<Vec<_>>()
                    .join(" and "),
                reasons.join("; ")
            ),
        }),
    }
}

/// Decodes up to [`PROBE_RECORDS`] records of `format` from `sample`: (decoded, tried).
pub fn probe(format: Format, sample: &[u8]) -> (usize, usize) {
    let mut ok = 0;
    let mut tried = 0;
    match format.record_size() {
        Some(size) => {
            for rec in sample.chunks_exact(size).take(PROBE_RECORDS) {
                tried += 1;
                ok += codec::decode(format, rec).is_ok() as usize;
            }
        }
        None => {
            let mut lines: Vec<&[u8]> = sample.split(|&b| b == b'\n').collect();
            if sample.len() == PROBE_BYTES {
                lines.pop(); // possibly cut in the middle
            }
            for line in lines
                .into_iter()
                .filter(|l| !l.trim_ascii().is_empty())
                .take(PROBE_RECORDS)
            {
                tried += 1;
                ok += codec::decode(format, line).is_ok() as usize;
            }
        }
    }
    (ok, tried)
}

/// A warning line when a chosen format does not fit the data well.
fn probe_note(format: Format, sample: &[u8], known_len: Option<u64>) -> Option<String> {
    let (ok, tried) = probe(format, sample);
    let mut notes = Vec::new();
    if ok < tried {
        notes.push(format!(
            "only {ok} of the first {tried} records decode as {format}"
        ));
    }
    if let (Some(len), Some(size)) = (known_len, format.record_size()) {
        if len % size as u64 != 0 {
            notes.push(format!(
                "length {len} is not a multiple of {size}: a {}-byte tail will be rejected",
                len % size as u64
            ));
        }
    }
    (!notes.is_empty()).then(|| format!("warning: {}", notes.join("; ")))
}

fn looks_like_text(sample: &[u8]) -> bool {
    let valid = match std::str::from_utf8(sample) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && sample.len() == PROBE_BYTES,
    };
    valid
        && sample
            .iter()
            .all(|&b| b >= 0x20 || b == b'\n' || b == b'\r' || b == b'\t')
}

fn text_format(sample: &[u8]) -> Format {
    let first = sample
        .split(|&b| b == b'\n')
        .find(|l| !l.trim_ascii().is_empty())
        .unwrap_or_default();
    let first = String::from_utf8_lossy(first);
    let words: Vec<&str> = first.split_whitespace().collect();
    let usi =
        matches!(words.first(), Some(&"startpos") | Some(&"position")) || words.contains(&"moves");
    if usi {
        Format::Usi
    } else {
        Format::Sfen
    }
}

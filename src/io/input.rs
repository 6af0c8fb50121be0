//! Input files: path and glob expansion, memory-mapped reading in windows, and zstd streams
//! decoded straight from the map (src/io/zstd_stream.rs). Format detection is in
//! src/io/detect.rs.
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
    /// A path names something that exists but is not a regular file (what: "is a FIFO
    /// …", "is a symbolic link … that loops", …).
    #[error("{}: {what}", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is.
        what: String,
    },
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

pub(crate) fn io_err(path: &Path) -> impl FnOnce(io::Error) -> InputError + '_ {
    move |source| InputError::Io {
        path: path.to_path_buf(),
        err: source,
    }
}

/// Expands paths and glob patterns (`*`, `?`, `[...]`) into files, in the order given; each
/// pattern's matches sorted by name; a file named twice (in any spelling) is listed once,
/// the first time. A pattern matching nothing is an error; so is a path or match that is
/// not a regular file (a FIFO, a device, a socket, a dangling or looping symbolic link),
/// saying what it is. Directories matched by a glob are skipped.
pub fn expand(patterns: &[String]) -> Result<Vec<PathBuf>, InputError> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for pattern in patterns {
        let mut found = Vec::new();
        let path = Path::new(pattern);
        if path.is_file() {
            found.push(PathBuf::from(pattern));
        } else if let Some(what) = not_a_file(path) {
            return Err(InputError::NotAFile {
                path: path.to_path_buf(),
                what,
            });
        } else if pattern.contains(['*', '?', '[']) {
            let paths = glob::glob(pattern).map_err(|e| InputError::Glob {
                pattern: pattern.clone(),
                reason: e.to_string(),
            })?;
            for p in paths.flatten() {
                if p.is_file() {
                    found.push(p);
                } else if let Some(what) = not_a_file(&p) {
                    return Err(InputError::NotAFile { path: p, what });
                }
            }
            found.sort();
        }
        if found.is_empty() {
            if path.is_dir() {
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

/// What `path` is when it exists but is neither a regular file nor a directory (after
/// following symbolic links); `None` for files, directories and paths that do not exist.
pub(crate) fn not_a_file(path: &Path) -> Option<String> {
    let link = std::fs::symlink_metadata(path).ok()?;
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if link.file_type().is_symlink() => {
            let target = std::fs::read_link(path)
                .map_or_else(|_| String::new(), |t| format!(" to {}", t.display()));
            return Some(if is_loop(&e) {
                format!("is a symbolic link{target} that loops (it leads back to itself)")
            } else {
                format!("is a symbolic link{target}, which leads to no file ({e})")
            });
        }
        Err(e) => return Some(format!("cannot be read: {e}")),
    };
    let t = meta.file_type();
    if t.is_file() || t.is_dir() {
        return None;
    }
    Some(format!(
        "is {}, not a regular file: posfilter maps its inputs, so save the data to a file \
         first",
        special_kind(t)
    ))
}

/// Whether `e` says "too many levels of symbolic links".
fn is_loop(e: &io::Error) -> bool {
    #[cfg(target_os = "linux")]
    return e.raw_os_error() == Some(libc::ELOOP);
    #[cfg(not(target_os = "linux"))]
    return e.to_string().contains("symbolic links");
}

/// The kind of a file that is neither a regular file nor a directory.
#[cfg(unix)]
fn special_kind(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// The kind of a file that is neither a regular file nor a directory.
#[cfg(not(unix))]
fn special_kind(_: std::fs::FileType) -> &'static str {
    "a special file"
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

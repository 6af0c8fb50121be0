//! The framing shared by the cluster's per-bucket files ([`key_run`](super::key_run) runs and
//! [`dup_list`](super::dup_list) lists): a 32-byte header, then fixed-size entries.
//!
//! # Header (little-endian)
//! The file kind's 8-byte magic, its format version (u32), the bucket `J` (u32), the bucket
//! count `M` (u32), 4 zero bytes, the entry count (u64).
//!
//! # Invariants
//! A file is written under a temporary name and renamed only when complete, so a file with
//! its final name holds exactly the header's count of entries; [`open`] checks the magic,
//! version, bucket and that the length matches the count, naming the file when one fails.

use super::output::Counted;
use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// Bytes of a header.
const HEADER_BYTES: usize = 32;

/// What kind of bucket file a path holds: its magic, version, entry size and name in errors.
pub(crate) struct BucketFileKind {
    /// The file's first 8 bytes.
    pub(crate) magic: &'static [u8; 8],
    /// The format version after the magic.
    pub(crate) version: u32,
    /// Bytes per entry.
    pub(crate) entry_bytes: usize,
    /// What the file is, for messages ("a key run").
    pub(crate) what: &'static str,
}

/// `e` with `path` in its message.
pub(crate) fn at(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// An `InvalidData` error naming `path`.
pub(crate) fn invalid(path: &Path, why: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {why}", path.display()),
    )
}

/// Writes bucket `j` of `m`'s file of `kind` to `path`: the header for `count` entries, then
/// what `entries` writes, under a temporary name renamed when complete.
pub(crate) fn write(
    path: &Path,
    kind: &BucketFileKind,
    (j, m): (u32, u32),
    count: usize,
    entries: impl FnOnce(&mut Counted) -> io::Result<()>,
) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut out = Counted::create(&tmp).map_err(|e| at(&tmp, e))?;
    let mut header = [0u8; HEADER_BYTES];
    header[..8].copy_from_slice(kind.magic);
    header[8..12].copy_from_slice(&kind.version.to_le_bytes());
    header[12..16].copy_from_slice(&j.to_le_bytes());
    header[16..20].copy_from_slice(&m.to_le_bytes());
    header[24..32].copy_from_slice(&(count as u64).to_le_bytes());
    out.write_all(&header).map_err(|e| at(&tmp, e))?;
    entries(&mut out).map_err(|e| at(&tmp, e))?;
    out.finish().map_err(|e| at(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| at(path, e))
}

/// Opens `path`, which must be bucket `j` of `m`'s file of `kind`: a reader placed at the
/// first entry and the header's entry count.
pub(crate) fn open(
    path: &Path,
    kind: &BucketFileKind,
    j: u32,
    m: u32,
) -> io::Result<(BufReader<File>, u64)> {
    let file = File::open(path).map_err(|e| at(path, e))?;
    let len = file.metadata().map_err(|e| at(path, e))?.len();
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut header = [0u8; HEADER_BYTES];
    reader
        .read_exact(&mut header)
        .map_err(|_| invalid(path, format!("too short for {}'s header", kind.what)))?;
    let word = |at: usize| {
        u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    if &header[..8] != kind.magic || word(8) != kind.version {
        return Err(invalid(
            path,
            format!("not {} of this posfilter version", kind.what),
        ));
    }
    if (word(12), word(16)) != (j, m) {
        return Err(invalid(
            path,
            format!("holds bucket {} of {}, not {j} of {m}", word(12), word(16)),
        ));
    }
    let mut count = [0u8; 8];
    count.copy_from_slice(&header[24..32]);
    let count = u64::from_le_bytes(count);
    let expected = (count as u128) * (kind.entry_bytes as u128) + HEADER_BYTES as u128;
    if len as u128 != expected {
        return Err(invalid(
            path,
            format!("{len} bytes, but its header announces {count} entries"),
        ));
    }
    Ok((reader, count))
}

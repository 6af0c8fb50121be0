//! Duplicate lists: what the dedup reduce of one key bucket decided (`posfilter merge
//! --dedup-partition J/M`), for the gather to apply: the global index of every record that
//! repeats a position kept earlier in the input, with the index of that first record.
//!
//! # Format (little-endian)
//! A 32-byte header: the magic `PFDUPLST`, the format version (u32, 1), the bucket `J`
//! (u32), the bucket count `M` (u32), 4 zero bytes, the entry count (u64). Then the entries,
//! 16 bytes each, strictly ascending by index: the duplicate's index (u64) and the first
//! record's index (u64), [`REFERENCE`](super::key_run::REFERENCE) when the position is in a
//! reference pool. Written under a temporary name and renamed when complete.

use super::bucket_file::{self, at, invalid, BucketFileKind};
use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// Bytes per entry: the duplicate's index and the first record's.
pub const DUP_BYTES: usize = 16;
/// The framing of a duplicate list.
const KIND: BucketFileKind = BucketFileKind {
    magic: b"PFDUPLST",
    version: 1,
    entry_bytes: DUP_BYTES,
    what: "a duplicate list",
};

/// One duplicate: the record's index and that of the first record with its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Duplicate {
    /// The duplicate record's global index.
    pub index: u64,
    /// The first record's index, or `REFERENCE` for a reference pool.
    pub first: u64,
}

/// The file name of bucket `j` of `m`'s list.
pub fn dup_list_name(j: u32, m: u32) -> String {
    format!("dups-{j:05}-of-{m:05}.bin")
}

/// Writes bucket `j` of `m`'s list to `path`; `dups` must be sorted by index.
pub fn write_dup_list(path: &Path, j: u32, m: u32, dups: &[Duplicate]) -> io::Result<()> {
    debug_assert!(dups.windows(2).all(|w| w[0].index < w[1].index));
    bucket_file::write(path, &KIND, (j, m), dups.len(), |out| {
        for d in dups {
            let mut b = [0u8; DUP_BYTES];
            b[..8].copy_from_slice(&d.index.to_le_bytes());
            b[8..].copy_from_slice(&d.first.to_le_bytes());
            out.write_all(&b)?;
        }
        Ok(())
    })
}

/// Reads a list in order, checking its header and its order.
pub struct DupListReader {
    path: PathBuf,
    reader: BufReader<File>,
    left: u64,
    read: u64,
    last: Option<u64>,
}

impl DupListReader {
    /// Opens the list at `path`, which must be bucket `j` of `m`'s.
    pub fn open(path: &Path, j: u32, m: u32) -> io::Result<DupListReader> {
        let (reader, left) = bucket_file::open(path, &KIND, j, m)?;
        Ok(DupListReader {
            path: path.to_path_buf(),
            reader,
            left,
            read: 0,
            last: None,
        })
    }

    /// Entries in the list not read yet.
    pub fn remaining(&self) -> u64 {
        self.left
    }

    /// The next duplicate; `None` at the end.
    pub fn next_dup(&mut self) -> io::Result<Option<Duplicate>> {
        if self.left == 0 {
            return Ok(None);
        }
        let mut b = [0u8; DUP_BYTES];
        self.reader
            .read_exact(&mut b)
            .map_err(|e| at(&self.path, e))?;
        let mut word = [0u8; 8];
        word.copy_from_slice(&b[..8]);
        let index = u64::from_le_bytes(word);
        word.copy_from_slice(&b[8..]);
        let first = u64::from_le_bytes(word);
        if self.last.is_some_and(|l| l >= index) || first >= index && first != u64::MAX {
            return Err(invalid(
                &self.path,
                format!("entry {} is out of order", self.read),
            ));
        }
        self.last = Some(index);
        self.left -= 1;
        self.read += 1;
        Ok(Some(Duplicate { index, first }))
    }
}

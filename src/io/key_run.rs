//! Dedup key runs: the dedup keys of one shard's kept positions, each with the global index
//! of its record, split into `M` buckets by key and sorted, so that the dedup reduce of
//! bucket `J` (`posfilter merge --dedup-partition J/M`) merges the runs of every shard in
//! one streaming pass.
//!
//! # Files
//! - While a shard runs: `keys/bucket-JJJJJ.log` per bucket, entries appended in commit
//!   order ([`KeyRunWriter`]); a checkpoint records each log's [`FileMark`], a resume cuts
//!   each back to it.
//! - When the shard completes ([`KeyRunWriter::finish`]): each log is read, sorted
//!   ([`super::key_sort`]) and written as `keys/bucket-JJJJJ-of-MMMMM.run` (under a
//!   temporary name, renamed), and removed. Sorting holds one bucket in memory:
//!   [`ENTRY_BYTES`] per entry, about 1/`M` of the shard's entries.
//!
//! # Run format (little-endian)
//! A 32-byte header: the magic `PFKEYRUN`, the format version (u32, 1), the bucket `J`
//! (u32), the bucket count `M` (u32), 4 zero bytes, the entry count (u64). Then the entries,
//! [`ENTRY_BYTES`] each: the key (u128) and the index (u64), ascending by key, then index.
//! Index `u64::MAX` marks a key of a reference pool.
//!
//! # Invariants
//! Every entry of bucket `J` has `bucket_of(key, M) == J`; entries are sorted and the count
//! in the header is the number that follow. [`KeyRunReader`] checks all three as it reads
//! and names the file and entry that break them.

use super::bucket_file::{self, at, invalid, BucketFileKind};
use super::output::{Counted, FileMark};
use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// Bytes per entry: a 128-bit key and a 64-bit index.
pub const ENTRY_BYTES: usize = 24;
/// The framing of a sorted run.
const KIND: BucketFileKind = BucketFileKind {
    magic: b"PFKEYRUN",
    version: 1,
    entry_bytes: ENTRY_BYTES,
    what: "a key run",
};
/// The most buckets a job may have.
pub const MAX_BUCKETS: u32 = 1 << 16;
/// The index that marks a key of a reference pool.
pub const REFERENCE: u64 = u64::MAX;

/// One entry: a dedup key and the global index of its record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct KeyEntry {
    /// The key (as the dedup index compares keys).
    pub key: u128,
    /// The record's global index, or [`REFERENCE`].
    pub index: u64,
}

impl KeyEntry {
    fn to_bytes(self) -> [u8; ENTRY_BYTES] {
        let mut b = [0u8; ENTRY_BYTES];
        b[..16].copy_from_slice(&self.key.to_le_bytes());
        b[16..].copy_from_slice(&self.index.to_le_bytes());
        b
    }

    fn from_bytes(b: &[u8]) -> KeyEntry {
        let mut key = [0u8; 16];
        key.copy_from_slice(&b[..16]);
        let mut index = [0u8; 8];
        index.copy_from_slice(&b[16..ENTRY_BYTES]);
        KeyEntry {
            key: u128::from_le_bytes(key),
            index: u64::from_le_bytes(index),
        }
    }
}

/// The bucket of `key` among `buckets` (from its top 32 bits, evenly).
pub fn bucket_of(key: u128, buckets: u32) -> u32 {
    (((key >> 96) as u64 * buckets as u64) >> 32) as u32
}

/// The final name of bucket `j` of `m` (in the shard's `keys/` directory).
pub fn run_name(j: u32, m: u32) -> String {
    format!("bucket-{j:05}-of-{m:05}.run")
}

/// Write buffer per bucket log: 64 MiB over all buckets, between 4 KiB and 1 MiB each.
fn log_buffer(buckets: u32) -> usize {
    ((64usize << 20) / buckets.max(1) as usize).clamp(4 << 10, 1 << 20)
}

fn log_name(j: u32) -> String {
    format!("bucket-{j:05}.log")
}

/// A finished run, for the shard's manifest.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RunInfo {
    /// The file, relative to the shard directory.
    pub path: String,
    /// Entries in it.
    pub entries: u64,
}

/// Appends a shard's key entries into `M` bucket logs (see the module).
pub struct KeyRunWriter {
    dir: PathBuf,
    logs: Vec<Counted>,
    /// Entries of each bucket not handed to its log yet (a write per entry costs more than
    /// the entry).
    pending: Vec<Vec<u8>>,
}

/// Bytes of a bucket's entries gathered before they are written to its log.
const PENDING_BYTES: usize = 4 << 10;

impl KeyRunWriter {
    /// Creates (truncates) the `buckets` logs in `dir` (created if missing).
    pub fn create(dir: &Path, buckets: u32) -> io::Result<KeyRunWriter> {
        std::fs::create_dir_all(dir).map_err(|e| at(dir, e))?;
        let buckets = buckets.clamp(1, MAX_BUCKETS);
        let logs = (0..buckets)
            .map(|j| {
                let path = dir.join(log_name(j));
                Counted::create_buffered(&path, log_buffer(buckets)).map_err(|e| at(&path, e))
            })
            .collect::<io::Result<Vec<_>>>()?;
        Ok(KeyRunWriter::of(dir, logs))
    }

    fn of(dir: &Path, logs: Vec<Counted>) -> KeyRunWriter {
        KeyRunWriter {
            dir: dir.to_path_buf(),
            pending: vec![Vec::new(); logs.len()],
            logs,
        }
    }

    /// Reopens the logs of a stopped shard at their checkpoint `marks` (one per bucket).
    pub fn resume(dir: &Path, marks: &[FileMark]) -> io::Result<KeyRunWriter> {
        let logs = marks
            .iter()
            .enumerate()
            .map(|(j, &mark)| {
                let path = dir.join(log_name(j as u32));
                if mark.bytes % ENTRY_BYTES as u64 != 0 {
                    return Err(invalid(&path, "no whole number of entries".into()));
                }
                mark.verify(&path).map_err(|e| at(&path, e))?;
                Counted::reopen_buffered(&path, mark, log_buffer(marks.len() as u32))
                    .map_err(|e| at(&path, e))
            })
            .collect::<io::Result<Vec<_>>>()?;
        Ok(KeyRunWriter::of(dir, logs))
    }

    /// The number of buckets.
    pub fn buckets(&self) -> u32 {
        self.logs.len() as u32
    }

    /// Appends one entry to its key's bucket.
    #[inline]
    pub fn append(&mut self, entry: KeyEntry) -> io::Result<()> {
        let j = bucket_of(entry.key, self.buckets()) as usize;
        let pending = &mut self.pending[j];
        pending.extend_from_slice(&entry.to_bytes());
        if pending.len() >= PENDING_BYTES {
            self.logs[j].write_all(pending)?;
            pending.clear();
        }
        Ok(())
    }

    /// Hands every bucket's pending entries to its log.
    fn write_pending(&mut self) -> io::Result<()> {
        for (log, pending) in self.logs.iter_mut().zip(&mut self.pending) {
            if !pending.is_empty() {
                log.write_all(pending)?;
                pending.clear();
            }
        }
        Ok(())
    }

    /// Flushes every log; their marks for a checkpoint, in bucket order.
    pub fn checkpoint(&mut self) -> io::Result<Vec<FileMark>> {
        self.write_pending()?;
        self.logs.iter_mut().map(Counted::mark).collect()
    }

    /// Sorts each log into its run (one bucket in memory at a time) and removes the logs.
    pub fn finish(mut self) -> io::Result<Vec<RunInfo>> {
        self.write_pending()?;
        let m = self.buckets();
        let mut runs = Vec::with_capacity(m as usize);
        for (j, log) in self.logs.into_iter().enumerate() {
            let j = j as u32;
            let log_path = self.dir.join(log_name(j));
            log.finish().map_err(|e| at(&log_path, e))?;
            let mut entries = read_log(&log_path)?;
            super::key_sort::sort_by_key_first(&mut entries, |e| e.key);
            let name = run_name(j, m);
            write_run(&self.dir.join(&name), j, m, &entries)?;
            std::fs::remove_file(&log_path).map_err(|e| at(&log_path, e))?;
            runs.push(RunInfo {
                path: format!("keys/{name}"),
                entries: entries.len() as u64,
            });
        }
        Ok(runs)
    }
}

/// A bucket log's entries, read a piece at a time (no second copy of the log in memory).
fn read_log(path: &Path) -> io::Result<Vec<KeyEntry>> {
    let mut file = File::open(path).map_err(|e| at(path, e))?;
    let len = file.metadata().map_err(|e| at(path, e))?.len() as usize;
    let mut entries = Vec::with_capacity(len / ENTRY_BYTES);
    let mut piece = vec![0u8; ENTRY_BYTES << 14];
    let mut left = len - len % ENTRY_BYTES;
    while left > 0 {
        let n = left.min(piece.len());
        file.read_exact(&mut piece[..n]).map_err(|e| at(path, e))?;
        entries.extend(
            piece[..n]
                .chunks_exact(ENTRY_BYTES)
                .map(KeyEntry::from_bytes),
        );
        left -= n;
    }
    Ok(entries)
}

/// Writes a sorted run (under a temporary name, renamed when complete).
pub fn write_run(path: &Path, j: u32, m: u32, entries: &[KeyEntry]) -> io::Result<()> {
    bucket_file::write(path, &KIND, (j, m), entries.len(), |out| {
        let mut piece = Vec::with_capacity(PENDING_BYTES);
        for chunk in entries.chunks(PENDING_BYTES / ENTRY_BYTES) {
            piece.clear();
            chunk
                .iter()
                .for_each(|e| piece.extend_from_slice(&e.to_bytes()));
            out.write_all(&piece)?;
        }
        Ok(())
    })
}

/// Reads a run in order, checking its header, its order and its bucket (see the module).
pub struct KeyRunReader {
    path: PathBuf,
    reader: BufReader<File>,
    bucket: u32,
    buckets: u32,
    left: u64,
    read: u64,
    last: Option<KeyEntry>,
}

impl KeyRunReader {
    /// Opens the run at `path`, which must be bucket `j` of `m`.
    pub fn open(path: &Path, j: u32, m: u32) -> io::Result<KeyRunReader> {
        let (reader, left) = bucket_file::open(path, &KIND, j, m)?;
        Ok(KeyRunReader {
            path: path.to_path_buf(),
            reader,
            bucket: j,
            buckets: m,
            left,
            read: 0,
            last: None,
        })
    }

    /// Entries not read yet.
    pub fn remaining(&self) -> u64 {
        self.left
    }

    /// The next entry; `None` at the end.
    pub fn next_entry(&mut self) -> io::Result<Option<KeyEntry>> {
        if self.left == 0 {
            return Ok(None);
        }
        let mut b = [0u8; ENTRY_BYTES];
        self.reader
            .read_exact(&mut b)
            .map_err(|e| at(&self.path, e))?;
        let e = KeyEntry::from_bytes(&b);
        if bucket_of(e.key, self.buckets) != self.bucket {
            return Err(invalid(
                &self.path,
                format!("entry {} belongs to another bucket", self.read),
            ));
        }
        if self.last.is_some_and(|last| last > e) {
            return Err(invalid(
                &self.path,
                format!("entry {} is out of order", self.read),
            ));
        }
        self.last = Some(e);
        self.left -= 1;
        self.read += 1;
        Ok(Some(e))
    }
}

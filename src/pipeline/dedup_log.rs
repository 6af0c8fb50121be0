//! The dedup log (`resume.dedup` in the output directory, with checkpoints and dedup on):
//! the keys a run added to its dedup index, so that a resumed run rebuilds the index as the
//! stopped run had it.
//!
//! # Format
//! One 24-byte entry per key, in commit order: the 128-bit fingerprint, then the global index
//! of the first record with it, both little-endian. The index is rebuilt from it after the
//! reference pools (whose keys are not logged).
//!
//! # Invariants
//! The log's first `bytes` bytes at a checkpoint have the CRC-32 in the checkpoint's mark; a
//! resume reads and checks them in one pass and cuts off what was written after.

use crate::filter::FirstSeen;
use crate::io::output::{Counted, FileMark};
use crate::shogi::Fingerprint;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The dedup log's file name in the output directory.
pub(crate) const DEDUP_LOG_FILE: &str = "resume.dedup";
/// Bytes per dedup log entry: a 128-bit fingerprint and a 64-bit index.
const DEDUP_ENTRY: usize = 24;

/// The keys a run added to its dedup index, appended in commit order (see the module).
pub(crate) struct DedupLog {
    sink: Counted,
    path: PathBuf,
}

impl DedupLog {
    /// Creates (truncates) `dir/resume.dedup`.
    pub(crate) fn create(dir: &Path) -> io::Result<DedupLog> {
        let path = dir.join(DEDUP_LOG_FILE);
        let sink = Counted::create(&path).map_err(|e| with_path(&path, e))?;
        Ok(DedupLog { sink, path })
    }

    /// Appends one key and the index of its first record.
    #[inline]
    pub(crate) fn append(&mut self, key: Fingerprint, index: u64) -> io::Result<()> {
        let mut entry = [0u8; DEDUP_ENTRY];
        entry[..16].copy_from_slice(&key.0.to_le_bytes());
        entry[16..].copy_from_slice(&index.to_le_bytes());
        self.sink
            .write_all(&entry)
            .map_err(|e| with_path(&self.path, e))
    }

    /// Flushes and syncs the log; its mark for a checkpoint.
    pub(crate) fn checkpoint(&mut self) -> io::Result<FileMark> {
        self.sink.mark().map_err(|e| with_path(&self.path, e))
    }

    /// Reopens the log of a stopped run at `mark` and puts its keys back into `index` in
    /// their order, as the stopped run had inserted them.
    pub(crate) fn resume(
        dir: &Path,
        mark: FileMark,
        index: &mut FirstSeen,
    ) -> io::Result<DedupLog> {
        let path = dir.join(DEDUP_LOG_FILE);
        if mark.bytes % DEDUP_ENTRY as u64 != 0 {
            return Err(with_path(
                &path,
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{} bytes is no whole number of entries", mark.bytes),
                ),
            ));
        }
        // One read of the log both checks it and rebuilds the index; entries may straddle
        // the pieces the check reads.
        let mut carry = Vec::with_capacity(DEDUP_ENTRY);
        mark.verify_reading(&path, |mut piece| {
            if !carry.is_empty() {
                let take = (DEDUP_ENTRY - carry.len()).min(piece.len());
                carry.extend_from_slice(&piece[..take]);
                piece = &piece[take..];
                if carry.len() == DEDUP_ENTRY {
                    insert_entry(index, &carry);
                    carry.clear();
                }
            }
            let mut entries = piece.chunks_exact(DEDUP_ENTRY);
            for entry in &mut entries {
                insert_entry(index, entry);
            }
            carry.extend_from_slice(entries.remainder());
        })
        .map_err(|e| with_path(&path, e))?;
        let sink = Counted::reopen_verified(&path, mark).map_err(|e| with_path(&path, e))?;
        Ok(DedupLog { sink, path })
    }
}

/// Puts one dedup log entry (fingerprint, first index; little-endian) into `index`.
fn insert_entry(index: &mut FirstSeen, entry: &[u8]) {
    let mut key = [0u8; 16];
    key.copy_from_slice(&entry[..16]);
    let mut first = [0u8; 8];
    first.copy_from_slice(&entry[16..DEDUP_ENTRY]);
    index.first_or_insert(
        Fingerprint(u128::from_le_bytes(key)),
        u64::from_le_bytes(first),
    );
}

/// `e` with `path` in its message.
fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log longer than one read piece (1 MiB is no multiple of 24 bytes, so entries
    /// straddle pieces) gives back every key with its index, in order, and refuses once a
    /// byte within the checkpoint changes.
    #[test]
    fn dedup_log_rebuilds_the_index_it_recorded() {
        let dir = std::env::temp_dir().join(format!("posfilter-dedup-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let n = 50_000u64; // 1.2 MB
        let key = |i: u64| {
            Fingerprint((i as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) | 1)
        };
        let mut log = DedupLog::create(&dir).unwrap();
        for i in 0..n {
            log.append(key(i), 3 * i).unwrap();
        }
        let mark = log.checkpoint().unwrap();
        log.append(key(n), 0).unwrap(); // after the checkpoint: must be cut off
        drop(log);
        let mut index = FirstSeen::with_capacity(0);
        let mut log = DedupLog::resume(&dir, mark, &mut index).unwrap();
        assert_eq!(index.len() as u64, n);
        for i in 0..n {
            assert_eq!(index.get(key(i)), Some(3 * i), "entry {i}");
        }
        assert_eq!(index.get(key(n)), None);
        assert_eq!(log.checkpoint().unwrap(), mark);

        let path = dir.join(DEDUP_LOG_FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[(1 << 20) + 5] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        let err = DedupLog::resume(&dir, mark, &mut FirstSeen::with_capacity(0)).err();
        assert!(err.is_some_and(|e| e.to_string().contains("CRC-32 differs")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! The run's JSON side files (audit.jsonl, rejected.jsonl, mates.jsonl, report.json,
//! manifest.json) and the manifest entries of every output file. Record shards and the
//! binary mates file are written by [`crate::io::output::ShardWriter`].
//!
//! # Invariants
//! - Every file is written under `<name>.tmp` and renamed to its final name only when it is
//!   complete, so a killed run leaves no file that looks complete but is not.
//! - Every finished file's CRC-32 and record count go into manifest.json.

use crate::io::output::{Counted, FileMark};
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A finished output file, as listed in manifest.json (path relative to the output dir).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FileInfo {
    /// Path relative to the output directory.
    pub(crate) path: String,
    /// Records (lines for JSONL files).
    pub(crate) records: u64,
    /// Size in bytes.
    pub(crate) bytes: u64,
    /// CRC-32 (IEEE) of the file's bytes, hex.
    pub(crate) crc32: String,
}

impl FileInfo {
    /// The manifest entry of a finished record shard.
    pub(crate) fn of_shard(shard: &crate::io::output::ShardInfo, out_dir: &Path) -> FileInfo {
        FileInfo {
            path: shard
                .path
                .strip_prefix(out_dir)
                .unwrap_or(&shard.path)
                .display()
                .to_string(),
            records: shard.records,
            bytes: shard.bytes,
            crc32: shard.crc32.clone(),
        }
    }
}

/// One output file written under a temporary name and renamed by [`AtomicFile::finish`].
pub(crate) struct AtomicFile {
    sink: Counted,
    tmp: PathBuf,
    path: PathBuf,
    rel: String,
    records: u64,
    /// Scratch for [`AtomicFile::write_json_line`] (one allocation per file, not per line).
    line: Vec<u8>,
}

/// An [`AtomicFile`]'s state at a checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AtomicMark {
    /// Records (lines) written.
    pub(crate) records: u64,
    /// Bytes on disk and their CRC-32.
    pub(crate) file: FileMark,
}

impl AtomicFile {
    /// Creates `dir/rel.tmp`.
    pub(crate) fn create(dir: &Path, rel: &str) -> io::Result<AtomicFile> {
        let (path, tmp) = Self::paths(dir, rel)?;
        let sink = Counted::create(&tmp)?;
        Ok(AtomicFile {
            sink,
            tmp,
            path,
            rel: rel.to_string(),
            records: 0,
            line: Vec::new(),
        })
    }

    /// The final and temporary paths of `dir/rel`, its directory created.
    fn paths(dir: &Path, rel: &str) -> io::Result<(PathBuf, PathBuf)> {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut tmp = path.clone().into_os_string();
        tmp.push(".tmp");
        Ok((path, PathBuf::from(tmp)))
    }

    /// Flushes what was written so far to the file and returns its mark.
    pub(crate) fn checkpoint(&mut self) -> io::Result<AtomicMark> {
        Ok(AtomicMark {
            records: self.records,
            file: self.sink.mark()?,
        })
    }

    /// Reopens `dir/rel` to go on from `mark` after a run stopped: the temporary file (or
    /// the final one, renamed back, if the stopped run had already finished it) is checked
    /// against the mark and cut back to it.
    pub(crate) fn resume(dir: &Path, rel: &str, mark: AtomicMark) -> io::Result<AtomicFile> {
        let (path, tmp) = Self::paths(dir, rel)?;
        if !tmp.exists() && path.exists() {
            std::fs::rename(&path, &tmp)?;
        }
        let sink = Counted::reopen(&tmp, mark.file)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", tmp.display())))?;
        Ok(AtomicFile {
            sink,
            tmp,
            path,
            rel: rel.to_string(),
            records: mark.records,
            line: Vec::new(),
        })
    }

    /// Appends `bytes` holding `records` records.
    pub(crate) fn write(&mut self, bytes: &[u8], records: u64) -> io::Result<()> {
        self.sink.write_all(bytes)?;
        self.records += records;
        Ok(())
    }

    /// Appends one JSON value as a line.
    pub(crate) fn write_json_line<T: Serialize>(&mut self, value: &T) -> io::Result<()> {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        serde_json::to_writer(&mut line, value).map_err(io::Error::other)?;
        line.push(b'\n');
        let written = self.write(&line, 1);
        self.line = line;
        written
    }

    /// Flushes, syncs and renames to the final name.
    pub(crate) fn finish(self) -> io::Result<FileInfo> {
        let (bytes, crc32) = self.sink.finish()?;
        std::fs::rename(&self.tmp, &self.path)?;
        Ok(FileInfo {
            path: self.rel,
            records: self.records,
            bytes,
            crc32,
        })
    }
}

/// Removes `path`; a missing file is fine.
pub(crate) fn remove_if_present(path: &std::path::Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Writes `value` as pretty JSON to `dir/name` via a temporary file.
pub(crate) fn write_json<T: serde::Serialize>(
    dir: &std::path::Path,
    name: &str,
    value: &T,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    write_bytes(dir, name, &bytes)
}

/// Writes `dir/name` (one record) atomically (temporary name, renamed when complete).
pub(crate) fn write_bytes(dir: &std::path::Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = AtomicFile::create(dir, name)?;
    f.write(bytes, 1)?;
    f.finish().map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_appears_only_when_finished_with_its_checksum() {
        let dir = std::env::temp_dir().join(format!("posfilter-output-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut f = AtomicFile::create(&dir, "audit.jsonl").unwrap();
        f.write_json_line(&serde_json::json!({"index": 1})).unwrap();
        f.write_json_line(&serde_json::json!({"index": 2})).unwrap();
        assert!(!dir.join("audit.jsonl").exists());
        assert!(dir.join("audit.jsonl.tmp").exists());
        let info = f.finish().unwrap();
        let bytes = std::fs::read(dir.join("audit.jsonl")).unwrap();
        assert_eq!(bytes, b"{\"index\":1}\n{\"index\":2}\n");
        assert_eq!((info.records, info.bytes), (2, bytes.len() as u64));
        assert_eq!(info.crc32, format!("{:08x}", crc32fast::hash(&bytes)));
        assert!(!dir.join("audit.jsonl.tmp").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

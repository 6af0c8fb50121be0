//! The output directory: kept shards, mates.jsonl + mates.<fmt>, audit.jsonl,
//! rejected.jsonl, report.json and manifest.json.
//!
//! # Invariants
//! - Every file is written under `<name>.tmp` and renamed to its final name only when it is
//!   complete, so a killed run leaves no file that looks complete but is not.
//! - Shards hold `shard_records` records each (the last may hold fewer), named
//!   `kept/part-NNNNN.<ext>[.zst]` in input order; with mixed input formats and
//!   `format = "same"` each format has its own numbering.
//! - Every finished file's CRC-32 and record count go into manifest.json.

use serde::Serialize;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A finished output file, as listed in manifest.json.
#[derive(Debug, Clone, Serialize)]
pub struct FileInfo {
    /// Path relative to the output directory.
    pub path: String,
    /// Records (lines for JSONL files).
    pub records: u64,
    /// Size in bytes.
    pub bytes: u64,
    /// CRC-32 (IEEE) of the file's bytes, hex.
    pub crc32: String,
}

/// Hashes what passes through to the file (so no second read is needed for the checksum).
struct HashingWriter {
    inner: BufWriter<File>,
    hasher: crc32fast::Hasher,
    bytes: u64,
}

impl Write for HashingWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

enum Sink {
    Plain(HashingWriter),
    Zstd(zstd::Encoder<'static, HashingWriter>),
}

/// One output file written under a temporary name and renamed by [`AtomicFile::finish`].
pub struct AtomicFile {
    sink: Sink,
    tmp: PathBuf,
    path: PathBuf,
    rel: String,
    records: u64,
}

impl AtomicFile {
    /// Creates `dir/rel.tmp`; `zstd_level` compresses the stream.
    pub fn create(dir: &Path, rel: &str, zstd_level: Option<i32>) -> io::Result<AtomicFile> {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut tmp = path.clone().into_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let inner = HashingWriter {
            inner: BufWriter::with_capacity(1 << 20, File::create(&tmp)?),
            hasher: crc32fast::Hasher::new(),
            bytes: 0,
        };
        let sink = match zstd_level {
            Some(level) => Sink::Zstd(zstd::Encoder::new(inner, level)?),
            None => Sink::Plain(inner),
        };
        Ok(AtomicFile {
            sink,
            tmp,
            path,
            rel: rel.to_string(),
            records: 0,
        })
    }

    /// Appends `bytes` holding `records` records.
    pub fn write(&mut self, bytes: &[u8], records: u64) -> io::Result<()> {
        match &mut self.sink {
            Sink::Plain(w) => w.write_all(bytes)?,
            Sink::Zstd(w) => w.write_all(bytes)?,
        }
        self.records += records;
        Ok(())
    }

    /// Appends one JSON value as a line.
    pub fn write_json_line<T: Serialize>(&mut self, value: &T) -> io::Result<()> {
        let mut line = serde_json::to_vec(value).map_err(io::Error::other)?;
        line.push(b'\n');
        self.write(&line, 1)
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Flushes, syncs and renames to the final name.
    pub fn finish(self) -> io::Result<FileInfo> {
        let mut w = match self.sink {
            Sink::Plain(w) => w,
            Sink::Zstd(enc) => enc.finish()?,
        };
        w.flush()?;
        let HashingWriter {
            inner,
            hasher,
            bytes,
        } = w;
        let file = inner.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.tmp, &self.path)?;
        Ok(FileInfo {
            path: self.rel,
            records: self.records,
            bytes,
            crc32: format!("{:08x}", hasher.finalize()),
        })
    }
}

/// Kept records of one format, rotated into shards of `shard_records`.
pub struct ShardWriter {
    dir: PathBuf,
    ext: String,
    shard_records: u64,
    zstd_level: Option<i32>,
    current: Option<AtomicFile>,
    next_index: usize,
    done: Vec<FileInfo>,
}

impl ShardWriter {
    /// Shards `dir/kept/part-NNNNN.<ext>[.zst]`.
    pub fn new(dir: &Path, ext: &str, shard_records: u64, zstd_level: Option<i32>) -> ShardWriter {
        ShardWriter {
            dir: dir.to_path_buf(),
            ext: ext.to_string(),
            shard_records: shard_records.max(1),
            zstd_level,
            current: None,
            next_index: 0,
            done: Vec::new(),
        }
    }

    /// Appends one record's bytes.
    pub fn write_record(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.current.is_none() {
            let suffix = if self.zstd_level.is_some() {
                ".zst"
            } else {
                ""
            };
            let rel = format!("kept/part-{:05}.{}{}", self.next_index, self.ext, suffix);
            self.next_index += 1;
            self.current = Some(AtomicFile::create(&self.dir, &rel, self.zstd_level)?);
        }
        let full = match self.current.as_mut() {
            Some(f) => {
                f.write(bytes, 1)?;
                f.records() >= self.shard_records
            }
            None => false,
        };
        if full {
            if let Some(f) = self.current.take() {
                self.done.push(f.finish()?);
            }
        }
        Ok(())
    }

    /// Finishes the open shard; returns every shard written.
    pub fn finish(mut self) -> io::Result<Vec<FileInfo>> {
        if let Some(f) = self.current.take() {
            self.done.push(f.finish()?);
        }
        Ok(self.done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_rotate_and_files_appear_only_when_finished() {
        let dir = std::env::temp_dir().join(format!("posfilter-output-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut w = ShardWriter::new(&dir, "psfen", 2, None);
        for i in 0..5u8 {
            w.write_record(&[i; 32]).unwrap();
        }
        // Two full shards are final, the third is still a temporary file.
        assert!(dir.join("kept/part-00001.psfen").exists());
        assert!(!dir.join("kept/part-00002.psfen").exists());
        assert!(dir.join("kept/part-00002.psfen.tmp").exists());
        let shards = w.finish().unwrap();
        assert_eq!(
            shards.iter().map(|s| s.records).collect::<Vec<_>>(),
            vec![2, 2, 1]
        );
        let bytes = std::fs::read(dir.join("kept/part-00002.psfen")).unwrap();
        assert_eq!(bytes, vec![4u8; 32]);
        assert_eq!(shards[2].crc32, format!("{:08x}", crc32fast::hash(&bytes)));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! A file written through a count of its bytes and their CRC-32 ([`Counted`]), and the
//! state such a file had at a checkpoint ([`FileMark`]), from which a stopped run reopens it
//! after checking every byte the mark covers.

use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// How far an output file had been written at a checkpoint: its length and the CRC-32 of
/// those bytes (the state a resumed run continues from).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileMark {
    /// Bytes on disk.
    pub bytes: u64,
    /// CRC-32 (IEEE) of those bytes.
    pub crc32: u32,
}

impl FileMark {
    /// Checks that `path` starts with the bytes this mark describes (its first `bytes`
    /// bytes have this CRC-32); the error says how it differs (callers add the path).
    pub fn verify(&self, path: &Path) -> io::Result<()> {
        self.verify_reading(path, |_| {})
    }

    /// [`FileMark::verify`], handing each piece of the checked bytes to `each` in order as
    /// it is read (so a caller that needs them reads the file once). On an error `each` may
    /// have seen bytes that do not match.
    pub fn verify_reading(&self, path: &Path, mut each: impl FnMut(&[u8])) -> io::Result<()> {
        let mut file = File::open(path)?;
        let len = file.metadata()?.len();
        if len < self.bytes {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{len} bytes, but the checkpoint recorded {}", self.bytes),
            ));
        }
        let mut crc = crc32fast::Hasher::new();
        let mut left = self.bytes;
        let mut buf = vec![0u8; 1 << 20];
        while left > 0 {
            let want = left.min(buf.len() as u64) as usize;
            file.read_exact(&mut buf[..want])?;
            crc.update(&buf[..want]);
            each(&buf[..want]);
            left -= want as u64;
        }
        if crc.finalize() != self.crc32 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "its first {} bytes are not those the checkpoint recorded (CRC-32 \
                     differs): the file was changed after the run stopped",
                    self.bytes
                ),
            ));
        }
        Ok(())
    }
}

/// A buffered file writer that counts and CRC-32s the bytes going to disk (so a manifest's
/// checksum needs no second read of the file). Shared by the shard writers and the
/// pipeline's JSON side files.
pub(crate) struct Counted {
    inner: BufWriter<File>,
    crc: crc32fast::Hasher,
    bytes: u64,
}

impl Counted {
    /// Creates (truncates) `path`.
    pub(crate) fn create(path: &Path) -> io::Result<Counted> {
        Counted::create_buffered(path, 1 << 20)
    }

    /// [`Counted::create`] with a write buffer of `capacity` bytes (many files open at once).
    pub(crate) fn create_buffered(path: &Path, capacity: usize) -> io::Result<Counted> {
        Ok(Counted {
            inner: BufWriter::with_capacity(capacity, File::create(path)?),
            crc: crc32fast::Hasher::new(),
            bytes: 0,
        })
    }

    /// Reopens `path` to go on writing after the bytes `mark` describes: checks them
    /// ([`FileMark::verify`]), cuts off whatever was written after the checkpoint, and
    /// continues the count and the CRC from the mark.
    pub(crate) fn reopen(path: &Path, mark: FileMark) -> io::Result<Counted> {
        mark.verify(path)?;
        Counted::reopen_verified(path, mark)
    }

    /// [`Counted::reopen`] of a file whose bytes the caller has just checked against
    /// `mark` itself.
    pub(crate) fn reopen_verified(path: &Path, mark: FileMark) -> io::Result<Counted> {
        Counted::reopen_buffered(path, mark, 1 << 20)
    }

    /// [`Counted::reopen_verified`] with a write buffer of `capacity` bytes.
    pub(crate) fn reopen_buffered(
        path: &Path,
        mark: FileMark,
        capacity: usize,
    ) -> io::Result<Counted> {
        let mut file = OpenOptions::new().write(true).open(path)?;
        file.set_len(mark.bytes)?;
        file.seek(SeekFrom::End(0))?;
        Ok(Counted {
            inner: BufWriter::with_capacity(capacity, file),
            crc: crc32fast::Hasher::new_with_initial_len(mark.crc32, mark.bytes),
            bytes: mark.bytes,
        })
    }

    /// Flushes the bytes written so far to the file and returns their mark. Not synced: a
    /// killed process leaves them in the page cache, and after a machine crash a resume
    /// finds any bytes that did not reach the disk by their CRC-32 and refuses, never
    /// writing a wrong output.
    pub(crate) fn mark(&mut self) -> io::Result<FileMark> {
        self.inner.flush()?;
        Ok(FileMark {
            bytes: self.bytes,
            crc32: self.crc.clone().finalize(),
        })
    }

    /// Flushes and syncs the file; returns the bytes written and their CRC-32 as 8 lower-case
    /// hex digits.
    pub(crate) fn finish(mut self) -> io::Result<(u64, String)> {
        self.inner.flush()?;
        let file = self.inner.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        Ok((self.bytes, format!("{:08x}", self.crc.finalize())))
    }
}

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

//! Streaming record writers: optional zstd, rotation into shards by record count, each file
//! written under a temporary name and renamed when complete.
//!
//! # Contract
//! - Shards are `<dir>/part-00000.<ext>[.zst]`, `part-00001…`, in write order, each holding at
//!   most `shard_records` records (0 = no limit). `<ext>` is [`OutputOptions::extension`]
//!   (the format's name unless the options give another; a run decides it in
//!   `pipeline::kept_shards`). A shard is written as
//!   `.part-00000.<ext>[.zst].tmp` in the same directory, flushed, synced and renamed on
//!   completion, so a file with a final name is always complete. A writer dropped without
//!   [`ShardWriter::finish`] leaves only a temporary file.
//! - Records are written as given: binary records must have their format's size; a text
//!   record is a line without its newline, and the writer appends `\n`.
//! - Each finished shard is reported as a [`ShardInfo`] with its record count, its size on
//!   disk and the CRC-32 (IEEE, as zlib's `crc32`) of its bytes on disk, for manifest.json.
//! - [`ShardWriter::checkpoint`] flushes and describes the writer ([`ShardWriterMark`]:
//!   finished shards, the open one's name, records, length and CRC-32);
//!   [`ShardWriter::resume`] goes on from such a mark after the process stopped, checking
//!   every byte the mark covers and discarding the rest.

use crate::codec::{self, CodecError, Format, TeacherFields};
use crate::shogi::Position;
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

mod counted;
pub mod lock;
pub(crate) use counted::Counted;
pub use counted::FileMark;
pub use lock::{LockError, LockHolder, OutputLock, SchedulerTask};

/// Errors writing output.
#[derive(Debug, Error)]
pub enum OutputError {
    /// An I/O error on a file.
    #[error("{}: {err}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        err: io::Error,
    },
    /// A record of the wrong size for the format.
    #[error("a {format} record must be {need} bytes, got {got}")]
    RecordSize {
        /// The format.
        format: Format,
        /// Bytes needed.
        need: usize,
        /// Bytes given.
        got: usize,
    },
    /// A position could not be encoded.
    #[error("{0}")]
    Encode(#[from] CodecError),
}

/// Output settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputOptions {
    /// zstd level (1..=22), or `None` for plain files.
    pub zstd_level: Option<i32>,
    /// Records per shard; 0 = a single shard.
    pub shard_records: u64,
    /// The shards' extension (without the dot or `.zst`); `None` = the format's name.
    pub extension: Option<String>,
}

impl OutputOptions {
    /// The extension shards of `format` get with these options.
    pub fn extension(&self, format: Format) -> &str {
        self.extension.as_deref().unwrap_or(format.extension())
    }
}

impl Default for OutputOptions {
    /// Plain shards of a million records named after their format.
    fn default() -> Self {
        OutputOptions {
            zstd_level: None,
            shard_records: 1_000_000,
            extension: None,
        }
    }
}

/// A finished output file, for manifest.json.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    /// Final path.
    pub path: PathBuf,
    /// Records written.
    pub records: u64,
    /// Bytes on disk.
    pub bytes: u64,
    /// CRC-32 of the bytes on disk, as 8 lower-case hex digits.
    pub crc32: String,
}

enum Sink {
    Plain(Counted),
    Zstd(zstd::stream::write::Encoder<'static, Counted>),
}

impl Sink {
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Plain(w) => w.write_all(buf),
            Sink::Zstd(w) => w.write_all(buf),
        }
    }
    fn finish(self) -> io::Result<Counted> {
        let mut c = match self {
            Sink::Plain(c) => c,
            Sink::Zstd(e) => e.finish()?,
        };
        c.flush()?;
        Ok(c)
    }

    /// A sink over `c` that starts writing at its current end (a new zstd frame).
    fn over(c: Counted, zstd_level: Option<i32>) -> io::Result<Sink> {
        Ok(match zstd_level {
            None => Sink::Plain(c),
            Some(level) => Sink::Zstd(zstd::stream::write::Encoder::new(c, level)?),
        })
    }
}

/// A shard writer's state at a checkpoint ([`ShardWriter::checkpoint`]), from which
/// [`ShardWriter::resume`] goes on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardWriterMark {
    /// The number the next new shard gets (the open shard, if any, has the one before).
    pub next_shard: u32,
    /// The finished shards.
    pub done: Vec<ShardInfo>,
    /// The shard being written: its final name, records so far and bytes on disk.
    pub open: Option<OpenMark>,
}

/// The open shard of a [`ShardWriterMark`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenMark {
    /// Final file name (in the writer's directory).
    pub name: String,
    /// Records written to it.
    pub records: u64,
    /// Its bytes on disk (under the temporary name).
    pub file: FileMark,
}

struct Open {
    tmp: PathBuf,
    path: PathBuf,
    sink: Sink,
    records: u64,
}

/// Writes records into shards (or one named file); see the module contract.
pub struct ShardWriter {
    dir: PathBuf,
    format: Format,
    opts: OutputOptions,
    /// A fixed file name instead of numbered shards.
    single: Option<String>,
    open: Option<Open>,
    next_shard: u32,
    done: Vec<ShardInfo>,
    scratch: Vec<u8>,
}

impl ShardWriter {
    /// Numbered shards `part-NNNNN.<ext>[.zst]` in `dir` (created if missing).
    pub fn new(dir: &Path, format: Format, opts: OutputOptions) -> ShardWriter {
        ShardWriter {
            dir: dir.to_path_buf(),
            format,
            opts,
            single: None,
            open: None,
            next_shard: 0,
            done: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// One file at `path` (`.zst` is appended when compressing), written even if empty.
    pub fn single(path: &Path, format: Format, zstd_level: Option<i32>) -> ShardWriter {
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| format!("out.{}", format.extension()));
        if zstd_level.is_some() && !name.ends_with(".zst") {
            name.push_str(".zst");
        }
        let mut w = ShardWriter::new(
            &dir,
            format,
            OutputOptions {
                zstd_level,
                shard_records: 0,
                extension: None,
            },
        );
        w.single = Some(name);
        w
    }

    /// The final name of shard `n` with extension `ext` (see [`OutputOptions::extension`]).
    pub fn shard_name(ext: &str, n: u32, compressed: bool) -> String {
        format!("part-{n:05}.{ext}{}", if compressed { ".zst" } else { "" })
    }

    fn io(path: &Path) -> impl FnOnce(io::Error) -> OutputError + '_ {
        move |source| OutputError::Io {
            path: path.to_path_buf(),
            err: source,
        }
    }

    fn open_next(&mut self) -> Result<(), OutputError> {
        std::fs::create_dir_all(&self.dir).map_err(Self::io(&self.dir))?;
        let name = match &self.single {
            Some(n) => n.clone(),
            None => Self::shard_name(
                self.opts.extension(self.format),
                self.next_shard,
                self.opts.zstd_level.is_some(),
            ),
        };
        self.next_shard += 1;
        let path = self.dir.join(&name);
        let tmp = self.dir.join(format!(".{name}.tmp"));
        let counted = Counted::create(&tmp).map_err(Self::io(&tmp))?;
        let sink = Sink::over(counted, self.opts.zstd_level).map_err(Self::io(&tmp))?;
        self.open = Some(Open {
            tmp,
            path,
            sink,
            records: 0,
        });
        Ok(())
    }

    fn close(&mut self) -> Result<(), OutputError> {
        let Some(open) = self.open.take() else {
            return Ok(());
        };
        let counted = open.sink.finish().map_err(Self::io(&open.tmp))?;
        let (bytes, crc32) = counted.finish().map_err(Self::io(&open.tmp))?;
        std::fs::rename(&open.tmp, &open.path).map_err(Self::io(&open.path))?;
        self.done.push(ShardInfo {
            path: open.path,
            records: open.records,
            bytes,
            crc32,
        });
        Ok(())
    }

    /// Writes one record's raw bytes (a text line without its newline).
    pub fn write_record(&mut self, raw: &[u8]) -> Result<(), OutputError> {
        if let Some(need) = self.format.record_size() {
            if raw.len() != need {
                return Err(OutputError::RecordSize {
                    format: self.format,
                    need,
                    got: raw.len(),
                });
            }
        }
        self.write_game(raw, 1)
    }

    /// Writes the bytes of whole games holding `records` records (a game format; for the
    /// others [`ShardWriter::write_record`] checks and calls it with one record). A shard
    /// is full once it holds `shard_records` records: games are never split.
    pub fn write_game(&mut self, raw: &[u8], records: u64) -> Result<(), OutputError> {
        let full = self
            .open
            .as_ref()
            .is_some_and(|o| self.opts.shard_records > 0 && o.records >= self.opts.shard_records);
        if full {
            self.close()?;
        }
        if self.open.is_none() {
            self.open_next()?;
        }
        let format = self.format;
        let Some(open) = self.open.as_mut() else {
            return Ok(());
        };
        open.sink.write_all(raw).map_err(Self::io(&open.tmp))?;
        if format.is_text() {
            open.sink.write_all(b"\n").map_err(Self::io(&open.tmp))?;
        }
        open.records += records;
        Ok(())
    }

    /// Encodes and writes a position (format conversion, the mates file).
    pub fn write_position(
        &mut self,
        pos: &Position,
        teacher: Option<&TeacherFields>,
    ) -> Result<(), OutputError> {
        let mut buf = std::mem::take(&mut self.scratch);
        buf.clear();
        codec::encode(self.format, pos, teacher, &mut buf)?;
        if self.format.is_text() {
            buf.pop(); // write_record appends the newline
        }
        let r = self.write_record(&buf);
        self.scratch = buf;
        r
    }

    /// Flushes everything written so far to the files and returns the writer's state: a
    /// compressed open shard ends its zstd frame there (the
    /// next record starts a new frame of the same file; zstd reads concatenated frames as
    /// one stream). The bytes written therefore depend on where checkpoints fall, which
    /// the run makes a function of the input alone.
    pub fn checkpoint(&mut self) -> Result<ShardWriterMark, OutputError> {
        let open = match self.open.take() {
            None => None,
            Some(o) => {
                let mut counted = o.sink.finish().map_err(Self::io(&o.tmp))?;
                let file = counted.mark().map_err(Self::io(&o.tmp))?;
                let sink = Sink::over(counted, self.opts.zstd_level).map_err(Self::io(&o.tmp))?;
                let name = file_name(&o.path);
                let records = o.records;
                self.open = Some(Open { sink, ..o });
                Some(OpenMark {
                    name,
                    records,
                    file,
                })
            }
        };
        Ok(ShardWriterMark {
            next_shard: self.next_shard,
            done: self.done.clone(),
            open,
        })
    }

    /// A writer in `dir` that goes on from `mark` ([`ShardWriter::checkpoint`]) after a run
    /// stopped: the finished shards are checked (size and CRC-32), the open one is cut back
    /// to its checkpointed bytes (renamed back to its temporary name if the stopped run
    /// had already finished it), and shards the stopped run began after the checkpoint are
    /// removed. `single` as in [`ShardWriter::single`] (the file name, `.zst` included).
    pub fn resume(
        dir: &Path,
        format: Format,
        opts: OutputOptions,
        single: Option<String>,
        mark: &ShardWriterMark,
    ) -> Result<ShardWriter, OutputError> {
        let mut done = Vec::with_capacity(mark.done.len());
        for shard in &mark.done {
            // Found in `dir` by name, wherever the stopped run's directory was reached from.
            let path = dir.join(file_name(&shard.path));
            let crc32 = u32::from_str_radix(&shard.crc32, 16).map_err(|_| {
                Self::io(&path)(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("the checkpoint's CRC-32 {:?} is not hex", shard.crc32),
                ))
            })?;
            FileMark {
                bytes: shard.bytes,
                crc32,
            }
            .verify(&path)
            .map_err(Self::io(&path))?;
            done.push(ShardInfo {
                path,
                ..shard.clone()
            });
        }
        let zstd_level = opts.zstd_level;
        let ext = opts.extension(format).to_string();
        let mut w = ShardWriter::new(dir, format, opts);
        w.single = single;
        w.next_shard = mark.next_shard;
        w.done = done;
        if let Some(o) = &mark.open {
            let path = dir.join(&o.name);
            let tmp = dir.join(format!(".{}.tmp", o.name));
            if !tmp.exists() && path.exists() {
                std::fs::rename(&path, &tmp).map_err(Self::io(&path))?;
            }
            let counted = Counted::reopen(&tmp, o.file).map_err(Self::io(&tmp))?;
            let sink = Sink::over(counted, zstd_level).map_err(Self::io(&tmp))?;
            w.open = Some(Open {
                tmp,
                path,
                sink,
                records: o.records,
            });
        }
        if w.single.is_none() {
            // Shards numbered from `next_shard` on were begun after the checkpoint.
            let compressed = zstd_level.is_some();
            for n in mark.next_shard.. {
                let name = Self::shard_name(&ext, n, compressed);
                let mut found = false;
                for p in [dir.join(&name), dir.join(format!(".{name}.tmp"))] {
                    match std::fs::remove_file(&p) {
                        Ok(()) => found = true,
                        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                        Err(e) => return Err(Self::io(&p)(e)),
                    }
                }
                if !found {
                    break;
                }
            }
        }
        Ok(w)
    }

    /// Records written so far, all shards.
    pub fn records(&self) -> u64 {
        self.done.iter().map(|s| s.records).sum::<u64>()
            + self.open.as_ref().map_or(0, |o| o.records)
    }

    /// Completes the open shard and returns every shard written, in order. A single-file
    /// writer creates its file even when no record was written.
    pub fn finish(mut self) -> Result<Vec<ShardInfo>, OutputError> {
        if self.single.is_some() && self.open.is_none() && self.done.is_empty() {
            self.open_next()?;
        }
        self.close()?;
        Ok(std::mem::take(&mut self.done))
    }
}

/// The last component of `path` as a string.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default()
}

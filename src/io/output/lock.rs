//! The lock a writer holds on its output directory, so that two runs (or a run and a
//! `--resume`, or a later merge) never write into one directory at once.
//!
//! # Contract
//! - [`OutputLock::acquire`] makes `dir/posfilter.lock`, a JSON [`LockHolder`] (pid, host,
//!   the boot and the process start it belongs to, start time, what it does). The file
//!   appears whole: it is written under a private name and hard-linked to the lock name,
//!   which fails when a lock is there (a file system without hard links gets an exclusive
//!   create instead, then the content is written).
//! - A lock already there is
//!   - *stale* when its holder ran on this host and is gone: no such process, a process with
//!     its pid that started at another time (the pid was reused), a zombie, or the machine
//!     booted since. It is taken over: moved to a private name, checked to be still the lock
//!     judged stale (else put back) and removed; [`OutputLock::took_over`] names it.
//!   - *held* when its holder runs on this host: refused ([`LockError::Held`]).
//!   - *superseded* when its holder ran on another host as an earlier attempt of the
//!     scheduler task this process runs as ([`SchedulerTask::supersedes`]: a Slurm job
//!     requeued, a Kubernetes Indexed Job's pod retried). The scheduler ends an attempt
//!     before it starts the next, so the holder is gone: taken over as a stale lock is,
//!     and [`OutputLock::takeover_notice`] says so.
//!   - *foreign* when its holder ran on another host, which this host cannot check, and is
//!     not superseded: refused ([`LockError::OtherHost`]), saying which file to remove if
//!     no run is using the directory. Another task given the same directory stops here.
//! - Dropping an [`OutputLock`] removes the file if it still holds this holder. A process
//!   that exits without dropping it (killed, interrupted) leaves a stale lock, which the
//!   next writer on this host takes over.

mod task;

pub use task::SchedulerTask;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};
use thiserror::Error;

/// The lock file's name in the output directory.
pub const LOCK_FILE: &str = "posfilter.lock";

/// Who holds (or held) a lock. Invariant: `process_start` and `boot_id` are those of `pid`
/// on `host` when they are known (Linux `/proc`), so a reused pid is not taken for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockHolder {
    /// Process id.
    pub pid: u32,
    /// Host name.
    pub host: String,
    /// The host's boot id (`/proc/sys/kernel/random/boot_id`).
    pub boot_id: Option<String>,
    /// The process's start in clock ticks since boot (`/proc/<pid>/stat`, field 22).
    pub process_start: Option<u64>,
    /// When the lock was taken, seconds since the Unix epoch.
    pub started_unix: u64,
    /// What the holder does (e.g. `posfilter run pipeline.toml`).
    pub purpose: String,
    /// The scheduler task the holder runs as, if it runs under one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<SchedulerTask>,
}

impl LockHolder {
    /// This process, about to do `purpose`.
    pub fn this_process(purpose: &str) -> LockHolder {
        let pid = std::process::id();
        LockHolder {
            pid,
            host: host_name(),
            boot_id: boot_id(),
            process_start: proc_stat(pid).map(|s| s.start),
            started_unix: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            purpose: purpose.to_string(),
            task: SchedulerTask::from_env(),
        }
    }

    /// Whether the holder may still be running, judged from this host.
    fn state(&self, me: &LockHolder) -> HolderState {
        if self.host != me.host {
            return match (&self.task, &me.task) {
                (Some(held), Some(mine)) if mine.supersedes(held) => HolderState::Superseded,
                _ => HolderState::Foreign,
            };
        }
        if matches!((&self.boot_id, &me.boot_id), (Some(a), Some(b)) if a != b) {
            return HolderState::Gone;
        }
        match proc_stat(self.pid) {
            Some(stat) if stat.zombie => HolderState::Gone,
            Some(stat) if self.process_start.is_some_and(|s| s != stat.start) => HolderState::Gone,
            Some(_) => HolderState::Running,
            // No such process where /proc can tell; elsewhere assume it runs.
            None if proc_stat(std::process::id()).is_some() => HolderState::Gone,
            None => HolderState::Running,
        }
    }
}

impl fmt::Display for LockHolder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "process {} on host {} ({}, started {}",
            self.pid,
            self.host,
            self.purpose,
            utc_time(self.started_unix)
        )?;
        match &self.task {
            Some(task) => write!(f, ", as {task})"),
            None => write!(f, ")"),
        }
    }
}

/// Whether a lock's holder may still run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HolderState {
    Running,
    Gone,
    /// On another host, an earlier attempt of this process's scheduler task.
    Superseded,
    Foreign,
}

/// Why a lock could not be taken.
#[derive(Debug, Error)]
pub enum LockError {
    /// A process on this host that still runs holds it.
    #[error(
        "{dir} is in use by {holder}: one run writes into an output directory at a time; \
         wait for it to finish or write to another directory (--out)"
    )]
    Held {
        /// The output directory.
        dir: String,
        /// The holder.
        holder: Box<LockHolder>,
    },
    /// A process on another host holds it, or held it: this host cannot tell.
    #[error(
        "{dir} is locked by {holder}; this host cannot tell whether it still runs: if no run \
         is using the directory, remove {lock}"
    )]
    OtherHost {
        /// The output directory.
        dir: String,
        /// The lock file.
        lock: String,
        /// The holder.
        holder: Box<LockHolder>,
    },
    /// The lock file does not hold a holder.
    #[error("{lock} is not a posfilter lock ({why}); if no run is using the directory, remove it")]
    Unreadable {
        /// The lock file.
        lock: String,
        /// What is wrong with it.
        why: String,
    },
    /// An I/O error on the lock file.
    #[error("lock {path}: {err}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        err: io::Error,
    },
}

/// A held lock on an output directory; dropping it releases the lock.
#[derive(Debug)]
pub struct OutputLock {
    path: PathBuf,
    holder: LockHolder,
    /// The lock replaced, and whether it was an earlier attempt's on another host.
    took_over: Option<(LockHolder, HolderState)>,
}

impl OutputLock {
    /// Takes the lock on `dir` (which must exist) for `purpose`, taking over a stale one.
    pub fn acquire(dir: &Path, purpose: &str) -> Result<OutputLock, LockError> {
        OutputLock::acquire_named(dir, LOCK_FILE, purpose)
    }

    /// Takes the lock file `name` in `dir` (which must exist) for `purpose`, as
    /// [`OutputLock::acquire`] does: for a directory that several writers share, each
    /// writing files of its own (a dedup reduce task's list), one lock per writer's part.
    pub fn acquire_named(dir: &Path, name: &str, purpose: &str) -> Result<OutputLock, LockError> {
        let me = LockHolder::this_process(purpose);
        let path = dir.join(name);
        let mut took_over = None;
        // Each round either takes the lock or removes a stale one; a lock that keeps
        // changing hands between rounds is given up on.
        for _ in 0..4 {
            if place(dir, &path, &me)? {
                return Ok(OutputLock {
                    path,
                    holder: me,
                    took_over,
                });
            }
            let Some(holder) = read_holder(&path)? else {
                continue; // released meanwhile
            };
            match holder.state(&me) {
                HolderState::Running => {
                    return Err(LockError::Held {
                        dir: dir.display().to_string(),
                        holder: Box::new(holder),
                    })
                }
                HolderState::Foreign => {
                    return Err(LockError::OtherHost {
                        dir: dir.display().to_string(),
                        lock: path.display().to_string(),
                        holder: Box::new(holder),
                    })
                }
                state @ (HolderState::Gone | HolderState::Superseded) => {
                    if remove_stale(dir, &path, &holder, &me)? {
                        took_over = Some((holder, state));
                    }
                }
            }
        }
        Err(io_error(
            &path,
            io::Error::other("the lock kept changing hands; try again"),
        ))
    }

    /// This lock's holder (this process).
    pub fn holder(&self) -> &LockHolder {
        &self.holder
    }

    /// The stale lock this one replaced, if any.
    pub fn took_over(&self) -> Option<&LockHolder> {
        self.took_over.as_ref().map(|(holder, _)| holder)
    }

    /// Whether the lock replaced was an earlier attempt's of this scheduler task, on
    /// another host.
    pub fn superseded(&self) -> bool {
        matches!(self.took_over, Some((_, HolderState::Superseded)))
    }

    /// The line to print when this lock replaced another: the lock file, the old holder,
    /// and why it was judged gone.
    pub fn takeover_notice(&self) -> Option<String> {
        let (old, state) = self.took_over.as_ref()?;
        let why = match (state, &self.holder.task) {
            (HolderState::Superseded, Some(task)) => format!(
                ": this process on host {} is a later attempt of that task ({task}), and the \
                 scheduler ends an attempt before it starts the next",
                self.holder.host
            ),
            _ => ", which is no longer running".to_string(),
        };
        Some(format!(
            "{}: took over the lock of {old}{why}",
            self.path.display()
        ))
    }

    /// The holder of the lock on `dir`, if there is a readable one.
    pub fn current(dir: &Path) -> Option<LockHolder> {
        read_holder(&dir.join(LOCK_FILE)).ok().flatten()
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        if read_holder(&self.path).ok().flatten().as_ref() == Some(&self.holder) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

fn io_error(path: &Path, err: io::Error) -> LockError {
    LockError::Io {
        path: path.display().to_string(),
        err,
    }
}

/// Puts `me` at `path` unless a lock is there; whether it did.
fn place(dir: &Path, path: &Path, me: &LockHolder) -> Result<bool, LockError> {
    let mut text = serde_json::to_vec_pretty(me).map_err(|e| io_error(path, e.into()))?;
    text.push(b'\n');
    let private = dir.join(format!(".{}.{}.tmp", file_name(path), me.pid));
    let linked = write_synced(&private, &text).and_then(|()| std::fs::hard_link(&private, path));
    let _ = std::fs::remove_file(&private);
    match linked {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        // No hard links here: an exclusive create, then the content.
        Err(_) => match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
        {
            Ok(mut f) => {
                f.write_all(&text)
                    .and_then(|()| f.sync_all())
                    .map_err(|e| io_error(path, e))?;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(io_error(path, e)),
        },
    }
}

fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = std::fs::File::create(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// The holder in the lock file at `path`; `None` if there is none. An empty file (one being
/// written by an exclusive create) is read again for a while before it is called unreadable.
fn read_holder(path: &Path) -> Result<Option<LockHolder>, LockError> {
    for attempt in 0..20 {
        let text = match std::fs::read(path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error(path, e)),
        };
        match serde_json::from_slice(&text) {
            Ok(holder) => return Ok(Some(holder)),
            Err(_) if attempt < 19 && text.is_empty() => {
                std::thread::sleep(std::time::Duration::from_millis(25))
            }
            Err(e) => {
                return Err(LockError::Unreadable {
                    lock: path.display().to_string(),
                    why: e.to_string(),
                })
            }
        }
    }
    Ok(None)
}

/// Removes the stale lock of `holder` at `path`; whether it did. It is first moved to a
/// private name, so that of two processes taking it over at once only one moves it; a lock
/// moved that is not `holder`'s (a new one placed in between) is put back.
fn remove_stale(
    dir: &Path,
    path: &Path,
    holder: &LockHolder,
    me: &LockHolder,
) -> Result<bool, LockError> {
    let moved = dir.join(format!(".{}.stale.{}", file_name(path), me.pid));
    match std::fs::rename(path, &moved) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(io_error(path, e)),
    }
    let was = read_holder(&moved);
    if !matches!(&was, Ok(Some(h)) if h == holder) {
        // Not the lock judged stale: back where it was, unless yet another one is there.
        let _ = std::fs::hard_link(&moved, path);
        let _ = std::fs::remove_file(&moved);
        return Ok(false);
    }
    std::fs::remove_file(&moved).map_err(|e| io_error(&moved, e))?;
    Ok(true)
}

/// The lock file's name (for the private names next to it).
fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(|| LOCK_FILE.into(), |n| n.to_string_lossy().into_owned())
}

/// The host's name (`/proc/sys/kernel/hostname`, else `$HOSTNAME`).
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown-host".to_string())
}

fn boot_id() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .ok()
        .map(|s| s.trim().to_string())
}

/// What `/proc/<pid>/stat` says of a process.
struct ProcStat {
    /// Start in clock ticks since boot.
    start: u64,
    /// Exited, not yet reaped.
    zombie: bool,
}

fn proc_stat(pid: u32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) state ppid …": comm may hold spaces and parentheses; fields after the
    // last ')' are state (3rd field) … starttime (22nd).
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(ProcStat {
        start: fields.get(19)?.parse().ok()?,
        zombie: matches!(fields.first(), Some(&"Z") | Some(&"X")),
    })
}

/// `secs` since the Unix epoch as `YYYY-MM-DD HH:MM:SS UTC`.
fn utc_time(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (the proleptic Gregorian calendar).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::utc_time;

    #[test]
    fn utc_times_match_known_dates() {
        assert_eq!(utc_time(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_time(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc_time(1_795_700_096), "2026-11-26 13:34:56 UTC");
    }
}

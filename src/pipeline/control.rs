//! Control of a run from inside the same process (the Python binding's `run`): a flag that
//! stops it, and the counts of how far it has come. The command line needs neither (Ctrl-C
//! ends its process), so it gives none ([`super::config::Config::set_control`]).
//!
//! # Contract
//! - After [`RunControl::stop`], every worker leaves its batch at the next record, every
//!   search at the next 1,024 nodes ([`crate::mate::Solver::set_abort`]), and the run
//!   returns [`super::PipelineError::Interrupted`] without committing another batch. The
//!   output directory is then as a killed run leaves it: whole files only, no
//!   manifest.json, and the last checkpoint (if any) for `--resume`.
//! - The counts are updated as the run goes (decided records as workers decide them, the
//!   rest at each commit) and may be read from any thread at any time.

use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// A stop flag and progress counts shared between a run and its caller.
#[derive(Debug, Default)]
pub struct RunControl {
    abort: Arc<AtomicBool>,
    decided: AtomicU64,
    disk_done: AtomicU64,
    disk_total: AtomicU64,
    kept: AtomicU64,
    dropped: AtomicU64,
    unknown: AtomicU64,
}

/// How far a run is, as [`RunControl::progress`] reads it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RunProgress {
    /// Input records decided by the workers (committed or not).
    pub decided: u64,
    /// Bytes of the input files on disk whose records are committed.
    pub disk_done: u64,
    /// Bytes of all input files on disk (0 until the run has planned its inputs).
    pub disk_total: u64,
    /// Records kept so far (committed).
    pub kept: u64,
    /// Records dropped so far (committed).
    pub dropped: u64,
    /// Positions left undecided by the solver and kept (committed).
    pub unknown: u64,
}

impl RunControl {
    /// A control for one run: not stopped, counts at 0.
    pub fn new() -> RunControl {
        RunControl::default()
    }

    /// Asks the run to stop (from any thread).
    pub fn stop(&self) {
        self.abort.store(true, Ordering::SeqCst);
    }

    /// Whether [`RunControl::stop`] was called.
    pub fn stopped(&self) -> bool {
        self.abort.load(Ordering::SeqCst)
    }

    /// The counts now.
    pub fn progress(&self) -> RunProgress {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        RunProgress {
            decided: get(&self.decided),
            disk_done: get(&self.disk_done),
            disk_total: get(&self.disk_total),
            kept: get(&self.kept),
            dropped: get(&self.dropped),
            unknown: get(&self.unknown),
        }
    }

    /// The flag the workers and their solvers poll.
    pub(crate) fn abort_flag(&self) -> Arc<AtomicBool> {
        self.abort.clone()
    }

    /// The run starts over `disk_total` bytes of input.
    pub(crate) fn started(&self, disk_total: u64) {
        self.disk_total.store(disk_total, Ordering::Relaxed);
    }

    /// `n` more records decided (by the workers, or by earlier parts of a resumed run).
    pub(crate) fn tick(&self, n: u64) {
        self.decided.fetch_add(n, Ordering::Relaxed);
    }

    /// A batch was committed: the input is done up to `disk_done` bytes on disk, with these
    /// running counts.
    pub(crate) fn committed(&self, disk_done: u64, kept: u64, dropped: u64, unknown: u64) {
        self.disk_done.store(disk_done, Ordering::Relaxed);
        self.kept.store(kept, Ordering::Relaxed);
        self.dropped.store(dropped, Ordering::Relaxed);
        self.unknown.store(unknown, Ordering::Relaxed);
    }
}

//! Progress on stderr, when wanted: an indicatif bar (records decided, positions/s, ETA,
//! kept / dropped / unknown) if stderr is a terminal; otherwise (a log file, nohup, CI) one
//! plain line with the same figures at the first commit after each interval, so that a
//! long unattended run shows in its log how far it is.
//!
//! The bar measures the input's bytes on disk that committed batches came from, so it has a
//! total and an ETA for zstd-compressed inputs too, whose record count is unknown until
//! they are read (for plain files bytes and records advance together).

use super::control::RunControl;
use crate::report::record::{Sample, ThroughputSampler};
use indicatif::{
    FormattedDuration, HumanBytes, HumanCount, ProgressBar, ProgressDrawTarget, ProgressState,
    ProgressStyle,
};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The run's progress display; a no-op when hidden.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    /// Plain progress lines instead of the bar (stderr is not a terminal).
    log: Option<LogLines>,
    /// Records decided so far (by earlier parts of a resumed run too).
    decided: Arc<AtomicU64>,
    /// Of those, the ones earlier parts of a resumed run decided (rates leave them out).
    decided_before: Arc<AtomicU64>,
    /// A resumed run ([`Progress::resuming`]): its input up to its first commit was
    /// decided by earlier parts, so rates and ETAs count from there.
    resumed: AtomicBool,
    /// The disk position rates and ETAs count from: 0, or a resumed run's first commit.
    base: OnceLock<u64>,
    /// A caller in the same process that watches the counts too ([`Progress::watched`]).
    control: Option<Arc<RunControl>>,
    /// When this part of the run began its batches.
    start: Instant,
    /// Records committed against time, for report.json (whether shown or not).
    throughput: Mutex<ThroughputSampler>,
}

/// The first interval between throughput samples (it doubles as a long run fills them).
const SAMPLE_EVERY: f64 = 0.25;

/// Writes a warning line to stderr, before a run's progress starts (callers skip it under
/// `--quiet`).
pub(crate) fn warn(message: &str) {
    eprintln!("posfilter: warning: {message}");
}

/// Progress as plain lines: at most one per `every`, written at a commit.
struct LogLines {
    every: Duration,
    disk_total: u64,
    start: Instant,
    /// When the last line was written (the start before the first).
    last: Mutex<Instant>,
}

impl Progress {
    /// Progress over `disk_bytes` bytes of input if `enabled`: a bar if stderr is a
    /// terminal, else a line per `log_every` (none if `None`).
    pub(crate) fn new(disk_bytes: u64, enabled: bool, log_every: Option<Duration>) -> Progress {
        let decided = Arc::new(AtomicU64::new(0));
        let decided_before = Arc::new(AtomicU64::new(0));
        if !enabled || !std::io::stderr().is_terminal() {
            let log = log_every.filter(|_| enabled).map(|every| {
                let start = Instant::now();
                LogLines {
                    every,
                    disk_total: disk_bytes,
                    start,
                    last: Mutex::new(start),
                }
            });
            return Progress {
                bar: None,
                log,
                decided,
                decided_before,
                resumed: AtomicBool::new(false),
                base: OnceLock::new(),
                control: None,
                start: Instant::now(),
                throughput: Mutex::new(ThroughputSampler::new(SAMPLE_EVERY, 0)),
            };
        }
        let bar = ProgressBar::with_draw_target(Some(disk_bytes), ProgressDrawTarget::stderr());
        // Two lines: the bar takes what the first line leaves and the counts have the second,
        // so neither wraps at any terminal width; the rate is whole positions per second.
        let template = "{elapsed_precise} [{wide_bar}] {percent:>3}% {records} records {rate} \
                        ETA {eta}\n  {wide_msg}";
        if let Ok(style) = ProgressStyle::with_template(template) {
            let (for_count, for_rate) = (decided.clone(), decided.clone());
            let before = decided_before.clone();
            let style = style
                .with_key(
                    "records",
                    move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{}", HumanCount(for_count.load(Ordering::Relaxed)));
                    },
                )
                .with_key(
                    "rate",
                    move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let seconds = state.elapsed().as_secs_f64().max(1e-3);
                        let here = for_rate
                            .load(Ordering::Relaxed)
                            .saturating_sub(before.load(Ordering::Relaxed));
                        let rate = here as f64 / seconds;
                        let _ = write!(w, "{}/s", HumanCount(rate as u64));
                    },
                )
                .progress_chars("=> ");
            bar.set_style(style);
        }
        bar.enable_steady_tick(std::time::Duration::from_millis(250));
        Progress {
            bar: Some(bar),
            log: None,
            decided,
            decided_before,
            resumed: AtomicBool::new(false),
            base: OnceLock::new(),
            control: None,
            start: Instant::now(),
            throughput: Mutex::new(ThroughputSampler::new(SAMPLE_EVERY, 0)),
        }
    }

    /// This progress, its counts also given to `control` (a run over `disk_bytes` bytes).
    pub(crate) fn watched(self, control: Option<Arc<RunControl>>, disk_bytes: u64) -> Progress {
        if let Some(c) = &control {
            c.started(disk_bytes);
        }
        Progress { control, ..self }
    }

    /// Marks the run as resumed from a checkpoint after `records` input records (before
    /// its first commit).
    pub(crate) fn resuming(&self, records: u64) {
        self.resumed.store(true, Ordering::Relaxed);
        self.decided.fetch_add(records, Ordering::Relaxed);
        self.decided_before.store(records, Ordering::Relaxed);
        if let Some(c) = &self.control {
            c.tick(records);
        }
        if let Ok(mut t) = self.throughput.lock() {
            *t = ThroughputSampler::new(SAMPLE_EVERY, records);
        }
    }

    /// `n` more records decided (called by the workers as they go; thread-safe).
    pub(crate) fn tick(&self, n: u64) {
        self.decided.fetch_add(n, Ordering::Relaxed);
        if let Some(c) = &self.control {
            c.tick(n);
        }
    }

    /// A batch was committed: the input is done up to `disk_done` bytes on disk, and the
    /// running counts of input records and decisions.
    pub(crate) fn committed(&self, disk_done: u64, [input, kept, dropped, unknown]: [u64; 4]) {
        if let Some(c) = &self.control {
            c.committed(disk_done, kept, dropped, unknown);
        }
        if let Ok(mut t) = self.throughput.lock() {
            t.observe(self.start.elapsed().as_secs_f64(), input);
        }
        let mut first = false;
        let base = *self.base.get_or_init(|| {
            first = true;
            if self.resumed.load(Ordering::Relaxed) {
                disk_done
            } else {
                0
            }
        });
        if let Some(bar) = &self.bar {
            bar.set_position(disk_done);
            if first && base > 0 {
                // The jump to where the earlier parts stopped is not this part's speed.
                bar.reset_eta();
            }
            bar.set_message(format!(
                "kept {} · dropped {} · unknown {}",
                HumanCount(kept),
                HumanCount(dropped),
                HumanCount(unknown)
            ));
        }
        if let Some(log) = &self.log {
            log.committed(
                (base, disk_done),
                (
                    self.decided.load(Ordering::Relaxed),
                    self.decided_before.load(Ordering::Relaxed),
                ),
                [kept, dropped, unknown],
            );
        }
    }

    /// Removes the bar; returns the throughput samples, the last at the end with `input`
    /// records committed.
    pub(crate) fn finish(&self, input: u64) -> Vec<Sample> {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        let seconds = self.start.elapsed().as_secs_f64();
        match self.throughput.lock() {
            Ok(mut t) => std::mem::replace(&mut *t, ThroughputSampler::new(SAMPLE_EVERY, 0))
                .finish(seconds, input),
            Err(_) => Vec::new(),
        }
    }
}

impl LogLines {
    /// Writes a line if `every` has passed since the last one; this part of the run began
    /// at disk position `base` and is at `disk_done`, and `decided_before` of the records
    /// decided were decided by earlier parts.
    fn committed(
        &self,
        (base, disk_done): (u64, u64),
        (decided, decided_before): (u64, u64),
        [kept, dropped, unknown]: [u64; 3],
    ) {
        let now = Instant::now();
        {
            let Ok(mut last) = self.last.lock() else {
                return;
            };
            if now.duration_since(*last) < self.every {
                return;
            }
            *last = now;
        }
        let elapsed = now.duration_since(self.start);
        let seconds = elapsed.as_secs_f64().max(1e-3);
        let share = if self.disk_total == 0 {
            1.0
        } else {
            disk_done.min(self.disk_total) as f64 / self.disk_total as f64
        };
        // This part's pace over what it has left.
        let done_here = disk_done.saturating_sub(base);
        let left = self.disk_total.saturating_sub(disk_done);
        let eta = if done_here > 0 {
            FormattedDuration(Duration::from_secs_f64(
                (seconds * left as f64 / done_here as f64).min(1e9),
            ))
            .to_string()
        } else {
            "?".into()
        };
        let checkpoint = super::checkpoint::last_checkpoint()
            .map(|at| format!(" · checkpoint at {}", HumanCount(at)))
            .unwrap_or_default();
        eprintln!(
            "posfilter: {} {:5.1}% of {} · {} records · {}/s · kept {} · dropped {} · \
             unknown {} · ETA {eta}{checkpoint}",
            FormattedDuration(elapsed),
            100.0 * share,
            HumanBytes(self.disk_total),
            HumanCount(decided),
            HumanCount((decided.saturating_sub(decided_before) as f64 / seconds) as u64),
            HumanCount(kept),
            HumanCount(dropped),
            HumanCount(unknown),
        );
    }
}

//! Progress on stderr: an indicatif bar (records decided, positions/s, ETA, kept / dropped /
//! unknown) when stderr is a terminal and progress is wanted; nothing otherwise.
//!
//! The bar measures the input's bytes on disk that committed batches came from, so it has a
//! total and an ETA for zstd-compressed inputs too, whose record count is unknown until
//! they are read (for plain files bytes and records advance together).

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The run's progress display; a no-op when hidden.
pub struct Progress {
    bar: Option<ProgressBar>,
    /// Records decided by the workers so far.
    decided: Arc<AtomicU64>,
}

impl Progress {
    /// A bar over `disk_bytes` bytes of input, shown only if `enabled` and stderr is a
    /// terminal.
    pub fn new(disk_bytes: u64, enabled: bool) -> Progress {
        let decided = Arc::new(AtomicU64::new(0));
        if !enabled || !std::io::stderr().is_terminal() {
            return Progress { bar: None, decided };
        }
        let bar = ProgressBar::with_draw_target(Some(disk_bytes), ProgressDrawTarget::stderr());
        // Two lines: the bar takes what the first line leaves and the counts have the second,
        // so neither wraps at any terminal width; the rate is whole positions per second.
        let template = "{elapsed_precise} [{wide_bar}] {percent:>3}% {records} records {rate} \
                        ETA {eta}\n  {wide_msg}";
        if let Ok(style) = ProgressStyle::with_template(template) {
            let (for_count, for_rate) = (decided.clone(), decided.clone());
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
                        let rate = for_rate.load(Ordering::Relaxed) as f64 / seconds;
                        let _ = write!(w, "{}/s", HumanCount(rate as u64));
                    },
                )
                .progress_chars("=> ");
            bar.set_style(style);
        }
        bar.enable_steady_tick(std::time::Duration::from_millis(250));
        Progress {
            bar: Some(bar),
            decided,
        }
    }

    /// `n` more records decided (called by the workers as they go; thread-safe).
    pub fn tick(&self, n: u64) {
        self.decided.fetch_add(n, Ordering::Relaxed);
    }

    /// A batch was committed: the input is done up to `disk_done` bytes on disk, and the
    /// running decision counts.
    pub fn committed(&self, disk_done: u64, kept: u64, dropped: u64, unknown: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(disk_done);
            bar.set_message(format!(
                "kept {} · dropped {} · unknown {}",
                HumanCount(kept),
                HumanCount(dropped),
                HumanCount(unknown)
            ));
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

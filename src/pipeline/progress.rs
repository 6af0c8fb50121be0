//! Progress on stderr: an indicatif bar (positions/s, ETA, kept / dropped / unknown) when
//! stderr is a terminal and progress is wanted; nothing otherwise.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// The run's progress display; a no-op when hidden.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar over `total` records (a spinner if unknown), shown only if `enabled` and stderr
    /// is a terminal.
    pub fn new(total: Option<u64>, enabled: bool) -> Progress {
        if !enabled || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = match total {
            Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
        };
        let template = if total.is_some() {
            "{elapsed_precise} [{bar:30}] {pos}/{len} {per_sec} ETA {eta} {msg}"
        } else {
            "{elapsed_precise} {spinner} {pos} records {per_sec} {msg}"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.enable_steady_tick(std::time::Duration::from_millis(250));
        Progress { bar: Some(bar) }
    }

    /// `n` more records decided (called by the workers as they go; thread-safe).
    pub fn tick(&self, n: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(n);
        }
    }

    /// The running decision counts (called by the commit).
    pub fn counts(&self, kept: u64, dropped: u64, unknown: u64) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("kept {kept} dropped {dropped} unknown {unknown}"));
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

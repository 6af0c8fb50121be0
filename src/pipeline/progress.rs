//! Progress on stderr: an indicatif bar (positions/s, ETA, kept / dropped / unknown) when
//! stderr is a terminal and progress is wanted; nothing otherwise.

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
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
        // Two lines: the bar takes what the first line leaves and the counts have the second,
        // so neither wraps at any terminal width; the rate is whole positions per second.
        let template = if total.is_some() {
            "{elapsed_precise} [{wide_bar}] {percent:>3}% {human_pos}/{human_len} {rate} ETA {eta}\n  {wide_msg}"
        } else {
            "{elapsed_precise} {spinner} {human_pos} records {rate}\n  {wide_msg}"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            let style = style
                .with_key(
                    "rate",
                    |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{}/s", HumanCount(state.per_sec() as u64));
                    },
                )
                .progress_chars("=> ");
            bar.set_style(style);
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

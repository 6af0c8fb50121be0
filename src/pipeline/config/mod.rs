//! pipeline.toml: [`RawConfig`] as parsed (`raw.rs`: serde, unknown keys rejected, every
//! error with the key, the line and what would be valid) and [`Config`], the resolved
//! settings that are the only input to the run.
//!
//! # Invariants
//! - A `Config` has at least one input pattern (`shard_records = 0`: one unbounded kept file per series), a zstd level in 1..=22,
//!   `table_mb >= 1` and a node budget `>= 1` when the mate filter is on. Command-line flags
//!   override operational settings only (threads, output directory, progress).
//! - The run reads the resolved fields only; the settings as written are kept solely to be
//!   echoed into report.json and checkpoints ([`Config::echo`]).

mod raw;
pub mod template;
#[cfg(test)]
mod tests;

pub use raw::{
    Compression, ConfigError, FilterConfig, InputConfig, MateConfig, MatesConfig, MoveFieldPolicy,
    OutputConfig, RawConfig, TableScope, UnknownPolicy, WorkersConfig,
};

use super::control::RunControl;
use crate::codec::{Format, FormatChoice};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Automatic `output.checkpoint_records` with the mate filter on.
pub const AUTO_CHECKPOINT_RECORDS: u64 = 1_000_000;

/// The largest `workers.batch_records` (a batch of 40-byte records is then 40 MiB).
pub const MAX_BATCH_RECORDS: usize = 1 << 20;
/// The largest `workers.table_mb` and `filter.mate.cache_mb` (a typo of a few zeros would
/// otherwise abort on the allocation).
pub const MAX_MIB: usize = 1 << 16;

/// Automatic batch size with the mate filter on.
pub const AUTO_BATCH_MATE: usize = 256;
/// Automatic batch size with the mate filter off.
pub const AUTO_BATCH_NO_MATE: usize = 8192;

/// Worker threads allowed per core: more only add switching and, with the mate filter on,
/// a table each (`threads = 10000` took 259 s for 100 records).
pub const MAX_THREADS_PER_CORE: usize = 4;

/// Resolved settings: the only input to the run. Paths are absolute or relative to the
/// current directory (already joined with the config file's directory).
#[derive(Debug, Clone)]
pub struct Config {
    /// The settings as written (after defaults): only echoed ([`Config::echo`]).
    raw: RawConfig,
    /// Input patterns, joined with the config directory.
    pub(crate) input_paths: Vec<PathBuf>,
    /// The inputs' format, `None` = detect each file's.
    pub(crate) input_format: Option<Format>,
    /// Rejected records beyond which a completed run exits with status 1 (`None`: no limit).
    pub(crate) max_rejected: Option<u64>,
    /// Reference pools for dedup, joined with the config directory.
    pub(crate) reference_paths: Vec<PathBuf>,
    /// Output directory.
    pub(crate) out_dir: PathBuf,
    /// Format of the kept shards, `None` = that of each input.
    pub(crate) out_format: Option<Format>,
    /// Converting records without teacher fields into psv / hcpe is allowed.
    pub(crate) synthetic_fields: bool,
    /// Write hcpe records without a move instead of dropping them as `no_move`.
    pub(crate) keep_moveless_hcpe: bool,
    /// Records per shard (> 0).
    pub(crate) shard_records: u64,
    /// Kept-shard compression (`auto`: as the inputs, see `pipeline::kept_shards`).
    pub(crate) compression: Compression,
    /// zstd level of compressed shards (1..=22).
    pub(crate) zstd_level: i32,
    /// Write audit.jsonl.
    pub(crate) audit: bool,
    /// Format of the binary mates file; `None` = no mates files.
    pub(crate) mates_format: Option<Format>,
    /// Worker threads (never 0, at most [`MAX_THREADS_PER_CORE`] per core).
    pub(crate) threads: usize,
    /// The worker threads the config or `--threads` asked for (0 = one per core).
    pub(crate) threads_asked: usize,
    /// df-pn table per worker, MiB (>= 1).
    pub(crate) table_mb: usize,
    /// Records per batch (never 0; see [`Config::resolve`]).
    pub(crate) batch_records: usize,
    /// Input records between checkpoints (0 = none; see [`Config::resolve`]).
    pub(crate) checkpoint_records: u64,
    /// The filter stages as configured.
    pub(crate) filter: FilterConfig,
    /// Show progress: a bar if stderr is a terminal, else log lines (see `log_every`).
    pub(crate) progress: bool,
    /// When stderr is not a terminal, a progress line at the first commit after each such
    /// interval (`None`: no lines).
    pub(crate) log_every: Option<Duration>,
    /// Go on from the checkpoint in the output directory (`--resume`).
    pub(crate) resume: bool,
    /// A caller in the same process that may stop the run and reads its progress
    /// ([`Config::set_control`]); `None` from [`Config::resolve`].
    pub(crate) control: Option<Arc<RunControl>>,
}

/// Command-line overrides of operational settings.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--threads`.
    pub threads: Option<usize>,
    /// `--out`.
    pub out_dir: Option<PathBuf>,
    /// `--quiet`.
    pub quiet: bool,
    /// `--log-every` in seconds (0 = no progress lines); `None` = the default, 60.
    pub log_every: Option<f64>,
    /// `--resume`.
    pub resume: bool,
}

/// Seconds between progress lines when stderr is not a terminal, unless `--log-every` says
/// otherwise.
pub const DEFAULT_LOG_EVERY: f64 = 60.0;

/// The interval of `--log-every` (default [`DEFAULT_LOG_EVERY`]); 0, a negative or a
/// non-finite value turn the lines off.
fn log_every(seconds: Option<f64>) -> Option<Duration> {
    let s = seconds.unwrap_or(DEFAULT_LOG_EVERY);
    (s.is_finite() && s > 0.0).then(|| Duration::from_secs_f64(s.min(1e9)))
}

/// A complaint about one key: its dotted name and what is wrong.
type Bad = (&'static str, String);

impl Config {
    /// Worker threads (never 0).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The worker threads asked for, when more than the cap ([`MAX_THREADS_PER_CORE`] per
    /// core) cut them to [`Config::threads`].
    pub fn threads_capped_from(&self) -> Option<usize> {
        (self.threads_asked > self.threads).then_some(self.threads_asked)
    }

    /// The output directory.
    pub fn out_dir(&self) -> &Path {
        &self.out_dir
    }

    /// Rejected records beyond which a completed run exits with status 1 (`None`: no limit).
    pub fn max_rejected(&self) -> Option<u64> {
        self.max_rejected
    }

    /// Input records between checkpoints (0 = none).
    pub fn checkpoint_records(&self) -> u64 {
        self.checkpoint_records
    }

    /// Lets `control` stop the run and watch its counts (the Python binding's `run`; the
    /// command line has none).
    pub fn set_control(&mut self, control: Arc<RunControl>) {
        self.control = Some(control);
    }

    /// MiB of each worker's df-pn table; `None` with the mate filter off (no table).
    pub fn table_mb(&self) -> Option<usize> {
        self.filter.mate.enabled.then_some(self.table_mb)
    }

    /// The settings as written, as report.json shows them; with `threads = false` the
    /// worker count reads 0 (what a checkpoint records: a resume may use another count, the
    /// output does not depend on it).
    pub(crate) fn echo(&self, threads: bool) -> serde_json::Value {
        let mut raw = self.raw.clone();
        if !threads {
            // Neither changes the output: a resume may change them.
            raw.workers.threads = 0;
            raw.input.max_rejected = None;
        }
        serde_json::to_value(&raw).unwrap_or_default()
    }

    /// Checks the settings of the per-record stages and their tables (not the input and
    /// output), as for records decided in memory ([`crate::pipeline::Decider`]); a
    /// complaint names the key (no file or line).
    pub(crate) fn check_stages(raw: &RawConfig) -> Result<(), ConfigError> {
        check_sizes(raw)
            .and_then(|_| check_mate(raw))
            .map_err(|(key, reason)| ConfigError::Value {
                path: PathBuf::new(),
                line: None,
                key,
                reason,
            })
    }

    /// Checks values and resolves paths against the directory of `path` (the config file).
    pub fn resolve(
        raw: RawConfig,
        path: &Path,
        overrides: &Overrides,
    ) -> Result<Config, ConfigError> {
        let checked = check_inputs(&raw)
            .and_then(|_| check_sizes(&raw))
            .and_then(|_| check_mate(&raw));
        if let Err((key, reason)) = checked {
            return Err(ConfigError::Value {
                path: path.to_path_buf(),
                line: raw.key_lines.get(key).copied(),
                key,
                reason,
            });
        }
        let base = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let join = |p: &Path| {
            if p.is_absolute() {
                p.to_path_buf()
            } else {
                base.join(p)
            }
        };
        let threads_asked = overrides.threads.unwrap_or(raw.workers.threads);
        let threads = worker_threads(threads_asked);
        Ok(Config {
            input_paths: raw.input.paths.iter().map(|p| join(Path::new(p))).collect(),
            input_format: raw.input.format.format(),
            max_rejected: raw.input.max_rejected,
            reference_paths: raw.filter.dedup.reference.iter().map(|p| join(p)).collect(),
            out_dir: match &overrides.out_dir {
                Some(dir) => dir.clone(),
                None => join(Path::new(&raw.output.dir)),
            },
            out_format: raw.output.format.format(),
            synthetic_fields: raw.output.synthetic_fields,
            keep_moveless_hcpe: raw.output.keep_moveless_hcpe,
            shard_records: raw.output.shard_records,
            compression: raw.output.compression,
            zstd_level: raw.output.zstd_level,
            audit: raw.output.audit,
            mates_format: raw
                .mates
                .enabled
                .then(|| raw.mates.format.format())
                .flatten(),
            threads,
            threads_asked,
            table_mb: raw.workers.table_mb,
            batch_records: batch_records(&raw),
            // With the mate filter on a run is minutes of search on a few cores and a
            // checkpoint costs milliseconds; without it a run reads millions of records a
            // second, so starting over costs little while checkpoints (the dedup log and
            // flushes) cost about 10 % of it.
            checkpoint_records: match raw.output.checkpoint_records {
                Some(n) => n,
                None if raw.filter.mate.enabled => AUTO_CHECKPOINT_RECORDS,
                None => 0,
            },
            filter: raw.filter.clone(),
            progress: !overrides.quiet,
            log_every: log_every(overrides.log_every),
            resume: overrides.resume,
            control: None,
            raw,
        })
    }
}

/// Worker threads for a `threads` setting (0: every core).
pub(crate) fn worker_threads(threads: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match threads {
        0 => cores,
        n => n.min(cores * MAX_THREADS_PER_CORE),
    }
}

/// Records per batch for `raw` (`workers.batch_records`, 0: automatic). A batch is
/// milliseconds of search with the mate filter on (small batches keep every core busy to the
/// end), well under a microsecond a record without it (larger batches amortise the hand-off
/// between threads).
pub(crate) fn batch_records(raw: &RawConfig) -> usize {
    match raw.workers.batch_records {
        0 if raw.filter.mate.enabled => AUTO_BATCH_MATE,
        0 => AUTO_BATCH_NO_MATE,
        n => n,
    }
}

/// The inputs and the formats.
fn check_inputs(raw: &RawConfig) -> Result<(), Bad> {
    if raw.input.paths.is_empty() {
        return Err((
            "input.paths",
            "no input: give at least one file or glob, e.g. paths = [\"data/*.psv\"]".into(),
        ));
    }
    if raw.input.format == FormatChoice::Same {
        return Err((
            "input.format",
            format!(
                "`same` is only valid for output; use one of {}",
                FormatChoice::choices("auto")
            ),
        ));
    }
    if raw.output.format == FormatChoice::Auto {
        return Err((
            "output.format",
            format!(
                "`auto` is only valid for input; use one of {}",
                FormatChoice::choices("same")
            ),
        ));
    }
    if !matches!(raw.mates.format, FormatChoice::Is(f) if f != Format::Usi && !f.is_game()) {
        // `usi` and the game formats hold a game, not one position; `auto` / `same` name
        // no format.
        let usable: Vec<&str> = Format::ALL
            .into_iter()
            .filter(|&f| f != Format::Usi && !f.is_game())
            .map(Format::name)
            .collect();
        return Err((
            "mates.format",
            format!(
                "`{}` cannot hold a mate record; use one of {}",
                raw.mates.format,
                usable.join(", ")
            ),
        ));
    }
    Ok(())
}

/// Sizes: shards, compression, tables, batches.
fn check_sizes(raw: &RawConfig) -> Result<(), Bad> {
    if !(1..=22).contains(&raw.output.zstd_level) {
        return Err((
            "output.zstd_level",
            format!("{} is outside 1..=22", raw.output.zstd_level),
        ));
    }
    if raw.workers.table_mb == 0 {
        return Err((
            "workers.table_mb",
            "must be at least 1 (MiB per worker)".into(),
        ));
    }
    if raw.workers.batch_records > MAX_BATCH_RECORDS {
        return Err((
            "workers.batch_records",
            format!(
                "{} is more than {MAX_BATCH_RECORDS}: a batch is read into memory whole and \
                 up to 16 per worker thread are in flight (0 = automatic)",
                raw.workers.batch_records
            ),
        ));
    }
    for (key, mib) in [
        ("workers.table_mb", raw.workers.table_mb),
        ("filter.mate.cache_mb", raw.filter.mate.cache_mb),
    ] {
        if mib > MAX_MIB {
            return Err((
                key,
                format!("{mib} is more than {MAX_MIB} (MiB; the default 64 is plenty)"),
            ));
        }
    }
    Ok(())
}

/// The mate stage's settings and how they combine with the rest.
fn check_mate(raw: &RawConfig) -> Result<(), Bad> {
    if raw.filter.mate.enabled && raw.filter.mate.nodes == 0 {
        return Err((
            "filter.mate.nodes",
            "must be at least 1 when the mate filter is enabled".into(),
        ));
    }
    let mate = &raw.filter.mate;
    if mate.enabled && mate.table_scope == TableScope::Batch && mate.cache_mb > 0 {
        return Err((
            "filter.mate.table_scope",
            "`batch` needs filter.mate.cache_mb = 0: with the table kept across a batch a \
             verdict depends on the batch's earlier positions, so a verdict cached from one \
             batch may differ from what another batch would find, and which batch comes \
             first depends on scheduling"
                .into(),
        ));
    }
    if mate.enabled && mate.unknown == UnknownPolicy::Tag && !raw.output.audit {
        return Err((
            "filter.mate.unknown",
            "`tag` lists the undecided positions in audit.jsonl, but output.audit is \
             false: turn the audit on, or use `keep`"
                .into(),
        ));
    }
    Ok(())
}

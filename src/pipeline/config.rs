//! pipeline.toml: [`RawConfig`] as parsed (serde, unknown keys rejected, every error with the
//! key, the line and what would be valid) and [`Config`], the resolved settings that are the
//! only input to the run.
//!
//! # Invariants
//! A `Config` has at least one input pattern, `shard_records > 0`, a zstd level in 1..=22,
//! `table_mb >= 1` and a node budget `>= 1` when the mate filter is on. Command-line flags
//! override operational settings only (threads, output directory, progress).

use crate::codec::{Format, FormatChoice};
use crate::filter::{DeclarationConfig, DedupConfig, EnteringKingConfig, RepetitionConfig};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a configuration could not be used.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The config file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// TOML syntax, an unknown key or a bad value (the message names key, line and the
    /// valid choices).
    #[error("{path}: {message}")]
    Parse {
        /// The config file.
        path: PathBuf,
        /// toml's message, which quotes the line.
        message: String,
    },
    /// A value that parses but makes no sense.
    #[error(
        "{path}: {}key `{key}`: {reason}",
        line.map_or(String::new(), |l| format!("line {l}: "))
    )]
    Value {
        /// The config file.
        path: PathBuf,
        /// The line that sets the key (`None` when the file leaves it at its default).
        line: Option<usize>,
        /// Dotted key, e.g. `output.shard_records`.
        key: &'static str,
        /// What is wrong and what would be valid.
        reason: String,
    },
}

/// Output compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// zstd, level `output.zstd_level`.
    Zstd,
    /// Plain files.
    None,
}

/// What to do with a psv/hcpe move field that is not a legal move in its position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveFieldPolicy {
    /// Keep the record as it is (counted in the report).
    Keep,
    /// Keep the record with the move field zeroed.
    Clear,
    /// Reject the record.
    Reject,
}

/// How long a worker's df-pn table keeps its entries (`filter.mate.table_scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TableScope {
    /// A fresh table for every position: a verdict depends on the position alone.
    Position,
    /// One table for all positions of a batch (psv: whole games; other formats: runs of
    /// consecutive records), in input order:
    /// a position's search reuses what the batch's earlier positions proved and
    /// disproved. The verdict then depends on those positions too (still the same for any
    /// thread count, since batches are cut from the input alone).
    Batch,
}

/// What the mate stage does with a position it cannot decide within its budget
/// (`filter.mate.unknown`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnknownPolicy {
    /// Keep it (it may still be a long mate: counted as `unknown_kept`).
    Keep,
    /// Drop it as `unknown` (only positions shown free of mate within the budget stay).
    Drop,
    /// Keep it, and list it in audit.jsonl as `keep` with `{"unknown": {"nodes",
    /// "timed_out", "sfen"}}`, so the undecided records can be searched again.
    Tag,
}

/// `[input]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InputConfig {
    /// Files or globs, relative to the config file's directory.
    pub paths: Vec<String>,
    /// Record format or `auto`.
    pub format: FormatChoice,
}

/// `[output]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputConfig {
    /// Output directory, relative to the config file's directory.
    pub dir: String,
    /// Format of kept shards, or `same`.
    pub format: FormatChoice,
    /// Records per shard.
    pub shard_records: u64,
    /// Shard compression.
    pub compression: Compression,
    /// zstd level (1..=22).
    pub zstd_level: i32,
    /// Write audit.jsonl (every record not kept).
    pub audit: bool,
    /// A checkpoint (for `run --resume`) after about this many input records; 0 = none;
    /// unset = automatic (see [`Config::checkpoint_records`]).
    pub checkpoint_records: Option<u64>,
}

/// `[workers]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WorkersConfig {
    /// Worker threads; 0 = all cores.
    pub threads: usize,
    /// df-pn table per worker, MiB.
    pub table_mb: usize,
    /// Records per batch handed to a worker; 0 = automatic (see [`Config::batch_records`]).
    pub batch_records: usize,
}

/// `[filter.mate]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MateConfig {
    /// Run the terminal / mate stage.
    pub enabled: bool,
    /// df-pn node budget per position.
    pub nodes: u64,
    /// Solve positions in check from the AND node (drop them as `mated`).
    pub and_root: bool,
    /// Longest mate to report (0 = no limit).
    pub max_plies: u32,
    /// After a proof, nodes spent looking for a shorter mate, as a multiple of the nodes
    /// the proof took (0 = off; never past `nodes`).
    pub shorten: u32,
    /// Wall-time guard per position in milliseconds (0 = none). A guard hit is `unknown`.
    pub time_ms: u64,
    /// Verdicts shared by the workers, MiB (0 = off): a position that occurs again is
    /// answered without a new search (same verdict, see `mate::cache`).
    pub cache_mb: usize,
    /// Table per position or per batch; `batch` needs `cache_mb = 0`.
    pub table_scope: TableScope,
    /// Keep or drop positions the solver leaves undecided.
    pub unknown: UnknownPolicy,
}

/// `[filter]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FilterConfig {
    /// psv/hcpe move fields that are not legal in their position.
    pub move_field: MoveFieldPolicy,
    /// `[filter.mate]`.
    pub mate: MateConfig,
    /// `[filter.repetition]`.
    pub repetition: RepetitionConfig,
    /// `[filter.declaration]`.
    pub declaration: DeclarationConfig,
    /// `[filter.entering_king]`.
    pub entering_king: EnteringKingConfig,
    /// `[filter.dedup]`.
    pub dedup: DedupConfig,
}

/// `[mates]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MatesConfig {
    /// Write mates.jsonl and the binary mates file.
    pub enabled: bool,
    /// Format of the binary mates file.
    pub format: FormatChoice,
}

/// pipeline.toml as written, with defaults for missing keys.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawConfig {
    /// `[input]`.
    pub input: InputConfig,
    /// `[output]`.
    pub output: OutputConfig,
    /// `[workers]`.
    pub workers: WorkersConfig,
    /// `[filter]` and its sub-tables.
    pub filter: FilterConfig,
    /// `[mates]`.
    pub mates: MatesConfig,
    /// The line (from 1) of each dotted key the file sets, for error messages.
    #[serde(skip)]
    pub key_lines: BTreeMap<String, usize>,
}

/// The line (from 1) of every `key = value` in TOML `text`, by dotted key (table headers
/// prefixed). A plain scan, enough to point an error at its line; parsing proper is toml's.
fn key_lines(text: &str) -> BTreeMap<String, usize> {
    let mut lines = BTreeMap::new();
    let mut table = String::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            if let Some(end) = header.find(']') {
                table = header[..end].trim_matches(['[', ' ']).to_string();
            }
        } else if let Some((key, _)) = line.split_once('=') {
            let key = key.trim().trim_matches('"');
            if !key.is_empty() && !key.starts_with('#') {
                let dotted = if table.is_empty() {
                    key.to_string()
                } else {
                    format!("{table}.{key}")
                };
                lines.entry(dotted).or_insert(i + 1);
            }
        }
    }
    lines
}

impl Default for InputConfig {
    fn default() -> Self {
        InputConfig {
            paths: Vec::new(),
            format: FormatChoice::Auto,
        }
    }
}
impl Default for OutputConfig {
    fn default() -> Self {
        OutputConfig {
            dir: "out".into(),
            format: FormatChoice::Same,
            shard_records: 1_000_000,
            compression: Compression::Zstd,
            zstd_level: 3,
            audit: true,
            checkpoint_records: None,
        }
    }
}
impl Default for WorkersConfig {
    fn default() -> Self {
        WorkersConfig {
            threads: 0,
            table_mb: 64,
            batch_records: 0,
        }
    }
}
impl Default for MateConfig {
    fn default() -> Self {
        MateConfig {
            enabled: true,
            nodes: 100_000,
            and_root: true,
            max_plies: 0,
            shorten: 1,
            time_ms: 10_000,
            cache_mb: 64,
            table_scope: TableScope::Position,
            unknown: UnknownPolicy::Keep,
        }
    }
}
impl Default for FilterConfig {
    fn default() -> Self {
        FilterConfig {
            move_field: MoveFieldPolicy::Keep,
            mate: MateConfig::default(),
            repetition: RepetitionConfig::default(),
            declaration: DeclarationConfig::default(),
            entering_king: EnteringKingConfig::default(),
            dedup: DedupConfig::default(),
        }
    }
}
impl Default for MatesConfig {
    fn default() -> Self {
        MatesConfig {
            enabled: true,
            format: FormatChoice::Is(Format::Psv),
        }
    }
}

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

/// Resolved settings: the only input to the run. Paths are absolute or relative to the
/// current directory (already joined with the config file's directory).
#[derive(Debug, Clone, Serialize)]
pub struct Config {
    /// The settings as written (after defaults), echoed into report.json.
    pub raw: RawConfig,
    /// Input patterns, joined with the config directory.
    pub input_paths: Vec<PathBuf>,
    /// Output directory.
    pub out_dir: PathBuf,
    /// Reference pools for dedup, joined with the config directory.
    pub reference_paths: Vec<PathBuf>,
    /// Worker threads (resolved: never 0).
    pub threads: usize,
    /// Show progress: a bar if stderr is a terminal, else log lines (see `log_every`).
    pub progress: bool,
    /// When stderr is not a terminal, a progress line at the first commit after each such
    /// interval (`None`: no lines).
    pub log_every: Option<std::time::Duration>,
    /// Go on from the checkpoint in the output directory (`--resume`).
    pub resume: bool,
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
fn log_every(seconds: Option<f64>) -> Option<std::time::Duration> {
    let s = seconds.unwrap_or(DEFAULT_LOG_EVERY);
    (s.is_finite() && s > 0.0).then(|| std::time::Duration::from_secs_f64(s.min(1e9)))
}

impl RawConfig {
    /// Parses TOML text; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<RawConfig, ConfigError> {
        let mut raw: RawConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })?;
        raw.key_lines = key_lines(text);
        Ok(raw)
    }

    /// Reads and parses a config file.
    pub fn load(path: &Path) -> Result<RawConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        RawConfig::parse(&text, path)
    }
}

impl Config {
    /// Records per batch: `workers.batch_records`, or when that is 0,
    /// [`AUTO_BATCH_MATE`] with the mate filter on (a batch is then milliseconds of search,
    /// and small batches keep every core busy to the end) and [`AUTO_BATCH_NO_MATE`]
    /// without it (a record then takes well under a microsecond, and larger batches
    /// amortise the hand-off between threads). Never 0.
    pub fn batch_records(&self) -> usize {
        match self.raw.workers.batch_records {
            0 if self.raw.filter.mate.enabled => AUTO_BATCH_MATE,
            0 => AUTO_BATCH_NO_MATE,
            n => n,
        }
    }

    /// Input records between checkpoints (0 = none): `output.checkpoint_records`, or
    /// when that is unset, [`AUTO_CHECKPOINT_RECORDS`] with the mate filter on (minutes of
    /// search on a few cores; a checkpoint costs milliseconds) and none without it (such a
    /// run reads millions of records a second, so starting over costs little, while the
    /// checkpoints' dedup log and flushes cost about 10 % of it).
    pub fn checkpoint_records(&self) -> u64 {
        match self.raw.output.checkpoint_records {
            Some(n) => n,
            None if self.raw.filter.mate.enabled => AUTO_CHECKPOINT_RECORDS,
            None => 0,
        }
    }

    /// Checks values and resolves paths against `base` (the config file's directory).
    pub fn resolve(
        raw: RawConfig,
        path: &Path,
        overrides: &Overrides,
    ) -> Result<Config, ConfigError> {
        let lines = raw.key_lines.clone();
        let bad = |key: &'static str, reason: String| ConfigError::Value {
            path: path.to_path_buf(),
            line: lines.get(key).copied(),
            key,
            reason,
        };
        let base = path.parent().unwrap_or(Path::new("")).to_path_buf();
        if raw.input.paths.is_empty() {
            return Err(bad(
                "input.paths",
                "no input: give at least one file or glob, e.g. paths = [\"data/*.psv\"]".into(),
            ));
        }
        if raw.input.format == FormatChoice::Same {
            return Err(bad(
                "input.format",
                format!(
                    "`same` is only valid for output; use one of {}",
                    FormatChoice::choices("auto")
                ),
            ));
        }
        if raw.output.format == FormatChoice::Auto {
            return Err(bad(
                "output.format",
                format!(
                    "`auto` is only valid for input; use one of {}",
                    FormatChoice::choices("same")
                ),
            ));
        }
        if !matches!(raw.mates.format, FormatChoice::Is(f) if f != Format::Usi) {
            // `usi` holds a game, not one position; `auto` / `same` name no format.
            let usable: Vec<&str> = Format::ALL
                .into_iter()
                .filter(|&f| f != Format::Usi)
                .map(Format::name)
                .collect();
            return Err(bad(
                "mates.format",
                format!(
                    "`{}` cannot hold a mate record; use one of {}",
                    raw.mates.format,
                    usable.join(", ")
                ),
            ));
        }
        if raw.output.shard_records == 0 {
            return Err(bad("output.shard_records", "must be at least 1".into()));
        }
        if !(1..=22).contains(&raw.output.zstd_level) {
            return Err(bad(
                "output.zstd_level",
                format!("{} is outside 1..=22", raw.output.zstd_level),
            ));
        }
        if raw.workers.table_mb == 0 {
            return Err(bad(
                "workers.table_mb",
                "must be at least 1 (MiB per worker)".into(),
            ));
        }
        if raw.workers.batch_records > MAX_BATCH_RECORDS {
            return Err(bad(
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
                return Err(bad(
                    key,
                    format!("{mib} is more than {MAX_MIB} (MiB; the default 64 is plenty)"),
                ));
            }
        }
        if raw.filter.mate.enabled && raw.filter.mate.nodes == 0 {
            return Err(bad(
                "filter.mate.nodes",
                "must be at least 1 when the mate filter is enabled".into(),
            ));
        }
        let mate = &raw.filter.mate;
        if mate.enabled && mate.table_scope == TableScope::Batch && mate.cache_mb > 0 {
            return Err(bad(
                "filter.mate.table_scope",
                "`batch` needs filter.mate.cache_mb = 0: with the table kept across a batch a \
                 verdict depends on the batch's earlier positions, so a verdict cached from one \
                 batch may differ from what another batch would find, and which batch comes \
                 first depends on scheduling"
                    .into(),
            ));
        }
        if mate.enabled && mate.unknown == UnknownPolicy::Tag && !raw.output.audit {
            return Err(bad(
                "filter.mate.unknown",
                "`tag` lists the undecided positions in audit.jsonl, but output.audit is \
                 false: turn the audit on, or use `keep`"
                    .into(),
            ));
        }
        let join = |p: &str| {
            let p = Path::new(p);
            if p.is_absolute() {
                p.to_path_buf()
            } else {
                base.join(p)
            }
        };
        let threads = match overrides.threads.unwrap_or(raw.workers.threads) {
            0 => std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            n => n,
        };
        Ok(Config {
            input_paths: raw.input.paths.iter().map(|p| join(p)).collect(),
            out_dir: overrides
                .out_dir
                .clone()
                .unwrap_or_else(|| join(&raw.output.dir)),
            reference_paths: raw
                .filter
                .dedup
                .reference
                .iter()
                .map(|p| join(&p.to_string_lossy()))
                .collect(),
            threads,
            progress: !overrides.quiet,
            log_every: log_every(overrides.log_every),
            resume: overrides.resume,
            raw,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        let path = Path::new("dir/pipeline.toml");
        let raw = RawConfig::parse(text, path)?;
        Config::resolve(raw, path, &Overrides::default())
    }

    #[test]
    fn defaults_and_paths() {
        let c = parse("[input]\npaths = [\"a.psv\"]\n").unwrap();
        assert_eq!(c.input_paths, vec![PathBuf::from("dir/a.psv")]);
        assert_eq!(c.out_dir, PathBuf::from("dir/out"));
        assert!(c.threads >= 1);
        assert_eq!(c.raw.filter.mate.nodes, 100_000);
    }

    #[test]
    fn batch_size_is_automatic_unless_set() {
        let with_mate = parse("[input]\npaths = [\"a\"]\n").unwrap();
        assert_eq!(with_mate.batch_records(), AUTO_BATCH_MATE);
        let without = parse("[input]\npaths = [\"a\"]\n[filter.mate]\nenabled = false\n").unwrap();
        assert_eq!(without.batch_records(), AUTO_BATCH_NO_MATE);
        let set = parse("[input]\npaths = [\"a\"]\n[workers]\nbatch_records = 77\n").unwrap();
        assert_eq!(set.batch_records(), 77);
    }

    #[test]
    fn checkpoints_are_automatic_unless_set() {
        let with_mate = parse("[input]\npaths = [\"a\"]\n").unwrap();
        assert_eq!(with_mate.checkpoint_records(), AUTO_CHECKPOINT_RECORDS);
        let without = parse("[input]\npaths = [\"a\"]\n[filter.mate]\nenabled = false\n").unwrap();
        assert_eq!(without.checkpoint_records(), 0);
        for n in [0, 5000] {
            let text = format!("[input]\npaths = [\"a\"]\n[output]\ncheckpoint_records = {n}\n");
            assert_eq!(parse(&text).unwrap().checkpoint_records(), n);
        }
    }

    #[test]
    fn key_lines_follow_tables_and_dotted_keys() {
        let text = "# comment = no\n[input]\npaths = [\"a\",\n  \"b\"]\n\n[filter]\n\
                    mate.nodes = 5\n[filter.mate]\n  time_ms=3 # guard\n[[odd]]\nx = 1\n";
        let lines = key_lines(text);
        assert_eq!(lines.get("input.paths"), Some(&3));
        assert_eq!(lines.get("filter.mate.nodes"), Some(&7));
        assert_eq!(lines.get("filter.mate.time_ms"), Some(&9));
        assert_eq!(lines.get("odd.x"), Some(&11));
        assert!(!lines.keys().any(|k| k.contains('#')), "{lines:?}");
    }

    #[test]
    fn errors_name_key_line_and_choices() {
        let e = parse("[input]\npaths = [\"a\"]\n\n[output]\nshards = 3\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("shards") && e.contains("line 5") && e.contains("shard_records"),
            "{e}"
        );
        let e = parse("[input]\npaths = [\"a\"]\n[output]\ncompression = \"gzip\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("gzip") && e.contains("zstd") && e.contains("line 4"),
            "{e}"
        );
        let e = parse("[input]\npaths = [\"a\"]\n[filter.declaration]\nrule = \"25\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("csa27") && e.contains("line 4"), "{e}");
        let e = parse("[input]\npaths = []\n").unwrap_err().to_string();
        assert!(e.contains("input.paths"), "{e}");
        let e = parse("[input]\npaths = [\"a\"]\n[output]\nzstd_level = 40\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("output.zstd_level") && e.contains("1..=22"),
            "{e}"
        );
    }
}

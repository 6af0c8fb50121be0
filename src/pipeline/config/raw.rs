//! pipeline.toml as written: [`RawConfig`] and its sections (serde, unknown keys rejected,
//! every missing key at its `Default`), the line of each key for messages, and
//! [`ConfigError`].
//!
//! # Invariants
//! The `Default` impls here are the defaults: `posfilter init` writes them
//! ([`super::template`]) and nothing else states them.

use crate::codec::{Format, FormatChoice};
use crate::filter::{DeclarationConfig, DedupConfig, EnteringKingConfig, RepetitionConfig};
use crate::mate::Limits;
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

/// Kept-shard compression (`output.compression`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// As the input: zstd when every input file a kept writer takes records from was
    /// zstd-compressed, plain otherwise (so a trainer can `np.fromfile` / mmap the shards of
    /// a plain input as they are). See `pipeline::kept_shards`.
    Auto,
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
    /// A completed run that rejected more records than this exits with status 1 (unset:
    /// more than 10 % of its input; an input file that cannot be read to the end always
    /// gives status 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_rejected: Option<u64>,
}

/// `[output]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputConfig {
    /// Output directory, relative to the config file's directory.
    pub dir: String,
    /// Format of kept shards, or `same`.
    pub format: FormatChoice,
    /// Allow converting records without teacher fields (sfen, usi, psfen, hcp) to a format
    /// with them (psv, hcpe), which writes score 0, no move and a draw into every record.
    pub synthetic_fields: bool,
    /// Write hcpe records without a move (bestMove16 = 0) to the kept shards instead of
    /// dropping them as `no_move` (dlshogi's loader cannot train on them).
    pub keep_moveless_hcpe: bool,
    /// Records per shard.
    pub shard_records: u64,
    /// Kept-shard compression (`auto`: as the input).
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
pub(super) fn key_lines(text: &str) -> BTreeMap<String, usize> {
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
            max_rejected: None,
        }
    }
}
impl Default for OutputConfig {
    fn default() -> Self {
        OutputConfig {
            dir: "out".into(),
            format: FormatChoice::Same,
            synthetic_fields: false,
            keep_moveless_hcpe: false,
            shard_records: 1_000_000,
            compression: Compression::Auto,
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
        // The solver's own defaults: one place for the node budget and the shortening.
        let solver = Limits::default();
        MateConfig {
            enabled: true,
            nodes: solver.nodes,
            and_root: true,
            max_plies: 0,
            shorten: solver.shorten,
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

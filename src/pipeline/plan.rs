//! What a run will read and replace, resolved before anything is written: the first step of
//! every run, and all that `posfilter run --dry-run` does ([`Plan::describe`]).
//!
//! # Invariants
//! - Building a plan reads only what format detection reads (the first records of each
//!   file) and lists the output directory; it writes and removes nothing.
//! - A plan exists only if the run could start: every input and reference pool matched and
//!   was recognised, and none is among the previous output files the run would replace.

use super::config::Config;
use super::error::PipelineError;
use super::kept_shards::KeptShards;
use super::preflight;
use super::previous::PreviousOutput;
use super::settings::Settings;
use crate::codec::game::infer::{chained, HcpeGames};
use crate::codec::Format;
use crate::io::batch::{batches_of, BatchOptions, InputSpec};
use crate::io::detect::{self, Detection};
use crate::io::input;
use indicatif::{BinaryBytes, HumanCount};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The resolved inputs, reference pools and previous output of a run.
pub(crate) struct Plan {
    /// Input files in input order (globs expanded, each file once).
    pub(crate) paths: Vec<PathBuf>,
    /// Their formats, one per path.
    pub(crate) detections: Vec<Detection>,
    /// Reference pool files (empty without dedup).
    pub(crate) references: Vec<PathBuf>,
    /// Their formats, one per reference file.
    pub(crate) reference_detections: Vec<Detection>,
    /// The previous run's files in the output directory (removed when the run starts).
    pub(crate) previous: PreviousOutput,
}

impl Plan {
    /// Resolves `config`'s inputs, reference pools and output directory.
    pub(crate) fn new(config: &Config, settings: &Settings) -> Result<Plan, PipelineError> {
        let out_dir = &config.out_dir;
        let paths = expand(&config.input_paths)?;
        let references = if settings.dedup && !config.reference_paths.is_empty() {
            expand(&config.reference_paths)?
        } else {
            Vec::new()
        };
        // A previous run's files are found now and removed only once the inputs have
        // proved readable, never when this run reads one of them.
        let previous = PreviousOutput::find(out_dir).map_err(|source| PipelineError::Output {
            dir: out_dir.display().to_string(),
            source,
        })?;
        if settings.mate.is_some() {
            if let Some(e) = preflight::solver_memory_error(
                config.threads,
                config.table_mb,
                config.filter.mate.cache_mb,
                preflight::available_memory(),
            ) {
                return Err(PipelineError::Memory(e));
            }
        }
        if let Some(own) = previous.reads_own_output(paths.iter().chain(&references)) {
            return Err(PipelineError::ReadsOwnOutput {
                input: own.display().to_string(),
                dir: out_dir.display().to_string(),
            });
        }
        let explicit = config.input_format;
        let detections: Vec<Detection> = paths
            .iter()
            .map(|p| detect::detect(p, explicit))
            .collect::<Result<_, _>>()?;
        for (path, d) in paths.iter().zip(&detections) {
            check_conversion(
                path,
                d.format,
                settings.output_format,
                config.synthetic_fields,
            )?;
        }
        let reference_detections = references
            .iter()
            .map(|p| detect::detect(p, None))
            .collect::<Result<_, _>>()?;
        Ok(Plan {
            paths,
            detections,
            references,
            reference_detections,
            previous,
        })
    }

    /// The input's record count when every file tells it (uncompressed binary files; game
    /// formats tell it only once read).
    pub(crate) fn exact_records(&self) -> Option<u64> {
        self.detections.iter().map(exact_records).sum()
    }

    /// The input's size on disk.
    pub(crate) fn disk_bytes(&self) -> u64 {
        self.detections.iter().map(|d| d.file_bytes).sum()
    }

    /// The fewest records the dedup index may have to hold: inputs and reference pools
    /// (see `preflight::records_at_least`).
    fn dedup_records_at_least(&self) -> u64 {
        preflight::records_at_least(&self.detections)
            + preflight::records_at_least(&self.reference_detections)
    }

    /// The warning for a dedup index that may not fit in memory (see `preflight`).
    pub(crate) fn dedup_memory_warning(&self) -> Option<String> {
        preflight::dedup_memory_warning(
            self.dedup_records_at_least(),
            preflight::available_memory(),
        )
    }

    /// What the run would read and write, for `--dry-run`: one line per input and pool
    /// with its format, the reason and its size, then the output and the memory it needs.
    pub(crate) fn describe(&self, config: &Config, settings: &Settings) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "inputs: {} file(s), {} on disk{}",
            self.paths.len(),
            BinaryBytes(self.disk_bytes()),
            self.exact_records()
                .map(|n| format!(", {} records", HumanCount(n)))
                .unwrap_or_default()
        );
        file_lines(&mut s, &self.paths, &self.detections);
        if !self.references.is_empty() {
            let _ = writeln!(s, "reference pools: {} file(s)", self.references.len());
            file_lines(&mut s, &self.references, &self.reference_detections);
        }
        let _ = writeln!(
            s,
            "output: {} ({}){}",
            config.out_dir.display(),
            match config.shard_records {
                0 => "one kept file per format, shard_records = 0".to_string(),
                n => format!("{} records a shard", HumanCount(n)),
            },
            match self.previous.files().len() {
                0 => String::new(),
                n => format!("; replaces {n} file(s) of a previous run"),
            }
        );
        for line in KeptShards::of_run(config, &self.paths, &self.detections).describe() {
            let _ = writeln!(s, "  {line}");
        }
        let tables = if settings.mate.is_some() {
            format!(
                ", df-pn tables {} ({} each)",
                BinaryBytes((config.threads * config.table_mb) as u64 * (1 << 20)),
                BinaryBytes(config.table_mb as u64 * (1 << 20))
            )
        } else {
            ", mate filter off".into()
        };
        let _ = writeln!(s, "workers: {} thread(s){tables}", config.threads);
        self.describe_zstd_window(&mut s);
        self.describe_hcpe_games(&mut s);
        let _ = writeln!(
            s,
            "checkpoints: {}{}",
            match config.checkpoint_records {
                0 => "none".to_string(),
                n => format!(
                    "every {} input records (`run --resume` goes on from the last)",
                    HumanCount(n)
                ),
            },
            if self.previous.unfinished() {
                "; the output directory holds a checkpoint of an unfinished run"
            } else {
                ""
            }
        );
        if settings.dedup {
            self.describe_dedup(&mut s);
        }
        if let Some(w) = self.dedup_memory_warning() {
            let _ = writeln!(s, "warning: {w}");
        }
        s
    }
    /// The dry run's line on hcpe inputs: the games inferred from their chains of best
    /// moves, as report.json's `hcpe_games_inferred` counts them (each file read in full:
    /// a linear scan that decodes every record, its time shown).
    fn describe_hcpe_games(&self, s: &mut String) {
        let inputs = self.paths.iter().zip(&self.detections);
        let hcpe: Vec<&PathBuf> = inputs
            .filter(|(_, d)| d.format == Format::Hcpe)
            .map(|(p, _)| p)
            .collect();
        if hcpe.is_empty() {
            return;
        }
        let started = std::time::Instant::now();
        let (mut games, mut records) = (0, 0);
        let opts = BatchOptions {
            records: 1 << 16,
            align_games: false,
        };
        for path in hcpe {
            // A file that breaks off is counted up to the break (the run rejects the rest).
            let batches = batches_of(path, Format::Hcpe, opts).map_while(Result::ok);
            let mut batches = batches.take_while(|b| b.unreadable().is_none()).peekable();
            let mut last: Option<Vec<u8>> = None;
            while batches.peek().is_some() {
                // A few batches at a time, each scanned on its own core; a batch's first
                // record continues the game of the one before when the two chain.
                let window: Vec<_> = batches.by_ref().take(HCPE_SCAN_WINDOW).collect();
                let counts: Vec<u64> = window.par_iter().map(games_in).collect();
                for (batch, n) in window.iter().zip(counts) {
                    let mut records_of = batch.iter();
                    let first = records_of.next().map(|r| r.bytes);
                    let joined = last
                        .as_deref()
                        .zip(first)
                        .is_some_and(|(a, b)| chained(a, b));
                    games += n - joined as u64;
                    records += batch.len() as u64;
                    last = batch.iter().last().map(|r| r.bytes.to_vec());
                }
            }
        }
        let _ = writeln!(
            s,
            "hcpe games: {} inferred from the best moves of {} records (read in {:.1} s)",
            HumanCount(games),
            HumanCount(records),
            started.elapsed().as_secs_f64()
        );
    }

    /// The dry run's line on zstd windows, with compressed inputs or pools: the largest
    /// window a first frame asks for, which the decoder holds while it reads that file (one
    /// file at a time; `zstd --long=31` asks for 2 GiB).
    fn describe_zstd_window(&self, s: &mut String) {
        let files = self.paths.iter().zip(&self.detections);
        let pools = self.references.iter().zip(&self.reference_detections);
        let largest = files
            .chain(pools)
            .filter(|(_, d)| d.compressed)
            .filter_map(|(p, _)| Some((first_zstd_window(p)?, p)))
            .max_by_key(|&(window, _)| window);
        if let Some((window, path)) = largest {
            let _ = writeln!(
                s,
                "zstd window: {} (the largest, {}), held in memory while that file is read",
                BinaryBytes(window),
                path.display()
            );
        }
    }

    /// The dry run's line on the dedup index: its size if every record is distinct.
    fn describe_dedup(&self, s: &mut String) {
        let records = self.dedup_records_at_least();
        let exact = self.exact_records().is_some()
            && self
                .reference_detections
                .iter()
                .all(|d| exact_records(d).is_some());
        let _ = writeln!(
            s,
            "dedup index: {} if all {} records are distinct positions{}",
            BinaryBytes(crate::filter::FirstSeen::bytes_for(records)),
            HumanCount(records),
            if exact {
                ""
            } else {
                " (a lower bound on the records: compressed files count at their size \
                 on disk, text files not at all)"
            }
        );
    }
}

/// The files to read, each with the format its detection found.
pub(crate) fn specs(paths: &[PathBuf], detections: &[Detection]) -> Vec<InputSpec> {
    let each = paths.iter().zip(detections);
    each.map(|(path, d)| InputSpec {
        path: path.clone(),
        format: d.format,
    })
    .collect()
}

/// The files behind `patterns` (globs expanded, each file once).
fn expand(patterns: &[PathBuf]) -> Result<Vec<PathBuf>, PipelineError> {
    let patterns: Vec<String> = patterns.iter().map(|p| p.display().to_string()).collect();
    Ok(input::expand(&patterns)?)
}

/// A file's record count, if its size tells it.
pub(crate) fn exact_records(d: &Detection) -> Option<u64> {
    match (d.compressed, d.format.record_size()) {
        (false, Some(size)) => Some(d.file_bytes.div_ceil(size as u64)),
        _ => None,
    }
}

/// The window the first zstd frame of `path` asks for (`None` if it cannot be read).
fn first_zstd_window(path: &std::path::Path) -> Option<u64> {
    use std::io::Read;
    let mut head = Vec::with_capacity(18);
    let file = std::fs::File::open(path).ok()?;
    file.take(18).read_to_end(&mut head).ok()?;
    crate::io::zstd_stream::first_frame_header(&head).map(|h| h.window)
}

/// One line per file: path, format, size, records (when known) and why that format.
fn file_lines(s: &mut String, paths: &[PathBuf], detections: &[Detection]) {
    for (p, d) in paths.iter().zip(detections) {
        let records = exact_records(d)
            .map(|n| format!(", {} records", HumanCount(n)))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "  {}  {}{}, {}{records} ({})",
            p.display(),
            d.format.name(),
            if d.compressed { " (zstd)" } else { "" },
            BinaryBytes(d.file_bytes),
            d.reasons.join("; ")
        );
    }
}

/// Refuses an output format that cannot hold `input`'s records: a game format (hcpe3,
/// .pack, sbinpack) is written only from the same format, as whole games with the kept
/// positions; a format with teacher fields (psv, hcpe) from one without them only with
/// `synthetic_fields` (every record would get score 0, no move and a draw).
fn check_conversion(
    path: &std::path::Path,
    input: Format,
    output: Option<Format>,
    synthetic_fields: bool,
) -> Result<(), PipelineError> {
    match output {
        Some(out)
            if out.has_teacher_fields() && !input.has_teacher_fields() && !synthetic_fields =>
        {
            Err(PipelineError::Conversion(format!(
                "{}: {input} records have no score, move or result: written as {out} every \
                 record would get score 0, no move and a draw, which a trainer takes for \
                 real labels; set output.synthetic_fields = true if that is what you want",
                path.display()
            )))
        }
        Some(out) if out.is_game() && out != input => Err(PipelineError::Conversion(format!(
            "{}: a {input} input cannot be written as {out}: a game format is written only \
             from the same format (set output.format to `same`, or to one of sfen, usi, \
             psfen, psv, hcp, hcpe)",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// Batches of hcpe records scanned at once for `--dry-run`'s game count.
const HCPE_SCAN_WINDOW: usize = 16;

/// Games a batch of hcpe records starts, its first record counted as one.
fn games_in(batch: &crate::io::batch::Batch) -> u64 {
    let mut chain = HcpeGames::new();
    batch.iter().for_each(|r| _ = chain.push(r.bytes));
    chain.games()
}

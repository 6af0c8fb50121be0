//! `posfilter run pipeline.toml`: load and resolve the config, run the pipeline, print the
//! summary.
//!
//! Exit status: 0 a clean run; 1 a run that completed but did not read all of its input
//! (an input file not readable to the end, more rejected records than
//! `input.max_rejected`); 2 an error (`src/main.rs`: a failed reconciliation, an I/O error,
//! a refused config or output directory); 130 interrupted (Ctrl-C, SIGTERM).

use anyhow::{bail, Context, Result};
use posfilter::cluster::shard::{run_shard as run_shard_stage, ShardSpec};
use posfilter::pipeline::{
    self,
    config::{Config, Overrides, RawConfig},
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// How `run` reports: the command line's `--quiet`, `--log-every` and `--dry-run`.
pub struct Mode {
    /// No progress and no summary.
    pub quiet: bool,
    /// Seconds between progress lines when stderr is not a terminal (0 = none).
    pub log_every: f64,
    /// Print the plan and stop.
    pub dry_run: bool,
    /// Go on from the output directory's checkpoint.
    pub resume: bool,
    /// Go on from the output directory's checkpoint if it holds one, else start.
    pub resume_or_start: bool,
    /// Run one shard of a job split over tasks (`--shard`).
    pub shard: Option<ShardSpec>,
}

/// The shard `--shard TEXT` names: `I/N`, or `auto` (Slurm array or Kubernetes Indexed
/// Job environment; `shards` is `--shards`).
pub fn shard_spec(text: &str, shards: Option<usize>, buckets: u32) -> Result<ShardSpec> {
    let spec = |shard: usize, count: usize| -> Result<ShardSpec> {
        if shard >= count {
            bail!("shard {shard} of {count}: give 0 <= I < N");
        }
        if let Some(n) = shards.filter(|&n| n != count) {
            bail!("--shards {n}, but the shard count is {count}");
        }
        Ok(ShardSpec {
            shard,
            shards: count,
            buckets,
            resume: false,
        })
    };
    let number = |name: &str| -> Result<Option<usize>> {
        match std::env::var(name) {
            Ok(v) => v
                .trim()
                .parse()
                .map(Some)
                .with_context(|| format!("{name}={v:?} is not a number")),
            Err(_) => Ok(None),
        }
    };
    if text != "auto" {
        let bad = || format!("--shard {text:?}: give I/N (0 <= I < N, e.g. 0/4) or auto");
        let (i, n) = text.split_once('/').with_context(bad)?;
        return spec(
            i.trim().parse().with_context(bad)?,
            n.trim().parse().with_context(bad)?,
        );
    }
    if let (Some(id), Some(count)) = (
        number("SLURM_ARRAY_TASK_ID")?,
        number("SLURM_ARRAY_TASK_COUNT")?,
    ) {
        let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        return spec(id.saturating_sub(min), count);
    }
    match (number("JOB_COMPLETION_INDEX")?, shards) {
        (Some(index), Some(n)) => spec(index, n),
        (Some(_), None) => {
            bail!("--shard auto under a Kubernetes Indexed Job needs --shards N (its completions)")
        }
        (None, _) => bail!(
            "--shard auto: neither SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (a Slurm array \
             job) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set; give --shard I/N"
        ),
    }
}

/// Runs the pipeline described by `config_path`, or with `mode.dry_run` prints what the run
/// would read and write.
pub fn run(
    config_path: &Path,
    threads: Option<usize>,
    out: Option<PathBuf>,
    mode: Mode,
) -> Result<ExitCode> {
    let out_given = out.clone();
    let config = resolve(config_path, threads, out, &mode)?;
    let Mode {
        quiet,
        dry_run,
        resume_or_start,
        shard,
        ..
    } = mode;
    if dry_run {
        let plan = pipeline::dry_run(&config)
            .with_context(|| format!("dry run of {} failed", config_path.display()))?;
        eprint!(
            "posfilter: dry run of {}, nothing written\n{plan}",
            config_path.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    warn_about_threads(&config, quiet);
    if let Some(spec) = shard {
        let spec = ShardSpec {
            resume: resume_or_start,
            ..spec
        };
        return run_shard(&config, config_path, spec, quiet);
    }
    on_interrupt(
        config_path,
        out_given.as_deref(),
        config.checkpoint_records(),
    );
    let report = pipeline::run(&config)
        .with_context(|| format!("run of {} failed", config_path.display()))?;
    if !quiet {
        print_summary(config_path, &config, &report);
    }
    Ok(super::common::completed_status(
        &report,
        config.max_rejected(),
    ))
}

/// The config of `config_path` with the command line's overrides; with
/// `--resume-or-start`, resuming when the output directory holds a checkpoint.
fn resolve(
    config_path: &Path,
    threads: Option<usize>,
    out: Option<PathBuf>,
    mode: &Mode,
) -> Result<Config> {
    let raw = RawConfig::load(config_path)?;
    let overrides = Overrides {
        threads,
        out_dir: out,
        quiet: mode.quiet,
        log_every: Some(mode.log_every),
        resume: mode.resume,
    };
    let config = Config::resolve(raw.clone(), config_path, &overrides)?;
    if mode.resume_or_start && pipeline::checkpoint_in(config.out_dir()) {
        // A task a scheduler requeued cannot know whether it was stopped after a
        // checkpoint: it goes on from one when there is one (and refuses, as --resume
        // does, one that does not match), and starts otherwise.
        let resume = Overrides {
            resume: true,
            ..overrides
        };
        return Ok(Config::resolve(raw, config_path, &resume)?);
    }
    Ok(config)
}

/// Warns when the worker threads were capped, or (unless `quiet`) outnumber the cores.
fn warn_about_threads(config: &Config, quiet: bool) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if let Some(asked) = config.threads_capped_from() {
        eprintln!(
            "posfilter: warning: {asked} worker threads asked for, capped at {} ({} per core \
             on {cores} cores)",
            config.threads(),
            pipeline::config::MAX_THREADS_PER_CORE
        );
    } else if config.threads() > cores && !quiet {
        // More workers than cores only add switching, and with the solver on, a table each.
        let tables = match config.table_mb() {
            Some(mb) => format!(
                ", and each holds its own {mb} MiB table ({} MiB in all)",
                config.threads() * mb
            ),
            None => String::new(),
        };
        eprintln!(
            "posfilter: warning: {} worker threads on {cores} cores: threads beyond the cores \
             only add switching{tables}; `--threads 0` uses every core",
            config.threads()
        );
    }
}

/// The summary of a finished run on stderr: where it wrote, what it resumed or replaced,
/// the table of outcomes and the reconciliation.
fn print_summary(config_path: &Path, config: &Config, report: &pipeline::report::Report) {
    eprintln!(
        "posfilter: {} -> {}",
        config_path.display(),
        config.out_dir().display()
    );
    if let Some(at) = report.resumed_from.last() {
        eprintln!("  resumed at record {at} from the checkpoint in the output directory");
    }
    if report.replaced_files > 0 {
        eprintln!(
            "  replaced {} files of a previous run in {}",
            report.replaced_files,
            config.out_dir().display()
        );
    }
    eprint!("{}", report.summary_table());
    eprintln!("{}", report.reconciled_line());
}

/// One shard task: part `spec.shard` of the input into the output directory, a line on
/// stderr.
fn run_shard(
    config: &Config,
    config_path: &Path,
    spec: ShardSpec,
    quiet: bool,
) -> Result<ExitCode> {
    let start = std::time::Instant::now();
    let manifest = run_shard_stage(config, config_path, spec).with_context(|| {
        format!(
            "shard {} of {} of {} failed",
            spec.shard,
            spec.shards,
            config_path.display()
        )
    })?;
    if !quiet {
        let keys: u64 = manifest.runs.iter().map(|r| r.entries).sum();
        eprintln!(
            "posfilter: shard {} of {}: {} records, {keys} dedup keys in {} buckets -> {} ({:.1} s); \
             gather with `posfilter merge`",
            spec.shard,
            spec.shards,
            manifest.records,
            manifest.job.buckets,
            config.out_dir().display(),
            start.elapsed().as_secs_f64(),
        );
        if let Some(at) = manifest.resumed_from {
            eprintln!("  resumed at record {at} from the checkpoint in the shard directory");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// On Ctrl-C or SIGTERM (a batch system's time limit), says before exiting (status 130)
/// whether and from where `--resume` can go on, with the command that does it.
fn on_interrupt(config_path: &Path, out: Option<&Path>, every: u64) {
    let mut command = format!("posfilter run {}", shell_word(config_path));
    if let Some(out) = out {
        command.push_str(&format!(" --out {}", shell_word(out)));
    }
    let handler = move || {
        let why = match (every, pipeline::last_checkpoint()) {
            (0, _) => "checkpoints are off (output.checkpoint_records = 0): a rerun starts over"
                .to_string(),
            (_, None) => {
                format!("stopped before the first checkpoint (every {every} records): a rerun starts over")
            }
            (_, Some(at)) => format!(
                "the last checkpoint is at input record {at}: `{command} --resume` goes on from there"
            ),
        };
        eprintln!("\nposfilter: interrupted; {why}");
        std::process::exit(130);
    };
    if let Err(e) = ctrlc::set_handler(handler) {
        eprintln!("posfilter: warning: cannot catch Ctrl-C ({e}); an interrupted run says nothing");
    }
}

/// `path` as one word a POSIX shell reads back as the same path (single-quoted unless it
/// holds only characters that need no quoting).
fn shell_word(path: &Path) -> String {
    let text = path.display().to_string();
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./+,:@%=".contains(c));
    if plain {
        text
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_read_back_as_the_path() {
        assert_eq!(shell_word(Path::new("runs/p.toml")), "runs/p.toml");
        assert_eq!(shell_word(Path::new("my runs/p.toml")), "'my runs/p.toml'");
        assert_eq!(shell_word(Path::new("it's.toml")), "'it'\\''s.toml'");
    }
}

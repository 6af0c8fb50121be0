//! `posfilter run pipeline.toml`: load and resolve the config, run the pipeline, print the
//! summary. Exit status 0 on success; a failed reconciliation or an I/O error is an error.

use anyhow::{Context, Result};
use posfilter::pipeline::{
    self,
    config::{Config, Overrides, RawConfig},
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Runs the pipeline described by `config_path` (`log_every`: seconds between progress
/// lines when stderr is not a terminal, 0 = none).
pub fn run(
    config_path: &Path,
    threads: Option<usize>,
    out: Option<PathBuf>,
    quiet: bool,
    log_every: f64,
) -> Result<ExitCode> {
    let raw = RawConfig::load(config_path)?;
    let config = Config::resolve(
        raw,
        config_path,
        &Overrides {
            threads,
            out_dir: out,
            quiet,
            log_every: Some(log_every),
        },
    )?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if config.threads > cores && !quiet {
        // More workers than cores only add switching, and with the solver on, a table each.
        let tables = if config.raw.filter.mate.enabled {
            let mb = config.raw.workers.table_mb;
            format!(
                ", and each holds its own {mb} MiB table ({} MiB in all)",
                config.threads * mb
            )
        } else {
            String::new()
        };
        eprintln!(
            "posfilter: warning: {} worker threads on {cores} cores: threads beyond the cores \
             only add switching{tables}; `--threads 0` uses every core",
            config.threads
        );
    }
    let report = pipeline::run(&config)
        .with_context(|| format!("run of {} failed", config_path.display()))?;
    if !quiet {
        eprintln!(
            "posfilter: {} -> {}",
            config_path.display(),
            config.out_dir.display()
        );
        if report.replaced_files > 0 {
            eprintln!(
                "  replaced {} files of a previous run in {}",
                report.replaced_files,
                config.out_dir.display()
            );
        }
        eprint!("{}", report.summary_table());
        eprintln!(
            "  reconciled: input {} = kept {} + dropped {} + rejected {}",
            report.records.input,
            report.records.kept,
            report.records.dropped.total(),
            report.records.rejected
        );
    }
    Ok(ExitCode::SUCCESS)
}

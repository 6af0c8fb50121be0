//! `posfilter merge`: the stages after the shard tasks of a job split over many tasks
//! (see `posfilter::cluster`). `--dedup-partition J/M` reduces one dedup key bucket of every
//! shard into its duplicate list.

use anyhow::{bail, Context, Result};
use posfilter::cluster::manifest::load_shard_set;
use posfilter::cluster::reduce::reduce_bucket;
use posfilter::io::key_run::MAX_BUCKETS;
use posfilter::pipeline::config::{Config, Overrides, RawConfig};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Parses `J/M` (`0 <= J < M <= MAX_BUCKETS`).
pub fn parse_partition(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("{text:?} is not J/M with 0 <= J < M <= {MAX_BUCKETS} (e.g. 0/4)");
    let (j, m) = text.split_once('/').ok_or_else(bad)?;
    let (j, m): (u32, u32) = (
        j.trim().parse().map_err(|_| bad())?,
        m.trim().parse().map_err(|_| bad())?,
    );
    if j < m && m <= MAX_BUCKETS {
        Ok((j, m))
    } else {
        Err(bad())
    }
}

/// `posfilter merge --dedup-partition J/M SHARD_DIRS... --out DIR`: bucket `J`'s duplicate
/// list written into `DIR`, a summary on stderr.
pub fn dedup_partition(
    (j, m): (u32, u32),
    shard_dirs: &[PathBuf],
    out: &Path,
    quiet: bool,
) -> Result<ExitCode> {
    let start = Instant::now();
    let shards = load_shard_set(shard_dirs)?;
    let buckets = shards[0].1.job.buckets;
    if buckets != m {
        if buckets == 0 {
            bail!("the shards were run with dedup off: there is nothing to reduce");
        }
        bail!("the shards wrote their keys in {buckets} buckets, not {m}: give J/{buckets}");
    }
    let counts = reduce_bucket(&shards, j, m, out)
        .with_context(|| format!("dedup reduce of bucket {j} of {m}"))?;
    if !quiet {
        let seconds = start.elapsed().as_secs_f64();
        eprintln!(
            "posfilter: bucket {j} of {m}: {} keys from {} shards ({} distinct), {} duplicates, \
             {seconds:.2} s ({:.0} keys/s)",
            counts.entries,
            shards.len(),
            counts.keys,
            counts.duplicates,
            counts.entries as f64 / seconds.max(1e-9),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `posfilter merge SHARD_DIRS... [--dedup DIR] --out OUT`: the gather, into `OUT`, with
/// the configuration file the shards ran; the run's summary on stderr and its exit status
/// (1 for an input not read to the end or too many rejected records).
pub fn gather(
    shard_dirs: &[PathBuf],
    dedup: Option<&Path>,
    out: &Path,
    quiet: bool,
) -> Result<ExitCode> {
    let absolute = |p: &Path| {
        std::path::absolute(p).with_context(|| format!("{}: no absolute path", p.display()))
    };
    let shard_dirs = shard_dirs
        .iter()
        .map(|d| absolute(d))
        .collect::<Result<Vec<_>>>()?;
    let dedup = dedup.map(absolute).transpose()?;
    let out = absolute(out)?;
    let shards = load_shard_set(&shard_dirs)?;
    // The configuration is read as the shards read it, from their working directory, so
    // that input file names (report, audit) are those one run of it writes.
    let working_dir = PathBuf::from(&shards[0].1.working_dir);
    std::env::set_current_dir(&working_dir).with_context(|| {
        format!(
            "the shards ran in {}, where their configuration is named from",
            working_dir.display()
        )
    })?;
    let config_file = PathBuf::from(&shards[0].1.config_file);
    let raw = RawConfig::load(&config_file)?;
    let overrides = Overrides {
        out_dir: Some(out.clone()),
        quiet: true,
        ..Overrides::default()
    };
    let config = Config::resolve(raw, &config_file, &overrides)?;
    let report = posfilter::cluster::gather::gather(&shards, &config, dedup.as_deref())
        .with_context(|| {
            format!(
                "merge of {} shards into {} failed",
                shards.len(),
                out.display()
            )
        })?;
    if !quiet {
        eprintln!(
            "posfilter: {} shards of {} -> {}",
            shards.len(),
            config_file.display(),
            out.display()
        );
        eprint!("{}", report.summary_table());
        eprintln!("{}", report.reconciled_line());
    }
    // The status one run of the job would have had.
    Ok(super::common::completed_status(
        &report,
        config.max_rejected(),
    ))
}

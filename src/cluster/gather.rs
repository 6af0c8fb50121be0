//! The gather (`posfilter merge SHARD_DIRS... [--dedup DIR] --out OUT`): the shards'
//! logged outcomes committed in input order by the single run's commit
//! ([`crate::pipeline::replay`]), the duplicates taken from the reduce's lists (or, with
//! one bucket and no lists, reduced here from the shards' key runs), so that `OUT` holds
//! the files of one `posfilter run` of the same configuration.
//!
//! # Invariants
//! - Only the complete shards of one job are merged ([`super::manifest::load_shard_set`]),
//!   with the configuration file the shards ran, unchanged.
//! - The duplicate lists are those of this job: every listed record must be one a shard
//!   kept with a dedup key ([`crate::pipeline::known_dups`]).

use super::manifest::ShardManifest;
use super::reduce::merge_runs;
use crate::io::dup_list::{dup_list_name, DupListReader, Duplicate};
use crate::io::key_run::{run_name, KeyRunReader};
use crate::pipeline::config::Config;
use crate::pipeline::known_dups::KnownDuplicates;
use crate::pipeline::outcome_log::{LoggedBatch, OutcomeLogReader, OUTCOME_LOG};
use crate::pipeline::replay::replay;
use crate::pipeline::report::Report;
use crate::pipeline::PipelineError;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;
use std::path::{Path, PathBuf};

/// Merges `shards` (one job's, complete, in shard order) into `config`'s output directory;
/// `dedup_dir` holds the reduce's duplicate lists (needed with more than one bucket).
pub fn gather(
    shards: &[(PathBuf, ShardManifest)],
    config: &Config,
    dedup_dir: Option<&Path>,
) -> Result<Report, PipelineError> {
    let Some((_, first)) = shards.first() else {
        return Err(PipelineError::Shards("no shard directory given".into()));
    };
    if config.echo(false) != first.job.config {
        return Err(PipelineError::Shards(format!(
            "{} is not the configuration the shards ran (it changed since)",
            first.config_file
        )));
    }
    let known = known_duplicates(shards, first.job.buckets, dedup_dir)
        .map_err(|e| PipelineError::Shards(e.to_string()))?;
    let total = first.job.file_records.iter().sum();
    let mut logs = shards.iter().map(|(dir, _)| dir.join(OUTCOME_LOG));
    let mut current: Option<OutcomeLogReader> = None;
    let next_batch = move || -> io::Result<Option<LoggedBatch>> {
        loop {
            if let Some(log) = current.as_mut() {
                if let Some(b) = log.next_batch()? {
                    return Ok(Some(b));
                }
            }
            match logs.next() {
                Some(path) => current = Some(OutcomeLogReader::open(&path)?),
                None => return Ok(None),
            }
        }
    };
    replay(config, total, known, next_batch)
}

/// The job's duplicates in index order: `None` with dedup off; from the lists in
/// `dedup_dir`; or reduced here from one bucket's runs.
fn known_duplicates(
    shards: &[(PathBuf, ShardManifest)],
    m: u32,
    dedup_dir: Option<&Path>,
) -> io::Result<Option<KnownDuplicates>> {
    let source: Box<dyn Iterator<Item = io::Result<Duplicate>> + Send> = match (m, dedup_dir) {
        (0, _) => return Ok(None),
        (_, Some(dir)) => {
            let mut readers = Vec::with_capacity(m as usize);
            for j in 0..m {
                readers.push(DupListReader::open(&dir.join(dup_list_name(j, m)), j, m)?);
            }
            Box::new(DupMerge::new(readers)?)
        }
        (1, None) => {
            let mut readers = Vec::with_capacity(shards.len());
            for (dir, _) in shards {
                let path = dir.join("keys").join(run_name(0, 1));
                readers.push(KeyRunReader::open(&path, 0, 1)?);
            }
            let (_, mut dups) = merge_runs(&mut readers)?;
            dups.sort_unstable();
            Box::new(dups.into_iter().map(Ok))
        }
        (m, None) => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "the shards wrote their dedup keys in {m} buckets: run the reduce \
                     (`posfilter merge --dedup-partition J/{m} ...`) for each bucket J and give \
                     its directory with --dedup"
                ),
            ))
        }
    };
    KnownDuplicates::new(source).map(Some)
}

/// The duplicates of `M` lists (each ascending by index) in one ascending stream.
struct DupMerge {
    readers: Vec<DupListReader>,
    heap: BinaryHeap<Reverse<(Duplicate, usize)>>,
}

impl DupMerge {
    fn new(mut readers: Vec<DupListReader>) -> io::Result<DupMerge> {
        let mut heap = BinaryHeap::with_capacity(readers.len());
        for (i, r) in readers.iter_mut().enumerate() {
            if let Some(d) = r.next_dup()? {
                heap.push(Reverse((d, i)));
            }
        }
        Ok(DupMerge { readers, heap })
    }
}

impl Iterator for DupMerge {
    type Item = io::Result<Duplicate>;

    fn next(&mut self) -> Option<io::Result<Duplicate>> {
        let Reverse((d, i)) = self.heap.pop()?;
        match self.readers[i].next_dup() {
            Ok(Some(next)) => self.heap.push(Reverse((next, i))),
            Ok(None) => {}
            Err(e) => return Some(Err(e)),
        }
        Some(Ok(d))
    }
}

//! The dedup reduce of one key bucket (`posfilter merge --dedup-partition J/M SHARD_DIRS...
//! --out DEDUP_DIR`): merges bucket `J`'s sorted key run of every shard in one streaming
//! pass and writes the duplicate list of that bucket ([`crate::io::dup_list`]).
//!
//! # What it decides
//! Exactly what one run's dedup index decides, bucket by bucket: a run keeps the first
//! record (in input order) of each position among the records the other stages keep, and
//! drops every later one as a duplicate of it; a position of a reference pool is a
//! duplicate wherever it occurs. The runs hold every such record's key and global index
//! (and reference pools' keys with index `REFERENCE`), so for each key the smallest index
//! wins and every other index is a duplicate of it, or of the reference pool when the key
//! has a reference entry.
//!
//! # Memory
//! The merge holds one read buffer per shard (64 KiB); the duplicates found are sorted by
//! index before they are written, so the bucket's duplicates are in memory at the end:
//! [`DUP_BYTES`] each, about 1/`M` of the job's duplicates.

use super::manifest::ShardManifest;
use crate::io::dup_list::{dup_list_name, write_dup_list, Duplicate};
use crate::io::key_run::{run_name, KeyEntry, KeyRunReader, REFERENCE};
use crate::io::output::OutputLock;
use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;
use std::io;
use std::path::{Path, PathBuf};

pub use crate::io::dup_list::DUP_BYTES;

/// What one bucket's reduce read and found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReduceCounts {
    /// Entries read from the shards' runs (reference keys included).
    pub entries: u64,
    /// Distinct keys among them.
    pub keys: u64,
    /// Records found to be duplicates.
    pub duplicates: u64,
}

/// Reduces bucket `j` of `m` over `shards` (complete, in shard order) and writes its
/// duplicate list into `out_dir`; returns what it counted.
pub fn reduce_bucket(
    shards: &[(PathBuf, ShardManifest)],
    j: u32,
    m: u32,
    out_dir: &Path,
) -> io::Result<ReduceCounts> {
    // One writer per list: the reduce tasks of a job share `out_dir`, each holding the lock
    // of its own list while it reads and writes (a second task given the same bucket stops).
    std::fs::create_dir_all(out_dir)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", out_dir.display())))?;
    let lock_name = format!("{}.lock", dup_list_name(j, m));
    let purpose = format!("posfilter merge --dedup-partition {j}/{m}");
    let lock =
        OutputLock::acquire_named(out_dir, &lock_name, &purpose).map_err(io::Error::other)?;
    if let Some(notice) = lock.takeover_notice() {
        crate::pipeline::progress::warn(&notice);
    }
    let mut readers = Vec::with_capacity(shards.len());
    for (dir, _) in shards {
        readers.push(KeyRunReader::open(
            &dir.join("keys").join(run_name(j, m)),
            j,
            m,
        )?);
    }
    let (counts, mut dups) = merge_runs(&mut readers)?;
    dups.sort_unstable();
    write_dup_list(&out_dir.join(dup_list_name(j, m)), j, m, &dups)?;
    Ok(counts)
}

/// Merges sorted runs and decides each key's group (see the module); the duplicates come
/// out in key order.
pub fn merge_runs(readers: &mut [KeyRunReader]) -> io::Result<(ReduceCounts, Vec<Duplicate>)> {
    let mut heap: BinaryHeap<Reverse<(KeyEntry, usize)>> = BinaryHeap::new();
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some(e) = r.next_entry()? {
            heap.push(Reverse((e, i)));
        }
    }
    let mut counts = ReduceCounts::default();
    let mut dups = Vec::new();
    // The current key's group: its first record and whether a reference pool holds it.
    let mut group: Option<(u128, u64)> = None;
    let mut pending: Vec<u64> = Vec::new();
    while let Some(mut top) = heap.peek_mut() {
        let Reverse((e, i)) = *top;
        counts.entries += 1;
        // The run's next entry takes the top's place: one sift instead of a pop and a push.
        match readers[i].next_entry()? {
            Some(next) => *top = Reverse((next, i)),
            None => drop(PeekMut::pop(top)),
        }
        match group {
            Some((key, _)) if key == e.key => pending.push(e.index),
            _ => {
                close_group(group, &mut pending, &mut dups);
                counts.keys += 1;
                group = Some((e.key, e.index));
            }
        }
    }
    close_group(group, &mut pending, &mut dups);
    counts.duplicates = dups.len() as u64;
    Ok((counts, dups))
}

/// Ends a key's group: entries come sorted by index, reference entries (the largest index)
/// last, so the first entry is the first record unless the group ends with a reference.
fn close_group(group: Option<(u128, u64)>, rest: &mut Vec<u64>, dups: &mut Vec<Duplicate>) {
    let Some((_, first)) = group else {
        return;
    };
    let referenced = first == REFERENCE || rest.last() == Some(&REFERENCE);
    let winner = if referenced { REFERENCE } else { first };
    for &index in std::iter::once(&first).chain(rest.iter()) {
        if index != REFERENCE && (referenced || index != first) {
            dups.push(Duplicate {
                index,
                first: winner,
            });
        }
    }
    rest.clear();
}

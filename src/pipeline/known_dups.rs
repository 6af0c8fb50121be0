//! Duplicates decided outside the commit (by the dedup reduce of a job split over tasks),
//! handed to the commit in index order instead of its own dedup index.
//!
//! # Invariants
//! The commit asks about each kept record with a dedup key once, in input order; every
//! listed index must be asked about (a listed record the commit never saw kept means the
//! lists belong to another job, and is refused, as is a list out of order).

use crate::io::dup_list::Duplicate;
use std::io;

/// The duplicates of a whole input, ascending by index.
pub(crate) struct KnownDuplicates {
    source: Box<dyn Iterator<Item = io::Result<Duplicate>> + Send>,
    next: Option<Duplicate>,
}

impl KnownDuplicates {
    /// Takes `source` (ascending by index).
    pub(crate) fn new(
        mut source: Box<dyn Iterator<Item = io::Result<Duplicate>> + Send>,
    ) -> io::Result<KnownDuplicates> {
        let next = source.next().transpose()?;
        Ok(KnownDuplicates { source, next })
    }

    /// For the kept record `index` (asked in ascending order): the index of the first
    /// record with its position (`u64::MAX`: a reference pool) if it is a duplicate.
    pub(crate) fn first_of(&mut self, index: u64) -> io::Result<Option<u64>> {
        match self.next {
            Some(d) if d.index < index => Err(not_kept(d.index)),
            Some(d) if d.index == index => {
                let following = self.source.next().transpose()?;
                if let Some(f) = following.filter(|f| f.index <= d.index) {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "the duplicate lists are out of order ({} after {})",
                            f.index, d.index
                        ),
                    ));
                }
                self.next = following;
                Ok(Some(d.first))
            }
            _ => Ok(None),
        }
    }

    /// Checks that every listed duplicate was met.
    pub(crate) fn finish(self) -> io::Result<()> {
        match self.next {
            Some(d) => Err(not_kept(d.index)),
            None => Ok(()),
        }
    }
}

fn not_kept(index: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "the duplicate lists name record {index}, which no shard kept with a dedup key: \
             they belong to another job"
        ),
    )
}

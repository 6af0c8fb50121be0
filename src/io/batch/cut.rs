//! Where a batch of fixed-size records ends ([`CutRule`]): the one rule that the file reader
//! ([`super::Batches`]), the shard plan ([`crate::io::shard_plan`]) and the in-memory
//! decider (`pipeline::Decider`, what Python's `decide` calls) all cut by, so that a record
//! has the same batch, and so the same game history, whichever of them handles it.
//!
//! # The rule
//! A batch that starts at record `at` of its file (counting from 0 at the file's start)
//! ends at the next multiple of [`BatchOptions::records`]. With game alignment (psv by
//! gamePly, hcpe by the chain of best moves) it then goes on, record by record, until a
//! record starts a game, by at most [`MAX_ALIGN_EXTRA`] records; a record shorter than the
//! format's size (a truncated tail) starts nothing.

use super::records::BatchOptions;
use crate::codec::game::infer;
use crate::codec::psfen::psv_game_ply;
use crate::codec::Format;

/// Whether the record `next` starts a game after the record `last` (both of one format).
pub(crate) type StartsGame = fn(&[u8], &[u8]) -> bool;

/// The most records a batch of psv or hcpe goes on past its size to end at a game start
/// (a psv game has at most 65,536 records; an hcpe chain of best moves can be made to
/// repeat forever, so it is cut there).
pub(crate) const MAX_ALIGN_EXTRA: usize = 1 << 16;

/// How a fixed-size format tells a game start from the record before it: psv by gamePly,
/// hcpe by the chain of best moves; the others do not.
pub(crate) fn starts_game(format: Format) -> Option<StartsGame> {
    match format {
        Format::Psv => Some(|last, next| {
            psv_game_ply(next)
                .zip(psv_game_ply(last))
                .is_some_and(|(c, p)| c <= p)
        }),
        Format::Hcpe => Some(|last, next| !infer::chained(last, next)),
        _ => None,
    }
}

/// The batch-cut rule of one file of fixed-size records (see the module).
///
/// Invariant: `records >= 1`; `aligned` is set only for a format that has game starts and
/// options that ask for alignment.
#[derive(Clone, Copy)]
pub(crate) struct CutRule {
    /// Bytes of one record.
    size: usize,
    /// Records per batch before alignment.
    records: u64,
    /// With game alignment: how a record tells a game start.
    aligned: Option<StartsGame>,
}

impl CutRule {
    /// The rule for records of `format` (fixed-size; `size` is its record size) cut with
    /// `opts`.
    pub(crate) fn new(format: Format, size: usize, opts: BatchOptions) -> CutRule {
        CutRule {
            size,
            records: opts.records.max(1) as u64,
            aligned: starts_game(format).filter(|_| opts.align_games),
        }
    }

    /// Records from file record `at` up to the next multiple of the batch size (at least 1):
    /// the batch's length before alignment.
    pub(crate) fn base_len(&self, at: u64) -> u64 {
        self.records - at % self.records
    }

    /// Whether the batch goes on past its base length to a game start.
    pub(crate) fn is_aligned(&self) -> bool {
        self.aligned.is_some()
    }

    /// Whether an aligned batch that has gone `extra` records past its base length may take
    /// one more.
    pub(crate) fn may_extend(&self, extra: usize) -> bool {
        self.aligned.is_some() && extra < MAX_ALIGN_EXTRA
    }

    /// Whether `next`, after `last`, starts a game, so an aligned batch ends before it (a
    /// truncated record starts nothing).
    pub(crate) fn starts_game(&self, last: &[u8], next: &[u8]) -> bool {
        next.len() == self.size && self.aligned.is_some_and(|starts| starts(last, next))
    }

    /// The end (exclusive) of the batch that starts at `at` among the records of one file
    /// held in memory (`records[i]` is the file's record `i`; `at < records.len()`).
    pub(crate) fn end_in(&self, records: &[&[u8]], at: usize) -> usize {
        let n = records.len();
        let base = usize::try_from(self.base_len(at as u64)).unwrap_or(usize::MAX);
        let mut end = n.min(at.saturating_add(base));
        let mut extra = 0;
        while end < n && self.may_extend(extra) && !self.starts_game(records[end - 1], records[end])
        {
            end += 1;
            extra += 1;
        }
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A psv record with this gamePly (only the ply matters to the rule).
    fn psv(ply: u16) -> Vec<u8> {
        let mut r = vec![0u8; 40];
        r[36..38].copy_from_slice(&ply.to_le_bytes());
        r
    }

    fn rule(format: Format, records: usize) -> CutRule {
        let opts = BatchOptions {
            records,
            align_games: true,
        };
        CutRule::new(format, format.record_size().unwrap_or(1), opts)
    }

    #[test]
    fn a_psv_batch_ends_at_the_first_game_start_at_or_after_its_size() {
        let plies = [1, 2, 3, 1, 2, 3, 4, 5, 1, 2];
        let recs: Vec<Vec<u8>> = plies.iter().map(|&p| psv(p)).collect();
        let refs: Vec<&[u8]> = recs.iter().map(|r| &r[..]).collect();
        let r = rule(Format::Psv, 4);
        assert_eq!(r.end_in(&refs, 0), 8); // 4 is inside a game: on to the start at 8
        assert_eq!(r.end_in(&refs, 8), 10);
        // A batch starting mid-way ends at the next multiple (here 4), then aligns.
        assert_eq!(rule(Format::Psv, 4).end_in(&refs, 3), 8);
    }

    #[test]
    fn a_truncated_tail_starts_no_game_and_other_formats_never_align() {
        let mut recs: Vec<Vec<u8>> = [1, 2].iter().map(|&p| psv(p)).collect();
        recs.push(vec![0u8; 7]);
        let refs: Vec<&[u8]> = recs.iter().map(|r| &r[..]).collect();
        assert_eq!(rule(Format::Psv, 2).end_in(&refs, 0), 3);
        assert_eq!(rule(Format::Psfen, 2).end_in(&refs, 0), 2);
        assert!(!rule(Format::Psfen, 2).is_aligned());
    }
}

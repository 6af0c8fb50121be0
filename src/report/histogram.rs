//! The histograms report.json carries (`histograms.*`): how many values fell in each bucket,
//! written sparse, each bucket with its own bounds so that a reader needs no knowledge of
//! the bucketing to plot or sum them.
//!
//! # Buckets
//! - [`Scale::Exact`]: one bucket per value, `[v, v + 1)` (mate lengths in plies).
//! - [`Scale::LeadingDigit`]: a value's leading decimal digit and its magnitude,
//!   `[d·10^k, (d+1)·10^k)`, plus `[0, 1)`: nine buckets a decade whose bounds are round
//!   numbers (1,000, 2,000 … 9,000, 10,000, 20,000 …), so every budget users pick (10k, 50k,
//!   100k, 1M) and half of it are bucket bounds, and "what share needed fewer than x nodes"
//!   is exact there. Widths run from 100 % of the bucket's start (at 1) down to 11 % (at 9).
//!
//! # Invariants
//! `buckets` are sorted by `lo`, disjoint, and each has `n > 0`; `count` is the sum of the
//! `n`, `sum` the sum of the values recorded and `max` the largest (0 when empty).

use serde::{Deserialize, Serialize};

/// How values are bucketed (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// One bucket per value.
    Exact,
    /// `[d·10^k, (d+1)·10^k)` for the leading digit `d` of the value; `[0, 1)` for 0.
    LeadingDigit,
}

impl Scale {
    /// The bucket `[lo, hi)` holding `v`.
    pub fn bucket(self, v: u64) -> (u64, u64) {
        match self {
            Scale::Exact => (v, v.saturating_add(1)),
            Scale::LeadingDigit => {
                if v == 0 {
                    return (0, 1);
                }
                let mut unit = 1u64;
                while v / unit >= 10 {
                    unit *= 10;
                }
                let lo = v / unit * unit;
                (lo, lo.saturating_add(unit))
            }
        }
    }
}

/// One non-empty bucket: `n` values `v` with `lo <= v < hi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bucket {
    /// Smallest value the bucket holds.
    pub lo: u64,
    /// One past the largest value it holds.
    pub hi: u64,
    /// Values recorded in it (> 0).
    pub n: u64,
}

/// Counts of values in buckets (see the module doc for the invariants).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Histogram {
    /// Values recorded.
    pub count: u64,
    /// Their sum.
    pub sum: u64,
    /// The largest value recorded (0 when empty).
    pub max: u64,
    /// Non-empty buckets, in increasing order.
    pub buckets: Vec<Bucket>,
}

impl Histogram {
    /// Records one value on `scale`.
    pub fn record(&mut self, v: u64, scale: Scale) {
        let (lo, hi) = scale.bucket(v);
        self.add(Bucket { lo, hi, n: 1 });
        self.sum = self.sum.saturating_add(v);
        self.max = self.max.max(v);
    }

    /// Adds every bucket, count, sum and max of `other` (a histogram of the same quantity
    /// on the same scale: another part of the same run).
    pub fn merge(&mut self, other: &Histogram) {
        for b in &other.buckets {
            self.add(*b);
        }
        self.sum = self.sum.saturating_add(other.sum);
        self.max = self.max.max(other.max);
    }

    /// Whether no value was recorded.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Values recorded below `x` (exact at bucket bounds; a bucket that `x` cuts counts in
    /// full only if `hi <= x`).
    pub fn count_below(&self, x: u64) -> u64 {
        self.buckets.iter().filter(|b| b.hi <= x).map(|b| b.n).sum()
    }

    /// `n` more values in bucket `b` (count updated; sum and max are the caller's).
    fn add(&mut self, b: Bucket) {
        if b.n == 0 {
            return;
        }
        self.count += b.n;
        match self.buckets.binary_search_by_key(&b.lo, |x| x.lo) {
            Ok(at) => self.buckets[at].n += b.n,
            Err(at) => self.buckets.insert(at, b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_digit_buckets_have_round_bounds() {
        let s = Scale::LeadingDigit;
        assert_eq!(s.bucket(0), (0, 1));
        assert_eq!(s.bucket(1), (1, 2));
        assert_eq!(s.bucket(9), (9, 10));
        assert_eq!(s.bucket(10), (10, 20));
        assert_eq!(s.bucket(99_999), (90_000, 100_000));
        assert_eq!(s.bucket(100_000), (100_000, 200_000));
        assert_eq!(s.bucket(100_537), (100_000, 200_000));
        assert_eq!(s.bucket(5_000), (5_000, 6_000));
        assert_eq!(s.bucket(u64::MAX).0, 10_000_000_000_000_000_000);
        // Every value lies in its bucket, and the bucket of a bound is the bucket it opens.
        for v in (0..200_000u64).step_by(7).chain([999, 1000, 1001]) {
            let (lo, hi) = s.bucket(v);
            assert!(lo <= v && v < hi, "{v}: [{lo}, {hi})");
            assert_eq!(s.bucket(lo), (lo, hi));
        }
    }

    #[test]
    fn record_keeps_buckets_sorted_and_counts_consistent() {
        let mut h = Histogram::default();
        let values = [5u64, 17, 0, 1200, 17, 99, 5, 100_000, 3];
        for v in values {
            h.record(v, Scale::LeadingDigit);
        }
        assert_eq!(h.count, values.len() as u64);
        assert_eq!(h.sum, values.iter().sum::<u64>());
        assert_eq!(h.max, 100_000);
        assert_eq!(h.buckets.iter().map(|b| b.n).sum::<u64>(), h.count);
        assert!(h.buckets.windows(2).all(|w| w[0].hi <= w[1].lo));
        // Values below 10: 5, 0, 5, 3.
        assert_eq!(h.count_below(10), 4);
        assert_eq!(h.count_below(100), 7);
        assert_eq!(h.count_below(200_000), 9);
    }

    #[test]
    fn merging_two_parts_equals_recording_all() {
        let (mut a, mut b, mut all) = <(Histogram, Histogram, Histogram)>::default();
        for v in 0..500u64 {
            let v = v * v % 997;
            let part: &mut Histogram = if v % 3 == 0 { &mut a } else { &mut b };
            part.record(v, Scale::Exact);
            all.record(v, Scale::Exact);
        }
        let mut merged: Histogram = a.clone();
        merged.merge(&b);
        assert_eq!(merged, all);
        let json = serde_json::to_string(&all).unwrap();
        assert_eq!(serde_json::from_str::<Histogram>(&json).unwrap(), all);
    }
}

//! Sorting a bucket of dedup key entries for its run: by key, then index, as
//! `sort_unstable` orders them, in a fraction of its comparisons. Dedup keys are hashes, so
//! one in-place pass that files each entry by the leading 16 significant bits of its key
//! (between the bucket's smallest and largest key) leaves parts of a dozen entries or so,
//! each then sorted by comparison.
//!
//! # Invariants
//! The result is exactly the order of `sort_unstable` (entries equal in key and index are
//! equal); the sort needs no second copy of the entries, only two tables of 2^16 counts.

/// Bits of the key that file an entry in the first pass.
const DIGIT_BITS: u32 = 16;
const DIGITS: usize = 1 << DIGIT_BITS;

/// Sorts `entries` as `sort_unstable` does, whose order must be that of `key` first (a key
/// entry's: by key, then index; see the module).
pub(crate) fn sort_by_key_first<T: Ord>(entries: &mut [T], key: impl Fn(&T) -> u128) {
    if entries.len() < DIGITS {
        entries.sort_unstable();
        return;
    }
    let (lo, hi) = entries.iter().fold((u128::MAX, 0u128), |(lo, hi), e| {
        (lo.min(key(e)), hi.max(key(e)))
    });
    // Every digit is below 2^16: the span's significant bits shifted down to 16.
    let shift = (u128::BITS - (hi - lo).leading_zeros()).saturating_sub(DIGIT_BITS);
    let digit = |e: &T| ((key(e) - lo) >> shift) as usize;
    let mut ends = vec![0usize; DIGITS];
    for e in entries.iter() {
        ends[digit(e)] += 1;
    }
    let mut next = vec![0usize; DIGITS];
    let mut at = 0;
    for d in 0..DIGITS {
        next[d] = at;
        at += ends[d];
        ends[d] = at;
    }
    // Each part's next free slot walks up to its end; an entry found in another digit's
    // part is swapped into that part's next free slot.
    for d in 0..DIGITS {
        while next[d] < ends[d] {
            let t = digit(&entries[next[d]]);
            if t == d {
                next[d] += 1;
            } else {
                entries.swap(next[d], next[t]);
                next[t] += 1;
            }
        }
    }
    let mut start = 0;
    for &end in &ends {
        entries[start..end].sort_unstable();
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::key_run::KeyEntry;

    /// A small deterministic generator (splitmix64).
    fn mix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn check(mut entries: Vec<KeyEntry>) {
        let mut want = entries.clone();
        want.sort_unstable();
        sort_by_key_first(&mut entries, |e| e.key);
        assert_eq!(entries, want);
    }

    #[test]
    fn the_order_is_sort_unstables() {
        let mut s = 7;
        for n in [0, 1, 5, DIGITS - 1, DIGITS, 300_000] {
            // Hash keys, a quarter repeated with later indices, some reference entries.
            let mut v: Vec<KeyEntry> = (0..n as u64)
                .map(|i| KeyEntry {
                    key: (u128::from(mix(&mut s)) << 64) | u128::from(mix(&mut s)),
                    index: i,
                })
                .collect();
            for i in 0..n / 4 {
                let key = v[(mix(&mut s) % n as u64) as usize].key;
                let index = if i % 7 == 0 {
                    u64::MAX
                } else {
                    n as u64 + i as u64
                };
                v.push(KeyEntry { key, index });
            }
            check(v);
        }
    }

    #[test]
    fn narrow_or_skewed_keys_sort_too() {
        let mut s = 11;
        // One bucket of many (a narrow range of top bits), keys differing only in low bits,
        // all keys equal, and two far-apart clusters.
        let narrow = (0..200_000u64)
            .map(|i| KeyEntry {
                key: (5u128 << 100) | u128::from(mix(&mut s) >> 20),
                index: i,
            })
            .collect();
        check(narrow);
        let low = (0..100_000u64).map(|i| KeyEntry {
            key: u128::from(mix(&mut s) % 1000),
            index: i,
        });
        check(low.collect());
        check(vec![KeyEntry { key: 42, index: 3 }; 70_000]);
        let clusters = (0..150_000u64)
            .map(|i| KeyEntry {
                key: if i % 2 == 0 {
                    u128::from(i)
                } else {
                    u128::MAX - u128::from(i)
                },
                index: i,
            })
            .collect();
        check(clusters);
    }
}

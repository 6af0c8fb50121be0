//! Proof and disproof numbers ([`PnDn`]) and their saturating arithmetic.
//!
//! # Invariants
//! - `0` means proven (pn) or disproven (dn); [`INF`] is the other half of a final pair.
//! - Sums of finite numbers saturate at [`MAX_FINITE`], so a non-final node never reaches
//!   [`INF`] by accumulation: only a real (dis)proof produces `INF`.

/// A proof or disproof number.
pub type PnDn = u32;

/// Infinity: the pn of a disproven node or the dn of a proven node.
pub const INF: PnDn = u32::MAX;

/// The largest value a non-final number can take.
pub const MAX_FINITE: PnDn = u32::MAX - 1;

/// Saturating sum of two numbers: `INF` if either is `INF`, else capped at [`MAX_FINITE`].
#[inline(always)]
pub fn add(a: PnDn, b: PnDn) -> PnDn {
    if a == INF || b == INF {
        INF
    } else {
        a.saturating_add(b).min(MAX_FINITE)
    }
}

/// Child threshold `th - total + child` computed without overflow (an `INF` threshold stays
/// `INF`); the result is at least `child + 1` so the child always gets room to work.
#[inline(always)]
pub fn sum_threshold(th: PnDn, total: PnDn, child: PnDn) -> PnDn {
    if th == INF {
        return INF;
    }
    let v = th as u64 + child as u64 - (total as u64).min(th as u64 + child as u64);
    v.min(MAX_FINITE as u64) as PnDn
}

/// Child threshold for the minimised number: `min(th, second * (1 + 1/4) + 1)`, the
/// "1 + ε" trick (Pawlewicz and Lew): a child may overshoot its sibling by a quarter
/// before the parent switches, which cuts the re-expansion thrashing of plain df-pn
/// (measured: 37% to 70% fewer nodes on the seed-003 positions, docs/references.md).
#[inline(always)]
pub fn min_threshold(th: PnDn, second: PnDn) -> PnDn {
    th.min(second.saturating_add(second / 4).saturating_add(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturation() {
        assert_eq!(add(MAX_FINITE, 5), MAX_FINITE);
        assert_eq!(add(INF, 0), INF);
        assert_eq!(add(3, 4), 7);
        assert_eq!(sum_threshold(INF, 10, 3), INF);
        assert_eq!(sum_threshold(20, 10, 3), 13);
        assert_eq!(min_threshold(10, 3), 4);
        assert_eq!(min_threshold(10, INF), 10);
    }
}

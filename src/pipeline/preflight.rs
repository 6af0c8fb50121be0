//! Checks made before a run starts about what would otherwise fail later: a dedup index
//! that cannot fit in this machine's memory (a warning), and solver tables that cannot
//! (an error: they are allocated and touched when the workers start).
//!
//! The index ([`crate::filter::FirstSeen`]) holds 16 bytes per distinct position in tables
//! at most 70 % full; the record count of binary inputs bounds the distinct positions from
//! above, and their size on disk bounds the record count from below (a compressed file
//! holds at least its size in records' bytes). So the warning is given only when even that
//! lower bound, all distinct, would not fit: it can miss a run that will not fit, never cry
//! wolf on one that will.

use crate::filter::FirstSeen;
use crate::io::detect::Detection;
use indicatif::{BinaryBytes, HumanCount};

/// Share of the available memory the index may take before the warning (the rest is for
/// the solver tables, batches in flight and the page cache).
const SHARE_OF_AVAILABLE: f64 = 0.75;

/// The fewest records `inputs` can hold: binary files by their size on disk (compressed
/// ones at a compression ratio of 1); text files count 0 (line lengths vary too much).
pub(crate) fn records_at_least(inputs: &[Detection]) -> u64 {
    inputs
        .iter()
        .filter_map(|d| {
            d.format
                .record_size()
                .map(|size| d.file_bytes / size as u64)
        })
        .sum()
}

/// The warning for a run whose dedup index would need more than three quarters of
/// `available` bytes if `records` positions were all distinct; `None` when it fits or the
/// available memory is unknown.
pub(crate) fn dedup_memory_warning(records: u64, available: Option<u64>) -> Option<String> {
    let available = available?;
    let need = FirstSeen::bytes_for(records);
    (need as f64 > SHARE_OF_AVAILABLE * available as f64).then(|| {
        format!(
            "the input holds at least {} records; if most are distinct positions the dedup \
             index needs about {}, and this machine has {} available. Turn [filter.dedup] \
             off, or run the input in parts (see the README on dedup memory)",
            HumanCount(records),
            BinaryBytes(need),
            BinaryBytes(available)
        )
    })
}

/// Bytes of `threads` df-pn tables of `table_mb` MiB each plus a `cache_mb` MiB verdict
/// cache (saturating: never overflows).
pub fn solver_bytes(threads: usize, table_mb: usize, cache_mb: usize) -> u64 {
    let mib = 1u64 << 20;
    let tables = (threads as u64)
        .saturating_mul(table_mb as u64)
        .saturating_mul(mib);
    tables.saturating_add((cache_mb as u64).saturating_mul(mib))
}

/// The error for a run whose df-pn tables (`threads` × `table_mb` MiB, every page touched
/// when the workers start) and verdict cache (`cache_mb` MiB) would need more than the
/// `available` bytes; `None` when they fit or the available memory is unknown.
pub(crate) fn solver_memory_error(
    threads: usize,
    table_mb: usize,
    cache_mb: usize,
    available: Option<u64>,
) -> Option<String> {
    let available = available?;
    let need = solver_bytes(threads, table_mb, cache_mb);
    (need > available).then(|| {
        format!(
            "the mate filter's tables need {} ({} worker thread(s) × {} MiB, \
             `workers.table_mb`; plus the {} MiB verdict cache, `filter.mate.cache_mb`), and \
             this machine has {} available. Use fewer threads (`workers.threads` or \
             --threads) or a smaller `workers.table_mb`",
            BinaryBytes(need),
            threads,
            table_mb,
            cache_mb,
            BinaryBytes(available)
        )
    })
}

/// Memory available to new allocations without swapping, from `/proc/meminfo`
/// (`MemAvailable`); `None` where that is not known.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_mem_available(&text)
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Format;

    const GIB: u64 = 1 << 30;

    #[test]
    fn warns_only_when_the_lower_bound_cannot_fit() {
        // 4 M records: about 128 MiB of index.
        assert_eq!(dedup_memory_warning(4_000_000, Some(24 * GIB)), None);
        // 300 M all distinct: 8 GiB of slots; fits in 24 GiB, not in 8.
        assert_eq!(dedup_memory_warning(300_000_000, Some(24 * GIB)), None);
        let w = dedup_memory_warning(300_000_000, Some(8 * GIB)).unwrap_or_default();
        assert!(
            w.contains("300,000,000 records") && w.contains("GiB available"),
            "{w}"
        );
        // 1.5 billion: 64 GiB of slots (5.9 M keys a shard round up to 2^24 slots).
        assert!(dedup_memory_warning(1_500_000_000, Some(24 * GIB)).is_some());
        assert_eq!(dedup_memory_warning(u64::MAX / 2, None), None);
    }

    #[test]
    fn binary_inputs_bound_the_record_count_from_below() {
        let d = |format, compressed, file_bytes| Detection {
            format,
            compressed,
            file_bytes,
            reasons: Vec::new(),
        };
        let inputs = [
            d(Format::Psfen, false, 320),
            d(Format::Psv, true, 400),
            d(Format::Sfen, false, 1 << 20),
            d(Format::Hcpe, false, 37),
        ];
        assert_eq!(records_at_least(&inputs), 10 + 10);
    }

    #[test]
    fn solver_tables_must_fit_in_available_memory() {
        let gib = 1u64 << 30;
        // 16 threads × 1 GiB + a 64 MiB cache: fits in 17 GiB, not in 16.
        assert_eq!(solver_memory_error(16, 1024, 64, Some(17 * gib)), None);
        let e = solver_memory_error(16, 1024, 64, Some(16 * gib)).unwrap_or_default();
        assert!(
            e.contains("16.06 GiB") && e.contains("16 worker thread(s) × 1024 MiB"),
            "{e}"
        );
        assert!(
            e.contains("workers.threads") && e.contains("16.00 GiB available"),
            "{e}"
        );
        assert_eq!(solver_memory_error(16, 1024, 64, None), None);
        assert!(solver_memory_error(usize::MAX, 65536, 65536, Some(u64::MAX - 1)).is_some());
    }

    #[test]
    fn mem_available_is_read_in_bytes() {
        let text = "MemTotal:       24576000 kB\nMemFree:  100 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(parse_mem_available(text), Some(20_000_000 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 1 kB\n"), None);
        assert_eq!(parse_mem_available("MemAvailable: lots\n"), None);
    }
}

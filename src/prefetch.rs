//! Cache prefetch hints for tables far larger than the CPU caches (the solver's
//! transposition table, the pipeline's dedup index).
//!
//! A prefetch asks the CPU to start loading a line and returns at once: unlike a plain load
//! it never stalls the instructions after it, so a loop of them keeps many misses in flight
//! while the code goes on. It has no effect a program can observe, and on targets without
//! the instruction it compiles to nothing.

/// Hints the CPU to load every cache line of `value` into all cache levels.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        // Every 64-byte line the value touches (a small value may straddle two).
        let start = value as *const T as usize;
        let last = start + std::mem::size_of::<T>().max(1) - 1;
        let mut at = start & !63;
        while at <= last {
            line(at as *const i8);
            at += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn line(p: *const i8) {
    // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 CPU has (part of the target's
    // baseline). A prefetch is a hint that never faults, even on an invalid address, and
    // has no effect the program can observe; `p` is a line of a live reference anyway.
    #[allow(unsafe_code)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p);
    }
}

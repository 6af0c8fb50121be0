//! Transparent huge pages for tables far larger than the CPU's TLB reach (the solver's
//! transposition table).
//!
//! A random probe into a table of hundreds of megabytes on 4 KiB pages misses the TLB
//! almost every time, and the page walk that follows is itself a chain of memory loads.
//! Backed by 2 MiB pages the same table needs a few hundred TLB entries instead of tens of
//! thousands. Linux only backs an anonymous region with huge pages everywhere when
//! `/sys/kernel/mm/transparent_hugepage/enabled` is `always`; the common default `madvise`
//! needs the request made here. The advice is only a hint: it never changes the contents
//! or what a program can observe, and where it is refused or unsupported nothing happens.
//!
//! Measured on the mate bench (2,000 positions, one run each, best of 2–3): with a 64 MiB
//! table (the pipeline's default) 1.53 → 1.47 s at 10,000 nodes and 5.97 → 5.78 s at
//! 100,000; with 16 MiB about 2 %. The pipeline's dedup index does not use it: its inserts
//! got 15 % faster, but the first touch of a fresh huge-page region can wait for the
//! kernel to compact memory (once 0.7 s for 192 MiB), which a run pays on every growth.

/// Asks the kernel to back `buf` with transparent huge pages. Call it before the memory is
/// first touched (a fresh zeroed allocation is not mapped yet), so that the first faults
/// map huge pages directly. Only the 2 MiB-aligned part of `buf` can be backed.
pub fn advise<T>(buf: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = buf.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(buf);
        let from = start.next_multiple_of(HUGE);
        let to = end & !(HUGE - 1);
        if to > from {
            // SAFETY: `[from, to)` lies inside `buf`, memory this process owns and holds a
            // unique borrow of, and is page aligned as madvise requires. MADV_HUGEPAGE only
            // changes how the kernel backs the pages, never their contents; a failure (for
            // example a kernel without THP) is ignored because the advice is optional.
            #[allow(unsafe_code)]
            unsafe {
                libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

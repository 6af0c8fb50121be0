//! The transposition-table entry ([`Entry`]): 20 bytes, asserted at compile time. The
//! entry's key lives in its cluster's tag line (see `table.rs`), so a lookup reads one
//! 64-byte line of tags and touches an entry only on a match.
//!
//! # Layout
//! ```text
//! offset  size  field
//!      0     4  hand     attacker's hand: the node's own hand while unknown, the proof hand
//!                        once proven (pn = 0), the disproof hand once disproven (dn = 0)
//!      4     4  pn
//!      8     4  dn
//!     12     4  amount   nodes spent below this entry (saturating), replacement priority
//!     16     2  len      plies of the proof found (proven entries), for PV preference;
//!                        for a disproof, 0 if it holds at any length, else 1 + the plies
//!                        within which no mate exists (a disproof under a mate-length cap)
//!     18     2  gen      table generation; an entry of another generation is empty
//! ```
//! A cluster is 8 tags (u64: salted board key XOR a generation mix) followed by 8 entries:
//! 64 + 160 = 224 bytes, padded to 256 (four cache lines, 64-byte aligned).
//!
//! # Lifecycle
//! An entry is *live* when `gen` equals the table's current generation (never 0); any
//! other entry is free. Live entries are unknown (`pn, dn > 0`), proven (`pn == 0`),
//! disproven (`dn == 0`, `len == 0`) or disproven within a length (`dn == 0`, `len > 0`:
//! no mate within `len - 1` plies, shown under a mate-length cap). Proven and disproven
//! entries are final; none of the four ever holds a result that depends on the path (see
//! `path.rs`), and only the first three depend on nothing but the position and hand.

use super::pndn::PnDn;

/// One table slot. See the module doc for the byte layout.
#[derive(Clone, Copy, Default, Debug)]
#[repr(C)]
pub struct Entry {
    /// Raw attacker hand (own, proof or disproof hand, see the module doc).
    pub hand: u32,
    /// Proof number.
    pub pn: PnDn,
    /// Disproof number.
    pub dn: PnDn,
    /// Work spent below the node (nodes, saturating).
    pub amount: u32,
    /// Plies of the proof found (proven entries); for disproven ones 0, or 1 + the plies
    /// within which no mate exists (see the module doc).
    pub len: u16,
    /// Generation tag; 0 = never written.
    pub gen: u16,
}

const _: () = assert!(std::mem::size_of::<Entry>() == 20);

impl Entry {
    /// Whether the entry is proven.
    #[inline(always)]
    pub fn is_proven(&self) -> bool {
        self.pn == 0
    }

    /// Whether the entry is disproven at any length.
    #[inline(always)]
    pub fn is_disproven(&self) -> bool {
        self.dn == 0 && self.len == 0
    }

    /// Whether the entry is final (proven, or disproven at any length). A disproof within
    /// a length is not: a search with a longer cap, or none, may replace it.
    #[inline(always)]
    pub fn is_final(&self) -> bool {
        self.pn == 0 || self.is_disproven()
    }
}

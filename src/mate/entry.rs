//! The transposition-table entry ([`Entry`]): 32 bytes, asserted at compile time.
//!
//! # Layout
//! ```text
//! offset  size  field
//!      0     8  key      board key of the node (board + side, salted per root kind)
//!      8     4  hand     attacker's hand: the node's own hand while unknown, the proof hand
//!                        once proven (pn = 0), the disproof hand once disproven (dn = 0)
//!     12     4  pn
//!     16     4  dn
//!     20     4  amount   nodes spent below this entry (saturating), replacement priority
//!     24     2  len      plies of the proof found (proven entries), for PV preference
//!     26     1  gen      table generation; an entry of another generation is empty
//!     27     5  padding
//! ```
//!
//! # Lifecycle
//! An entry is *live* when `gen` equals the table's current generation (never 0); any
//! other entry is free. Live entries are unknown (`pn, dn > 0`), proven (`pn == 0`) or
//! disproven (`dn == 0`). Final entries never hold path-dependent results (see `path.rs`).

use super::pndn::PnDn;

/// One table slot. See the module doc for the byte layout.
#[derive(Clone, Copy, Default, Debug)]
#[repr(C)]
pub struct Entry {
    /// Salted board key; meaningful only when live.
    pub key: u64,
    /// Raw attacker hand (own, proof or disproof hand, see the module doc).
    pub hand: u32,
    /// Proof number.
    pub pn: PnDn,
    /// Disproof number.
    pub dn: PnDn,
    /// Work spent below the node (nodes, saturating).
    pub amount: u32,
    /// Plies of the proof found (proven entries only).
    pub len: u16,
    /// Generation tag; 0 = never written.
    pub gen: u8,
}

const _: () = assert!(std::mem::size_of::<Entry>() == 32);

impl Entry {
    /// Whether the entry is proven.
    #[inline(always)]
    pub fn is_proven(&self) -> bool {
        self.pn == 0
    }

    /// Whether the entry is disproven.
    #[inline(always)]
    pub fn is_disproven(&self) -> bool {
        self.dn == 0
    }

    /// Whether the entry is final (proven or disproven).
    #[inline(always)]
    pub fn is_final(&self) -> bool {
        self.pn == 0 || self.dn == 0
    }
}

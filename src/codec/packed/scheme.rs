//! The code tables of a 256-bit Huffman format: [`Scheme`] (board run table, suffix table,
//! the encoder's codes), built at compile time by [`make_scheme`], and the inventory lanes
//! the reader counts pieces in. `psfen.rs` and `hcp.rs` each hold one `Scheme`.

use crate::codec::bits::{build_table, DecodeTable};
use crate::shogi::{Color, Piece, PieceType};

/// Owner field of a suffix symbol.
pub(crate) const OWNER_BLACK: u8 = 0;
/// Owner field of a suffix symbol.
pub(crate) const OWNER_WHITE: u8 = 1;
/// Owner field of a suffix symbol: the piece box.
pub(crate) const OWNER_BOX: u8 = 2;

/// A suffix symbol: hand kind index (`PieceType` index 0..7) | owner << 3.
pub(crate) const fn suffix(kind: PieceType, owner: u8) -> u8 {
    kind as u8 | owner << 3
}

/// Hand kinds in the order the encoders write them (the current YaneuraOu / cshogi order).
pub(crate) const WRITE_ORDER: [PieceType; 7] = PieceType::HAND_GOLD_FIRST;

/// The code tables of one format.
pub(crate) struct Scheme {
    /// Board run table: the empty squares and the piece that the next [`RUN_BITS`] bits
    /// start with.
    pub runs: [RunEntry; 1 << RUN_BITS],
    /// Suffix decode table: symbol = [`suffix`].
    pub suffix: DecodeTable<u8>,
    /// Board code `(code, width)` per `Piece::index()` (width 0: not encodable, i.e. kings).
    pub board_code: [(u32, u8); 32],
    /// Hand code per colour and `PieceType` index (0..7).
    pub hand_code: [[(u32, u8); 7]; 2],
    /// Box code per `PieceType` index (0..7).
    pub box_code: [(u32, u8); 7],
}

/// Stream bits that index [`Scheme::runs`].
pub(crate) const RUN_BITS: u32 = 11;
pub(super) const RUN_MASK: u64 = (1 << RUN_BITS) - 1;
/// Run steps per refill: each consumes at most `RUN_BITS` and a refill leaves at least 56.
pub(super) const RUN_STEPS: usize = 5;
const _: () = assert!(RUN_STEPS as u32 * RUN_BITS <= 56);

/// One entry of [`Scheme::runs`]: the next bits start with `zeros` empty squares (0 bits),
/// then the code of `piece` if it lies wholly within the `RUN_BITS` bits. `bits` is what to
/// consume: `zeros` plus the code's width, or just `zeros` when no whole code follows (the
/// next lookup decodes it); `bits == 0` means the bits after the zeros start no code.
///
/// Aligned to 4 bytes so that the lookup's index scaling fits the load's addressing mode
/// (a 3-byte entry needs an extra multiply on the decoder's critical path).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(4))]
pub(crate) struct RunEntry {
    /// The piece after the empty squares, if its code is complete within the index bits.
    pub piece: Option<Piece>,
    /// Leading empty squares.
    pub zeros: u8,
    /// Bits to consume; 0 = bad code.
    pub bits: u8,
}

/// Builds the run table from the 8-bit board table (compile time).
const fn build_runs(board: &DecodeTable<Option<Piece>>) -> [RunEntry; 1 << RUN_BITS] {
    let mut t = [RunEntry {
        piece: None,
        zeros: 0,
        bits: 0,
    }; 1 << RUN_BITS];
    let mut i = 0;
    while i < t.len() {
        let zeros = if i == 0 {
            RUN_BITS
        } else {
            (i as u32).trailing_zeros()
        };
        let left = RUN_BITS - zeros; // bits after the zeros that are real stream bits
        let e = board[(i >> zeros) & 0xff];
        t[i] = if left > 0 && e.len > 0 && e.len as u32 <= left {
            RunEntry {
                piece: e.sym,
                zeros: zeros as u8,
                bits: (zeros + e.len as u32) as u8,
            }
        } else if left >= 8 {
            // A whole byte after the zeros starts no code: a bad code.
            RunEntry {
                piece: None,
                zeros: zeros as u8,
                bits: 0,
            }
        } else {
            // Too few bits left for the code: consume the zeros (at least one) only.
            RunEntry {
                piece: None,
                zeros: zeros as u8,
                bits: zeros as u8,
            }
        };
        i += 1;
    }
    t
}

/// Byte lane per hand kind in an inventory counter.
#[inline(always)]
pub(super) const fn lane(kind_index: usize) -> u64 {
    1u64 << (8 * kind_index)
}

/// The full inventory: 18 P, 4 L, 4 N, 4 S, 2 B, 2 R, 4 G (lanes in `PieceType` order).
pub(super) const FULL: u64 = 18 * lane(0)
    + 4 * lane(1)
    + 4 * lane(2)
    + 4 * lane(3)
    + 2 * lane(4)
    + 2 * lane(5)
    + 4 * lane(6);

pub(super) const BLACK_KING: Piece = Piece::new(Color::Black, PieceType::King);

/// Builds a [`Scheme`] from per-kind codes (colour and promotion bits included):
/// `board[color][PieceType index]` (width 0 for the king, which has no board code),
/// `hand[color][hand kind]` and `boxed[hand kind]`. Evaluated at compile time.
pub(crate) const fn make_scheme(
    board: [[(u32, u8); 14]; 2],
    hand: [[(u32, u8); 7]; 2],
    boxed: [(u32, u8); 7],
) -> Scheme {
    let mut board_list = [(0u32, 1u8, None::<Piece>); 27];
    let mut board_code = [(0u32, 0u8); 32];
    let mut n = 1;
    let mut c = 0;
    while c < 2 {
        let color = if c == 0 { Color::Black } else { Color::White };
        let mut t = 0;
        while t < 14 {
            let (code, width) = board[c][t];
            if width > 0 {
                let p = match PieceType::from_index(t) {
                    Some(pt) => Piece::new(color, pt),
                    None => panic!("piece type index"),
                };
                board_list[n] = (code, width, Some(p));
                board_code[p.index()] = (code, width);
                n += 1;
            }
            t += 1;
        }
        c += 1;
    }
    assert!(n == 27);
    let mut suffix_list = [(0u32, 0u8, 0u8); 21];
    let mut k = 0;
    while k < 7 {
        let pt = PieceType::HAND[k];
        suffix_list[k] = (hand[0][k].0, hand[0][k].1, suffix(pt, OWNER_BLACK));
        suffix_list[7 + k] = (hand[1][k].0, hand[1][k].1, suffix(pt, OWNER_WHITE));
        suffix_list[14 + k] = (boxed[k].0, boxed[k].1, suffix(pt, OWNER_BOX));
        k += 1;
    }
    Scheme {
        runs: build_runs(&build_table(&board_list, None)),
        suffix: build_table(&suffix_list, 0),
        board_code,
        hand_code: hand,
        box_code: boxed,
    }
}

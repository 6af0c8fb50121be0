//! The 256-bit Huffman position layout shared by PackedSfen and HuffmanCodedPos, driven by
//! a [`Scheme`] (the format's code tables).
//!
//! # Layout (both formats)
//! ```text
//! bit 0        side to move (0 Black, 1 White)
//! bits 1..8    Black king square (7 bits)
//! bits 8..15   White king square (7 bits)
//! then         one board code per square 0..81 (1a, 1b, …, 9i), king squares skipped
//! then         suffix codes until bit 256: pieces in hand (Black's, then White's) and
//!              "piece box" codes for pieces that are neither on the board nor in a hand
//! ```
//! The formats differ only in their code tables (see `psfen.rs` and `hcp.rs`).
//!
//! Here: the tables ([`Scheme`], the run table) and the encoder; `reader.rs` reads the bit
//! stream (header, board steps, suffix codes); `decode.rs` holds the entry points (one record
//! or two interleaved, CPU dispatch).
//!
//! # Invariants
//! - Decoding is table driven: the board by lookups of the next 11 bits in [`Scheme::runs`]
//!   (a run of empty squares and the piece after it), the suffix by 8-bit lookups. The
//!   position is built as the stream is read (no intermediate piece list).
//! - Every record either decodes to a position that passes [`Position::validate`] with the
//!   full inventory (18 P, 4 L/N/S/G, 2 B/R counting board, hands and box) and a stream that
//!   ends exactly at bit 256, or is refused with a [`CodecError`]. It never panics, whatever
//!   the bytes.
//! - Suffix codes are read until bit 256, so hands written in any order decode (YaneuraOu's
//!   old order P L N S B R G and the current P L N S G B R).
//! - Encoding writes hands in the order P L N S G B R, Black first, then the box pieces in
//!   the same order: the bytes of cshogi / YaneuraOu / rsshogi.

mod decode;
mod reader;

pub(crate) use decode::{decode, decode_into, decode_pair_into};
pub(crate) use reader::decode_parts;

use super::bits::{build_table, BitWriter, DecodeTable};
use super::CodecError;
use crate::shogi::{Color, Piece, PieceType, Position, Square};

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
pub(crate) const WRITE_ORDER: [PieceType; 7] = [
    PieceType::Pawn,
    PieceType::Lance,
    PieceType::Knight,
    PieceType::Silver,
    PieceType::Gold,
    PieceType::Bishop,
    PieceType::Rook,
];

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
const RUN_MASK: u64 = (1 << RUN_BITS) - 1;
/// Run steps per refill: each consumes at most `RUN_BITS` and a refill leaves at least 56.
const RUN_STEPS: usize = 5;
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
const fn lane(kind_index: usize) -> u64 {
    1u64 << (8 * kind_index)
}

/// The full inventory: 18 P, 4 L, 4 N, 4 S, 2 B, 2 R, 4 G (lanes in `PieceType` order).
const FULL: u64 = 18 * lane(0)
    + 4 * lane(1)
    + 4 * lane(2)
    + 4 * lane(3)
    + 2 * lane(4)
    + 2 * lane(5)
    + 4 * lane(6);

const BLACK_KING: Piece = Piece::new(Color::Black, PieceType::King);

/// Encodes `pos` with `scheme`; refuses positions with more pieces of a kind than exist.
pub(crate) fn encode(pos: &Position, scheme: &Scheme) -> Result<[u8; 32], CodecError> {
    let overflow = |_| CodecError::Unrepresentable("more than 256 bits".into());
    let mut w = BitWriter::new();
    w.write(pos.side_to_move() as u32, 1).map_err(overflow)?;
    w.write(pos.king_square(Color::Black).index() as u32, 7)
        .map_err(overflow)?;
    w.write(pos.king_square(Color::White).index() as u32, 7)
        .map_err(overflow)?;
    let mut used = [0u32; 7];
    for sq in Square::all() {
        match pos.piece_on(sq) {
            None => w.write(0, 1).map_err(overflow)?,
            Some(p) if p.piece_type() == PieceType::King => {}
            Some(p) => {
                let (code, width) = scheme.board_code[p.index()];
                w.write(code, width as usize).map_err(overflow)?;
                used[p.piece_type().unpromote().index()] += 1;
            }
        }
    }
    for c in Color::ALL {
        for pt in WRITE_ORDER {
            let n = pos.hand(c).count(pt);
            let (code, width) = scheme.hand_code[c.index()][pt.index()];
            for _ in 0..n {
                w.write(code, width as usize).map_err(overflow)?;
            }
            used[pt.index()] += n as u32;
        }
    }
    for pt in WRITE_ORDER {
        let max = pt.max_count() as u32;
        if used[pt.index()] > max {
            return Err(CodecError::Inventory {
                kind: pt,
                count: used[pt.index()],
            });
        }
        let (code, width) = scheme.box_code[pt.index()];
        for _ in used[pt.index()]..max {
            w.write(code, width as usize).map_err(overflow)?;
        }
    }
    if w.pos() != 256 {
        return Err(CodecError::Unrepresentable(format!(
            "the stream has {} bits, not 256",
            w.pos()
        )));
    }
    Ok(w.bytes())
}

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

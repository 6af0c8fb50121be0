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
//! Here: the encoder; `scheme.rs` holds the tables ([`Scheme`], the run table); `reader.rs` reads the bit
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
mod scheme;

pub(crate) use decode::{decode, decode_into, decode_pair_into};
pub(crate) use reader::decode_parts;
pub(crate) use scheme::{make_scheme, Scheme};

use super::bits::BitWriter;
use super::format::CodecError;
use crate::shogi::{Color, PieceType, Position, Square};
use scheme::WRITE_ORDER;

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

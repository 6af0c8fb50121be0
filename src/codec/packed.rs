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
//! # Invariants
//! - Decoding is table driven (8-bit lookups); every record either decodes to a position that
//!   passes [`Position::validate`] with the full inventory (18 P, 4 L/N/S/G, 2 B/R counting
//!   board, hands and box) and a stream that ends exactly at bit 256, or is refused with a
//!   [`CodecError`]. It never panics, whatever the bytes.
//! - Suffix codes are read until bit 256, so hands written in any order decode (YaneuraOu's
//!   old order P L N S B R G and the current P L N S G B R).
//! - Encoding writes hands in the order P L N S G B R, Black first, then the box pieces in
//!   the same order: the bytes of cshogi / YaneuraOu / rsshogi.

use super::bits::{build_table, BitReader, BitWriter, DecodeTable};
use super::CodecError;
use crate::shogi::{Color, Hand, Piece, PieceType, Position, Square};

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
    /// Board decode table: symbol = the piece (None = empty square).
    pub board: DecodeTable<Option<Piece>>,
    /// Suffix decode table: symbol = [`suffix`].
    pub suffix: DecodeTable<u8>,
    /// Board code `(code, width)` per `Piece::index()` (width 0: not encodable, i.e. kings).
    pub board_code: [(u32, u8); 32],
    /// Hand code per colour and `PieceType` index (0..7).
    pub hand_code: [[(u32, u8); 7]; 2],
    /// Box code per `PieceType` index (0..7).
    pub box_code: [(u32, u8); 7],
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
const WHITE_KING: Piece = Piece::new(Color::White, PieceType::King);

/// Decodes a 32-byte record with `scheme` into a validated position (ply 1).
pub(crate) fn decode(bytes: &[u8; 32], scheme: &Scheme) -> Result<Position, CodecError> {
    let mut list = PieceList::default();
    let (hands, side) = decode_into(bytes, scheme, &mut list)?;
    let pos = Position::from_piece_list(&list.pieces[..list.len], hands, side, 1)?;
    pos.validate()?;
    Ok(pos)
}

/// The pieces of a decoded record (at most 40: a full set), kings included.
pub(crate) struct PieceList {
    pieces: [(Square, Piece); 40],
    len: usize,
}

impl Default for PieceList {
    fn default() -> Self {
        PieceList {
            pieces: [(Square::SQ_1A, BLACK_KING); 40],
            len: 0,
        }
    }
}

/// The board square of coded square `j` (king squares `lo < hi` skipped).
#[inline(always)]
fn coded_square(j: usize, lo: usize, hi: usize) -> usize {
    let sq = j + (j >= lo) as usize;
    sq + (sq >= hi) as usize
}

/// Inventory lane per `Piece::index()` (its unpromoted kind's lane; 0 for kings).
const LANE_OF_PIECE: [u64; 32] = {
    let mut t = [0u64; 32];
    let mut i = 0;
    while i < 32 {
        let kind = i % 16;
        if kind < 14 && kind != 7 {
            let base = if kind >= 8 { kind - 8 } else { kind };
            t[i] = lane(base);
        }
        i += 1;
    }
    t
};

/// Decodes the parts of a record; checks the bit stream and the inventory, not the rules.
#[inline]
pub(crate) fn decode_into(
    bytes: &[u8; 32],
    scheme: &Scheme,
    list: &mut PieceList,
) -> Result<([Hand; 2], Color), CodecError> {
    let mut r = BitReader::new(bytes);
    let head = r.peek8().unwrap_or(0);
    r.skip(1);
    let side = if head & 1 == 0 {
        Color::Black
    } else {
        Color::White
    };
    let bk = r.read(7).unwrap_or(0) as usize;
    let wk = r.read(7).unwrap_or(0) as usize;
    for (color, sq) in [(Color::Black, bk), (Color::White, wk)] {
        if sq >= 81 {
            return Err(CodecError::KingSquare { color, value: sq });
        }
    }
    if bk == wk {
        return Err(CodecError::KingsCollide(bk));
    }
    list.pieces[0] = (Square::from_index(bk), BLACK_KING);
    list.pieces[1] = (Square::from_index(wk), WHITE_KING);
    list.len = 2;
    let mut inventory = 0u64;
    // Squares in stream order skip the two king squares: coded square `j` is board square
    // `j`, plus one for each king square at or before it.
    let (lo, hi) = if bk < wk { (bk, wk) } else { (wk, bk) };
    let mut j = 0usize;
    // `window` holds the next `valid` stream bits (bit 0 = next); it is refilled from the
    // reader only when it runs low, so the loop mostly works in registers.
    let mut window = 0u64;
    let mut valid = 0usize;
    while j < 79 {
        if valid < 16 {
            let Some(w) = r.peek64() else {
                return Err(CodecError::Overrun {
                    square: Some(coded_square(j, lo, hi)),
                });
            };
            window = w;
            valid = 64;
        }
        // An empty square is a single 0 bit and every piece code starts with 1: skip the run
        // of empty squares before the next piece at once.
        let empties = (window.trailing_zeros() as usize).min(valid).min(79 - j);
        r.skip(empties);
        window = window.checked_shr(empties as u32).unwrap_or(0);
        valid -= empties;
        j += empties;
        if j >= 79 || valid < 8 {
            valid = 0; // done, or refill before reading the piece code
            continue;
        }
        let e = scheme.board[(window & 0xff) as usize];
        let Some(p) = e.sym else {
            return Err(CodecError::BadCode { bit: r.pos() });
        };
        let len = e.len as usize;
        r.skip(len);
        window >>= len;
        valid -= len;
        if list.len == list.pieces.len() {
            return Err(CodecError::Inventory {
                kind: p.piece_type().unpromote(),
                count: u32::from(p.piece_type().unpromote().max_count()) + 1,
            });
        }
        list.pieces[list.len] = (Square::from_index(coded_square(j, lo, hi)), p);
        list.len += 1;
        inventory += LANE_OF_PIECE[p.index()];
        j += 1;
    }
    let mut counts = [[0u8; 7]; 2];
    valid = 0;
    while r.pos() < 256 {
        if valid < 8 {
            window = r.peek64().unwrap_or(0);
            valid = 64;
        }
        let e = scheme.suffix[(window & 0xff) as usize];
        if e.len == 0 {
            return Err(CodecError::BadCode { bit: r.pos() });
        }
        r.skip(e.len as usize);
        window >>= e.len;
        valid -= e.len as usize;
        let kind = (e.sym & 7) as usize;
        let owner = e.sym >> 3;
        inventory += lane(kind);
        if owner != OWNER_BOX {
            let c = &mut counts[owner as usize][kind];
            *c = c.saturating_add(1);
        }
    }
    if r.pos() != 256 {
        return Err(CodecError::Overrun { square: None });
    }
    if inventory != FULL {
        for pt in PieceType::HAND {
            let n = (inventory >> (8 * pt.index())) & 0xff;
            if n != pt.max_count() as u64 {
                return Err(CodecError::Inventory {
                    kind: pt,
                    count: n as u32,
                });
            }
        }
    }
    let mut hands = [Hand::EMPTY; 2];
    for c in 0..2 {
        for pt in PieceType::HAND {
            let n = counts[c][pt.index()];
            if n > 0 {
                hands[c] = hands[c].with_count(pt, n).ok_or(CodecError::Inventory {
                    kind: pt,
                    count: n as u32,
                })?;
            }
        }
    }
    Ok((hands, side))
}

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
        board: build_table(&board_list, None),
        suffix: build_table(&suffix_list, 0),
        board_code,
        hand_code: hand,
        box_code: boxed,
    }
}

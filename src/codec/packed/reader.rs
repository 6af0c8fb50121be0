//! The bit-level reader of the 256-bit layout: the header, the board by run-table steps
//! ([`Cursor`]) into a [`Sink`], and the suffix codes (hands and box), with the full
//! inventory check.
//!
//! # Invariants
//! - A [`Cursor`] never reads past its record (stream bits past 256 read as zero) and
//!   refuses a bad code, an overrun or a wrong inventory with a [`CodecError`].

use super::scheme::{lane, Scheme, BLACK_KING, FULL, RUN_MASK, RUN_STEPS};
use crate::codec::format::CodecError;
use crate::shogi::{Builder, Color, Hand, Piece, PieceType, Square};

/// Where [`decode_body`] puts the board pieces (kings excluded).
pub(crate) trait Sink {
    /// Puts `p` (never a king) on `sq`; each square comes at most once.
    fn put(&mut self, sq: Square, p: Piece);
}

impl Sink for Builder<'_> {
    #[inline(always)]
    fn put(&mut self, sq: Square, p: Piece) {
        self.place(sq, p);
    }
}

/// The board pieces of a decoded record, kings excluded (for benchmarks of the bits alone).
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

impl Sink for PieceList {
    #[inline(always)]
    fn put(&mut self, sq: Square, p: Piece) {
        // `decode_body` puts at most 79 pieces and stops at the inventory check; past 40 the
        // record is refused anyway, so extra pieces are dropped.
        if let Some(slot) = self.pieces.get_mut(self.len) {
            *slot = (sq, p);
            self.len += 1;
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

/// One in each hand kind's field of a [`Hand`]'s raw value, `PieceType` index order (checked
/// against `Hand::with_count` by a test).
const HAND_UNIT: [u32; 7] = [1 << 0, 1 << 6, 1 << 10, 1 << 14, 1 << 18, 1 << 21, 1 << 24];

/// Side to move and king squares (bits 0..15); refuses king fields of 81 or more and two
/// kings on one square.
#[inline(always)]
pub(crate) fn header(bytes: &[u8; 32]) -> Result<(Color, usize, usize), CodecError> {
    let head = u16::from_le_bytes([bytes[0], bytes[1]]) as usize;
    let side = if head & 1 == 0 {
        Color::Black
    } else {
        Color::White
    };
    let (bk, wk) = ((head >> 1) & 0x7f, (head >> 8) & 0x7f);
    for (color, sq) in [(Color::Black, bk), (Color::White, wk)] {
        if sq >= 81 {
            return Err(CodecError::KingSquare { color, value: sq });
        }
    }
    if bk == wk {
        return Err(CodecError::KingsCollide(bk));
    }
    Ok((side, bk, wk))
}

/// A branch-free refilling LSB-first bit buffer over the record (after F. Giesen's
/// "lookahead" bit reader): after [`Bits::refill`] at least 56 bits are buffered.
///
/// Invariant: bit `i < count` of `buf` is stream bit `pos + i`, where `pos = 8 * next -
/// count` is the number of bits consumed; stream bits past 256 read as zero.
pub(super) struct Bits {
    bytes: [u8; 48],
    buf: u64,
    count: u32,
    next: usize,
}

impl Bits {
    #[inline(always)]
    fn new(record: &[u8; 32]) -> Bits {
        let mut bytes = [0u8; 48];
        bytes[..32].copy_from_slice(record);
        Bits {
            bytes,
            buf: 0,
            count: 0,
            next: 0,
        }
    }

    /// Tops the buffer up to 56..=63 bits without a branch.
    #[inline(always)]
    pub(super) fn refill(&mut self) {
        // Past byte 40 every stream byte is zero, and so are bytes 40..48.
        let at = self.next.min(40);
        let mut word = [0u8; 8];
        word.copy_from_slice(&self.bytes[at..at + 8]);
        self.buf |= u64::from_le_bytes(word) << self.count;
        self.next += (63 - self.count as usize) >> 3;
        self.count |= 56;
    }

    #[inline(always)]
    fn consume(&mut self, n: u32) {
        self.buf >>= n;
        self.count -= n;
    }

    /// Bits consumed so far.
    #[inline(always)]
    fn pos(&self) -> usize {
        8 * self.next - self.count as usize
    }
}

/// One record's board being decoded, one run-table step at a time ([`Cursor::step`]); the
/// state a single decode keeps in its loop, made a value so that two records can be
/// decoded in one loop ([`decode_pair_into`]): their two serial chains of table lookups and
/// shifts are independent, so the CPU overlaps them.
///
/// Invariant: coded squares `0..j` are decoded (pieces put into the sink, counted in
/// `inventory`), and `r` stands at the first bit of coded square `j`.
pub(super) struct Cursor {
    pub(super) r: Bits,
    j: usize,
    lo: usize,
    hi: usize,
    inventory: u64,
}

/// What a [`Cursor::step`] did.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// Decoded a run (and maybe a piece); more board follows.
    More,
    /// The board is complete; `r` stands at the first suffix bit.
    Done,
    /// A bad code starts at this bit.
    Bad(usize),
}

impl Cursor {
    /// A cursor after the 15-bit header of a record whose king squares are `bk != wk`.
    #[inline(always)]
    pub(super) fn new(bytes: &[u8; 32], bk: usize, wk: usize) -> Cursor {
        let mut r = Bits::new(bytes);
        r.refill();
        r.consume(15);
        // Squares in stream order skip the two king squares: coded square `j` is board
        // square `j`, plus one for each king square at or before it.
        let (lo, hi) = if bk < wk { (bk, wk) } else { (wk, bk) };
        Cursor {
            r,
            j: 0,
            lo,
            hi,
            inventory: 0,
        }
    }

    /// One run-table step: leading empty squares, then a piece if its code is complete in
    /// the lookup. Needs at least `RUN_BITS` buffered bits (one refill serves `RUN_STEPS`).
    #[inline(always)]
    pub(super) fn step<S: Sink>(&mut self, scheme: &Scheme, sink: &mut S) -> Step {
        let e = scheme.runs[(self.r.buf & RUN_MASK) as usize];
        let zeros = e.zeros as usize;
        if self.j + zeros >= 79 {
            // The board ends inside this run of empty squares.
            self.r.consume((79 - self.j) as u32);
            return Step::Done;
        }
        if e.bits == 0 {
            return Step::Bad(self.r.pos() + zeros);
        }
        self.j += zeros;
        if let Some(p) = e.piece {
            sink.put(
                Square::from_index(coded_square(self.j, self.lo, self.hi)),
                p,
            );
            self.inventory += LANE_OF_PIECE[p.index() & 31];
            self.j += 1;
        }
        self.r.consume(e.bits as u32);
        Step::More
    }

    /// Decodes the suffix codes after a complete board and checks the bit stream and the
    /// full inventory (so no kind exceeds its count), not the rules. Returns the hands.
    #[inline(always)]
    pub(super) fn finish(mut self, scheme: &Scheme) -> Result<[Hand; 2], CodecError> {
        let r = &mut self.r;
        if r.pos() > 256 {
            return Err(CodecError::Overrun { square: None });
        }
        let mut hands = [0u32; 3];
        while r.pos() < 256 {
            if r.count < 8 {
                r.refill();
            }
            let e = scheme.suffix[(r.buf & 0xff) as usize];
            if e.len == 0 {
                return Err(CodecError::BadCode { bit: r.pos() });
            }
            r.consume(e.len as u32);
            let kind = (e.sym & 7) as usize;
            self.inventory += lane(kind);
            // Owners 0 and 1 are the hands, 2 the box; the counts fit their fields once the
            // inventory check below has passed (before that they are not used).
            let owner = (e.sym >> 3).min(2) as usize;
            hands[owner] = hands[owner].wrapping_add(HAND_UNIT[kind]);
        }
        if r.pos() != 256 {
            return Err(CodecError::Overrun { square: None });
        }
        if self.inventory != FULL {
            for pt in PieceType::HAND {
                let n = (self.inventory >> (8 * pt.index())) & 0xff;
                if n != pt.max_count() as u64 {
                    return Err(CodecError::Inventory {
                        kind: pt,
                        count: n as u32,
                    });
                }
            }
        }
        Ok([
            Hand::from_raw_trusted(hands[0]),
            Hand::from_raw_trusted(hands[1]),
        ])
    }
}

/// Decodes the board (into `sink`) and the suffix codes of a record whose header decoded to
/// king squares `bk != wk`; checks the bit stream and the full inventory (so no kind exceeds
/// its count), not the rules. Returns the hands.
#[inline(always)]
pub(crate) fn decode_body<S: Sink>(
    bytes: &[u8; 32],
    scheme: &Scheme,
    bk: usize,
    wk: usize,
    sink: &mut S,
) -> Result<[Hand; 2], CodecError> {
    let mut c = Cursor::new(bytes, bk, wk);
    'board: loop {
        c.r.refill();
        for _ in 0..RUN_STEPS {
            match c.step(scheme, sink) {
                Step::More => {}
                Step::Done => break 'board,
                Step::Bad(bit) => return Err(CodecError::BadCode { bit }),
            }
        }
    }
    c.finish(scheme)
}

/// Decodes a record into a piece list without building or validating a position (bench).
pub(crate) fn decode_parts(bytes: &[u8; 32], scheme: &Scheme) -> Result<[Hand; 2], CodecError> {
    let (_, bk, wk) = header(bytes)?;
    decode_body(bytes, scheme, bk, wk, &mut PieceList::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_units_are_one_piece_of_each_kind() {
        for pt in PieceType::HAND {
            let one = Hand::EMPTY.with_count(pt, 1).map(Hand::raw);
            assert_eq!(one, Some(HAND_UNIT[pt.index()]), "{pt:?}");
        }
    }
}

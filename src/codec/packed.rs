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

use super::bits::{build_table, BitWriter, DecodeTable};
use super::CodecError;
use crate::shogi::{Builder, Color, Hand, Piece, PieceType, Position, Square};

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

/// Decodes a 32-byte record with `scheme` into a validated position (ply 1).
#[inline]
pub(crate) fn decode(bytes: &[u8; 32], scheme: &Scheme) -> Result<Position, CodecError> {
    let mut pos = Position::decoding_blank();
    decode_into(bytes, scheme, &mut pos)?;
    Ok(pos)
}

/// Decodes a 32-byte record with `scheme` into `pos` (a validated position, ply 1), built in
/// place: no copy of the position, and `pos`'s undo-stack allocation is kept. On error `pos`
/// is the start position (never a half-decoded board).
///
/// On x86-64 CPUs with BMI2 the same code runs compiled for BMI2 (its variable shifts are
/// single `shrx`/`shlx` instructions on the decoder's serial chain: +5 % psv → Position in one
/// same-box comparison); elsewhere the portable build runs. Both compile the one function
/// [`decode_portable_into`], and a unit test compares them on vectors, bit flips and random
/// bytes.
#[inline]
pub(crate) fn decode_into(
    bytes: &[u8; 32],
    scheme: &Scheme,
    pos: &mut Position,
) -> Result<(), CodecError> {
    let result = dispatch(bytes, scheme, pos);
    if result.is_err() {
        failed(pos);
    }
    result
}

#[inline(always)]
fn dispatch(bytes: &[u8; 32], scheme: &Scheme, pos: &mut Position) -> Result<(), CodecError> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("bmi2") {
            // SAFETY: `decode_bmi2` only requires BMI2, which the CPU was just checked to have.
            #[allow(unsafe_code)]
            return unsafe { decode_bmi2(bytes, scheme, pos) };
        }
    }
    decode_portable_into(bytes, scheme, pos)
}

/// Decodes two records into `pos[0]` and `pos[1]` in one interleaved loop: the same results
/// as [`decode_into`] on each, faster, because each record's decode is one long serial chain
/// (table lookup → shift → next lookup) and two independent chains keep the CPU busy.
#[inline]
pub(crate) fn decode_pair_into(
    bytes: [&[u8; 32]; 2],
    scheme: &Scheme,
    pos: [&mut Position; 2],
) -> [Result<(), CodecError>; 2] {
    let [a, b] = pos;
    let result = dispatch_pair(bytes, scheme, a, b);
    if result[0].is_err() {
        failed(a);
    }
    if result[1].is_err() {
        failed(b);
    }
    result
}

#[inline(always)]
fn dispatch_pair(
    bytes: [&[u8; 32]; 2],
    scheme: &Scheme,
    a: &mut Position,
    b: &mut Position,
) -> [Result<(), CodecError>; 2] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("bmi2") {
            // SAFETY: `decode_pair_bmi2` only requires BMI2, which the CPU was just checked to
            // have.
            #[allow(unsafe_code)]
            return unsafe { decode_pair_bmi2(bytes, scheme, a, b) };
        }
    }
    decode_pair_portable(bytes, scheme, a, b)
}

/// [`decode_pair_portable`] compiled with BMI2 enabled.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn decode_pair_bmi2(
    bytes: [&[u8; 32]; 2],
    scheme: &Scheme,
    a: &mut Position,
    b: &mut Position,
) -> [Result<(), CodecError>; 2] {
    decode_pair_portable(bytes, scheme, a, b)
}

/// The pair decoder without CPU-specific dispatch. A record whose header is bad is
/// finished at once; the other then decodes alone.
#[inline(always)]
pub(crate) fn decode_pair_portable(
    bytes: [&[u8; 32]; 2],
    scheme: &Scheme,
    a: &mut Position,
    b: &mut Position,
) -> [Result<(), CodecError>; 2] {
    let (ha, hb) = match (header(bytes[0]), header(bytes[1])) {
        (Ok(ha), Ok(hb)) => (ha, hb),
        _ => {
            return [
                decode_portable_into(bytes[0], scheme, a),
                decode_portable_into(bytes[1], scheme, b),
            ]
        }
    };
    let mut sa = a.decoding_restart(ha.0, Square::from_index(ha.1), Square::from_index(ha.2));
    let mut sb = b.decoding_restart(hb.0, Square::from_index(hb.1), Square::from_index(hb.2));
    let mut ca = Cursor::new(bytes[0], ha.1, ha.2);
    let mut cb = Cursor::new(bytes[1], hb.1, hb.2);
    // Both boards advance in lock step while both run; then the longer one finishes alone.
    let (mut da, mut db) = 'both: loop {
        ca.r.refill();
        cb.r.refill();
        for _ in 0..RUN_STEPS {
            let (x, y) = (ca.step(scheme, &mut sa), cb.step(scheme, &mut sb));
            if x != Step::More || y != Step::More {
                break 'both (x, y);
            }
        }
    };
    let (rest, rest_sink, rest_state) = if da == Step::More {
        (&mut ca, &mut sa, &mut da)
    } else {
        (&mut cb, &mut sb, &mut db)
    };
    'rest: while *rest_state == Step::More {
        rest.r.refill();
        for _ in 0..RUN_STEPS {
            *rest_state = rest.step(scheme, rest_sink);
            if *rest_state != Step::More {
                break 'rest;
            }
        }
    }
    [
        finish_one(ca, da, sa, scheme),
        finish_one(cb, db, sb, scheme),
    ]
}

/// The end of one record of a pair: its bad code, or its hands and the finished position.
/// Out of line: the interleaved loop stays small (same or slightly faster in the codec
/// bench than inlining it twice).
#[inline(never)]
fn finish_one(
    c: Cursor,
    state: Step,
    sink: Builder<'_>,
    scheme: &Scheme,
) -> Result<(), CodecError> {
    match state {
        Step::Bad(bit) => Err(CodecError::BadCode { bit }),
        _ => {
            let hands = c.finish(scheme)?;
            sink.finish(hands)?;
            Ok(())
        }
    }
}

/// The error path of [`decode_into`]: no half-decoded board is left behind.
#[cold]
fn failed(pos: &mut Position) {
    *pos = Position::startpos();
}

/// [`decode_portable_into`] compiled with BMI2 enabled.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn decode_bmi2(bytes: &[u8; 32], scheme: &Scheme, pos: &mut Position) -> Result<(), CodecError> {
    decode_portable_into(bytes, scheme, pos)
}

/// The decoder itself, without CPU-specific dispatch (the fallback, also used by tests). On
/// error `pos` holds an unspecified board ([`decode_into`] resets it).
#[inline(always)]
pub(crate) fn decode_portable_into(
    bytes: &[u8; 32],
    scheme: &Scheme,
    pos: &mut Position,
) -> Result<(), CodecError> {
    let (side, bk, wk) = header(bytes)?;
    let mut builder = pos.decoding_restart(side, Square::from_index(bk), Square::from_index(wk));
    let hands = decode_body(bytes, scheme, bk, wk, &mut builder)?;
    builder.finish(hands)?;
    Ok(())
}

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
struct Bits {
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
    fn refill(&mut self) {
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
struct Cursor {
    r: Bits,
    j: usize,
    lo: usize,
    hi: usize,
    inventory: u64,
}

/// What a [`Cursor::step`] did.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
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
    fn new(bytes: &[u8; 32], bk: usize, wk: usize) -> Cursor {
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
    fn step<S: Sink>(&mut self, scheme: &Scheme, sink: &mut S) -> Step {
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
            self.inventory += LANE_OF_PIECE[p.index()];
            self.j += 1;
        }
        self.r.consume(e.bits as u32);
        Step::More
    }

    /// Decodes the suffix codes after a complete board and checks the bit stream and the
    /// full inventory (so no kind exceeds its count), not the rules. Returns the hands.
    #[inline(always)]
    fn finish(mut self, scheme: &Scheme) -> Result<[Hand; 2], CodecError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The portable decoder by value, as [`decode`] returns it.
    fn decode_portable(bytes: &[u8; 32], scheme: &Scheme) -> Result<Position, CodecError> {
        let mut pos = Position::decoding_blank();
        decode_portable_into(bytes, scheme, &mut pos)?;
        Ok(pos)
    }

    /// Decoding `prev` and `bytes` as a pair (dispatched and portable) gives what decoding
    /// each alone gives, errors included.
    fn check_pair(pair: &mut [Position; 2], prev: &[u8; 32], bytes: &[u8; 32], scheme: &Scheme) {
        let alone = [decode(prev, scheme), decode(bytes, scheme)];
        let [a, b] = pair;
        let got = decode_pair_into([prev, bytes], scheme, [a, b]);
        for i in 0..2 {
            match (&got[i], &alone[i]) {
                (Ok(()), Ok(p)) => {
                    assert_eq!(pair[i], *p);
                    assert_eq!(pair[i].key(), p.key());
                    assert_eq!(pair[i].checkers(), p.checkers());
                    assert_eq!(pair[i].occupied(), p.occupied());
                }
                (Err(x), Err(y)) => assert_eq!(x, y),
                (x, y) => panic!("pair {x:?} vs alone {y:?}"),
            }
        }
        let [a, b] = pair;
        let portable = decode_pair_portable([prev, bytes], scheme, a, b);
        assert_eq!(portable.map(|r| r.is_ok()), got.map(|r| r.is_ok()));
    }

    /// Decoding into one reused position gives what a fresh decode gives (nothing of the
    /// previous record survives), and a failed decode leaves the start position.
    fn check_reuse(reused: &mut Position, bytes: &[u8; 32], scheme: &Scheme) {
        match (decode_into(bytes, scheme, reused), decode(bytes, scheme)) {
            (Ok(()), Ok(fresh)) => {
                assert_eq!(*reused, fresh);
                assert_eq!(reused.key(), fresh.key());
                assert_eq!(reused.checkers(), fresh.checkers());
                assert_eq!(reused.ply(), fresh.ply());
                for c in Color::ALL {
                    assert_eq!(reused.pieces_of(c), fresh.pieces_of(c));
                    for pt in PieceType::ALL {
                        assert_eq!(reused.pieces(c, pt), fresh.pieces(c, pt));
                    }
                }
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b);
                assert_eq!(*reused, Position::startpos());
            }
            (a, b) => panic!("reused {a:?} vs fresh {b:?}"),
        }
    }

    #[test]
    fn hand_units_are_one_piece_of_each_kind() {
        for pt in PieceType::HAND {
            let one = Hand::EMPTY.with_count(pt, 1).map(Hand::raw);
            assert_eq!(one, Some(HAND_UNIT[pt.index()]), "{pt:?}");
        }
    }

    /// The CPU-dispatched decoder and the portable fallback agree on every codec vector (both
    /// formats), on each vector with every single bit flipped, and on pseudo-random bytes;
    /// so do decoding all of them into one reused position and decoding each with the one
    /// before it as a pair.
    #[test]
    fn dispatched_and_portable_decoders_agree() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/codec/codec_vectors.jsonl"
        );
        let text = std::fs::read_to_string(path).expect("codec vectors");
        let hex = |s: &str| -> [u8; 32] {
            std::array::from_fn(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap_or(0))
        };
        let schemes = [
            ("psfen", &crate::codec::psfen::SCHEME),
            ("hcp", &crate::codec::hcp::SCHEME),
        ];
        let mut compared = 0;
        let mut reused = Position::startpos();
        let mut pair = [Position::startpos(), Position::startpos()];
        let mut prev = [0u8; 32];
        for line in text.lines().take(1000) {
            let v: serde_json::Value = serde_json::from_str(line).expect("json line");
            for (key, scheme) in schemes {
                let bytes = hex(v[key].as_str().unwrap_or_default());
                for bit in std::iter::once(None).chain((0..256).step_by(7).map(Some)) {
                    let mut b = bytes;
                    if let Some(bit) = bit {
                        b[bit / 8] ^= 1 << (bit % 8);
                    }
                    assert_eq!(
                        decode(&b, scheme),
                        decode_portable(&b, scheme),
                        "{key} {line}"
                    );
                    check_reuse(&mut reused, &b, scheme);
                    check_pair(&mut pair, &prev, &b, scheme);
                    prev = b;
                    compared += 1;
                }
            }
        }
        let mut x = 0x243f_6a88_85a3_08d3u64;
        for _ in 0..20_000 {
            let b: [u8; 32] = std::array::from_fn(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            });
            for (_, scheme) in schemes {
                assert_eq!(decode(&b, scheme), decode_portable(&b, scheme));
                check_reuse(&mut reused, &b, scheme);
                check_pair(&mut pair, &prev, &b, scheme);
                prev = b;
            }
        }
        assert!(compared > 70_000);
    }
}

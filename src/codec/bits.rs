//! LSB-first bit reader and writer over a 256-bit (32-byte) record, and the table builder
//! for the prefix codes of PackedSfen and HuffmanCodedPos.
//!
//! # Conventions
//! Bit `i` of the stream is `(byte[i / 8] >> (i % 8)) & 1`. A code is written as an integer
//! whose least significant bit is the first bit in the stream, with an explicit width.
//!
//! # Invariants
//! - [`BitReader`] never reads outside its buffer: a peek at a position past bit 256 is the
//!   caller's error and is refused with `None`; bits past 256 read as zero.
//! - [`BitWriter`] refuses a write that would pass bit 256.
//! - [`DecodeTable`]s are built at compile time from prefix-free code lists; a list that is not
//!   prefix-free fails to compile (const panic).

/// Reads a 256-bit stream LSB first; the longest code it can peek is 8 bits.
#[derive(Clone, Copy, Debug)]
pub struct BitReader {
    words: [u64; 5],
    pos: usize,
}

impl BitReader {
    /// A reader at bit 0 of `bytes` (32 bytes).
    #[inline(always)]
    pub fn new(bytes: &[u8; 32]) -> BitReader {
        let mut words = [0u64; 5];
        for (i, w) in words.iter_mut().take(4).enumerate() {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[i * 8..i * 8 + 8]);
            *w = u64::from_le_bytes(b);
        }
        BitReader { words, pos: 0 }
    }

    /// Current bit position.
    #[inline(always)]
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The next 8 bits (LSB = next bit) without consuming them; `None` once at or past bit 256.
    #[inline(always)]
    pub fn peek8(&self) -> Option<u32> {
        if self.pos >= 256 {
            return None;
        }
        let w = self.pos / 64;
        let s = self.pos % 64;
        // `<< 1 << (63 - s)` is `<< (64 - s)` without the undefined shift by 64 when s = 0.
        let v = (self.words[w] >> s) | ((self.words[w + 1] << 1) << (63 - s));
        Some((v & 0xff) as u32)
    }

    /// The next 64 bits (LSB = next bit; bits past 256 read as zero) without consuming them;
    /// `None` once at or past bit 256.
    #[inline(always)]
    pub fn peek64(&self) -> Option<u64> {
        if self.pos >= 256 {
            return None;
        }
        let w = self.pos / 64;
        let s = self.pos % 64;
        Some((self.words[w] >> s) | ((self.words[w + 1] << 1) << (63 - s)))
    }

    /// Consumes `n` bits (after a peek).
    #[inline(always)]
    pub fn skip(&mut self, n: usize) {
        self.pos += n;
    }

    /// Reads `n <= 8` bits as a number (first bit least significant); `None` past bit 256.
    #[inline(always)]
    pub fn read(&mut self, n: usize) -> Option<u32> {
        let v = self.peek8()? & ((1u32 << n) - 1);
        self.pos += n;
        (self.pos <= 256).then_some(v)
    }
}

/// Writes a 256-bit stream LSB first.
#[derive(Clone, Copy, Debug, Default)]
pub struct BitWriter {
    words: [u64; 4],
    pos: usize,
}

/// A write would pass bit 256 (or is wider than 32 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow;

impl BitWriter {
    /// An empty writer at bit 0.
    pub fn new() -> BitWriter {
        BitWriter::default()
    }

    /// Current bit position.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Appends the low `width` (1..=32) bits of `code`, first bit = least significant.
    #[inline]
    pub fn write(&mut self, code: u32, width: usize) -> Result<(), Overflow> {
        if width > 32 || self.pos + width > 256 {
            return Err(Overflow);
        }
        let code = (code as u64) & ((1u64 << width) - 1);
        let (w, s) = (self.pos / 64, self.pos % 64);
        self.words[w] |= code << s;
        if s + width > 64 {
            // Straddles two words; then w + 1 <= 3 because pos + width <= 256.
            self.words[w + 1] |= code >> (64 - s);
        }
        self.pos += width;
        Ok(())
    }

    /// The 32 bytes written so far (unwritten bits are zero).
    pub fn bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (i, w) in self.words.iter().enumerate() {
            out[i * 8..i * 8 + 8].copy_from_slice(&w.to_le_bytes());
        }
        out
    }
}

/// One entry of a 256-way decode table: the symbol of the code that the next 8 bits start
/// with, and the code's width (0 = no code starts with these bits).
#[derive(Clone, Copy, Debug)]
pub struct Entry<S: Copy> {
    /// The decoded symbol.
    pub sym: S,
    /// Width of the code in bits; 0 if the bits start no valid code.
    pub len: u8,
}

/// A table indexed by the next 8 stream bits.
pub type DecodeTable<S> = [Entry<S>; 256];

/// Builds a decode table from `(code, width, symbol)` triples (widths 1..=8). Panics (at
/// compile time, where it is used) if two codes overlap, i.e. the list is not prefix-free.
pub const fn build_table<S: Copy>(codes: &[(u32, u8, S)], filler: S) -> DecodeTable<S> {
    let mut table = [Entry {
        sym: filler,
        len: 0,
    }; 256];
    let mut c = 0;
    while c < codes.len() {
        let (code, width, sym) = codes[c];
        assert!(width >= 1 && width <= 8);
        let mask = (1u32 << width) - 1;
        assert!(code & !mask == 0);
        let mut i = 0;
        while i < 256 {
            if (i as u32) & mask == code {
                assert!(table[i].len == 0, "codes are not prefix-free");
                table[i] = Entry { sym, len: width };
            }
            i += 1;
        }
        c += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_reader_roundtrip_at_every_alignment() {
        let mut w = BitWriter::new();
        let mut expect = Vec::new();
        let mut x: u32 = 12345;
        while w.pos() < 250 {
            x = x.wrapping_mul(1103515245).wrapping_add(12345);
            let width = (x >> 16) as usize % 8 + 1;
            let width = width.min(256 - w.pos());
            let code = (x >> 3) & ((1 << width) - 1);
            w.write(code, width).unwrap();
            expect.push((code, width));
        }
        let bytes = w.bytes();
        let mut r = BitReader::new(&bytes);
        for (code, width) in expect {
            assert_eq!(r.read(width), Some(code));
        }
        assert_eq!(w.write(0, 256 - w.pos() + 1), Err(Overflow));
    }

    #[test]
    fn lsb_first_matches_the_byte_layout() {
        let mut bytes = [0u8; 32];
        bytes[0] = 0b1010_0001;
        bytes[31] = 0x80;
        let mut r = BitReader::new(&bytes);
        assert_eq!(r.read(1), Some(1));
        assert_eq!(r.read(4), Some(0));
        assert_eq!(r.read(3), Some(0b101));
        r.skip(255 - 8);
        assert_eq!(r.read(1), Some(1));
        assert_eq!(r.peek8(), None);
    }
}

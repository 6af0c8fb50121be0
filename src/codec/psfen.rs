//! YaneuraOu PackedSfen (32 bytes) and PackedSfenValue (psv, 40 bytes).
//!
//! # PackedSfen codes (stream order, LSB first; see `packed.rs` for the layout)
//! ```text
//! board  empty 0 | P 10 | L 1100 | N 1101 | S 1110 | G 11110 | B 111110 | R 111111
//!        then a promotion bit (not for G), then the colour bit (0 Black, 1 White)
//! hand   P 0 | L 100 | N 101 | S 110 | G 1110 | B 11110 | R 11111
//!        then a promotion bit (not for G) that is 0, then the colour bit
//! box    a hand code with promotion bit 1 and colour bit 0 ("piece box", handicap games);
//!        a gold in the box is written as S + promotion 1 + colour 1
//! ```
//!
//! # PackedSfenValue (40 bytes, little-endian)
//! ```text
//! 0..32  PackedSfen   32..34 score i16   34..36 move u16 (YaneuraOu Move16)
//! 36..38 gamePly u16  38 game_result i8 (side to move's view: 1 win, -1 loss, 0 draw)
//! 39     padding
//! ```

use super::format::CodecError;
use super::packed::{self, make_scheme, Scheme};
use crate::shogi::Position;

pub use super::format::{PSFEN_SIZE, PSV_SIZE};

const _: () = assert!(PSV_SIZE == PSFEN_SIZE + 2 + 2 + 2 + 1 + 1);

/// Board base codes (before promotion and colour bits), `PieceType` index order P L N S B R G.
const BASE: [(u32, u8); 7] = [
    (0b01, 2),
    (0b0011, 4),
    (0b1011, 4),
    (0b0111, 4),
    (0b01_1111, 6),
    (0b11_1111, 6),
    (0b0_1111, 5),
];

const fn board_codes() -> [[(u32, u8); 14]; 2] {
    let mut out = [[(0u32, 0u8); 14]; 2];
    let mut c = 0;
    while c < 2 {
        let mut t = 0;
        while t < 14 {
            if t == 7 {
                t += 1;
                continue; // the king has no board code
            }
            let promoted = t >= 8;
            let (b, w) = BASE[if promoted { t - 8 } else { t }];
            out[c][t] = if t == 6 {
                (b | (c as u32) << w, w + 1)
            } else {
                (b | (promoted as u32) << w | (c as u32) << (w + 1), w + 2)
            };
            t += 1;
        }
        c += 1;
    }
    out
}

const fn hand_codes(promo: u32) -> [[(u32, u8); 7]; 2] {
    let mut out = [[(0u32, 0u8); 7]; 2];
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 7 {
            // A hand code is the board base code without its first bit.
            let (b, w) = BASE[k];
            let (b, w) = (b >> 1, w - 1);
            out[c][k] = if k == 6 {
                (b | (c as u32) << w, w + 1)
            } else {
                (b | promo << w | (c as u32) << (w + 1), w + 2)
            };
            k += 1;
        }
        c += 1;
    }
    out
}

const fn box_codes() -> [(u32, u8); 7] {
    let mut out = hand_codes(1)[0];
    // Gold has no promotion bit: a boxed gold is a silver code, promotion 1, colour 1.
    let (s, w) = BASE[3];
    out[6] = ((s >> 1) | 1 << (w - 1) | 1 << w, w + 1);
    out
}

/// The PackedSfen code tables.
pub(crate) static SCHEME: Scheme = make_scheme(board_codes(), hand_codes(0), box_codes());

/// Decodes a PackedSfen into a validated position (ply 1: the format stores none).
#[inline]
pub fn decode_psfen(bytes: &[u8; PSFEN_SIZE]) -> Result<Position, CodecError> {
    packed::decode(bytes, &SCHEME)
}

/// Encodes a position as PackedSfen (hands in the current order P L N S G B R).
pub fn encode_psfen(pos: &Position) -> Result<[u8; PSFEN_SIZE], CodecError> {
    packed::encode(pos, &SCHEME)
}

/// The raw fields after the PackedSfen in a psv record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PsvTail {
    /// Evaluation from the side to move's view.
    pub score: i16,
    /// The move field (YaneuraOu Move16 by the format; other encodings occur in the wild).
    pub raw_move: u16,
    /// Ply number of the position (start position = 1).
    pub game_ply: u16,
    /// Game result from the side to move's view: 1 win, -1 loss, 0 draw.
    pub game_result: i8,
    /// The padding byte.
    pub padding: u8,
}

impl PsvTail {
    /// Reads the fields of a 40-byte psv record.
    #[inline]
    pub fn read(rec: &[u8; PSV_SIZE]) -> PsvTail {
        PsvTail {
            score: i16::from_le_bytes([rec[32], rec[33]]),
            raw_move: u16::from_le_bytes([rec[34], rec[35]]),
            game_ply: u16::from_le_bytes([rec[36], rec[37]]),
            game_result: rec[38] as i8,
            padding: rec[39],
        }
    }

    /// Writes the fields into bytes 32..40 of a psv record.
    pub fn write(&self, rec: &mut [u8; PSV_SIZE]) {
        rec[32..34].copy_from_slice(&self.score.to_le_bytes());
        rec[34..36].copy_from_slice(&self.raw_move.to_le_bytes());
        rec[36..38].copy_from_slice(&self.game_ply.to_le_bytes());
        rec[38] = self.game_result as u8;
        rec[39] = self.padding;
    }
}

/// The gamePly field of a psv record given as a slice (for game-boundary detection);
/// `None` if the slice is not a whole record.
#[inline]
pub fn psv_game_ply(rec: &[u8]) -> Option<u16> {
    (rec.len() == PSV_SIZE).then(|| u16::from_le_bytes([rec[36], rec[37]]))
}

/// Decodes only the board, hands and side of a PackedSfen (no `Position`, no rule checks):
/// for benchmarks that separate the bit decoding from building the position.
#[doc(hidden)]
pub fn decode_psfen_parts_only(bytes: &[u8; PSFEN_SIZE]) -> bool {
    packed::decode_parts(bytes, &SCHEME).is_ok()
}

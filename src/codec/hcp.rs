//! Apery / dlshogi HuffmanCodedPos (32 bytes) and HuffmanCodedPosAndEval (hcpe, 38 bytes).
//!
//! # HuffmanCodedPos codes (stream order, LSB first; see `packed.rs` for the layout)
//! ```text
//! board  empty 0 | P 10 | L 1100 | N 1110 | S 1101 | G 11110 | B 111110 | R 111111
//!        then the colour bit, then a promotion bit (not for G) — the opposite order to
//!        PackedSfen, and N / S swapped
//! hand   P 00 | L 1000 | N 1100 | S 1010 | G 1110 | B 111110 | R 111111, then the colour bit
//! box    P 010 | L 10010 | N 11010 | S 10110 | G 10111 | B 1111000 | R 1111010
//! ```
//! The box codes are the ones cshogi and rsshogi write for positions with fewer than 40
//! pieces (handicap games); Apery itself cannot represent them.
//!
//! # HuffmanCodedPosAndEval (38 bytes, little-endian)
//! ```text
//! 0..32  HuffmanCodedPos   32..34 eval i16   34..36 bestMove16 u16 (Apery move16)
//! 36     gameResult u8 (Black's view: 0 draw, 1 Black won, 2 White won)   37 dummy
//! ```

use super::format::CodecError;
use super::packed::{self, make_scheme, Scheme};
use crate::shogi::Position;

pub use super::format::{HCPE_SIZE, HCP_SIZE};

const _: () = assert!(HCPE_SIZE == HCP_SIZE + 2 + 2 + 1 + 1);

/// Board base codes, `PieceType` index order P L N S B R G.
const BASE: [(u32, u8); 7] = [
    (0b01, 2),
    (0b0011, 4),
    (0b0111, 4),
    (0b1011, 4),
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
                continue;
            }
            let promoted = t >= 8;
            let (b, w) = BASE[if promoted { t - 8 } else { t }];
            out[c][t] = if t == 6 {
                (b | (c as u32) << w, w + 1)
            } else {
                (b | (c as u32) << w | (promoted as u32) << (w + 1), w + 2)
            };
            t += 1;
        }
        c += 1;
    }
    out
}

/// Hand codes without the colour bit, P L N S B R G.
const HAND: [(u32, u8); 7] = [
    (0b00, 2),
    (0b0001, 4),
    (0b0011, 4),
    (0b0101, 4),
    (0b01_1111, 6),
    (0b11_1111, 6),
    (0b0111, 4),
];

const fn hand_codes() -> [[(u32, u8); 7]; 2] {
    let mut out = [[(0u32, 0u8); 7]; 2];
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 7 {
            let (b, w) = HAND[k];
            out[c][k] = (b | (c as u32) << w, w + 1);
            k += 1;
        }
        c += 1;
    }
    out
}

/// Box codes (cshogi / rsshogi), P L N S B R G.
const BOX: [(u32, u8); 7] = [
    (0x02, 3),
    (0x09, 5),
    (0x0b, 5),
    (0x0d, 5),
    (0x0f, 7),
    (0x2f, 7),
    (0x1d, 5),
];

/// The HuffmanCodedPos code tables.
pub(crate) static SCHEME: Scheme = make_scheme(board_codes(), hand_codes(), BOX);

/// Decodes a HuffmanCodedPos into a validated position (ply 1: the format stores none).
#[inline]
pub fn decode_hcp(bytes: &[u8; HCP_SIZE]) -> Result<Position, CodecError> {
    packed::decode(bytes, &SCHEME)
}

/// Encodes a position as HuffmanCodedPos.
pub fn encode_hcp(pos: &Position) -> Result<[u8; HCP_SIZE], CodecError> {
    packed::encode(pos, &SCHEME)
}

/// The raw fields after the HuffmanCodedPos in an hcpe record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HcpeTail {
    /// Evaluation from the side to move's view.
    pub eval: i16,
    /// The move field (Apery move16 by the format).
    pub raw_move: u16,
    /// Game result from Black's view: 0 draw, 1 Black won, 2 White won.
    pub game_result: u8,
    /// The dummy byte.
    pub dummy: u8,
}

impl HcpeTail {
    /// Reads the fields of a 38-byte hcpe record.
    #[inline]
    pub fn read(rec: &[u8; HCPE_SIZE]) -> HcpeTail {
        HcpeTail {
            eval: i16::from_le_bytes([rec[32], rec[33]]),
            raw_move: u16::from_le_bytes([rec[34], rec[35]]),
            game_result: rec[36],
            dummy: rec[37],
        }
    }

    /// Writes the fields into bytes 32..38 of an hcpe record.
    pub fn write(&self, rec: &mut [u8; HCPE_SIZE]) {
        rec[32..34].copy_from_slice(&self.eval.to_le_bytes());
        rec[34..36].copy_from_slice(&self.raw_move.to_le_bytes());
        rec[36] = self.game_result;
        rec[37] = self.dummy;
    }
}

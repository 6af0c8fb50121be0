//! Record formats: decoding a record's bytes to a validated [`Position`] (plus the teacher
//! fields of psv / hcpe and the history of USI lines) and encoding positions back.
//!
//! # Formats
//! | [`Format`] | record | module |
//! |---|---|---|
//! | `sfen`  | text line, optional `sfen ` prefix | [`text`] |
//! | `usi`   | text line `startpos [moves …]` / `sfen <SFEN> [moves …]` | [`text`] |
//! | `psfen` | 32 B YaneuraOu PackedSfen | [`psfen`] |
//! | `psv`   | 40 B PackedSfenValue | [`psfen`] |
//! | `hcp`   | 32 B Apery HuffmanCodedPos | [`hcp`] |
//! | `hcpe`  | 38 B dlshogi HuffmanCodedPosAndEval | [`hcp`] |
//! | `hcpe3`, `pack`, `sbinpack` | whole games; each position before a move is a record | [`game`] |
//!
//! # Contract
//! The vocabulary every format module shares ([`Format`], [`CodecError`], record sizes)
//! lives in `format.rs`, which depends on none of them.
//!
//! - [`decode`] takes the bytes of exactly one record (a text line without its newline; a
//!   trailing `\r` is ignored) and never panics. It returns a position that passes
//!   [`Position::validate`], or a [`CodecError`] saying why not.
//! - The binary formats store no move number except psv (`gamePly`), so decoded positions
//!   have ply 1, or gamePly for psv, or the SFEN's number for text.
//! - Raw 32-byte equality is not position equality (hand order, box codes): compare decoded
//!   positions (`Position::fingerprint`).
//! - [`encode`] appends one record (text: with a trailing `\n`). Kept records are written as
//!   their original bytes by the pipeline; encoders serve format conversion and the mates
//!   file. Encoding is the exact inverse of decoding on every position a decoder accepts
//!   (byte-exact with cshogi for PackedSfen and HCP).

pub mod bits;
mod format;
pub mod game;
pub mod hcp;
mod packed;
pub mod psfen;
mod teacher;
pub mod text;

use crate::shogi::Position;
use format::fixed;

pub use format::{CodecError, Format, FormatChoice, Framing, UnknownFormat};
pub use teacher::{decode_move_field, teacher_fields, GameResult, MoveEncoding, TeacherFields};
pub use text::{History, PlyState};

/// One decoded record.
#[derive(Clone, Debug)]
pub struct Decoded {
    /// The record's position (validated).
    pub position: Position,
    /// psv / hcpe fields.
    pub teacher: Option<TeacherFields>,
    /// USI lines: the positions before the final one (boxed: binary records, the common
    /// case, then carry only a null pointer, which keeps `Decoded` cheap to move).
    pub history: Option<Box<History>>,
}

/// Decodes one record of `format` (see the module contract).
pub fn decode(format: Format, bytes: &[u8]) -> Result<Decoded, CodecError> {
    match format {
        Format::Sfen => Ok(Decoded {
            position: text::parse_sfen_line(text::line_str(bytes)?)?,
            teacher: None,
            history: None,
        }),
        Format::Usi => {
            let (position, history) = text::parse_usi_line(text::line_str(bytes)?)?;
            Ok(Decoded {
                position,
                teacher: None,
                history: Some(Box::new(history)),
            })
        }
        Format::Psfen | Format::Hcp | Format::Psv | Format::Hcpe => {
            let mut position = decode_position_binary(format, bytes)?;
            let teacher = binary_fields(format, bytes, &mut position);
            Ok(Decoded {
                position,
                teacher,
                history: None,
            })
        }
        Format::Hcpe3 | Format::Pack | Format::Sbinpack => Err(CodecError::WholeGames(format)),
    }
}

/// [`decode`] into a reused `out`: the same result, but a binary record's position is built
/// in place (no copy of it, and its undo-stack allocation is kept), which is what a loop
/// over millions of records wants. On error `out` holds some valid position (unspecified
/// which) and must not be read as the record.
pub fn decode_into(format: Format, bytes: &[u8], out: &mut Decoded) -> Result<(), CodecError> {
    if format.is_text() {
        *out = decode(format, bytes)?;
        return Ok(());
    }
    let decoded = decode_position_into(format, bytes, &mut out.position);
    fill_binary(format, bytes, out, decoded)
}

/// Completes `out` after its position was decoded from binary record `bytes` with result
/// `decoded`: no history, and the teacher fields when the position decoded.
#[inline(always)]
fn fill_binary(
    format: Format,
    bytes: &[u8],
    out: &mut Decoded,
    decoded: Result<(), CodecError>,
) -> Result<(), CodecError> {
    out.history = None;
    out.teacher = None;
    decoded?;
    out.teacher = binary_fields(format, bytes, &mut out.position);
    Ok(())
}

/// [`decode_position_binary`] into a reused `pos`, built in place (no copy of the position;
/// its undo-stack allocation is kept). On error `pos` holds some valid position (the start
/// position, or the previous one if the record has the wrong length) and must not be read
/// as the record.
#[inline]
pub fn decode_position_into(
    format: Format,
    bytes: &[u8],
    pos: &mut Position,
) -> Result<(), CodecError> {
    let head = fixed::<32>(format, bytes)?;
    packed::decode_into(head, binary_scheme(format)?, pos)
}

/// The Huffman scheme of a binary format; an error for line formats.
#[inline(always)]
fn binary_scheme(format: Format) -> Result<&'static packed::Scheme, CodecError> {
    match format {
        Format::Psfen | Format::Psv => Ok(&psfen::SCHEME),
        Format::Hcp | Format::Hcpe => Ok(&hcp::SCHEME),
        Format::Sfen | Format::Usi => Err(CodecError::Text(format!(
            "{format} is a line format, not a binary one"
        ))),
        Format::Hcpe3 | Format::Pack | Format::Sbinpack => Err(CodecError::WholeGames(format)),
    }
}

/// A decoded binary record's teacher fields; sets the position's ply from the record's game
/// ply when it has one.
#[inline(always)]
fn binary_fields(format: Format, bytes: &[u8], position: &mut Position) -> Option<TeacherFields> {
    let teacher = teacher_fields(format, bytes, position);
    if let Some(ply) = teacher.and_then(|t| t.game_ply).filter(|&p| p > 0) {
        position.set_ply(ply as u32);
    }
    teacher
}

impl Default for Decoded {
    /// The start position, no fields: a slot for [`decode_into`].
    fn default() -> Decoded {
        Decoded {
            position: Position::startpos(),
            teacher: None,
            history: None,
        }
    }
}

/// Decodes only the position of a binary record (the fast path; no teacher fields).
#[inline]
pub fn decode_position_binary(format: Format, bytes: &[u8]) -> Result<Position, CodecError> {
    let head = fixed::<32>(format, bytes)?;
    match format {
        Format::Psfen | Format::Psv => psfen::decode_psfen(head),
        Format::Hcp | Format::Hcpe => hcp::decode_hcp(head),
        Format::Sfen | Format::Usi => Err(CodecError::Text(format!(
            "{format} is a line format, not a binary one"
        ))),
        Format::Hcpe3 | Format::Pack | Format::Sbinpack => Err(CodecError::WholeGames(format)),
    }
}

/// [`decode_into`] for two records at once: the same results; for binary formats faster,
/// because the two positions are decoded interleaved ([`decode_positions_into`]).
pub fn decode_pair_into(
    format: Format,
    bytes: [&[u8]; 2],
    out: [&mut Decoded; 2],
) -> [Result<(), CodecError>; 2] {
    let [a, b] = out;
    if format.is_text() {
        return [
            decode_into(format, bytes[0], a),
            decode_into(format, bytes[1], b),
        ];
    }
    let [da, db] = decode_positions_into(format, bytes, [&mut a.position, &mut b.position]);
    [
        fill_binary(format, bytes[0], a, da),
        fill_binary(format, bytes[1], b, db),
    ]
}

/// [`decode_position_into`] for two records of one binary format at once: the same results,
/// faster (the two decodes run interleaved, see `packed::decode_pair_into`).
#[inline]
pub fn decode_positions_into(
    format: Format,
    bytes: [&[u8]; 2],
    pos: [&mut Position; 2],
) -> [Result<(), CodecError>; 2] {
    let [pa, pb] = pos;
    match (
        binary_scheme(format),
        fixed::<32>(format, bytes[0]),
        fixed::<32>(format, bytes[1]),
    ) {
        (Ok(scheme), Ok(a), Ok(b)) => packed::decode_pair_into([a, b], scheme, [pa, pb]),
        _ => [
            decode_position_into(format, bytes[0], pa),
            decode_position_into(format, bytes[1], pb),
        ],
    }
}

/// Sets the move field of a psv / hcpe record to 0 (no move), leaving every other byte as is
/// (for a pipeline that clears move fields that are not legal). Other formats and records of
/// the wrong length are left unchanged; returns whether the record was changed.
pub fn clear_move_field(format: Format, record: &mut [u8]) -> bool {
    let ok = format.has_teacher_fields() && Some(record.len()) == format.record_size();
    if ok {
        record[34] = 0;
        record[35] = 0;
    }
    ok
}

/// Appends one record of `format` for `pos` to `out` (text formats: one line with `\n`).
///
/// Teacher formats take their fields from `teacher` (converted between psv and hcpe: the
/// move to the target encoding, the result to the target's point of view, gamePly from
/// `pos.ply()` when absent); without `teacher` they get score 0, no move, a draw and
/// gamePly = `pos.ply()`. `usi` writes `sfen <SFEN>` (the history is not kept in a
/// `Position`).
pub fn encode(
    format: Format,
    pos: &Position,
    teacher: Option<&TeacherFields>,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    let side = pos.side_to_move();
    match format {
        Format::Sfen => {
            out.extend_from_slice(pos.to_sfen().as_bytes());
            out.push(b'\n');
        }
        Format::Usi => {
            out.extend_from_slice(b"sfen ");
            out.extend_from_slice(pos.to_sfen().as_bytes());
            out.push(b'\n');
        }
        Format::Psfen => out.extend_from_slice(&psfen::encode_psfen(pos)?),
        Format::Hcp => out.extend_from_slice(&hcp::encode_hcp(pos)?),
        Format::Psv => {
            let mut rec = [0u8; psfen::PSV_SIZE];
            rec[..32].copy_from_slice(&psfen::encode_psfen(pos)?);
            let ply = pos.ply().min(u16::MAX as u32) as u16;
            let tail = match teacher {
                Some(t) => psfen::PsvTail {
                    score: t.score,
                    raw_move: match (t.move_encoding, t.mv) {
                        (Some(MoveEncoding::YaneuraOu), _) | (None, None) => t.raw_move,
                        (_, Some(m)) => m.to_yo16(),
                        (Some(_), None) => 0,
                    },
                    game_ply: t.game_ply.unwrap_or(ply),
                    game_result: t.game_result.to_psv(side),
                    padding: if t.game_ply.is_some() { t.padding } else { 0 },
                },
                None => psfen::PsvTail {
                    score: 0,
                    raw_move: 0,
                    game_ply: ply,
                    game_result: 0,
                    padding: 0,
                },
            };
            tail.write(&mut rec);
            out.extend_from_slice(&rec);
        }
        Format::Hcpe => {
            let mut rec = [0u8; hcp::HCPE_SIZE];
            rec[..32].copy_from_slice(&hcp::encode_hcp(pos)?);
            let tail = match teacher {
                Some(t) => hcp::HcpeTail {
                    eval: t.score,
                    raw_move: match (t.move_encoding, t.mv) {
                        (Some(MoveEncoding::Apery), _) | (None, None) => t.raw_move,
                        (_, Some(m)) => m.raw(),
                        (Some(_), None) => 0,
                    },
                    game_result: t.game_result.to_hcpe(side),
                    dummy: if t.game_ply.is_none() { t.padding } else { 0 },
                },
                None => hcp::HcpeTail {
                    eval: 0,
                    raw_move: 0,
                    game_result: 0,
                    dummy: 0,
                },
            };
            tail.write(&mut rec);
            out.extend_from_slice(&rec);
        }
        Format::Hcpe3 | Format::Pack | Format::Sbinpack => {
            return Err(CodecError::WholeGames(format))
        }
    }
    Ok(())
}

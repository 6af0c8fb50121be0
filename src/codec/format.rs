//! The codec's vocabulary, shared by every format module: [`Format`] (what each format is
//! called and how its records are framed in a file), the record sizes, [`FormatChoice`] (a
//! format as a setting: a concrete one, `auto` or `same`) and [`CodecError`].
//!
//! # Adding a format
//! A new format is a variant of [`Format`] with its name, its [`Framing`] and an entry in
//! [`Format::ALL`]; names, parsing, `FormatChoice` and the error messages that list the
//! formats follow from those. Every `match` on `Framing` shows where records are cut: text
//! lines, fixed-size records, or whole games ([`Framing::Game`]: hcpe3, .pack, sbinpack,
//! read and written game by game through `codec::game`, where each position before a move
//! is one record).
//!
//! Nothing here depends on a format module: they depend on this file.

use crate::shogi::{Color, Invalid, PieceType, SfenError};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// Bytes in a YaneuraOu PackedSfen record.
pub const PSFEN_SIZE: usize = 32;
/// Bytes in a YaneuraOu PackedSfenValue record.
pub const PSV_SIZE: usize = 40;
/// Bytes in an Apery HuffmanCodedPos record.
pub const HCP_SIZE: usize = 32;
/// Bytes in a dlshogi HuffmanCodedPosAndEval record.
pub const HCPE_SIZE: usize = 38;

/// How the records of a format follow each other in a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Framing {
    /// One record per text line (`\n`, an optional `\r` before it).
    Line,
    /// Records of exactly this many bytes, back to back.
    Fixed(usize),
    /// Whole games of variable length (`codec::game` frames them); each position before a
    /// move is one record.
    Game,
}

/// A record format. Its name (`psv`, …) is its text form everywhere (CLI, config, JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// One SFEN per line.
    Sfen,
    /// One USI position line per record (`startpos moves …`); the record is the final position.
    Usi,
    /// YaneuraOu PackedSfen, 32 bytes.
    Psfen,
    /// YaneuraOu PackedSfenValue, 40 bytes.
    Psv,
    /// Apery / dlshogi HuffmanCodedPos, 32 bytes.
    Hcp,
    /// dlshogi HuffmanCodedPosAndEval, 38 bytes.
    Hcpe,
    /// dlshogi self-play games (`codec::game::hcpe3`).
    Hcpe3,
    /// YaneuraOu / rshogi game records (`codec::game::pack`).
    Pack,
    /// rshogi / rsshogi game chains in `SBN2` chunks (`codec::game::sbinpack`).
    Sbinpack,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 9] = [
        Format::Sfen,
        Format::Usi,
        Format::Psfen,
        Format::Psv,
        Format::Hcp,
        Format::Hcpe,
        Format::Hcpe3,
        Format::Pack,
        Format::Sbinpack,
    ];
    /// The formats of fixed-size binary records.
    pub const BINARY: [Format; 4] = [Format::Psfen, Format::Psv, Format::Hcp, Format::Hcpe];

    /// The format's name, also its file extension: `sfen`, `usi`, `psfen`, `psv`, `hcp`,
    /// `hcpe`, `hcpe3`, `pack`, `sbinpack`.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Sfen => "sfen",
            Format::Usi => "usi",
            Format::Psfen => "psfen",
            Format::Psv => "psv",
            Format::Hcp => "hcp",
            Format::Hcpe => "hcpe",
            Format::Hcpe3 => "hcpe3",
            Format::Pack => "pack",
            Format::Sbinpack => "sbinpack",
        }
    }

    /// File extension (without the dot), the same as the name.
    pub const fn extension(self) -> &'static str {
        self.name()
    }

    /// How the format's records are framed in a file.
    pub const fn framing(self) -> Framing {
        match self {
            Format::Sfen | Format::Usi => Framing::Line,
            Format::Psfen => Framing::Fixed(PSFEN_SIZE),
            Format::Psv => Framing::Fixed(PSV_SIZE),
            Format::Hcp => Framing::Fixed(HCP_SIZE),
            Format::Hcpe => Framing::Fixed(HCPE_SIZE),
            Format::Hcpe3 | Format::Pack | Format::Sbinpack => Framing::Game,
        }
    }

    /// Bytes per record for the fixed-size formats; `None` for the others.
    pub const fn record_size(self) -> Option<usize> {
        match self.framing() {
            Framing::Fixed(n) => Some(n),
            Framing::Line | Framing::Game => None,
        }
    }

    /// Whether the format stores whole games (hcpe3, .pack, sbinpack).
    pub const fn is_game(self) -> bool {
        matches!(self.framing(), Framing::Game)
    }

    /// Whether records are text lines.
    pub const fn is_text(self) -> bool {
        matches!(self.framing(), Framing::Line)
    }

    /// Whether records carry teacher fields (score, move, result): psv, hcpe and the game
    /// formats (each position's move, its eval and the game's result).
    pub const fn has_teacher_fields(self) -> bool {
        matches!(self, Format::Psv | Format::Hcpe) || self.is_game()
    }

    /// The format whose extension is `ext` (case-insensitive; `packedsfen` / `bin` aliases
    /// are not guessed).
    pub fn from_extension(ext: &str) -> Option<Format> {
        ext.parse().ok()
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown format name.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("unknown format {0:?} (expected one of {list})", list = names(&[]))]
pub struct UnknownFormat(pub String);

/// The names of `extra` and every format, comma-separated (for messages).
fn names(extra: &[&str]) -> String {
    let all = extra.iter().copied().chain(Format::ALL.map(Format::name));
    all.collect::<Vec<_>>().join(", ")
}

/// A format as a setting names it: a concrete format, or a rule that picks one. Its text
/// form is the format's name, `auto` or `same` (config, command line, report.json).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FormatChoice {
    /// Detect each input file's format from its extension, magic and content (inputs only).
    Auto,
    /// The format of the input file the record came from (outputs only).
    Same,
    /// This format.
    Is(Format),
}

impl FormatChoice {
    /// The concrete format, if the choice names one.
    pub const fn format(self) -> Option<Format> {
        match self {
            FormatChoice::Is(f) => Some(f),
            FormatChoice::Auto | FormatChoice::Same => None,
        }
    }

    /// The text form: `auto`, `same` or the format's name.
    pub const fn name(self) -> &'static str {
        match self {
            FormatChoice::Auto => "auto",
            FormatChoice::Same => "same",
            FormatChoice::Is(f) => f.name(),
        }
    }

    /// Every format's name after `first` (`"auto"` or `"same"`), for the messages that say
    /// what a setting may be.
    pub fn choices(first: &str) -> String {
        names(&[first])
    }
}

impl fmt::Display for FormatChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for FormatChoice {
    type Err = UnknownFormat;
    fn from_str(s: &str) -> Result<FormatChoice, UnknownFormat> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(FormatChoice::Auto),
            "same" => Ok(FormatChoice::Same),
            _ => s
                .parse()
                .map(FormatChoice::Is)
                .map_err(|_| UnknownFormat(s.to_string())),
        }
    }
}

impl serde::Serialize for FormatChoice {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for FormatChoice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FormatChoice, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(|_| {
            serde::de::Error::custom(format!(
                "unknown format `{text}`, expected one of {}",
                names(&["auto", "same"])
            ))
        })
    }
}

impl FromStr for Format {
    type Err = UnknownFormat;
    fn from_str(s: &str) -> Result<Format, UnknownFormat> {
        let lower = s.trim().to_ascii_lowercase();
        Format::ALL
            .into_iter()
            .find(|f| f.name() == lower)
            .ok_or_else(|| UnknownFormat(s.to_string()))
    }
}

/// Why a record could not be decoded or a position not encoded.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CodecError {
    /// The record has the wrong number of bytes (a truncated tail of a file).
    #[error("record is {got} bytes, {format} needs {need}")]
    Length {
        /// The format.
        format: Format,
        /// Bytes present.
        got: usize,
        /// Bytes required.
        need: usize,
    },
    /// A king square field is 81 or more.
    #[error("{color:?} king square field is {value} (must be < 81)")]
    KingSquare {
        /// Whose king.
        color: Color,
        /// The field's value.
        value: usize,
    },
    /// Both kings on one square.
    #[error("both kings on square index {0}")]
    KingsCollide(usize),
    /// No code of the format starts at this bit.
    #[error("no piece code starts at bit {bit}")]
    BadCode {
        /// Bit position in the 256-bit stream.
        bit: usize,
    },
    /// The codes run past bit 256 (while reading the board, or the last hand code).
    #[error("piece codes run past bit 256{}", .square.map(|s| format!(" at square index {s}")).unwrap_or_default())]
    Overrun {
        /// The square being read, if on the board.
        square: Option<usize>,
    },
    /// Board, hands and box do not hold exactly the full set of a kind.
    #[error("{count} pieces of kind {kind:?} on board, in hands and box (a set has {})", kind.max_count())]
    Inventory {
        /// The unpromoted kind.
        kind: PieceType,
        /// How many were found.
        count: u32,
    },
    /// The pieces form an impossible position.
    #[error("impossible position: {0}")]
    Invalid(#[from] Invalid),
    /// An SFEN text does not parse.
    #[error("bad SFEN: {0}")]
    Sfen(#[from] SfenError),
    /// A USI line does not parse or replay.
    #[error("USI line, {what}")]
    Usi {
        /// What is wrong (and at which move).
        what: String,
    },
    /// A text record is not UTF-8 or is empty.
    #[error("text record: {0}")]
    Text(String),
    /// The position cannot be written in the requested format.
    #[error("cannot encode: {0}")]
    Unrepresentable(String),
    /// A game format has no record of one position on its own: its files are read and
    /// written game by game (`codec::game`).
    #[error("{0} holds whole games, not records of one position: read and write it by games")]
    WholeGames(Format),
}

impl CodecError {
    /// A short stable name of the error kind (for statistics and JSON).
    pub fn code(&self) -> &'static str {
        match self {
            CodecError::Length { .. } => "length",
            CodecError::KingSquare { .. } => "king_square",
            CodecError::KingsCollide(_) => "kings_collide",
            CodecError::BadCode { .. } => "bad_code",
            CodecError::Overrun { .. } => "overrun",
            CodecError::Inventory { .. } => "inventory",
            CodecError::Invalid(_) => "invalid_position",
            CodecError::Sfen(_) => "sfen",
            CodecError::Usi { .. } => "usi",
            CodecError::Text(_) => "text",
            CodecError::Unrepresentable(_) => "unrepresentable",
            CodecError::WholeGames(_) => "whole_games",
        }
    }
}

/// The first `N` bytes of a record after checking its exact length.
#[inline(always)]
pub(crate) fn fixed<const N: usize>(format: Format, bytes: &[u8]) -> Result<&[u8; N], CodecError> {
    let need = format.record_size().unwrap_or(0);
    if bytes.len() != need || need < N {
        return Err(CodecError::Length {
            format,
            got: bytes.len(),
            need,
        });
    }
    bytes[..N].try_into().map_err(|_| CodecError::Length {
        format,
        got: bytes.len(),
        need,
    })
}

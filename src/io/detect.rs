//! Format detection: what a file holds, and why (one line per piece of evidence).
//!
//! # Contract
//! - An explicit format always wins (the evidence is still reported).
//! - Otherwise the zstd magic, the extension (after `.zst`), text versus binary, and for
//!   binary files a decode probe of the first [`PROBE_RECORDS`] records of each format,
//!   with record-size divisibility as a tie-breaker. PackedSfen and HCP share a record
//!   size: when both decode, detection stops and asks for the format.
//! - An extension is believed only when the content does not contradict it: when fewer
//!   than 9 in 10 probed records decode as the extension's format and another format fits
//!   (9 in 10 or more), detection stops and asks for the format (HCP data named `.psfen`
//!   would otherwise be read as PackedSfen, and the third of its records that happen to
//!   decode kept as wrong positions). Bad records that fit no other format are read as
//!   the extension says and rejected one by one.
//! - A UTF-8 byte-order mark at the start of a text file is not part of its first line.
//! - An opening book ([`crate::book::sniff`]: a DB2016 header or `sfen` + move lines, the
//!   `.ybb` magic, a `.sbk` name) is refused with a clear error unless a record format is
//!   named: read as SFEN lines it would lose every move.

use super::input::{io_err, is_zstd, not_a_file, open_stream, read_until_error, InputError};
use crate::codec::{self, Format};
use std::io;
use std::path::Path;

/// Bytes of (decompressed) data the detector looks at.
pub const PROBE_BYTES: usize = 64 << 10;
/// Records the detector tries to decode per candidate format.
pub const PROBE_RECORDS: usize = 64;

/// The outcome of format detection for one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detection {
    /// The format chosen.
    pub format: Format,
    /// Whether the file is zstd-compressed.
    pub compressed: bool,
    /// The size on disk.
    pub file_bytes: u64,
    /// Why: one line per piece of evidence, in the order it was considered.
    pub reasons: Vec<String>,
}

/// Recognises the format of `path` (see the module contract).
pub fn detect(path: &Path, explicit: Option<Format>) -> Result<Detection, InputError> {
    if let Some(what) = not_a_file(path) {
        // Opening a FIFO would wait for a writer.
        return Err(InputError::NotAFile {
            path: path.to_path_buf(),
            what,
        });
    }
    let compressed = is_zstd(path)?;
    let file_bytes = std::fs::metadata(path).map_err(io_err(path))?.len();
    let mut reasons = Vec::new();
    if compressed {
        reasons.push("zstd magic number 28 b5 2f fd: decompressed as a stream".to_string());
    }
    // A stream that breaks after its first bytes is still detected from them; the batch
    // reader then rejects the unreadable rest. One that breaks at once is rejected whole
    // when its format is named or in its name, and cannot be recognised otherwise.
    let (sample, broken) = read_sample(path)?;
    if let (true, Some(e)) = (sample.is_empty(), &broken) {
        reasons.push(format!(
            "no byte can be read ({e}): the file is rejected as unreadable"
        ));
    }
    let known_len = (!compressed).then_some(file_bytes);
    let done = |format, reasons| {
        Ok(Detection {
            format,
            compressed,
            file_bytes,
            reasons,
        })
    };
    if let Some(f) = explicit {
        reasons.push(format!("format {f} given explicitly"));
        reasons.extend(probe_note(f, &sample, known_len));
        return done(f, reasons);
    }
    if let Some(book) = crate::book::sniff(path, &sample) {
        return Err(InputError::Detect {
            path: path.to_path_buf(),
            reason: book_refusal(book),
        });
    }
    if let Some(f) = extension_format(path) {
        reasons.push(format!("extension .{}", f.extension()));
        check_extension(path, f, &sample, known_len)?;
        reasons.extend(probe_note(f, &sample, known_len));
        return done(f, reasons);
    }
    if let (true, Some(e)) = (sample.is_empty(), broken) {
        return Err(InputError::Unreadable {
            path: path.to_path_buf(),
            offset: 0,
            reason: e.to_string(),
        });
    }
    if sample.is_empty() {
        return Err(InputError::Detect {
            path: path.to_path_buf(),
            reason: "the file is empty and its name has no format extension".into(),
        });
    }
    if looks_like_text(&sample) {
        let f = text_format(&sample);
        reasons.push(format!(
            "text (printable UTF-8 lines); first line {}",
            if f == Format::Usi {
                "is a USI position (startpos / moves)"
            } else {
                "is an SFEN"
            }
        ));
        reasons.extend(probe_note(f, &sample, known_len));
        return done(f, reasons);
    }
    reasons.push("binary (not printable text)".into());
    let f = binary_by_probe(path, &sample, known_len, &mut reasons)?;
    done(f, reasons)
}

/// Why a book is not read as records: it is positions with their moves, and reading it as
/// SFEN lines would reject every move line and lose the moves.
fn book_refusal(book: crate::book::BookFormat) -> String {
    let what = match book {
        crate::book::BookFormat::Db => "a YaneuraOu book (DB2016)",
        crate::book::BookFormat::Ybb => "a YaneuraOu binary book (.ybb)",
        crate::book::BookFormat::Sbk => "a ShogiGUI book (.sbk)",
        crate::book::BookFormat::Apery => "an Apery book",
    };
    format!(
        "this is {what}, not records: book cleaning by `posfilter run` is not available yet \
         (its positions' moves would be lost); `posfilter inspect` reads it and \
         `posfilter book walk` turns it into start positions"
    )
}

/// The first [`PROBE_BYTES`] of the file's (decompressed) stream, without a UTF-8
/// byte-order mark, and the error that cut them short.
fn read_sample(path: &Path) -> Result<(Vec<u8>, Option<io::Error>), InputError> {
    let mut sample = vec![0u8; PROBE_BYTES];
    let (n, broken) = read_until_error(&mut open_stream(path)?, &mut sample);
    sample.truncate(n);
    if sample.starts_with(UTF8_BOM) {
        sample.drain(..UTF8_BOM.len());
    }
    Ok((sample, broken))
}

/// The UTF-8 byte-order mark some editors put at the start of a text file.
pub const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// The format the file name gives (its extension, after removing `.zst`).
fn extension_format(path: &Path) -> Option<Format> {
    let name = path.file_name()?.to_string_lossy().to_lowercase();
    let stem = name.strip_suffix(".zst").unwrap_or(&name);
    let ext = Path::new(stem).extension()?.to_string_lossy().to_string();
    Format::from_extension(&ext)
}

/// Whether at least 9 in 10 of the records probed decode.
fn fits((ok, tried): (usize, usize)) -> bool {
    tried > 0 && ok * 10 >= tried * 9
}

/// Refuses an extension the content contradicts: fewer than 9 in 10 probed records decode
/// as `format` and another format fits (of the same kind, text or binary, and record size
/// dividing the length when known).
fn check_extension(
    path: &Path,
    format: Format,
    sample: &[u8],
    known_len: Option<u64>,
) -> Result<(), InputError> {
    let (ok, tried) = probe(format, sample);
    if tried == 0 || fits((ok, tried)) {
        return Ok(());
    }
    let text = looks_like_text(sample);
    let other = Format::ALL.into_iter().find(|&g| {
        g != format
            && g.is_text() == text
            && fits(probe(g, sample))
            && match (known_len, g.record_size()) {
                (Some(len), Some(size)) => len % size as u64 == 0,
                _ => true,
            }
    });
    let Some(other) = other else {
        // Bad records of the named format: each is rejected with its reason.
        return Ok(());
    };
    let (gok, gtried) = probe(other, sample);
    Err(InputError::Detect {
        path: path.to_path_buf(),
        reason: format!(
            "the name says {format}, the content says {other}: only {ok} of the first {tried} \
             records decode as {format}, {gok} of {gtried} as {other}; name the format to \
             read it anyway (`format = \"...\"` under [input], `--format` for inspect)"
        ),
    })
}

/// The one binary format whose probe fits (see [`detect`]).
fn binary_by_probe(
    path: &Path,
    sample: &[u8],
    known_len: Option<u64>,
    reasons: &mut Vec<String>,
) -> Result<Format, InputError> {
    if sample.starts_with(&codec::game::sbinpack::MAGIC) {
        reasons.push("sbinpack chunk magic SBN2".into());
        return Ok(Format::Sbinpack);
    }
    let mut survivors = Vec::new();
    for f in Format::BINARY.into_iter().chain(GAME_FORMATS) {
        let (ok, tried) = probe(f, sample);
        let size = f.record_size();
        let divides = known_len.zip(size).map(|(l, size)| l % size as u64 == 0);
        let what = if f.is_game() { "games" } else { "records" };
        reasons.push(format!(
            "{f}: {ok} of the first {tried} {what} decode{}",
            match (divides, size) {
                (Some(true), Some(size)) => format!(", length is a multiple of {size}"),
                (Some(false), Some(size)) => format!(", length is not a multiple of {size}"),
                _ => String::new(),
            }
        ));
        if fits((ok, tried)) {
            survivors.push((f, divides != Some(false)));
        }
    }
    if survivors.len() > 1 && survivors.iter().any(|s| s.1) {
        survivors.retain(|s| s.1);
    }
    let error = |reason| InputError::Detect {
        path: path.to_path_buf(),
        reason,
    };
    match survivors.as_slice() {
        [(f, _)] => {
            reasons.push(format!("only {f} fits"));
            Ok(*f)
        }
        [] => Err(error(format!(
            "no binary format decodes its first records ({}); give the format explicitly",
            reasons.join("; ")
        ))),
        many => Err(error(format!(
            "ambiguous: {} all decode ({}); give the format explicitly",
            many.iter()
                .map(|s| s.0.name())
                .collect::<Vec<_>>()
                .join(" and "),
            reasons.join("; ")
        ))),
    }
}

/// The game formats the detector probes after the fixed-size ones (sbinpack is known by
/// its magic).
const GAME_FORMATS: [Format; 2] = [Format::Hcpe3, Format::Pack];

/// Decodes up to [`PROBE_RECORDS`] records of `format` from `sample`: (decoded, tried). A
/// game format decodes up to `codec::game::PROBE_GAMES` games (ok: no fault and a move).
pub fn probe(format: Format, sample: &[u8]) -> (usize, usize) {
    if let Some(g) = codec::game::GameFormat::of(format) {
        return codec::game::probe(g, sample, sample.len() < PROBE_BYTES);
    }
    let mut ok = 0;
    let mut tried = 0;
    match format.record_size() {
        Some(size) => {
            for rec in sample.chunks_exact(size).take(PROBE_RECORDS) {
                tried += 1;
                ok += codec::decode(format, rec).is_ok() as usize;
            }
        }
        None => {
            let mut lines: Vec<&[u8]> = sample.split(|&b| b == b'\n').collect();
            if sample.len() == PROBE_BYTES {
                lines.pop(); // possibly cut in the middle
            }
            for line in lines
                .into_iter()
                .filter(|l| !l.trim_ascii().is_empty())
                .take(PROBE_RECORDS)
            {
                tried += 1;
                ok += codec::decode(format, line).is_ok() as usize;
            }
        }
    }
    (ok, tried)
}

/// A warning line when a chosen format does not fit the data well.
fn probe_note(format: Format, sample: &[u8], known_len: Option<u64>) -> Option<String> {
    let (ok, tried) = probe(format, sample);
    let mut notes = Vec::new();
    if ok < tried {
        let what = if format.is_game() { "games" } else { "records" };
        notes.push(format!(
            "only {ok} of the first {tried} {what} decode as {format}"
        ));
    }
    if let (Some(len), Some(size)) = (known_len, format.record_size()) {
        if len % size as u64 != 0 {
            notes.push(format!(
                "length {len} is not a multiple of {size}: a {}-byte tail will be rejected",
                len % size as u64
            ));
        }
    }
    (!notes.is_empty()).then(|| format!("warning: {}", notes.join("; ")))
}

fn looks_like_text(sample: &[u8]) -> bool {
    let valid = match std::str::from_utf8(sample) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && sample.len() == PROBE_BYTES,
    };
    valid
        && sample
            .iter()
            .all(|&b| b >= 0x20 || b == b'\n' || b == b'\r' || b == b'\t')
}

fn text_format(sample: &[u8]) -> Format {
    let first = sample
        .split(|&b| b == b'\n')
        .find(|l| !l.trim_ascii().is_empty())
        .unwrap_or_default();
    let first = String::from_utf8_lossy(first);
    let words: Vec<&str> = first.split_whitespace().collect();
    let usi =
        matches!(words.first(), Some(&"startpos") | Some(&"position")) || words.contains(&"moves");
    if usi {
        Format::Usi
    } else {
        Format::Sfen
    }
}

//! The decoding entry points: one record ([`decode_into`]) or two interleaved
//! ([`decode_pair_into`]) into reused positions, each compiled for BMI2 behind runtime
//! detection with the portable build as the fallback.
//!
//! # Invariants
//! - The dispatched and portable builds compile the same functions; a unit test compares
//!   them, and the pair decoder with decoding each record alone, on every codec vector, bit
//!   flips and random bytes.
//! - On error the target position is reset to the start position (never half-decoded).

use super::reader::{decode_body, header, Cursor, Step};
use super::scheme::{Scheme, RUN_STEPS};
use crate::codec::format::CodecError;
use crate::shogi::{Builder, Position, Square};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::{Color, PieceType};

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

//! The salvaging zstd reader (src/io/zstd_stream.rs) against the zstd library's own
//! decoder. The input is split into content and damage: the content is compressed into one
//! or more checksummed frames, then bytes of the compressed stream are flipped or the
//! stream is cut where the damage says. The reader never panics or loops; when the library
//! decodes the whole damaged stream, the reader hands out the same bytes and no error; when
//! the reader reports no error, the library agrees; a break without a checksum complaint
//! comes after at least the bytes the library gets out of the same stream. A damaged
//! header may ask for a window of up to 2 GiB, which zstd allocates: run with
//! `-malloc_limit_mb=2300`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use posfilter::io::zstd_stream::SalvagingDecoder;
use std::io::{BufRead, Read};

/// Everything `r` hands out before it fails, and the failure.
fn drain(r: &mut impl Read) -> (Vec<u8>, Option<String>) {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return (out, None),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => return (out, Some(e.to_string())),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let damage_len = (head as usize % 8).min(rest.len());
    let (damage, content) = rest.split_at(damage_len);
    // Up to three frames, so breaks between frames are reached too.
    let frames = 1 + (head as usize >> 3) % 3;
    let mut z = Vec::new();
    for part in content.chunks(content.len().div_ceil(frames).max(1)) {
        let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 1).unwrap();
        enc.include_checksum(true).unwrap();
        std::io::Write::write_all(&mut enc, part).unwrap();
        z.extend(enc.finish().unwrap());
    }
    if content.is_empty() {
        z = zstd::encode_all(&[][..], 1).unwrap();
    }
    // Damage: pairs (position, xor); an odd last byte cuts the stream.
    for pair in damage.chunks(2) {
        match *pair {
            [at, x] => {
                let i = at as usize * z.len() / 256;
                z[i] ^= x;
            }
            [cut] => z.truncate(cut as usize * z.len() / 256),
            _ => {}
        }
    }
    if z.is_empty() {
        // No frame at all (never read: a file without the magic is not decompressed); the
        // library calls it an incomplete frame, the reader an empty stream.
        return;
    }
    let mut ours = SalvagingDecoder::new(&z[..]).unwrap();
    let (got, err) = drain(&mut ours);
    // After a break the reader keeps reporting it.
    if err.is_some() {
        assert!(ours.fill_buf().is_err());
    }
    let mut lib_out = Vec::new();
    let lib = zstd::stream::read::Decoder::new(&z[..]).and_then(|mut d| {
        d.window_log_max(31)?;
        d.read_to_end(&mut lib_out)
    });
    match (&err, &lib) {
        (None, Ok(_)) => assert_eq!(got, lib_out),
        (None, Err(e)) => panic!("the library fails ({e}) where the reader does not"),
        // libzstd's streaming path does not check the declared content size of a frame
        // that ends in an empty block (its one-pass path does); the reader does.
        (Some(e), Ok(_)) if e.contains("declares") => assert_eq!(got, lib_out),
        (Some(e), Ok(_)) => panic!("the reader fails ({e}) where the library does not"),
        (Some(e), Err(_)) if !e.contains("checksum") => {
            // The library's stream reader loses what it decoded in its failing call: all
            // the bytes it got out are ours too, and we may have more.
            assert!(got.starts_with(&lib_out), "{} vs {}", got.len(), lib_out.len());
        }
        _ => {}
    }
    if damage.is_empty() {
        assert_eq!((got.as_slice(), err), (content, None));
    }
});

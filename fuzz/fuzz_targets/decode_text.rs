//! The SFEN and USI line parsers on arbitrary bytes: never panic; an accepted line is a valid
//! position whose SFEN parses back to the same position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use posfilter::codec::{self, Format};

fuzz_target!(|data: &[u8]| {
    for format in [Format::Sfen, Format::Usi] {
        if let Ok(d) = codec::decode(format, data) {
            assert!(d.position.validate().is_ok());
            let mut out = Vec::new();
            codec::encode(Format::Sfen, &d.position, None, &mut out).unwrap();
            let again = codec::decode(Format::Sfen, &out).unwrap();
            assert_eq!(again.position, d.position);
        }
    }
});

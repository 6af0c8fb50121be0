//! What the input list and format detection make of awkward files (issue 33, item 7): a
//! UTF-8 byte-order mark, paths that are not regular files, and an extension the content
//! contradicts. Truth: the same lines without the mark, the kernel's file types, and the
//! codec vectors (cshogi's bytes for the same positions in both formats).

use crate::support::{bin, data, jsonl, TempDir};
use posfilter::codec::{self, Format};
use posfilter::io::batch::{batches_of, BatchOptions};
use posfilter::io::detect::detect;
use posfilter::io::input::{expand, InputError};
use std::path::Path;
use std::time::{Duration, Instant};

const BOM: &[u8] = b"\xef\xbb\xbf";

/// (offset, bytes) of every record of `path` read as `format`.
fn records(path: &Path, format: Format) -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    for b in batches_of(path, format, BatchOptions::default()) {
        let b = b.unwrap();
        out.extend(b.iter().map(|r| (r.offset, r.bytes.to_vec())));
    }
    out
}

/// A mark at the start of a text file (or of a file joined after another) is not part of
/// the line: every line decodes to what it decodes to without the mark, and the first
/// record starts after the mark. Detection without an extension sees through it too.
#[test]
fn a_byte_order_mark_is_not_part_of_the_line() {
    let dir = TempDir::new("bom");
    let sfen = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    let usi = "startpos moves 7g7f 3c3d";
    for (name, line, format) in [
        ("a.sfen", sfen, Format::Sfen),
        ("a.usi", usi, Format::Usi),
        ("usi-no-extension", usi, Format::Usi),
    ] {
        let plain = format!("{line}\r\n{line}\n");
        let mut bytes = BOM.to_vec();
        bytes.extend_from_slice(plain.as_bytes());
        // `cat` of two files saved with a mark: the second mark starts line 3.
        bytes.extend_from_slice(BOM);
        bytes.extend_from_slice(plain.as_bytes());
        let path = dir.join(name);
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(detect(&path, None).unwrap().format, format, "{name}");
        let recs = records(&path, format);
        let (n, l) = (plain.len() as u64, line.len() as u64);
        let offsets: Vec<u64> = recs.iter().map(|r| r.0).collect();
        assert_eq!(
            offsets,
            [3, 3 + l + 2, 3 + n + 3, 3 + n + 3 + l + 2],
            "{name}"
        );
        let want = codec::decode(format, line.as_bytes()).unwrap().position;
        for (offset, rec) in &recs {
            assert_eq!(rec.as_slice(), line.as_bytes(), "{name} at {offset}");
            assert_eq!(codec::decode(format, rec).unwrap().position, want);
        }
    }
}

/// Waits for `child` at most `secs`; kills it and fails if it is still running.
fn wait_at_most(mut child: std::process::Child, secs: u64, what: &str) -> std::process::Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A FIFO, a device, a looping and a dangling symbolic link are named for what they are,
/// in a path or a glob match, never "matches no file"; `inspect` of a FIFO says so at once
/// instead of waiting for a writer.
#[test]
fn paths_that_are_not_regular_files_say_what_they_are() {
    use std::os::unix::fs::symlink;
    let dir = TempDir::new("special");
    let fifo = dir.join("pipe.psfen");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo (coreutils) failed");
    symlink(dir.join("loop-b"), dir.join("loop-a")).unwrap();
    symlink(dir.join("loop-a"), dir.join("loop-b")).unwrap();
    symlink(dir.join("gone.psfen"), dir.join("dangling.psfen")).unwrap();
    let cases = [
        (fifo.display().to_string(), "is a FIFO (named pipe)"),
        ("/dev/null".to_string(), "is a character device"),
        (dir.join("loop-a").display().to_string(), "that loops"),
        (
            dir.join("dangling.psfen").display().to_string(),
            "leads to no file",
        ),
        (
            format!("{}/pipe.*", dir.0.display()),
            "is a FIFO (named pipe)",
        ),
    ];
    for (pattern, says) in cases {
        let text = match expand(std::slice::from_ref(&pattern)) {
            Err(e) => e.to_string(),
            Ok(files) => panic!("{pattern}: {files:?}"),
        };
        assert!(text.contains(says), "{pattern}: {text}");
    }
    let child = std::process::Command::new(bin())
        .arg("inspect")
        .arg(&fifo)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_at_most(child, 20, "inspect of a FIFO");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is a FIFO (named pipe)"), "{err}");
}

/// HCP records named .psfen (and PackedSfen named .hcp, and USI lines named .sfen) are
/// refused with both formats named; an explicit format reads them anyway; a psfen file
/// of bad records that fit no other format either is still read as psfen.
#[test]
fn an_extension_the_content_contradicts_stops_detection() {
    let dir = TempDir::new("contradict");
    let (mut psfen, mut hcp) = (Vec::new(), Vec::new());
    for v in jsonl("codec/codec_vectors.jsonl").iter().take(500) {
        let hex = |k: &str| {
            let s = v[k].as_str().unwrap();
            (0..s.len() / 2)
                .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
                .collect::<Vec<u8>>()
        };
        psfen.extend(hex("psfen"));
        hcp.extend(hex("hcp"));
    }
    let usi = std::fs::read_to_string(data("codec/teacher.usi")).unwrap();
    let cases: [(&str, &[u8], &str); 4] = [
        (
            "hcp.psfen",
            &hcp,
            "the name says psfen, the content says hcp",
        ),
        (
            "psfen.hcp",
            &psfen,
            "the name says hcp, the content says psfen",
        ),
        (
            "games.sfen",
            usi.as_bytes(),
            "the name says sfen, the content says usi",
        ),
        (
            "psfen.sfen",
            &psfen,
            "the name says sfen, the content says psfen",
        ),
    ];
    for (name, bytes, says) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        match detect(&path, None) {
            Err(InputError::Detect { reason, .. }) => {
                assert!(reason.contains(says), "{name}: {reason}");
                assert!(reason.contains("name the format"), "{reason}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    let path = dir.join("hcp.psfen");
    assert_eq!(
        detect(&path, Some(Format::Hcp)).unwrap().format,
        Format::Hcp
    );
    assert_eq!(
        detect(&path, Some(Format::Psfen)).unwrap().format,
        Format::Psfen
    );
    // Mostly garbage that fits no other format either: psfen as named, with a warning (the
    // run rejects the bad records one by one).
    let mut some_bad = psfen[..64 * 32].to_vec();
    for k in (0..64).filter(|k| k % 3 != 0) {
        some_bad[k * 32..k * 32 + 32].fill(0xff);
    }
    let path = dir.join("some-bad.psfen");
    std::fs::write(&path, &some_bad).unwrap();
    let det = detect(&path, None).unwrap();
    assert_eq!(det.format, Format::Psfen);
    assert!(
        det.reasons
            .iter()
            .any(|r| r.contains("only 22 of the first 64")),
        "{:?}",
        det.reasons
    );

    // `posfilter run` on the HCP file named .psfen stops before writing anything.
    let cfg = dir.join("p.toml");
    std::fs::write(
        &cfg,
        format!(
            "[input]\npaths = [{:?}]\n[output]\ndir = \"out\"\n[filter.mate]\nenabled = false\n",
            dir.join("hcp.psfen").display().to_string()
        ),
    )
    .unwrap();
    let out = std::process::Command::new(bin())
        .args(["run", cfg.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the content says hcp"), "{err}");
    assert!(!dir.join("out/report.json").exists());
}

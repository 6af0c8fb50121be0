//! Every input format, plain and zstd-compressed, gives the same decisions; output format
//! conversion is exact; a file unlike its format is warned about; psv/hcpe move fields that
//! are not legal are kept, cleared or rejected.

use super::*;

/// Writes `bytes` as `in.<ext>` (or `in.<ext>.zst`, compressed), runs it with a small node
/// budget and dedup off, checks reconciliation and the detected format, and returns the
/// non-kept decisions and the output directory.
fn run_one_input(
    dir: &TempDir,
    ext: &str,
    bytes: &[u8],
    zst: bool,
    n: usize,
) -> (String, BTreeMap<u64, String>, std::path::PathBuf) {
    let name = if zst {
        format!("in.{ext}.zst")
    } else {
        format!("in.{ext}")
    };
    let path = dir.join(&name);
    let body = if zst {
        zstd::encode_all(bytes, 3).unwrap()
    } else {
        bytes.to_vec()
    };
    std::fs::write(&path, body).unwrap();
    let out = dir.join(&format!("out-{name}"));
    let cfg = config(
        dir,
        &[&path],
        "[filter.mate]\nnodes = 2000\n[filter.dedup]\nenabled = false\n",
    );
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let r = report(&out);
    assert_eq!(reconciles(&r), n as u64, "{name}");
    assert_eq!(r["inputs"][0]["format"], ext, "{name}");
    assert_eq!(
        r["move_field"]["illegal"], 0,
        "{name}: every move field is legal"
    );
    (name, decisions(&out), out)
}

#[test]
fn every_format_plain_and_zst_gives_the_same_decisions() {
    let dir = TempDir::new("formats");
    let n = 400;
    let usi_all =
        zstd::decode_all(&std::fs::read(data("filter/startpos.usi.zst")).unwrap()[..]).unwrap();
    let usi = first_lines(std::str::from_utf8(&usi_all).unwrap(), n);
    let sfen = first_lines(
        &std::fs::read_to_string(data("pipeline/startpos.sfen")).unwrap(),
        n,
    );
    let psfen = std::fs::read(data("pipeline/startpos.psfen")).unwrap()[..n * 32].to_vec();
    let hcp = std::fs::read(data("pipeline/startpos.hcp")).unwrap()[..n * 32].to_vec();
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("sfen", sfen.into_bytes()),
        ("usi", usi.into_bytes()),
        ("psfen", psfen.clone()),
        ("hcp", hcp),
    ];
    let mut by_format = BTreeMap::new();
    for (ext, bytes) in &inputs {
        for zst in [false, true] {
            let (name, d, out) = run_one_input(&dir, ext, bytes, zst, n);
            by_format.insert(name, (d, out));
        }
    }
    // Compression changes nothing: every output file is identical (the audit up to the input
    // file's name, so the manifest's checksum of it differs).
    for (ext, _) in &inputs {
        same_outputs(
            &by_format[&format!("in.{ext}")].1,
            &by_format[&format!("in.{ext}.zst")].1,
            &["manifest.json"],
        );
    }
    // The same positions decide the same way whatever the encoding; usi additionally knows
    // the game history, so it may only add repetition drops.
    let sfen_d = &by_format["in.sfen"].0;
    assert_eq!(&by_format["in.psfen"].0, sfen_d);
    assert_eq!(&by_format["in.hcp"].0, sfen_d);
    let usi_d = &by_format["in.usi"].0;
    for (i, d) in usi_d {
        if d != "repetition" {
            assert_eq!(sfen_d.get(i), Some(d), "usi record {i}");
        }
    }
    // Kept psfen records are the input bytes, unchanged, in input order.
    let kept = std::fs::read(by_format["in.psfen"].1.join("kept/part-00000.psfen")).unwrap();
    let expected: Vec<u8> = (0..n)
        .filter(|i| !sfen_d.contains_key(&(*i as u64)))
        .flat_map(|i| psfen[i * 32..i * 32 + 32].to_vec())
        .collect();
    assert_eq!(kept, expected);
}

#[test]
fn teacher_formats_psv_and_hcpe_plain_and_zst_agree() {
    // The same 1,200 teacher records (whole games) as psv and as hcpe, plain and compressed.
    let dir = TempDir::new("teacher");
    let n = 1200;
    let read = |name: &str, size: usize| {
        let all = zstd::decode_all(&std::fs::read(data(name)).unwrap()[..]).unwrap();
        all[..n * size].to_vec()
    };
    let inputs = [
        ("psv", read("codec/teacher.psv.zst", 40)),
        ("hcpe", read("codec/teacher.hcpe.zst", 38)),
    ];
    let mut runs = BTreeMap::new();
    for (ext, bytes) in &inputs {
        for zst in [false, true] {
            let (name, d, out) = run_one_input(&dir, ext, bytes, zst, n);
            runs.insert(name, (d, out));
        }
    }
    for (ext, _) in &inputs {
        same_outputs(
            &runs[&format!("in.{ext}")].1,
            &runs[&format!("in.{ext}.zst")].1,
            &["manifest.json"],
        );
    }
    // psv knows game order (repetition); otherwise both encodings decide alike, except
    // that hcpe records without a move are dropped as `no_move` (an hcpe shard never holds
    // one, docs/formats.md), which psv keeps.
    let (psv, hcpe) = (&runs["in.psv"].0, &runs["in.hcpe"].0);
    assert!(psv.values().any(|d| d == "repetition"));
    for (i, d) in psv {
        if d != "repetition" {
            assert_eq!(hcpe.get(i), Some(d), "record {i}");
        }
    }
    let hcpe_bytes = &inputs[1].1;
    for (i, d) in hcpe {
        let moveless = hcpe_bytes[*i as usize * 38 + 34..*i as usize * 38 + 36] == [0, 0];
        assert!(
            psv.contains_key(i) || (d == "no_move" && moveless),
            "record {i}: {d}"
        );
    }
    assert!(hcpe.values().any(|d| d == "no_move"));
}

/// With every dropping stage off, a run is a format converter: psv in, hcpe / psfen / sfen
/// out, checked against the corpus's hcpe file (made from the same games by another tool)
/// and the psv records' own PackedSfen bytes.
#[test]
fn output_format_converts_every_record_exactly() {
    let dir = TempDir::new("convert");
    let psv =
        zstd::decode_all(std::fs::File::open(data("codec/teacher.psv.zst")).unwrap()).unwrap();
    let hcpe =
        zstd::decode_all(std::fs::File::open(data("codec/teacher.hcpe.zst")).unwrap()).unwrap();
    let n = psv.len() / 40;
    let input = data("codec/teacher.psv.zst");
    let off = "[filter.mate]\nenabled = false\n[filter.repetition]\nenabled = false\n\
               [filter.declaration]\nenabled = false\n[filter.entering_king]\nenabled = false\n\
               [filter.dedup]\nenabled = false\n";
    // The corpus records without a move (bestMove16 = 0): an hcpe shard drops them as
    // `no_move` unless `keep_moveless_hcpe` asks for them (docs/formats.md).
    let with_move: Vec<u8> = hcpe
        .chunks(38)
        .filter(|r| r[34..36] != [0, 0])
        .flatten()
        .copied()
        .collect();
    let moveless = (hcpe.len() - with_move.len()) / 38;
    assert!(moveless > 100, "{moveless}");
    for format in ["hcpe", "hcpe+moveless", "psfen", "sfen"] {
        let (format, extra) = match format.split_once('+') {
            Some((f, _)) => (f, "keep_moveless_hcpe = true\n"),
            None => (format, ""),
        };
        let cfg = config(
            &dir,
            &[&input],
            &format!("format = \"{format}\"\n{extra}{off}"),
        );
        let out = dir.join(&format!("out-{format}{}", extra.len()));
        run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
        let r = report(&out);
        let no_move = if format == "hcpe" && extra.is_empty() {
            moveless
        } else {
            0
        };
        assert_eq!(
            r["records"]["kept"],
            (n - no_move) as u64,
            "{format} {extra}"
        );
        assert_eq!(r["records"]["dropped"]["no_move"], no_move as u64);
        let kept = std::fs::read(out.join(format!("kept/part-00000.{format}"))).unwrap();
        match format {
            "hcpe" if extra.is_empty() => assert!(
                kept == with_move,
                "psv -> hcpe differs from the corpus hcpe's records with a move"
            ),
            "hcpe" => assert!(kept == hcpe, "psv -> hcpe differs from the corpus hcpe"),
            "psfen" => {
                let packed: Vec<u8> = psv.chunks(40).flat_map(|r| r[..32].to_vec()).collect();
                assert!(
                    kept == packed,
                    "psv -> psfen differs from the psv's PackedSfen"
                );
            }
            _ => {
                let text = String::from_utf8(kept).unwrap();
                assert_eq!(text.lines().count(), n);
                for (i, line) in text.lines().enumerate() {
                    let want = codec::decode(Format::Psv, &psv[i * 40..i * 40 + 40]).unwrap();
                    let got = Position::from_sfen(line).unwrap();
                    assert_eq!(got, want.position, "record {i}: {line}");
                }
            }
        }
    }
}

/// A file that does not look like the format it is read as (here PackedSfen read as hcpe,
/// as `input.format` forces) is named in a warning on stderr before the run, since most of
/// its records will be rejected; `--quiet` says nothing but the exit status's reason.
#[test]
fn a_file_unlike_its_format_is_warned_about() {
    let dir = TempDir::new("format-warning");
    let input = startpos_file(&dir, "in.psfen", 200);
    let cfg = dir.join("wrong.toml");
    let text = format!(
        "[input]\npaths = [{:?}]\nformat = \"hcpe\"\n[output]\ndir = \"out\"\n[filter.mate]\nenabled = false\n",
        input.display().to_string()
    );
    std::fs::write(&cfg, text).unwrap();
    let cfg = cfg.to_str().unwrap();
    // 167 of 169 records are rejected: the run completes with status 1 and says why.
    let (code, err) = run_status(&["run", cfg]);
    assert_eq!(code, 1, "{err}");
    let expected = format!("posfilter: warning: {}: only ", input.display());
    assert!(
        err.contains(&expected) && err.contains("decode as hcpe"),
        "{err}"
    );
    assert!(err.contains("is input.format right?"), "{err}");
    let (code, err) = run_status(&["run", cfg, "--quiet"]);
    assert_eq!(code, 1, "{err}");
    assert!(!err.contains("warning"), "{err}");
}

#[test]
fn illegal_move_fields_are_kept_cleared_or_rejected() {
    let dir = TempDir::new("movefield");
    let mut psv = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/teacher.psv"))
        .unwrap()[..20 * 40]
        .to_vec();
    // Record 5's move field becomes R*5e (YaneuraOu Move16; read as Apery move16 it is
    // 1g5e+): no rook in hand at ply 6 and nothing on 1g can go there, so neither reading is
    // legal.
    let bad: u16 = 0x4000 | (6 << 7) | 40;
    let pos5 = codec::decode(Format::Psv, &psv[200..240]).unwrap().position;
    assert!(!pos5.is_legal(Move::from_yo16(bad).unwrap()));
    assert!(Move::from_apery16(bad).is_none_or(|m| !pos5.is_legal(m)));
    psv[200 + 34..200 + 36].copy_from_slice(&bad.to_le_bytes());
    let input = dir.join("in.psv");
    std::fs::write(&input, &psv).unwrap();
    for policy in ["keep", "clear", "reject"] {
        let extra = format!("[filter]\nmove_field = \"{policy}\"\n[filter.mate]\nenabled = false\n[filter.dedup]\nenabled = false\n[filter.repetition]\nenabled = false\n");
        let cfg = config(&dir, &[&input], &extra);
        let out = dir.join(&format!("out-{policy}"));
        run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
        let r = report(&out);
        assert_eq!(r["move_field"]["illegal"], 1, "{policy}");
        let kept = std::fs::read(out.join("kept/part-00000.psv")).unwrap();
        match policy {
            "keep" => assert_eq!(kept, psv),
            "clear" => {
                assert_eq!(r["move_field"]["cleared"], 1);
                assert_eq!(kept.len(), psv.len());
                assert_eq!(&kept[200 + 34..200 + 36], &[0, 0]);
                assert_eq!(&kept[..234], &psv[..234]);
                assert_eq!(&kept[236..], &psv[236..]);
                // The same game twice with dedup on: both bad fields are counted as
                // illegal, but only the kept copy as cleared (the other is a duplicate).
                let twice = dir.join("twice.psv");
                std::fs::write(&twice, [psv.as_slice(), psv.as_slice()].concat()).unwrap();
                let extra = "[filter]\nmove_field = \"clear\"\n[filter.mate]\nenabled = false\n[filter.repetition]\nenabled = false\n";
                let out2 = dir.join("out-clear-twice");
                let cfg = config(&dir, &[&twice], extra);
                run_ok(&["run", &cfg, "--out", out2.to_str().unwrap(), "--quiet"]);
                let r2 = report(&out2);
                assert_eq!(r2["move_field"]["illegal"], 2);
                assert_eq!(r2["move_field"]["cleared"], 1);
                assert_eq!(
                    std::fs::read(out2.join("kept/part-00000.psv")).unwrap(),
                    kept
                );
            }
            _ => {
                assert_eq!(r["records"]["rejected"], 1);
                assert_eq!(kept.len(), psv.len() - 40);
                let rej = std::fs::read_to_string(out.join("rejected.jsonl")).unwrap();
                assert!(
                    rej.contains("\"index\":5") && rej.contains("move field"),
                    "{rej}"
                );
            }
        }
    }
}

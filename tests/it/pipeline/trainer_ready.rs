//! Trainer-ready kept shards (issue 34): by default a plain input gives plain shards that
//! numpy (`np.fromfile` with cshogi's dtype) and cshogi read record for record, a `.zst`
//! input gives `.zst` shards, an explicit `output.compression` wins both ways, and a shard
//! keeps its input's own extension (`.bin` stays `.bin`) unless converted. Truth: the input
//! records the audit does not name, read by numpy / cshogi (tests/data/pipeline/trainer_read.py)
//! and by the zstd crate.

use super::{decisions, report, run_ok};
use crate::games::python_oracles;
use crate::support::{data, TempDir};
use posfilter::codec::{self, Format};
use std::path::{Path, PathBuf};

/// Corpus teacher records `skip..skip + n` of `format` (psv or hcpe).
fn teacher(format: Format, skip: usize, n: usize) -> Vec<u8> {
    let file = std::fs::File::open(data(&format!("codec/teacher.{}.zst", format.name())));
    let bytes = zstd::decode_all(file.unwrap()).unwrap();
    let size = format.record_size().unwrap();
    bytes[skip * size..(skip + n) * size].to_vec()
}

/// A config over `inputs` with the mate stage off and `output` keys added (default
/// compression unless `output` sets it).
fn config(dir: &TempDir, inputs: &[&Path], output: &str) -> String {
    let paths: Vec<String> = inputs
        .iter()
        .map(|p| format!("{:?}", p.display().to_string()))
        .collect();
    let text = format!(
        "[input]\npaths = [{}]\n[output]\ndir = \"out\"\n{output}\n[filter.mate]\nenabled = false\n",
        paths.join(", ")
    );
    let path = dir.join(&format!("p{}.toml", output.len()));
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Runs `cfg` into `dir/out-<tag>`; returns the output directory and the names in kept/.
fn run(dir: &TempDir, cfg: &str, tag: &str) -> (PathBuf, Vec<String>) {
    let out = dir.join(&format!("out-{tag}"));
    run_ok(&["run", cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let mut names: Vec<String> = std::fs::read_dir(out.join("kept"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    (out, names)
}

/// The records of `input` (of `format`, global indices from `first`) the run kept: those
/// neither audit.jsonl nor rejected.jsonl names with a decision other than `keep`.
fn expected_kept(out: &Path, input: &[u8], format: Format, first: u64) -> Vec<u8> {
    let gone = decisions(out);
    let size = format.record_size().unwrap();
    let mut kept = Vec::new();
    for (i, r) in input.chunks(size).enumerate() {
        let index = first + i as u64;
        if gone.get(&index).is_none_or(|d| d == "keep") {
            kept.extend_from_slice(r);
        }
    }
    kept
}

/// numpy + cshogi's reading of `shard`, checked row by row against `expected` records.
fn trainer_reads(format: Format, shard: &Path, expected: &[u8]) {
    let o = std::process::Command::new("python3")
        .arg(data("pipeline/trainer_read.py"))
        .arg(format.name())
        .arg(shard)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let size = format.record_size().unwrap();
    assert_eq!(rows.len(), expected.len() / size, "{}", shard.display());
    for (i, (row, rec)) in rows.iter().zip(expected.chunks(size)).enumerate() {
        let ours = codec::decode(format, rec).unwrap();
        let sfen = ours.position.to_sfen();
        let want: Vec<&str> = sfen.split(' ').take(3).collect();
        assert_eq!(row["sfen"], want.join(" "), "{} row {i}", shard.display());
        let t = ours.teacher.unwrap();
        assert_eq!(row["move"].as_i64().unwrap() as u16, t.raw_move, "row {i}");
        assert_eq!(row["score"], t.score, "row {i}");
    }
}

#[test]
fn default_shards_of_plain_inputs_load_with_numpy_and_cshogi() {
    let dir = TempDir::new("trainer-plain");
    // Different positions in the two files (the corpus psv and hcpe hold the same ones).
    let (psv, hcpe) = (
        teacher(Format::Psv, 0, 2000),
        teacher(Format::Hcpe, 2000, 2000),
    );
    let (a, b) = (dir.join("teacher.bin"), dir.join("games.hcpe"));
    std::fs::write(&a, &psv).unwrap();
    std::fs::write(&b, &hcpe).unwrap();
    let cfg = config(&dir, &[&a, &b], "");
    let (out, names) = run(&dir, &cfg, "default");
    assert_eq!(names, ["part-00000.bin", "part-00000.hcpe"]);
    let r = report(&out);
    let dropped = r["records"]["dropped"].as_object().unwrap();
    assert!(dropped.values().any(|v| v.as_u64() > Some(0)), "{r}");
    let want_psv = expected_kept(&out, &psv, Format::Psv, 0);
    let want_hcpe = expected_kept(&out, &hcpe, Format::Hcpe, 2000);
    let kept = (want_psv.len() / 40 + want_hcpe.len() / 38) as u64;
    assert_eq!(r["records"]["kept"], kept);
    assert!(std::fs::read(out.join("kept/part-00000.bin")).unwrap() == want_psv);
    assert!(std::fs::read(out.join("kept/part-00000.hcpe")).unwrap() == want_hcpe);
    if python_oracles() {
        trainer_reads(Format::Psv, &out.join("kept/part-00000.bin"), &want_psv);
        trainer_reads(Format::Hcpe, &out.join("kept/part-00000.hcpe"), &want_hcpe);
    }
}

#[test]
fn compression_follows_the_input_unless_the_config_says_and_names_follow_the_rules() {
    let dir = TempDir::new("trainer-zst");
    let psv = teacher(Format::Psv, 0, 600);
    let plain = dir.join("a.bin");
    std::fs::write(&plain, &psv).unwrap();
    let zst = dir.join("z.bin.zst");
    std::fs::write(&zst, zstd::encode_all(&psv[..], 3).unwrap()).unwrap();
    let cases: [(&Path, &str, &str); 4] = [
        (&zst, "", "part-00000.bin.zst"),
        (&zst, "compression = \"none\"", "part-00000.bin"),
        (&plain, "compression = \"zstd\"", "part-00000.bin.zst"),
        (&plain, "compression = \"auto\"", "part-00000.bin"),
    ];
    for (i, (input, output, name)) in cases.into_iter().enumerate() {
        let cfg = config(&dir, &[input], output);
        let dry = run_ok(&["run", &cfg, "--dry-run"]);
        let stem = name.replace("00000", "NNNNN");
        assert!(dry.contains(&format!("kept/{stem} (psv, ")), "{dry}");
        let (out, names) = run(&dir, &cfg, &i.to_string());
        assert_eq!(names, [name], "{output}");
        let bytes = std::fs::read(out.join("kept").join(name)).unwrap();
        let bytes = match name.ends_with(".zst") {
            true => zstd::decode_all(&bytes[..]).unwrap(),
            false => bytes,
        };
        assert!(bytes == expected_kept(&out, &psv, Format::Psv, 0), "{name}");
    }
    // Inputs with different extensions, and a conversion: the format's name.
    let other = dir.join("b.dat");
    std::fs::write(&other, &psv).unwrap();
    let (_, names) = run(&dir, &config(&dir, &[&plain, &other], ""), "two");
    assert_eq!(names, ["part-00000.psv"]);
    let (_, names) = run(&dir, &config(&dir, &[&zst], "format = \"psfen\""), "conv");
    assert_eq!(names, ["part-00000.psfen.zst"]);
}

/// Whether dlshogi's `is_hcpe` (cppshogi/python_module.cpp, docs/formats.md) takes `file`
/// for hcpe: its size a multiple of 38 and its last record's bestMove16 in 1..=26703.
fn dlshogi_reads_as_hcpe(file: &[u8]) -> bool {
    let Some(last) = file.len().checked_sub(38).map(|at| &file[at..]) else {
        return false;
    };
    let best = u16::from_le_bytes([last[34], last[35]]);
    file.len() % 38 == 0 && (1..=26703).contains(&best)
}

/// No hcpe file a run writes holds a record without a move: an hcpe input's move-less
/// records are dropped (as `checkmated` by the mate stage, else as `no_move`), never kept;
/// mates.hcpe holds the mates and mated positions with their first move, and the
/// checkmated ones only in mates.jsonl. Truth: the input's move fields, the audit, and
/// dlshogi's rule for telling hcpe from hcpe3.
#[test]
fn no_hcpe_file_we_write_holds_a_record_without_a_move() {
    let dir = TempDir::new("trainer-moveless");
    let hcpe = teacher(Format::Hcpe, 0, 6000);
    let input = dir.join("games.hcpe");
    std::fs::write(&input, &hcpe).unwrap();
    let text = format!(
        "[input]\npaths = [{:?}]\n[output]\ndir = \"out\"\n[filter.mate]\nnodes = 300\n\
         [mates]\nformat = \"hcpe\"\n",
        input.display().to_string()
    );
    let cfg = dir.join("p.toml");
    std::fs::write(&cfg, text).unwrap();
    let (out, names) = run(&dir, cfg.to_str().unwrap(), "moveless");
    assert_eq!(names, ["part-00000.hcpe"]);
    let r = report(&out);
    super::reconciles(&r);
    let dropped = &r["records"]["dropped"];
    let gone = decisions(&out);
    let moveless: Vec<u64> = (0..6000u64)
        .filter(|&i| hcpe[i as usize * 38 + 34..i as usize * 38 + 36] == [0, 0])
        .collect();
    assert!(moveless.len() > 5, "{}", moveless.len());
    let mut by_reason = std::collections::BTreeMap::<&str, u64>::new();
    for i in &moveless {
        let d = gone.get(i).map(String::as_str).unwrap_or("kept");
        assert!(
            d != "kept" && d != "keep",
            "record {i} has no move and was kept"
        );
        *by_reason.entry(d).or_default() += 1;
    }
    assert!(by_reason.get("no_move") > Some(&0), "{by_reason:?}");
    assert_eq!(
        Some(dropped["no_move"].as_u64().unwrap()),
        by_reason.get("no_move").copied()
    );
    let kept = std::fs::read(out.join("kept/part-00000.hcpe")).unwrap();
    assert!(kept.chunks(38).all(|r| r[34..36] != [0, 0]));
    assert!(dlshogi_reads_as_hcpe(&kept));
    // mates.hcpe: one record per mate / mated line of mates.jsonl, in order, each with the
    // first move of its PV; checkmated lines only in mates.jsonl.
    let lines = super::jsonl_lines(&out.join("mates.jsonl"));
    let checkmated = lines.iter().filter(|l| l["kind"] == "checkmated").count();
    assert!(checkmated > 0 && checkmated as u64 == dropped["checkmated"].as_u64().unwrap());
    let with_move: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l["kind"] != "checkmated").collect();
    let mates = std::fs::read(out.join("mates.hcpe")).unwrap();
    assert_eq!(mates.len() / 38, with_move.len());
    assert!(dlshogi_reads_as_hcpe(&mates));
    for (rec, line) in mates.chunks(38).zip(with_move) {
        let d = codec::decode(Format::Hcpe, rec).unwrap();
        assert_eq!(d.position.to_sfen(), line["sfen"].as_str().unwrap());
        let mv = d.teacher.unwrap().mv.unwrap();
        assert_eq!(mv.to_usi(), line["pv"][0].as_str().unwrap());
    }
}

/// mates.psv holds the mates and mated positions, each with the first move of its PV as a
/// legal move; the checkmated ones (no move) are only in mates.jsonl, as for mates.hcpe
/// (YaneuraOu's learner reads the first move of a 1-ply search's PV on the positions it
/// reports its loss on, and a checkmated position has none: docs/formats.md). Truth: the
/// mates.jsonl lines and the records decoded back.
#[test]
fn mates_psv_holds_no_checkmated_position() {
    let dir = TempDir::new("mates-psv-checkmated");
    let input = dir.join("games.psv");
    std::fs::write(&input, teacher(Format::Psv, 0, 6000)).unwrap();
    let text = format!(
        "[input]\npaths = [{:?}]\n[output]\ndir = \"out\"\n[filter.mate]\nnodes = 300\n",
        input.display().to_string()
    );
    let cfg = dir.join("p.toml");
    std::fs::write(&cfg, text).unwrap();
    let (out, _) = run(&dir, cfg.to_str().unwrap(), "psv-mates");
    let r = report(&out);
    super::reconciles(&r);
    let lines = super::jsonl_lines(&out.join("mates.jsonl"));
    let checkmated = lines.iter().filter(|l| l["kind"] == "checkmated").count();
    let dropped = &r["records"]["dropped"]["checkmated"];
    assert!(checkmated > 0 && checkmated as u64 == dropped.as_u64().unwrap());
    let with_move: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l["kind"] != "checkmated").collect();
    assert!(!with_move.is_empty());
    let mates = std::fs::read(out.join("mates.psv")).unwrap();
    assert_eq!((mates.len() % 40, mates.len() / 40), (0, with_move.len()));
    for (rec, line) in mates.chunks(40).zip(with_move) {
        let d = codec::decode(Format::Psv, rec).unwrap();
        assert_eq!(d.position.to_sfen(), line["sfen"].as_str().unwrap());
        let t = d.teacher.unwrap();
        assert!(t.raw_move != 0 && t.move_legal, "{line}");
        assert_eq!(t.mv.unwrap().to_usi(), line["pv"][0].as_str().unwrap());
    }
}

/// nnue-pytorch's loader reads only the first file it is given, so a user needs the whole
/// kept psv in one `.bin`: `shard_records = 0` (refused before) writes one file of more than
/// the default shard's 1,000,000 records, holding exactly the bytes the default run spreads
/// over two.
#[test]
fn shard_records_zero_writes_one_kept_file_past_a_million_records() {
    let dir = TempDir::new("one-kept-file");
    let game = teacher(Format::Psv, 0, 97_609);
    let input = dir.join("in.bin");
    std::fs::write(&input, game.repeat(11)).unwrap();
    let one = config(
        &dir,
        &[&input],
        "shard_records = 0\n[filter.dedup]\nenabled = false",
    );
    let (one_out, one_names) = run(&dir, &one, "one");
    let split = config(&dir, &[&input], "[filter.dedup]\nenabled = false");
    let (split_out, split_names) = run(&dir, &split, "split");
    assert_eq!(one_names, ["part-00000.bin"]);
    assert_eq!(split_names, ["part-00000.bin", "part-00001.bin"]);
    let whole = std::fs::read(one_out.join("kept/part-00000.bin")).unwrap();
    assert!(whole.len() / 40 > 1_000_000, "{} records", whole.len() / 40);
    let joined: Vec<u8> = split_names
        .iter()
        .flat_map(|n| std::fs::read(split_out.join("kept").join(n)).unwrap())
        .collect();
    assert!(
        whole == joined,
        "the one file differs from the two shards joined"
    );
    assert_eq!(
        report(&one_out)["records"]["kept"],
        (whole.len() / 40) as u64
    );
}

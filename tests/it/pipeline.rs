//! End-to-end tests of `posfilter run`, driving the binary in a temporary directory:
//! every input format plain and zstd-compressed, decisions against the corpus labels
//! (cshogi), 1 vs 2 threads byte-identical, repetition from real move sequences in usi and
//! psv form, truncated and garbage records, a rerun into the same directory, a killed run,
//! dedup across formats and encodings, and the promised config errors.

use crate::support::{data, jsonl, run_bin, TempDir};
use posfilter::codec::{self, Format};
use posfilter::shogi::{Move, Position};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Writes a config with `inputs` (absolute paths) and extra TOML, returns its path.
pub(crate) fn config(dir: &TempDir, inputs: &[&Path], extra: &str) -> String {
    let paths: Vec<String> = inputs
        .iter()
        .map(|p| format!("{:?}", p.display().to_string()))
        .collect();
    let text = format!(
        "[input]\npaths = [{}]\n\n[output]\ndir = \"out\"\ncompression = \"none\"\n\n{extra}\n",
        paths.join(", ")
    );
    let path = dir.join("pipeline.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

pub(crate) fn run_ok(args: &[&str]) -> String {
    let (ok, _out, err) = run_bin(args);
    assert!(ok, "posfilter {args:?} failed:\n{err}");
    err
}

pub(crate) fn report(out: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap()
}

/// index -> decision for every record in audit.jsonl and rejected.jsonl that is not kept
/// (the audit also lists kept records tagged with an open entering-king path).
fn decisions(out: &Path) -> BTreeMap<u64, String> {
    let mut m = BTreeMap::new();
    for name in ["audit.jsonl", "rejected.jsonl"] {
        let text = std::fs::read_to_string(out.join(name)).unwrap_or_default();
        for line in text.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            m.insert(
                v["index"].as_u64().unwrap(),
                v["decision"].as_str().unwrap().to_string(),
            );
        }
    }
    m
}

fn reconciles(r: &Value) -> u64 {
    let rec = &r["records"];
    let dropped: u64 = rec["dropped"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    let input = rec["input"].as_u64().unwrap();
    assert_eq!(
        input,
        rec["kept"].as_u64().unwrap() + dropped + rec["rejected"].as_u64().unwrap()
    );
    input
}

/// Writes the first `n` corpus start positions as PackedSfen to `dir/name`; returns the path.
pub(crate) fn startpos_file(dir: &TempDir, name: &str, n: usize) -> std::path::PathBuf {
    let path = dir.join(name);
    let bytes = std::fs::read(data("pipeline/startpos.psfen")).unwrap();
    std::fs::write(&path, &bytes[..n * 32]).unwrap();
    path
}

/// Runs `posfilter run CFG --out OUT --threads 1`, which must succeed; returns stderr.
fn run_one_thread(cfg: &str, out: &Path) -> String {
    run_ok(&["run", cfg, "--out", out.to_str().unwrap(), "--threads", "1"])
}

/// A temporary directory holding the first `n` corpus start positions as `in.psfen`, and
/// a config reading them with `extra` appended; returns the directory and the config path.
pub(crate) fn startpos_setup(name: &str, n: usize, extra: &str) -> (TempDir, String) {
    let dir = TempDir::new(name);
    let input = startpos_file(&dir, "in.psfen", n);
    let cfg = config(&dir, &[&input], extra);
    (dir, cfg)
}

/// The JSON values of a JSONL file, one per line.
fn jsonl_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn first_lines(text: &str, n: usize) -> String {
    text.lines().take(n).map(|l| format!("{l}\n")).collect()
}

/// Every file of `a` equals the same file of `b`, report.json (timings) and `skip` excepted.
pub(crate) fn same_outputs(a: &Path, b: &Path, skip: &[&str]) {
    let list = |d: &Path| {
        let mut v: Vec<String> = walk(d)
            .into_iter()
            .map(|p| p.strip_prefix(d).unwrap().display().to_string())
            .collect();
        v.sort();
        v
    };
    let (la, lb) = (list(a), list(b));
    assert_eq!(la, lb, "different file sets");
    for rel in la
        .iter()
        .filter(|r| *r != "report.json" && !skip.contains(&r.as_str()))
    {
        let (x, y) = (
            std::fs::read(a.join(rel)).unwrap(),
            std::fs::read(b.join(rel)).unwrap(),
        );
        if rel.ends_with(".jsonl") {
            assert_eq!(
                without_file_names(&x),
                without_file_names(&y),
                "{rel} differs"
            );
        } else {
            assert!(x == y, "{rel} differs");
        }
    }
}

/// JSON lines with the input file name removed (it differs between in.x and in.x.zst).
fn without_file_names(bytes: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(bytes).unwrap();
    text.lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if let Some(o) = v.as_object_mut() {
                o.remove("file");
            }
            v
        })
        .collect()
}

pub(crate) fn walk(d: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn one_and_two_threads_write_identical_bytes() {
    let dir = TempDir::new("threads");
    let psfen = startpos_file(&dir, "a.psfen", 1500);
    let psv = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/teacher.psv");
    let cfg = config(
        &dir,
        &[&psfen, &psv],
        "[workers]\nbatch_records = 64\n[filter.mate]\nnodes = 3000\n",
    );
    let (o1, o2) = (dir.join("o1"), dir.join("o2"));
    run_ok(&[
        "run",
        &cfg,
        "--threads",
        "1",
        "--out",
        o1.to_str().unwrap(),
        "--quiet",
    ]);
    run_ok(&[
        "run",
        &cfg,
        "--threads",
        "2",
        "--out",
        o2.to_str().unwrap(),
        "--quiet",
    ]);
    same_outputs(&o1, &o2, &[]);
    let r = report(&o2);
    assert_eq!(reconciles(&r), 1500 + 3012);
    assert_eq!(r["threads"], 2);
    // The keys DESIGN.md promises to other tools.
    for key in [
        "unknown",
        "nodes",
        "seconds",
        "positions_per_second",
        "threads",
        "config",
    ] {
        assert!(!r[key].is_null(), "report.json lacks {key}");
    }
    for reason in [
        "checkmated",
        "no_legal_moves",
        "mate",
        "mated",
        "repetition",
        "declaration",
        "duplicate",
    ] {
        assert!(
            r["records"]["dropped"][reason].is_u64(),
            "report.json lacks dropped.{reason}"
        );
    }
    assert!(r["nodes"].as_u64().unwrap() > 0);
}

/// The verdict cache changes no output: with it off and on (the default, 1 and 2 threads)
/// every file is the same, and the nodes it saved are exactly the nodes the uncached run
/// searched more (a cached verdict is the one a new search returns, node count included).
/// Hits are counted with one thread, where they do not depend on scheduling.
#[test]
fn verdict_cache_changes_no_output() {
    let dir = TempDir::new("verdict_cache");
    let psv = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/teacher.psv");
    let mut outs = Vec::new();
    for (name, cache, threads) in [("off", 0, "2"), ("on1", 64, "1"), ("on2", 64, "2")] {
        let cfg = config(
            &dir,
            &[&psv],
            &format!("[filter.mate]\nnodes = 3000\ncache_mb = {cache}\n"),
        );
        let o = dir.join(name);
        let out = o.to_str().unwrap();
        run_ok(&["run", &cfg, "--threads", threads, "--out", out, "--quiet"]);
        outs.push(o);
    }
    let off = report(&outs[0]);
    assert_eq!(off["verdict_cache"]["hits"], 0);
    for on in &outs[1..] {
        same_outputs(&outs[0], on, &[]);
        let r = report(on);
        let saved = r["verdict_cache"]["nodes_saved"].as_u64().unwrap();
        assert_eq!(
            r["nodes"].as_u64().unwrap() + saved,
            off["nodes"].as_u64().unwrap()
        );
        assert_eq!(r["config"]["filter"]["mate"]["cache_mb"], 64);
    }
    let one = report(&outs[1]);
    let hits = one["verdict_cache"]["hits"].as_u64().unwrap();
    let saved = one["verdict_cache"]["nodes_saved"].as_u64().unwrap();
    assert!(hits >= 10 && saved > 2_000, "{hits} hits, {saved} nodes");
}

/// `table_scope = "batch"`: a worker keeps its table across the positions of a batch (psv:
/// whole games). The output is still the same for 1 and 2 threads; the table's reuse is real
/// (fewer nodes than a table per position); and it changes verdicts only between `unknown`
/// and a proven mate: no other decision moves, and no position is decided two ways.
#[test]
fn table_per_batch_reuses_proofs_and_stays_thread_independent() {
    let dir = TempDir::new("table_scope");
    let psv = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/teacher.psv");
    let mut outs = Vec::new();
    for (name, scope, threads) in [
        ("position", "position", "2"),
        ("batch1", "batch", "1"),
        ("batch2", "batch", "2"),
    ] {
        let cfg = config(
            &dir,
            &[&psv],
            &format!(
                "[filter.mate]\nnodes = 10000\ncache_mb = 0\ntable_scope = \"{scope}\"\n\
                 [filter.dedup]\nenabled = false\n"
            ),
        );
        let o = dir.join(name);
        run_ok(&[
            "run",
            &cfg,
            "--threads",
            threads,
            "--out",
            o.to_str().unwrap(),
            "--quiet",
        ]);
        outs.push(o);
    }
    same_outputs(&outs[1], &outs[2], &[]);
    let (per_position, per_batch) = (report(&outs[0]), report(&outs[1]));
    assert_eq!(
        per_batch["config"]["filter"]["mate"]["table_scope"],
        "batch"
    );
    assert_eq!(reconciles(&per_batch), 3012);
    let nodes = |r: &Value| r["nodes"].as_u64().unwrap();
    assert!(
        nodes(&per_batch) < nodes(&per_position) * 19 / 20,
        "no reuse: {} nodes per batch against {} per position",
        nodes(&per_batch),
        nodes(&per_position)
    );
    let (a, b) = (decisions(&outs[0]), decisions(&outs[1]));
    let mut moved = 0;
    for i in a.keys().chain(b.keys()) {
        let (x, y) = (
            a.get(i).map_or("keep", String::as_str),
            b.get(i).map_or("keep", String::as_str),
        );
        if x != y {
            let pair = [x, y];
            assert!(
                pair.contains(&"keep") && (pair.contains(&"mate") || pair.contains(&"mated")),
                "record {i}: {x} per position, {y} per batch"
            );
            moved += 1;
        }
    }
    assert!(moved > 0, "the same verdicts: reuse settles nothing more");
}

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
    // psv knows game order (repetition); otherwise both encodings decide alike.
    let (psv, hcpe) = (&runs["in.psv"].0, &runs["in.hcpe"].0);
    assert!(psv.values().any(|d| d == "repetition"));
    for (i, d) in psv {
        if d != "repetition" {
            assert_eq!(hcpe.get(i), Some(d), "record {i}");
        }
    }
    assert!(hcpe.keys().all(|i| psv.contains_key(i)));
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
    for format in ["hcpe", "psfen", "sfen"] {
        let cfg = config(&dir, &[&input], &format!("format = \"{format}\"\n{off}"));
        let out = dir.join(&format!("out-{format}"));
        run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
        assert_eq!(report(&out)["records"]["kept"], n as u64, "{format}");
        let kept = std::fs::read(out.join(format!("kept/part-00000.{format}"))).unwrap();
        match format {
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

#[test]
fn decisions_agree_with_cshogi_labels() {
    // The first 3,000 corpus start positions at the oracle's budget (100,000 nodes).
    let dir = TempDir::new("labels");
    let n = 3000;
    let psfen = startpos_file(&dir, "in.psfen", n);
    let cfg = config(
        &dir,
        &[&psfen],
        "[filter.mate]\nnodes = 100000\n[filter.dedup]\nenabled = false\n",
    );
    let out = dir.join("out");
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let d = decisions(&out);
    let mut checked = [0usize; 4];
    for label in jsonl("pipeline/labels.jsonl").iter().take(n) {
        let i = label["i"].as_u64().unwrap();
        let ours = d.get(&i).map(String::as_str).unwrap_or("keep");
        if ours == "declaration" {
            continue; // decided before the mate stage (the label file has the 27-point verdicts)
        }
        if label["checkmated"] == true {
            assert_eq!(ours, "checkmated", "record {i}");
            checked[0] += 1;
        } else if label["in_check"] == true {
            match label["andnode"].as_str() {
                Some("mated") => assert_eq!(ours, "mated", "record {i}: cshogi proves mated"),
                Some("not_mated") => {
                    assert_eq!(ours, "keep", "record {i}: cshogi proves not mated")
                }
                _ => continue,
            }
            checked[1] += 1;
        } else {
            match label["dfpn_100k"].as_str() {
                Some("mate") => assert_eq!(ours, "mate", "record {i}: cshogi proves mate"),
                Some("no_mate") => assert_eq!(ours, "keep", "record {i}: cshogi proves no mate"),
                _ => continue,
            }
            checked[2] += 1;
        }
    }
    assert!(
        checked[0] >= 70 && checked[1] >= 150 && checked[2] >= 2500,
        "{checked:?}"
    );
    // Every reported mate carries a PV whose length is its plies.
    for line in std::fs::read_to_string(out.join("mates.jsonl"))
        .unwrap()
        .lines()
    {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            v["pv"].as_array().unwrap().len() as u64,
            v["plies"].as_u64().unwrap()
        );
    }
}

/// The positions of a USI line, start first.
fn replay(line: &str) -> Vec<Position> {
    let (start, moves) = match line.split_once(" moves ") {
        Some((s, m)) => (s, m.split_whitespace().collect::<Vec<_>>()),
        None => (line, vec![]),
    };
    let mut pos = Position::from_sfen(start.strip_prefix("sfen ").unwrap_or(start)).unwrap();
    let mut out = vec![pos.clone()];
    for m in moves {
        let mv = Move::from_usi(m).unwrap();
        assert!(pos.is_legal(mv), "{m}");
        pos.do_move(mv);
        out.push(pos.clone());
    }
    out
}

#[test]
fn repetition_from_real_move_sequences_in_usi_and_psv() {
    // A four-move cycle back to the start position (exact), and seed 000's cycle that leaves
    // the side to move a pawn short (inferior): drop with check, king takes, both kings
    // step away and back.
    let exact = "startpos moves 2h3h 8b7b 3h2h 7b8b";
    let inferior = "sfen 4k4/9/9/9/9/9/9/9/4K4 b P 1 moves P*5b 5a5b 5i4i 5b4b 4i5i 4b5a";
    let dir = TempDir::new("repetition");
    // usi: each line is a record whose final position is judged against its own history.
    let usi = dir.join("cycles.usi");
    std::fs::write(
        &usi,
        format!("{exact}\n{inferior}\nstartpos moves 2h3h 8b7b\n"),
    )
    .unwrap();
    // psv: the same games as records in game order (gamePly increasing).
    let psv = dir.join("cycles.psv");
    let mut bytes = Vec::new();
    for line in [exact, inferior] {
        for (ply, pos) in replay(line).iter().enumerate() {
            let mut p = pos.clone();
            p.set_ply(ply as u32 + 1);
            codec::encode(Format::Psv, &p, None, &mut bytes).unwrap();
        }
    }
    std::fs::write(&psv, bytes).unwrap();
    let cfg = config(
        &dir,
        &[&usi, &psv],
        "[filter.mate]\nenabled = false\n[filter.dedup]\nenabled = false\n",
    );
    let out = dir.join("out");
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let audit: Vec<Value> = std::fs::read_to_string(out.join("audit.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let rep: BTreeMap<u64, String> = audit
        .iter()
        .filter(|v| v["decision"] == "repetition")
        .map(|v| {
            (
                v["index"].as_u64().unwrap(),
                v["detail"]["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // usi records 0, 1 repeat; record 2 does not. psv: records 3..8 are the exact game
    // (5 positions, the last repeats the first), 8..15 the inferior game (7 positions).
    let expected: BTreeMap<u64, String> = [
        (0, "exact"),
        (1, "inferior"),
        (7, "exact"),
        (14, "inferior"),
    ]
    .into_iter()
    .map(|(i, k)| (i, k.to_string()))
    .collect();
    assert_eq!(rep, expected);
    let r = report(&out);
    assert_eq!(r["records"]["dropped"]["repetition"], 4);
    assert_eq!(reconciles(&r), 3 + 5 + 7);
}

#[test]
fn truncated_tail_and_garbage_records_are_rejected_with_offsets() {
    let dir = TempDir::new("reject");
    let mut bytes = std::fs::read(data("pipeline/startpos.psfen")).unwrap()[..10 * 32].to_vec();
    bytes.extend_from_slice(&[0xff; 32]); // does not decode
    bytes.extend_from_slice(&[1, 2, 3, 4, 5]); // a truncated tail
    let path = dir.join("bad.psfen");
    std::fs::write(&path, bytes).unwrap();
    let cfg = config(&dir, &[&path], "[filter.mate]\nnodes = 1000\n");
    let out = dir.join("out");
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let rejected = jsonl_lines(&out.join("rejected.jsonl"));
    assert_eq!(rejected.len(), 2);
    assert_eq!(
        (
            rejected[0]["index"].as_u64(),
            rejected[0]["offset"].as_u64()
        ),
        (Some(10), Some(320))
    );
    assert_eq!(
        (
            rejected[1]["index"].as_u64(),
            rejected[1]["offset"].as_u64()
        ),
        (Some(11), Some(352))
    );
    assert!(rejected[1]["detail"]
        .as_str()
        .unwrap()
        .contains("truncated"));
    assert_eq!(rejected[0]["raw"].as_str().unwrap(), "ff".repeat(32));
    assert!(rejected[0].get("text").is_none());
    let r = report(&out);
    assert_eq!(reconciles(&r), 12);
    assert_eq!(r["records"]["rejected"], 2);
    assert_eq!(rejected[0]["bytes"], 32);
    // A huge garbage line (a file read with the wrong format) is rejected with its length
    // and only its first 4 KiB in hex; the lines around it are read as usual.
    let text = format!(
        "4k4/9/9/9/9/9/9/9/4K4 b G 1\n{}\n4k4/9/9/9/9/9/9/9/4K4 w g 1\n",
        "x".repeat(100_000)
    );
    let path = dir.join("long.sfen");
    std::fs::write(&path, text).unwrap();
    let cfg = config(&dir, &[&path], "[filter.mate]\nnodes = 1000\n");
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let rejected = jsonl_lines(&out.join("rejected.jsonl"));
    assert_eq!(rejected.len(), 1);
    assert_eq!(
        (rejected[0]["index"].as_u64(), rejected[0]["bytes"].as_u64()),
        (Some(1), Some(100_000))
    );
    assert_eq!(rejected[0]["raw"].as_str().unwrap(), "78".repeat(4096));
    assert_eq!(rejected[0]["text"].as_str().unwrap(), "x".repeat(4096));
    assert_eq!(reconciles(&report(&out)), 3);
    // A bad line of a text format is shown as text too (CRLF trimmed, invalid UTF-8
    // replaced); binary records get only the hex.
    let path = dir.join("bad.sfen");
    std::fs::write(
        &path,
        b"4k4/9/9/9/9/9/9/9/4K4 b G 1\r\n4k4/9/9/9/9/9/9/9/4KK3 b G 1\r\nbad \xff line\n",
    )
    .unwrap();
    let cfg = config(&dir, &[&path], "[filter.mate]\nnodes = 1000\n");
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let rejected = jsonl_lines(&out.join("rejected.jsonl"));
    let texts: Vec<&str> = rejected
        .iter()
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["4k4/9/9/9/9/9/9/9/4KK3 b G 1", "bad \u{fffd} line"]);
    // A USI line longer than any game (a king shuffle of 60,000 cycles) is cut where its
    // kept part ends right after a whole move, so that part alone would read as a legal,
    // different position: it is rejected for its length, never decoded.
    let mut head =
        "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1".to_string();
    while (head.len() + " moves ".len()) % 5 != posfilter::io::batch::MAX_LINE % 5 {
        head.push('0');
    }
    let line = format!("{head} moves {}", "5i4h 5a4b 4h5i 4b5a ".repeat(60_000));
    let path = dir.join("long.usi");
    std::fs::write(
        &path,
        format!("startpos moves 7g7f\n{}\nstartpos\n", line.trim_end()),
    )
    .unwrap();
    let cfg = config(&dir, &[&path], "[filter.mate]\nnodes = 1000\n");
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let rejected = jsonl_lines(&out.join("rejected.jsonl"));
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0]["index"], 1);
    let detail = rejected[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains(&format!("line of {} bytes", line.trim_end().len())),
        "{detail}"
    );
    assert_eq!(reconciles(&report(&out)), 3);
}

/// Writes `dir/broken.psv.zst`: the first `records` teacher records compressed, cut off
/// after two thirds of the compressed bytes. Returns its path and how many whole records
/// decompress before the break.
pub(crate) fn broken_zst_psv(dir: &TempDir, records: usize) -> (std::path::PathBuf, u64) {
    let psv = zstd::decode_all(std::fs::File::open(data("codec/teacher.psv.zst")).unwrap())
        .unwrap()[..40 * records]
        .to_vec();
    let compressed = zstd::encode_all(psv.as_slice(), 1).unwrap();
    let cut = &compressed[..compressed.len() * 2 / 3];
    let broken = dir.join("broken.psv.zst");
    std::fs::write(&broken, cut).unwrap();
    let mut readable = Vec::new();
    let mut dec = zstd::stream::read::Decoder::new(cut).unwrap();
    assert!(std::io::Read::read_to_end(&mut dec, &mut readable).is_err());
    (broken, (readable.len() / 40) as u64)
}

#[test]
fn a_broken_zst_input_is_rejected_from_the_break_on_and_the_run_goes_on() {
    let dir = TempDir::new("broken");
    let (broken, whole) = broken_zst_psv(&dir, 10_000);
    let good = startpos_file(&dir, "good.psfen", 100);
    let cfg = config(&dir, &[&broken, &good], "[filter.mate]\nnodes = 1000\n");
    let out = dir.join("out");
    let log = run_ok(&["run", &cfg, "--out", out.to_str().unwrap()]);
    assert!(log.contains("could not be read to the end"), "{log}");
    let r = report(&out);
    assert_eq!(reconciles(&r), whole + 1 + 100);
    assert_eq!(r["rejected_reasons"]["unreadable"], 1);
    let rejected: Vec<Value> = jsonl_lines(&out.join("rejected.jsonl"))
        .into_iter()
        .filter(|v: &Value| {
            v["detail"]
                .as_str()
                .unwrap()
                .contains("truncated or corrupt")
        })
        .collect();
    assert_eq!(rejected.len(), 1);
    assert_eq!(
        (
            rejected[0]["index"].as_u64(),
            rejected[0]["offset"].as_u64()
        ),
        (Some(whole), Some(whole * 40))
    );
    // The good file after it was read whole: its 100 records are decided as usual.
    assert_eq!(r["inputs"][1]["records"], 100);
}

#[test]
fn unknowns_dropped_as_duplicates_are_not_counted_as_kept() {
    let dir = TempDir::new("unknown-kept");
    let a = startpos_file(&dir, "a.psfen", 300);
    let b = startpos_file(&dir, "b.psfen", 300);
    let budget = "[filter.mate]\nnodes = 300\n";
    let alone = dir.join("alone");
    run_ok(&[
        "run",
        &config(&dir, &[&a], budget),
        "--out",
        alone.to_str().unwrap(),
        "--quiet",
    ]);
    let unknown = report(&alone)["unknown"].as_u64().unwrap();
    assert!(unknown > 10, "the budget must leave unknowns: {unknown}");
    assert_eq!(report(&alone)["unknown_kept"], unknown);
    // The same records again in a second file: each is searched again (the same verdicts)
    // and dropped as a duplicate of the first copy.
    let twice = dir.join("twice");
    let log = run_ok(&[
        "run",
        &config(&dir, &[&a, &b], budget),
        "--out",
        twice.to_str().unwrap(),
    ]);
    let r = report(&twice);
    assert_eq!(r["unknown"], 2 * unknown);
    assert_eq!(r["unknown_kept"], unknown);
    let row = log.lines().find(|l| l.contains("unknown (kept)")).unwrap();
    assert_eq!(
        row.split_whitespace().nth(2),
        Some(unknown.to_string().as_str()),
        "{row}"
    );
}

#[test]
fn wall_time_guard_hits_are_counted_and_announced() {
    let dir = TempDir::new("timed-out");
    let input = startpos_file(&dir, "in.psfen", 200);
    // A budget no position reaches within 1 ms: every unknown is the clock's.
    let cfg = config(
        &dir,
        &[&input],
        "[filter.mate]\nnodes = 100000000\ntime_ms = 1\n",
    );
    let out = dir.join("out");
    let log = run_ok(&["run", &cfg, "--out", out.to_str().unwrap()]);
    let r = report(&out);
    let timed_out = r["unknown_timed_out"].as_u64().unwrap();
    assert!(timed_out > 0, "{r}");
    assert_eq!(r["unknown"].as_u64(), Some(timed_out));
    assert!(log.contains("wall-time guard"), "{log}");
    // Node budgets alone never trip it.
    let cfg = config(&dir, &[&input], "[filter.mate]\nnodes = 1000\n");
    let log = run_ok(&["run", &cfg, "--out", out.to_str().unwrap()]);
    let r = report(&out);
    assert!(r["unknown"].as_u64().unwrap() > 0);
    assert_eq!(r["unknown_timed_out"], 0);
    assert!(!log.contains("wall-time guard"), "{log}");
}

#[test]
fn more_threads_than_cores_warn_and_change_no_output() {
    let (dir, cfg) = startpos_setup(
        "oversubscribed",
        300,
        "[workers]\ntable_mb = 1\nbatch_records = 16\n[filter.mate]\nnodes = 2000\n",
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let many = (4 * cores + 1).to_string();
    let (one, lots) = (dir.join("one"), dir.join("many"));
    let log = run_one_thread(&cfg, &one);
    assert!(!log.contains("warning"), "{log}");
    let log = run_ok(&[
        "run",
        &cfg,
        "--out",
        lots.to_str().unwrap(),
        "--threads",
        &many,
    ]);
    assert!(
        log.contains(&format!("{many} worker threads on {cores} cores")),
        "{log}"
    );
    same_outputs(&one, &lots, &[]);
}

#[test]
fn a_rerun_replaces_the_previous_output_and_never_its_own_input() {
    let dir = TempDir::new("rerun");
    let input = startpos_file(&dir, "in.psfen", 600);
    let out = dir.join("out");
    let fresh = dir.join("fresh");
    let run = |extra: &str, out: &Path| {
        let cfg = config(
            &dir,
            &[&input],
            &format!("{extra}\n[filter.mate]\nnodes = 1000\n"),
        );
        run_one_thread(&cfg, out)
    };
    // `extra` continues the config's [output] table.
    // A larger first run: many shards, an audit, a psv mates file.
    run("shard_records = 50\naudit = true\n", &out);
    let first: Vec<_> = walk(&out.join("kept"));
    assert!(first.len() > 5, "{first:?}");
    // The rerun writes one shard, no audit, mates as sfen: nothing of the first may remain,
    // and a file of the user's in the directory stays.
    let second = "shard_records = 100000\naudit = false\n[mates]\nformat = \"sfen\"\n";
    for d in [&out, &fresh] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(d.join("notes.txt"), b"mine").unwrap();
    }
    let log = run(second, &out);
    assert!(log.contains("replaced"), "{log}");
    run(second, &fresh);
    same_outputs(&out, &fresh, &[]);
    assert!(!out.join("audit.jsonl").exists() && !out.join("mates.psv").exists());
    // A run that reads the previous output it would replace refuses before touching it.
    let shard = out.join("kept/part-00000.psfen");
    let cfg = config(&dir, &[&shard], "");
    let (ok, _, err) = run_bin(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(!ok && err.contains("output of a previous run"), "{err}");
    let cfg = config(
        &dir,
        &[&input],
        &format!(
            "[filter.dedup]\nreference = [{:?}]\n",
            shard.display().to_string()
        ),
    );
    let (ok, _, err) = run_bin(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(!ok && err.contains("part-00000.psfen"), "{err}");
    same_outputs(&out, &fresh, &[]);
}

/// DESIGN.md: "a run that is killed leaves no file that looks complete but is not, and
/// running it again produces the same output". A run is killed (SIGKILL, no chance to clean
/// up) once it has finished two shards: every file it left under a final name (its
/// checkpoint, resume.json and resume.dedup, aside: see `resume.rs`) must be byte-identical
/// to that file of an uninterrupted run, manifest.json must be absent, and the rerun into
/// the same directory must equal the uninterrupted run file for file.
#[test]
fn a_killed_run_leaves_only_complete_files_and_a_rerun_completes_it() {
    // Debug builds solve about 10x slower; either way the run lasts seconds, not the
    // milliseconds the polling below needs.
    let records = if cfg!(debug_assertions) { 600 } else { 3000 };
    let (dir, cfg) = startpos_setup(
        "killed",
        records,
        "shard_records = 100\n[workers]\nbatch_records = 50\n[filter.mate]\nnodes = 20000\n",
    );
    let (out, fresh) = (dir.join("out"), dir.join("fresh"));
    let args = |out: &Path| {
        let out = out.to_str().unwrap().to_string();
        [
            "run".to_string(),
            cfg.clone(),
            "--out".into(),
            out,
            "--quiet".into(),
            "--threads".into(),
            "1".into(),
        ]
    };
    let mut child = std::process::Command::new(crate::support::bin())
        .args(args(&out))
        .spawn()
        .unwrap();
    let second_shard = out.join("kept/part-00001.psfen");
    let waited = std::time::Instant::now();
    while !second_shard.exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before its second shard appeared"
        );
        assert!(
            waited.elapsed().as_secs() < 120,
            "no second shard after 120 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run finished before it could be killed: use more records"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    let fresh_args = args(&fresh);
    run_ok(&fresh_args.iter().map(String::as_str).collect::<Vec<_>>());

    assert!(!out.join("manifest.json").exists(), "killed before the end");
    let left: Vec<_> = walk(&out)
        .into_iter()
        .filter(|p| {
            let name = p.to_string_lossy();
            !name.ends_with(".tmp")
                && !name.ends_with("resume.json")
                && !name.ends_with("resume.dedup")
        })
        .collect();
    assert!(
        left.iter().any(|p| p.ends_with("kept/part-00000.psfen")),
        "{left:?}"
    );
    for p in &left {
        let rel = p.strip_prefix(&out).unwrap();
        assert_eq!(
            std::fs::read(p).unwrap(),
            std::fs::read(fresh.join(rel)).unwrap(),
            "{} looks complete but differs from the uninterrupted run's",
            rel.display()
        );
    }
    let rerun = args(&out);
    run_ok(&rerun.iter().map(String::as_str).collect::<Vec<_>>());
    same_outputs(&out, &fresh, &[]);
}

/// A run that reads no records, or rejects every one, succeeds (the counts reconcile) but
/// says what probably went wrong; a normal run says neither.
#[test]
fn runs_that_read_nothing_or_reject_everything_say_what_to_check() {
    let dir = TempDir::new("hints");
    let empty = dir.join("empty.psfen");
    std::fs::write(&empty, b"").unwrap();
    let good = startpos_file(&dir, "good.psfen", 20);
    let out = dir.join("out");
    let run = |input: &Path, format: &str| {
        let cfg = dir.join("hints.toml");
        let text = format!(
            "[input]\npaths = [{:?}]\nformat = {format:?}\n",
            input.display()
        );
        std::fs::write(&cfg, text).unwrap();
        run_ok(&["run", cfg.to_str().unwrap(), "--out", out.to_str().unwrap()])
    };
    let nothing = "no records (1 file(s), all empty): check input.paths";
    let rejected = "every record was rejected: are the files really hcpe?";
    let log = run(&empty, "auto");
    assert!(log.contains(nothing) && !log.contains(rejected), "{log}");
    // PackedSfen records read as hcpe (38 bytes each) are impossible positions.
    let log = run(&good, "hcpe");
    assert!(log.contains(rejected) && !log.contains(nothing), "{log}");
    assert!(report(&out)["records"]["rejected"].as_u64().unwrap() > 0);
    let log = run(&good, "auto");
    assert!(!log.contains(rejected) && !log.contains(nothing), "{log}");
}

/// `filter.mate.unknown = "drop"` drops exactly the positions the solver leaves undecided,
/// as `unknown` in the audit and the report; every other record has the fate it has with
/// the default `keep`, and the kept shard is the default's minus those records. `tag`
/// keeps what `keep` keeps, byte for byte, and lists the kept undecided records in the
/// audit with their SFEN, which `posfilter mate --file` at the same budget and table size
/// leaves undecided too.
#[test]
fn unknown_drop_removes_and_tag_lists_exactly_the_undecided_positions() {
    let n = 300;
    let (dir, _) = startpos_setup("unknown-drop", n, "");
    let input = dir.join("in.psfen");
    let bytes = std::fs::read(&input).unwrap();
    let run = |policy: &str| {
        let cfg = config(
            &dir,
            &[&input],
            &format!("[filter.mate]\nnodes = 2000\nunknown = \"{policy}\"\n"),
        );
        let out = dir.join(policy);
        let log = run_one_thread(&cfg, &out);
        (out, log)
    };
    let (keep, _) = run("keep");
    let (drop, log) = run("drop");
    let (rk, rd) = (report(&keep), report(&drop));
    let unknown = rk["unknown"].as_u64().unwrap();
    assert!(unknown > 10, "too few unknowns to test: {rk}");
    assert_eq!(rk["records"]["dropped"]["unknown"], 0);
    assert_eq!(rd["records"]["dropped"]["unknown"].as_u64(), Some(unknown));
    assert_eq!(rd["unknown_kept"], 0);
    assert!(log.contains("unknown (dropped)"), "{log}");

    let (dk, dd) = (decisions(&keep), decisions(&drop));
    let dropped_unknown: Vec<u64> = dd
        .iter()
        .filter(|(_, d)| *d == "unknown")
        .map(|(i, _)| *i)
        .collect();
    assert_eq!(dropped_unknown.len() as u64, unknown);
    for (i, d) in &dd {
        if d != "unknown" {
            assert_eq!(dk.get(i), Some(d), "record {i}");
        }
    }
    // Kept with `drop`: kept with `keep`, minus the unknowns, in input order.
    let expected: Vec<u8> = (0..n as u64)
        .filter(|i| !dk.contains_key(i) && !dropped_unknown.contains(i))
        .flat_map(|i| bytes[32 * i as usize..32 * (i as usize + 1)].to_vec())
        .collect();
    let kept = std::fs::read(drop.join("kept/part-00000.psfen")).unwrap();
    assert_eq!(kept, expected);
    assert_eq!(
        rd["records"]["kept"].as_u64(),
        Some(rk["records"]["kept"].as_u64().unwrap() - rk["unknown_kept"].as_u64().unwrap())
    );

    let (tag, _) = run("tag");
    let shard = |out: &Path| std::fs::read(out.join("kept/part-00000.psfen")).unwrap();
    assert_eq!(shard(&tag), shard(&keep));
    let tagged: Vec<(u64, String)> = jsonl_lines(&tag.join("audit.jsonl"))
        .into_iter()
        .filter(|a| a["decision"] == "keep")
        .map(|a| {
            let unknown = &a["detail"]["unknown"];
            assert!(unknown["nodes"].as_u64().unwrap() >= 2000, "{a}");
            let sfen = unknown["sfen"].as_str().unwrap().to_string();
            (a["index"].as_u64().unwrap(), sfen)
        })
        .collect();
    let kept_unknown: Vec<u64> = dropped_unknown
        .iter()
        .copied()
        .filter(|i| !dk.contains_key(i))
        .collect();
    let indices: Vec<u64> = tagged.iter().map(|(i, _)| *i).collect();
    assert_eq!(indices, kept_unknown);
    assert_eq!(rk["unknown_kept"].as_u64(), Some(indices.len() as u64));
    for (i, sfen) in &tagged {
        let record: &[u8; 32] = bytes[32 * *i as usize..][..32].try_into().unwrap();
        let pos = posfilter::codec::psfen::decode_psfen(record).unwrap();
        assert_eq!(&pos.to_sfen(), sfen, "record {i}");
    }
    let list = dir.join("unknown.sfen");
    let text: String = tagged.iter().map(|(_, s)| format!("{s}\n")).collect();
    std::fs::write(&list, text).unwrap();
    let (ok, stdout, err) = run_bin(&[
        "mate",
        "--file",
        list.to_str().unwrap(),
        "--nodes",
        "2000",
        "--table-mb",
        "64",
        "--json",
    ]);
    assert!(ok, "{err}");
    let again: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(again.len(), tagged.len());
    assert!(again.iter().all(|v| v["result"] == "unknown"), "{stdout}");
}

/// `--dry-run` names every input with its format and record count, what it would replace
/// and the memory it needs, writes nothing (not even the output directory), and refuses
/// what the run would refuse.
#[test]
fn a_dry_run_describes_the_run_and_writes_nothing() {
    let (dir, cfg) = startpos_setup("dry-run", 300, "[filter.mate]\nnodes = 1000\n");
    // `config` always writes pipeline.toml: each config gets its own name.
    let keep = |cfg: String, name: &str| {
        let path = dir.join(name);
        std::fs::rename(&cfg, &path).unwrap();
        path.display().to_string()
    };
    let cfg = keep(cfg, "one.toml");
    let teacher = data("codec/teacher.psv.zst");
    let input = dir.join("in.psfen");
    let cfg_two = keep(config(&dir, &[&input, &teacher], ""), "two.toml");
    let (out, fresh) = (dir.join("out"), dir.join("fresh"));
    run_one_thread(&cfg, &out);
    let before: Vec<(std::path::PathBuf, Vec<u8>)> = walk(&out)
        .into_iter()
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    let dry =
        |cfg: &str, out: &Path| run_bin(&["run", cfg, "--out", out.to_str().unwrap(), "--dry-run"]);
    let (ok, _, log) = dry(&cfg_two, &out);
    assert!(ok, "{log}");
    for expected in [
        "inputs: 2 file(s)",
        "in.psfen  psfen, 9.38 KiB, 300 records (extension .psfen)",
        "teacher.psv.zst  psv (zstd)",
        &format!("replaces {} file(s) of a previous run", before.len()),
        "dedup index: ",
        "a lower bound on the records",
    ] {
        assert!(log.contains(expected), "{expected:?} missing:\n{log}");
    }
    let after: Vec<(std::path::PathBuf, Vec<u8>)> = walk(&out)
        .into_iter()
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    assert_eq!(before, after, "the dry run changed the output directory");
    let (ok, _, log) = dry(&cfg, &fresh);
    assert!(ok && !fresh.exists(), "{log}");
    assert!(!log.contains("replaces"), "{log}");
    // Reading the output it would replace is refused, as by the run itself.
    let shard = walk(&out.join("kept")).remove(0);
    let cfg_own = keep(config(&dir, &[&shard], ""), "own.toml");
    let (ok, _, log) = dry(&cfg_own, &out);
    assert!(!ok && log.contains("output of a previous run"), "{log}");
    // Solver tables that cannot fit in memory (a million threads × 64 MiB is 61 TiB) are
    // refused, by the dry run and by the run, before anything is written.
    for mode in ["--dry-run", "--quiet"] {
        let fresh_dir = fresh.to_str().unwrap();
        let (ok, _, log) = run_bin(&[
            "run",
            &cfg,
            "--out",
            fresh_dir,
            "--threads",
            "1000000",
            mode,
        ]);
        assert!(!ok && !fresh.exists(), "{mode}: {log}");
        assert!(
            log.contains("the mate filter's tables need 61.04 TiB")
                && log.contains("`workers.table_mb`")
                && log.contains("available"),
            "{mode}: {log}"
        );
    }
}

/// A file that does not look like the format it is read as (here PackedSfen read as hcpe,
/// as `input.format` forces) is named in a warning on stderr before the run, since most of
/// its records will be rejected; `--quiet` says nothing.
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
    let err = run_ok(&["run", cfg]);
    let expected = format!("posfilter: warning: {}: only ", input.display());
    assert!(
        err.contains(&expected) && err.contains("decode as hcpe"),
        "{err}"
    );
    let err = run_ok(&["run", cfg, "--quiet"]);
    assert!(!err.contains("warning"), "{err}");
}

/// With stderr not a terminal (here a pipe), progress comes as plain lines, at most one per
/// `--log-every`; their counts only grow and never pass the final ones. `--log-every 0` and
/// `--quiet` write none.
#[test]
fn unattended_runs_log_progress_lines() {
    let (dir, cfg) = startpos_setup(
        "loglines",
        400,
        "[workers]\nbatch_records = 20\n[filter.mate]\nnodes = 2000\n",
    );
    let out = dir.join("out");
    let out_dir = out.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", &cfg, "--out", out_dir, "--threads", "1"];
        args.extend_from_slice(extra);
        let log = run_ok(&args);
        let lines: Vec<String> = log
            .lines()
            .filter(|l| l.starts_with("posfilter: ") && l.contains(" records · "))
            .map(String::from)
            .collect();
        lines
    };
    let lines = run(&["--log-every", "0.000001"]);
    assert!(lines.len() >= 2, "{lines:?}");
    let field = |line: &str, name: &str| -> u64 {
        let after = line.split(&format!("{name} ")).nth(1).unwrap();
        after
            .split(' ')
            .next()
            .unwrap()
            .replace(',', "")
            .parse()
            .unwrap()
    };
    let kept = report(&out)["records"]["kept"].as_u64().unwrap();
    let mut previous = 0;
    for line in &lines {
        assert!(line.contains("% of ") && line.contains(" ETA "), "{line}");
        let k = field(line, "kept");
        assert!(
            previous <= k && k <= kept,
            "{line}: kept {previous} before, {kept} at the end"
        );
        previous = k;
    }
    assert!(run(&["--log-every", "0"]).is_empty());
    assert!(run(&["--log-every", "0.000001", "--quiet"]).is_empty());
}

#[test]
fn bad_configs_name_the_key_the_line_and_the_choices() {
    let dir = TempDir::new("config");
    let cases = [
        (
            "[input]\npaths = [\"x.psv\"]\n[output]\nshards = 3\n",
            &["shards", "line 4", "shard_records"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[output]\ncompression = \"gzip\"\n",
            &["gzip", "line 4", "zstd"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[filter.declaration]\nrule = \"25\"\n",
            &["rule", "line 4", "csa27"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[workers]\ntable_mb = 0\n",
            &["workers.table_mb", "line 4"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[workers]\ntable_mb = 6400000\n",
            &["workers.table_mb", "line 4", "6400000", "65536"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[workers]\nbatch_records = 100000000\n",
            &["workers.batch_records", "line 4", "1048576", "into memory"][..],
        ),
        (
            "[input]\npaths = [\"missing-*.psv\"]\n",
            &["missing-*.psv", "matches no file"][..],
        ),
        (
            "[input]\npaths = [\"../\"]\n",
            &["is a directory", "/*.psv"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[filter.mate]\ntable_scope = \"game\"\n",
            &["game", "line 4", "position", "batch"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[filter.mate]\ntable_scope = \"batch\"\n",
            &["filter.mate.table_scope", "line 4", "cache_mb = 0"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[output]\naudit = false\n[filter.mate]\nunknown = \"tag\"\n",
            &["filter.mate.unknown", "line 6", "output.audit is false"][..],
        ),
    ];
    for (text, needles) in cases {
        let path = dir.join("pipeline.toml");
        std::fs::write(&path, text).unwrap();
        let (ok, _, err) = run_bin(&["run", path.to_str().unwrap(), "--quiet"]);
        assert!(!ok, "{text}");
        for needle in needles {
            assert!(
                err.contains(needle),
                "{text}\nmissing {needle:?} in:\n{err}"
            );
        }
    }
}

/// The left-right mirror image of a position (built square by square).
fn mirror(pos: &Position) -> Position {
    let mut board = [None; 81];
    for sq in posfilter::shogi::Square::all() {
        board[sq.mirror().index()] = pos.piece_on(sq);
    }
    Position::from_parts(board, pos.hands(), pos.side_to_move(), pos.ply()).unwrap()
}

#[test]
fn dedup_against_earlier_records_reference_pools_and_mirrors() {
    let dir = TempDir::new("dedup");
    let sfens: Vec<String> = std::fs::read_to_string(data("pipeline/startpos.sfen"))
        .unwrap()
        .lines()
        .take(40)
        .map(String::from)
        .collect();
    // Three distinct positions without left-right symmetry.
    let picks: Vec<Position> = sfens
        .iter()
        .map(|s| Position::from_sfen(s).unwrap())
        .filter(|p| mirror(p) != *p)
        .take(3)
        .collect();
    let enc = |positions: &[&Position]| {
        let mut v = Vec::new();
        for p in positions {
            codec::encode(Format::Psfen, p, None, &mut v).unwrap();
        }
        v
    };
    let m1 = mirror(&picks[1]);
    let input = dir.join("in.psfen");
    std::fs::write(
        &input,
        enc(&[&picks[0], &picks[1], &picks[2], &picks[0], &m1]),
    )
    .unwrap();
    let pool = dir.join("pool.psfen");
    std::fs::write(&pool, enc(&[&picks[2]])).unwrap();
    for mirror_on in [false, true] {
        let extra = format!(
            "[filter.mate]\nenabled = false\n[filter.dedup]\nmirror = {mirror_on}\nreference = [{:?}]\n",
            pool.display().to_string()
        );
        let cfg = config(&dir, &[&input], &extra);
        let out = dir.join(&format!("out-{mirror_on}"));
        run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
        let audit: BTreeMap<u64, Value> = std::fs::read_to_string(out.join("audit.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|v| (v["index"].as_u64().unwrap(), v))
            .collect();
        assert_eq!(audit[&2]["decision"], "duplicate");
        assert_eq!(audit[&2]["detail"]["reference"], true);
        assert_eq!(audit[&3]["decision"], "duplicate");
        assert_eq!(audit[&3]["detail"]["first_index"], 0);
        assert_eq!(
            audit.contains_key(&4),
            mirror_on,
            "the mirror image of record 1"
        );
        if mirror_on {
            assert_eq!(audit[&4]["detail"]["first_index"], 1);
        }
        assert_eq!(
            report(&out)["records"]["kept"],
            if mirror_on { 2 } else { 3 }
        );
    }
}

/// Dedup compares decoded positions, never bytes: the same positions as PackedSfen with the
/// old hand order (other bytes), as HCP and as SFEN lines are duplicates of the first
/// file's records, and the kept output is exactly that of the first file alone.
#[test]
fn dedup_sees_one_position_across_formats_and_encodings() {
    use posfilter::shogi::Color;
    use posfilter::shogi::PieceType::{self, *};
    let n = 200;
    let (dir, alone_cfg) = startpos_setup(
        "dedup-formats",
        n,
        "[filter.mate]\nenabled = false\n[filter.repetition]\nenabled = false\n",
    );
    let psfen = dir.join("in.psfen");
    let sfen_text = first_lines(
        &std::fs::read_to_string(data("pipeline/startpos.sfen")).unwrap(),
        n,
    );
    let positions: Vec<Position> = sfen_text
        .lines()
        .map(|l| Position::from_sfen(l).unwrap())
        .collect();
    let current = std::fs::read(&psfen).unwrap();
    // Handicap positions (pieces in the box) keep their bytes; the others get the old hand
    // order P L N S B R G.
    let pieces = |p: &Position| {
        let hands: u32 = Color::ALL
            .iter()
            .flat_map(|&c| PieceType::HAND.map(|pt| p.hand(c).count(pt) as u32))
            .sum();
        p.occupied().count() + hands
    };
    let old_order: Vec<u8> = positions
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            if pieces(p) == 40 {
                crate::codec::readme_psfen(p, &[Pawn, Lance, Knight, Silver, Bishop, Rook, Gold])
            } else {
                current[32 * i..32 * i + 32].try_into().unwrap()
            }
        })
        .collect();
    let differ = (0..n)
        .filter(|i| old_order[32 * i..32 * i + 32] != current[32 * i..32 * i + 32])
        .count();
    assert!(differ > 10, "only {differ} records differ in bytes");
    let files = [
        ("old.psfen", old_order),
        (
            "c.hcp",
            std::fs::read(data("pipeline/startpos.hcp")).unwrap()[..32 * n].to_vec(),
        ),
        ("d.sfen", sfen_text.into_bytes()),
    ];
    let mut inputs = vec![psfen.clone()];
    for (name, bytes) in &files {
        std::fs::write(dir.join(name), bytes).unwrap();
        inputs.push(dir.join(name));
    }
    let alone = dir.join("alone");
    run_one_thread(&alone_cfg, &alone);
    let all_cfg = config(
        &dir,
        &inputs.iter().map(|p| p.as_path()).collect::<Vec<_>>(),
        "[filter.mate]\nenabled = false\n[filter.repetition]\nenabled = false\n",
    );
    let all = dir.join("all");
    run_one_thread(&all_cfg, &all);

    assert_eq!(report(&all)["records"]["input"], 4 * n as u64);
    assert_eq!(
        report(&all)["records"]["kept"],
        report(&alone)["records"]["kept"]
    );
    same_outputs(&all.join("kept"), &alone.join("kept"), &[]);
    let later: Vec<Value> = jsonl_lines(&all.join("audit.jsonl"))
        .into_iter()
        .filter(|v| v["index"].as_u64().unwrap() >= n as u64)
        .collect();
    assert_eq!(later.len(), 3 * n);
    for v in &later {
        assert_eq!(v["decision"], "duplicate", "{v}");
        assert!(
            v["detail"]["first_index"].as_u64().unwrap() < n as u64,
            "{v}"
        );
    }
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

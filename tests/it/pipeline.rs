//! End-to-end tests of `posfilter run`, driving the binary in a temporary directory. This
//! file holds the shared helpers (configs, runs, reading the outputs); the tests are grouped
//! by what they hold the run to: `determinism` (1 vs 2 threads byte-identical), `formats`
//! (every input format plain and zstd-compressed), `decisions` (against the corpus labels,
//! repetition from real move sequences in usi and psv form, unknowns), `dedup` (across
//! formats, encodings, reference pools and mirrors), `bad_input` (truncated and garbage
//! records, broken `.zst`, the promised config errors), `lifecycle` (reruns, a killed
//! run, dry runs, progress lines) and `lock` (one writer per output directory).
//! `resume.rs` covers stopped and resumed runs.

use crate::support::{data, jsonl, run_bin, TempDir};
use posfilter::codec::{self, Format};
use posfilter::shogi::{Move, Position};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

mod bad_input;
mod control;
mod decider;
mod decisions;
mod dedup;
mod determinism;
mod formats;
pub(crate) mod games;
mod lifecycle;
mod lock;
mod mates;
mod trainer_ready;

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

/// Runs the binary with `args`; returns (exit status, stderr).
pub(crate) fn run_status(args: &[&str]) -> (i32, String) {
    let o = std::process::Command::new(crate::support::bin())
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    (o.status.code().unwrap_or(-1), err)
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

/// The parts of report.json's run report that depend on the input and the settings only,
/// not on thread count, scheduling or a resume: mate lengths, nodes per position by result,
/// each input's counts, mates against game results.
pub(crate) fn run_report_part(r: &Value) -> Value {
    let inputs: Vec<Value> = r["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| serde_json::json!({"counts": i["counts"], "unknown": i["unknown"]}))
        .collect();
    serde_json::json!({
        "mate_plies": r["histograms"]["mate_plies"], "nodes": r["histograms"]["nodes"],
        "inputs": inputs, "mates_vs_game_result": r["mates_vs_game_result"],
    })
}

/// Every file of `a` equals the same file of `b`, report.json and report.html (timings) and
/// `skip` excepted.
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
        .filter(|r| !["report.json", "report.html"].contains(&r.as_str()))
        .filter(|r| !skip.contains(&r.as_str()))
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

//! report.json's run report on the bundled sample, against independent truth: the input
//! files' sizes and CRC-32 (Python's zlib), the git checkout the binary was built from, the
//! counts (per file and in total), mates.jsonl (mate lengths, nodes), and the psv records'
//! own game_result bytes (mates against the games' results).

use crate::report::sample_run;
use crate::support::run_bin;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn mates(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("mates.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a u64: {v}"))
}

/// `2026-11-26T10:41:00Z`-shaped.
fn is_rfc3339_utc(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

#[test]
fn the_run_block_says_what_ran_when_and_from_which_commit() {
    let r = read_json(&sample_run().join("report.json"));
    let run = &r["run"];
    let (started, finished) = (
        run["started"].as_str().unwrap(),
        run["finished"].as_str().unwrap(),
    );
    assert!(is_rfc3339_utc(started) && is_rfc3339_utc(finished), "{run}");
    assert!(started <= finished);
    let words: Vec<&str> = run["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        words[0].ends_with("posfilter") && words[1] == "run",
        "{words:?}"
    );
    assert!(words[2].ends_with("pipeline.toml"));
    assert_eq!(run["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(run["os"], std::env::consts::OS);
    let head = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match head {
        // Built from this checkout: its commit, `-dirty` if the code had changes.
        Some(head) => {
            let rev = run["git_revision"].as_str().unwrap();
            assert!(
                rev == head || rev == format!("{head}-dirty"),
                "{rev} vs {head}"
            );
        }
        None => assert!(run["git_revision"].is_null()),
    }
}

#[test]
fn each_input_has_its_size_crc32_and_counts_and_they_add_up() {
    let r = read_json(&sample_run().join("report.json"));
    let inputs = r["inputs"].as_array().unwrap();
    let mut total = json!({});
    for i in inputs {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(i["file"].as_str().unwrap());
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(u(&i["bytes"]), bytes.len() as u64);
        assert_eq!(u(&i["fingerprint"]["hashed_bytes"]), bytes.len() as u64);
        // zlib's CRC-32 of the whole file (the sample files are small enough to be whole).
        let script = format!(
            "import zlib;print('%08x'%zlib.crc32(open({:?},'rb').read()))",
            path
        );
        let (ok, crc, err) = {
            let o = std::process::Command::new("python3")
                .args(["-c", &script])
                .output()
                .unwrap();
            let text = |b: &[u8]| String::from_utf8_lossy(b).trim().to_string();
            (o.status.success(), text(&o.stdout), text(&o.stderr))
        };
        assert!(ok, "{err}");
        assert_eq!(
            i["fingerprint"]["crc32"],
            crc.as_str(),
            "{}",
            path.display()
        );
        // The file's counts reconcile, and sum over the files to the run's.
        let c = &i["counts"];
        let dropped: u64 = c["dropped"].as_object().unwrap().values().map(u).sum();
        assert_eq!(u(&c["input"]), u(&c["kept"]) + dropped + u(&c["rejected"]));
        assert_eq!(c["input"], i["records"]);
        add(&mut total, c);
    }
    assert_eq!(total, r["records"]);
    let unknown: u64 = inputs.iter().map(|i| u(&i["unknown"])).sum();
    assert_eq!(unknown, u(&r["unknown"]));
}

/// Adds the numbers of `b` into `a`, key by key.
fn add(a: &mut Value, b: &Value) {
    match b {
        Value::Object(m) => {
            for (k, v) in m {
                let zero = if v.is_object() { json!({}) } else { json!(0) };
                add(a.as_object_mut().unwrap().entry(k).or_insert(zero), v);
            }
        }
        n => *a = json!(u(a) + u(n)),
    }
}

/// The leading-digit bucket of `v`, computed on its own: [d·10^k, (d+1)·10^k).
fn bucket(v: u64) -> u64 {
    let digits = v.to_string();
    let unit = 10u64.pow(digits.len() as u32 - 1);
    v / unit * unit
}

#[test]
fn the_histograms_sum_to_the_counts_and_match_mates_jsonl() {
    let out = sample_run();
    let r = read_json(&out.join("report.json"));
    let h = &r["histograms"];
    let sums = |name: &str, field: &str| -> u64 {
        h[name]
            .as_object()
            .unwrap()
            .values()
            .map(|x| u(&x[field]))
            .sum()
    };
    for (name, hist) in h.as_object().unwrap().iter().flat_map(|(n, m)| {
        m.as_object()
            .unwrap()
            .iter()
            .map(move |(k, v)| (format!("{n}.{k}"), v))
    }) {
        let buckets: u64 = hist["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| u(&b["n"]))
            .sum();
        assert_eq!(buckets, u(&hist["count"]), "{name}");
    }
    let dropped = &r["records"]["dropped"];
    for kind in ["mate", "mated"] {
        assert_eq!(h["mate_plies"][kind]["count"], dropped[kind]);
        assert_eq!(h["nodes"][kind]["count"], dropped[kind]);
    }
    assert_eq!(h["nodes"]["unknown"]["count"], r["unknown"]);
    let cache = &r["verdict_cache"];
    assert_eq!(
        sums("nodes", "sum"),
        u(&r["nodes"]) + u(&cache["nodes_saved"])
    );
    // Verdicts from the cache are not timed.
    assert_eq!(
        sums("micros", "count"),
        sums("nodes", "count") - u(&cache["hits"])
    );
    // The mates' nodes, bucketed here from mates.jsonl.
    let mut by_bucket: BTreeMap<u64, u64> = BTreeMap::new();
    for m in mates(out).iter().filter(|m| m["kind"] == "mate") {
        *by_bucket.entry(bucket(u(&m["nodes"]))).or_default() += 1;
    }
    let recorded: BTreeMap<u64, u64> = h["nodes"]["mate"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (u(&b["lo"]), u(&b["n"])))
        .collect();
    assert_eq!(recorded, by_bucket);
    let samples = r["throughput"].as_array().unwrap();
    assert_eq!(samples[0], json!({"seconds": 0.0, "records": 0}));
    assert_eq!(samples.last().unwrap()["records"], r["records"]["input"]);
    assert!(samples
        .windows(2)
        .all(|w| w[0]["seconds"].as_f64() < w[1]["seconds"].as_f64()
            && u(&w[0]["records"]) <= u(&w[1]["records"])));
}

#[test]
fn mates_against_game_results_read_from_the_psv_records_themselves() {
    let out = sample_run();
    let r = read_json(&out.join("report.json"));
    let inputs = r["inputs"].as_array().unwrap();
    let first_psv: u64 = inputs
        .iter()
        .take_while(|i| i["format"] != "psv")
        .map(|i| u(&i["records"]))
        .sum();
    let psv =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/teacher.psv")).unwrap();
    let mut rows: BTreeMap<String, [u64; 3]> = BTreeMap::new();
    let mut surprises = Vec::new();
    for m in mates(out).iter().filter(|m| u(&m["index"]) >= first_psv) {
        let at = (u(&m["index"]) - first_psv) as usize * 40;
        // game_result, byte 38 of PackedSfenValue: the side to move's result.
        let mover = psv[at + 38] as i8;
        let kind = m["kind"].as_str().unwrap();
        let mated = if kind == "mate" { -mover } else { mover };
        let row = rows.entry(kind.to_string()).or_insert([0; 3]);
        match mated {
            -1 => row[0] += 1,
            1 => {
                row[1] += 1;
                surprises.push(m["index"].clone());
            }
            _ => row[2] += 1,
        }
    }
    let t = &r["mates_vs_game_result"];
    for (kind, [lost, won, draw]) in &rows {
        assert_eq!(
            t[kind],
            json!({"mated_side_lost": lost, "mated_side_won": won, "draw": draw})
        );
    }
    let listed: Vec<Value> = t["mated_side_won_examples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["index"].clone())
        .collect();
    surprises.truncate(10);
    assert_eq!(listed, surprises);
}

#[test]
fn report_rewrites_the_runs_own_page_byte_for_byte() {
    let out = sample_run();
    let page = std::env::temp_dir().join(format!("posfilter-again-{}.html", std::process::id()));
    let (ok, _, err) = run_bin(&[
        "report",
        out.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let again = std::fs::read(&page).unwrap();
    let _ = std::fs::remove_file(&page);
    assert!(again == std::fs::read(out.join("report.html")).unwrap());
}

//! report.html and `posfilter report`: the numbers on the page against report.json (parsed
//! with a real HTML parser, html5ever through scraper), the histograms against the counts
//! and against mates.jsonl recomputed here, and `report A B` on two budgets of the same
//! input against the two report.json and mates.jsonl.

use crate::pipeline::{config, report as report_json, run_ok, startpos_setup};
use crate::support::{run_bin, TempDir};
use scraper::{ElementRef, Html, Selector};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The bundled sample (pipeline.toml on data/) run once per test process; the output
/// directory (the run writes report.html beside report.json).
pub(crate) fn sample_run() -> &'static Path {
    static SAMPLE: OnceLock<(TempDir, PathBuf)> = OnceLock::new();
    let (_, out) = SAMPLE.get_or_init(|| {
        let dir = TempDir::new("report-sample");
        let out = dir.join("out");
        let toml = Path::new(env!("CARGO_MANIFEST_DIR")).join("pipeline.toml");
        let out_text = out.to_str().unwrap();
        run_ok(&["run", toml.to_str().unwrap(), "--out", out_text, "--quiet"]);
        (dir, out)
    });
    out
}

fn sel(css: &str) -> Selector {
    Selector::parse(css).unwrap()
}

fn attr<'a>(e: &ElementRef<'a>, name: &str) -> &'a str {
    e.value()
        .attr(name)
        .unwrap_or_else(|| panic!("no {name} on {:?}", e.value()))
}

/// The number at dotted `key` of `json`.
fn at(json: &Value, key: &str) -> Value {
    json.pointer(&posfilter::report::load::pointer(key))
        .cloned()
        .unwrap_or(Value::Null)
}

/// Every number tagged with a key (`run` = the `data-run` it carries, if any) shows the
/// value report.json holds there, in its text too; returns the keys checked.
fn numbers_match(doc: &Html, json: &Value, run: Option<&str>) -> BTreeSet<String> {
    let mut checked = BTreeSet::new();
    for e in doc.select(&sel("span.n[data-key]")) {
        if e.value().attr("data-run") != run {
            continue;
        }
        let key = attr(&e, "data-key");
        let value: u64 = attr(&e, "data-value").parse().unwrap();
        assert_eq!(at(json, key), Value::from(value), "{key}");
        let text: String = e.text().collect::<String>().replace(',', "");
        assert_eq!(text, value.to_string(), "{key} shown as {text}");
        checked.insert(key.to_string());
    }
    checked
}

/// The marks of figure `plot`, by series: (lo, n) of each.
fn marks(doc: &Html, plot: &str) -> BTreeMap<String, Vec<(u64, u64)>> {
    let mut m: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
    let figure = sel(&format!("figure[data-plot=\"{plot}\"] [data-n]"));
    for e in doc.select(&figure) {
        let lo = e.value().attr("data-lo").map_or(0, |v| v.parse().unwrap());
        let n = attr(&e, "data-n").parse().unwrap();
        m.entry(attr(&e, "data-series").to_string())
            .or_default()
            .push((lo, n));
    }
    m
}

/// The cell texts of table `id`, row by row.
fn cells(doc: &Html, id: &str) -> Vec<Vec<String>> {
    doc.select(&sel(&format!("table#{id} tbody tr")))
        .map(|tr| {
            tr.select(&sel("td"))
                .map(|td| td.text().collect::<String>())
                .collect()
        })
        .collect()
}

fn mates_jsonl(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("mates.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_sample_page_shows_report_json_and_its_histograms_sum_to_the_counts() {
    let out = sample_run();
    let json = report_json(out);
    let doc = Html::parse_document(&std::fs::read_to_string(out.join("report.html")).unwrap());
    let shown = numbers_match(&doc, &json, None);
    // Every count of a decision, and the solver's totals, are on the page.
    let mut counts: Vec<String> = ["input", "kept", "rejected"]
        .iter()
        .map(|k| format!("records.{k}"))
        .collect();
    for reason in json["records"]["dropped"].as_object().unwrap().keys() {
        counts.push(format!("records.dropped.{reason}"));
    }
    for key in counts
        .iter()
        .map(String::as_str)
        .chain(["unknown", "unknown_kept", "nodes"])
    {
        assert!(shown.contains(key), "{key} is not on the page");
    }
    // The reconciliation line's dropped total is the sum of the reasons.
    let dropped: u64 = json["records"]["dropped"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    let shown = doc
        .select(&sel("#reconcile [data-derived]"))
        .next()
        .unwrap();
    assert_eq!(attr(&shown, "data-value"), dropped.to_string());
    assert!(doc.select(&sel("#reconcile .ok")).next().is_some());
    // A bar per decision, each the count report.json gives.
    let bars = marks(&doc, "decisions");
    // kept, the nine drop reasons (`no_move` included), rejected.
    assert_eq!(bars.len(), 11);
    for (key, values) in &bars {
        assert_eq!(at(&json, key), Value::from(values[0].1), "{key}");
    }
    // Mate lengths: each series sums to its drop count, and each bar is the number of
    // mates.jsonl lines of that kind and length.
    let lengths = marks(&doc, "mate-length");
    let mates = mates_jsonl(out);
    for kind in ["mate", "mated"] {
        let bars = &lengths[&format!("histograms.mate_plies.{kind}")];
        let sum: u64 = bars.iter().map(|b| b.1).sum();
        assert_eq!(Value::from(sum), json["records"]["dropped"][kind], "{kind}");
        let mut by_plies: BTreeMap<u64, u64> = BTreeMap::new();
        for m in mates.iter().filter(|m| m["kind"] == kind) {
            *by_plies.entry(m["plies"].as_u64().unwrap()).or_default() += 1;
        }
        assert_eq!(bars.iter().copied().collect::<BTreeMap<_, _>>(), by_plies);
    }
    // The budget table's "mates found" shares, recomputed from mates.jsonl.
    let found: Vec<u64> = mates
        .iter()
        .filter(|m| m["kind"] != "checkmated")
        .map(|m| m["nodes"].as_u64().unwrap())
        .collect();
    for row in cells(&doc, "budget-shares") {
        let x: u64 = row[0]
            .trim_start_matches("fewer than ")
            .replace(',', "")
            .parse()
            .unwrap();
        let below = found.iter().filter(|n| **n < x).count();
        let share = format!("{:.2} %", 100.0 * below as f64 / found.len() as f64);
        assert_eq!(row[2], share, "fewer than {x}");
    }
}

#[test]
fn report_refuses_a_directory_without_report_json() {
    let dir = TempDir::new("report-missing");
    let (ok, _, err) = run_bin(&["report", dir.0.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("report.json") && err.contains("No such file"),
        "{err}"
    );
    std::fs::write(dir.join("report.json"), "{\"records\": 3}").unwrap();
    let (ok, _, err) = run_bin(&["report", dir.0.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("not a posfilter report.json"), "{err}");
}

/// Indices of the positions a run proved (mates.jsonl).
fn proved(out: &Path) -> BTreeSet<u64> {
    mates_jsonl(out)
        .iter()
        .map(|m| m["index"].as_u64().unwrap())
        .collect()
}

#[test]
fn report_a_b_on_two_budgets_shows_what_the_larger_one_added() {
    let (dir, _) = startpos_setup("report-ab", 400, "");
    let input = dir.join("in.psfen");
    let outs: Vec<PathBuf> = [300u64, 30_000]
        .iter()
        .map(|nodes| {
            let sub = TempDir::new(&format!("report-ab-{nodes}"));
            let cfg = config(
                &sub,
                &[&input],
                &format!("[filter.mate]\nnodes = {nodes}\n"),
            );
            let out = dir.join(&format!("out-{nodes}"));
            run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
            out
        })
        .collect();
    let page = dir.join("compare.html");
    let (a, b) = (outs[0].to_str().unwrap(), outs[1].to_str().unwrap());
    run_ok(&["report", a, b, "-o", page.to_str().unwrap()]);
    let doc = Html::parse_document(&std::fs::read_to_string(&page).unwrap());
    let (ja, jb) = (report_json(&outs[0]), report_json(&outs[1]));
    for (json, run) in [(&ja, "a"), (&jb, "b")] {
        let shown = numbers_match(&doc, json, Some(run));
        assert!(
            shown.contains("records.dropped.mate") && shown.contains("nodes"),
            "{shown:?}"
        );
    }
    for e in doc.select(&sel("[data-delta]")) {
        let key = attr(&e, "data-delta");
        let d = at(&jb, key).as_i64().unwrap() - at(&ja, key).as_i64().unwrap();
        assert_eq!(attr(&e, "data-value"), d.to_string(), "{key}");
    }
    // The larger budget proves more, and the page counts and lists exactly those.
    let (pa, pb) = (proved(&outs[0]), proved(&outs[1]));
    let only_b: Vec<u64> = pb.difference(&pa).copied().collect();
    let only_a: Vec<u64> = pa.difference(&pb).copied().collect();
    assert!(
        !only_b.is_empty(),
        "30,000 nodes proved nothing 300 did not"
    );
    let value = |id: &str| attr(&doc.select(&sel(id)).next().unwrap(), "data-value").to_string();
    assert_eq!(value("#only-b"), only_b.len().to_string());
    assert_eq!(value("#only-a"), only_a.len().to_string());
    let listed: Vec<u64> = cells(&doc, "only-b-list")
        .iter()
        .map(|r| r[0].parse().unwrap())
        .collect();
    assert_eq!(listed, only_b[..only_b.len().min(10)]);
    // The difference in mates is the difference in drops.
    let drops = |j: &Value| {
        j["records"]["dropped"]["mate"].as_u64().unwrap()
            + j["records"]["dropped"]["mated"].as_u64().unwrap()
            + j["records"]["dropped"]["checkmated"].as_u64().unwrap()
    };
    assert_eq!(
        drops(&jb) as i64 - drops(&ja) as i64,
        only_b.len() as i64 - only_a.len() as i64
    );
    // Same input; the one setting that differs is the budget.
    let verdict = doc.select(&sel("#same-input-verdict")).next().unwrap();
    assert_eq!(attr(&verdict, "class"), "ok");
    let diff = cells(&doc, "settings-diff-table");
    assert_eq!(diff, [["filter.mate.nodes", "300", "30000"]]);
}

//! The page of one run (report.html): the header with what ran on what, the reconciliation
//! line and decisions, the unknowns, the plots (see [`super::plots`]), the inputs and the
//! settings.

use super::html::{derived, esc, int, note, num, pct, table, text_table, Page};
use super::load::RunData;
use super::plots;
use super::svg::{self, Bar};
use serde_json::Value;

/// The decisions every run counts: report.json key (under `records.`), label, colour.
pub const DECISIONS: [(&str, &str, usize); 11] = [
    ("kept", "kept", 2),
    ("dropped.checkmated", "checkmated", 7),
    ("dropped.no_legal_moves", "no legal moves", 8),
    ("dropped.mate", "mate", 1),
    ("dropped.mated", "mated", 5),
    ("dropped.repetition", "repetition", 3),
    ("dropped.declaration", "declaration", 4),
    ("dropped.duplicate", "duplicate", 0),
    ("dropped.unknown", "unknown (dropped)", 9),
    ("dropped.no_move", "hcpe without a move", 8),
    ("rejected", "rejected", 6),
];

/// report.html of `run`.
pub fn render(run: &RunData) -> String {
    let mut page = Page::new(&format!("posfilter report: {}", run.name()));
    page.push(&header(run));
    page.section("records", "Records", &records(run));
    page.section("unknown", "Unknowns and time-outs", &unknowns(run));
    page.section("mate-length", "Mate lengths", &plots::mate_lengths(run));
    page.section("budget", "Nodes against the budget", &plots::budget(run));
    page.section("timing", "Time per position", &plots::timing(run));
    page.section("throughput", "Throughput", &plots::throughput(run));
    page.section(
        "game-results",
        "Mates against the games' results",
        &plots::game_results(run),
    );
    page.section("inputs", "Inputs", &inputs(run));
    page.section("settings", "Settings", &settings(run));
    page.finish()
}

/// The title and the run's provenance.
fn header(run: &RunData) -> String {
    let none = || "<span class=\"note\">not recorded</span>".to_string();
    let text = |v: Option<&str>| v.map(esc).unwrap_or_else(none);
    let info = run.run.as_ref();
    let version = info
        .map(|r| r.version.as_str())
        .or_else(|| run.s("version"));
    let command = info.map(|r| {
        let words: Vec<String> = r.command_line.iter().map(|w| shell_word(w)).collect();
        format!("<code>{}</code>", esc(&words.join(" ")))
    });
    let seconds = run.get("seconds").and_then(Value::as_f64).unwrap_or(0.0);
    let rate = run
        .get("positions_per_second")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    let rows = vec![
        vec![
            "output".into(),
            format!("<code>{}</code>", esc(&run.name())),
        ],
        vec!["command line".into(), command.unwrap_or_else(none)],
        vec!["started".into(), text(info.map(|r| r.started.as_str()))],
        vec!["finished".into(), text(info.map(|r| r.finished.as_str()))],
        vec![
            "time".into(),
            format!(
                "{seconds:.2} s, {} positions/s, {} threads",
                int(rate as u64),
                num("threads", run.u("threads"))
            ),
        ],
        vec!["host".into(), text(info.and_then(|r| r.host.as_deref()))],
        vec![
            "posfilter".into(),
            format!(
                "{} {}",
                text(version),
                info.and_then(|r| r.git_revision.as_deref())
                    .map(|g| format!("(git {})", esc(g)))
                    .unwrap_or_default()
            ),
        ],
    ];
    let meta = text_table("meta", &["", ""], &rows);
    format!("<h1>posfilter run report</h1>{meta}")
}

/// A command-line word as a shell would need it quoted.
fn shell_word(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// The reconciliation line, the decision table and bars (total and per input file).
fn records(run: &RunData) -> String {
    let (input, kept, rejected) = (
        run.u("records.input"),
        run.u("records.kept"),
        run.u("records.rejected"),
    );
    let dropped: u64 = DECISIONS
        .iter()
        .filter(|(k, ..)| k.starts_with("dropped."))
        .map(|(k, ..)| run.u(&format!("records.{k}")))
        .sum();
    let ok = input == kept + dropped + rejected;
    let verdict = if ok {
        "<span class=\"ok\">\u{2713} reconciled</span>".to_string()
    } else {
        format!(
            "<span class=\"bad\">\u{2717} does not reconcile: the parts add up to {}</span>",
            int(kept + dropped + rejected)
        )
    };
    let mut s = format!(
        "<p class=\"reconcile\" id=\"reconcile\">input {} = kept {} + dropped {} + rejected {} {verdict}</p>",
        num("records.input", input),
        num("records.kept", kept),
        derived("sum of records.dropped", dropped),
        num("records.rejected", rejected),
    );
    s.push_str(&decision_table(run));
    s.push_str(&decision_bars(run, "records", "all inputs", "decisions"));
    let files = run.inputs();
    let per_file = (0..files).all(|i| run.get(&format!("inputs.{i}.counts")).is_some());
    if files > 1 && per_file {
        for i in 0..files {
            let name = run.s(&format!("inputs.{i}.file")).unwrap_or("?");
            s.push_str(&decision_bars(
                run,
                &format!("inputs.{i}.counts"),
                name,
                &format!("decisions-{i}"),
            ));
        }
    } else if files > 1 {
        s.push_str(&note(
            "This report.json has no per-file decision counts (inputs.N.counts: written \
             since the run report): only each file's record count is known (Inputs below).",
        ));
    }
    s
}

/// Decision counts and shares: one column for all inputs, one per file when recorded.
fn decision_table(run: &RunData) -> String {
    let files = run.inputs();
    let per_file: Vec<usize> = (0..files)
        .filter(|i| run.get(&format!("inputs.{i}.counts")).is_some())
        .collect();
    let mut head = vec!["decision".to_string(), "all inputs".into(), "share".into()];
    head.extend(per_file.iter().map(|i| {
        let file = run.s(&format!("inputs.{i}.file")).unwrap_or("?");
        file.rsplit('/').next().unwrap_or(file).to_string()
    }));
    let input = run.u("records.input");
    let rows: Vec<Vec<String>> = std::iter::once(("input", "input"))
        .chain(DECISIONS.iter().map(|(k, l, _)| (*k, *l)))
        .map(|(k, label)| {
            let mut row = vec![
                esc(label),
                num(&format!("records.{k}"), run.u(&format!("records.{k}"))),
                pct(run.u(&format!("records.{k}")), input),
            ];
            for i in &per_file {
                let key = format!("inputs.{i}.counts.{k}");
                row.push(num(&key, run.u(&key)));
            }
            row
        })
        .collect();
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    table("decisions", &head, &rows)
}

/// Bars of the decisions under `base` (`records` or `inputs.N.counts`).
fn decision_bars(run: &RunData, base: &str, title: &str, id: &str) -> String {
    let input = run.u(&format!("{base}.input"));
    let bars: Vec<Vec<Bar>> = DECISIONS
        .iter()
        .map(|(k, label, colour)| {
            let key = format!("{base}.{k}");
            let value = run.u(&key);
            vec![Bar {
                label: label.to_string(),
                value,
                colour: *colour,
                title: format!(
                    "{label}: {} of {} ({})",
                    int(value),
                    int(input),
                    pct(value, input)
                ),
                key,
            }]
        })
        .collect();
    let chart = svg::hbars(&format!("decisions, {title}"), &bars);
    let caption = format!("Decisions, {}: {} records.", esc(title), int(input));
    svg::figure(id, &chart, &caption)
}

/// Unknowns, time-outs and the verdict cache.
fn unknowns(run: &RunData) -> String {
    let Some(budget) = run.budget() else {
        return note("The mate filter was off: nothing was searched.");
    };
    let time_ms = run.u("config.filter.mate.time_ms");
    let rows = vec![
        vec![
            "undecided within the budget".into(),
            num("unknown", run.u("unknown")),
        ],
        vec![
            "of those kept".into(),
            num("unknown_kept", run.u("unknown_kept")),
        ],
        vec![
            "of those dropped (filter.mate.unknown = \"drop\")".into(),
            num("records.dropped.unknown", run.u("records.dropped.unknown")),
        ],
        vec![
            "stopped by the wall-time guard".into(),
            num("unknown_timed_out", run.u("unknown_timed_out")),
        ],
        vec!["df-pn nodes searched".into(), num("nodes", run.u("nodes"))],
        vec![
            "answered by the verdict cache".into(),
            num("verdict_cache.hits", run.u("verdict_cache.hits")),
        ],
        vec![
            "nodes the cache saved".into(),
            num(
                "verdict_cache.nodes_saved",
                run.u("verdict_cache.nodes_saved"),
            ),
        ],
    ];
    let mut s = format!(
        "<p>Node budget {} per position; wall-time guard {}.</p>",
        num("config.filter.mate.nodes", budget),
        if time_ms == 0 {
            "off".to_string()
        } else {
            format!("{} ms", num("config.filter.mate.time_ms", time_ms))
        }
    );
    s.push_str(&table("unknowns", &["", "positions"], &rows));
    if run.u("unknown_timed_out") > 0 {
        s.push_str(&format!(
            "<p class=\"warn\">{} positions stopped on the wall-time guard before the node \
             budget: this output depends on the machine's speed and load.</p>",
            int(run.u("unknown_timed_out"))
        ));
    }
    s
}

/// Each input file: format, records, size, modification time and fingerprint.
fn inputs(run: &RunData) -> String {
    let rows: Vec<Vec<String>> = (0..run.inputs())
        .map(|i| {
            let key = |k: &str| format!("inputs.{i}.{k}");
            let text = |k: &str| esc(run.s(&key(k)).unwrap_or("\u{2013}"));
            let crc = match run.s(&key("fingerprint.crc32")) {
                Some(c) => {
                    let whole = run.u(&key("fingerprint.hashed_bytes")) == run.u(&key("bytes"));
                    format!(
                        "<code>{}</code> {}",
                        esc(c),
                        if whole { "(whole file)" } else { "(3 samples)" }
                    )
                }
                None => "\u{2013}".into(),
            };
            let bytes = if run.get(&key("bytes")).is_some() {
                num(&key("bytes"), run.u(&key("bytes")))
            } else {
                "\u{2013}".into()
            };
            vec![
                format!("<code>{}</code>", text("file")),
                text("format"),
                text("detected_by"),
                num(&key("records"), run.u(&key("records"))),
                bytes,
                text("modified"),
                crc,
            ]
        })
        .collect();
    table(
        "input-files",
        &[
            "file",
            "format",
            "detected by",
            "records",
            "bytes",
            "modified (UTC)",
            "CRC-32",
        ],
        &rows,
    )
}

/// The effective configuration, one row per key.
fn settings(run: &RunData) -> String {
    let mut rows = Vec::new();
    if let Some(config) = run.get("config") {
        flatten("", config, &mut rows);
    }
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|(k, v)| {
            vec![
                format!("<code>{}</code>", esc(&k)),
                format!("<code>{}</code>", esc(&v)),
            ]
        })
        .collect();
    text_table("config", &["key", "value"], &rows)
}

/// `(dotted key, compact JSON value)` of every leaf of `v` under `prefix`.
pub fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, child, out);
            }
        }
        leaf => out.push((prefix.to_string(), leaf.to_string())),
    }
}

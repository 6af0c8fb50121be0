//! HTML building blocks of the report pages: escaping, number formatting, numbers tied to
//! their report.json key, tables, and the page frame with its stylesheet.
//!
//! # Invariants
//! - Every text and attribute value goes through [`esc`]; nothing on the page is fetched
//!   (no script, no link, no font: the stylesheet is inline and uses the reader's fonts).
//! - A number read straight from report.json is written by [`num`], which tags it with its
//!   key (`data-key`, dotted: `records.dropped.mate`, `inputs.0.records`) and its exact value
//!   (`data-value`); the shown text is that value with thousands separators. Numbers derived
//!   from several keys carry `data-derived` instead. The tests resolve every `data-key` in
//!   report.json and compare.

use std::fmt::Write;

/// `s` with `& < > " '` escaped, for text and attribute values alike.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `n` with thousands separators: `1,234,567`.
pub fn int(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Signed difference with separators and an explicit sign: `+12`, `−3` (minus sign), `0`.
pub fn delta(b: u64, a: u64) -> String {
    match b.cmp(&a) {
        std::cmp::Ordering::Greater => format!("+{}", int(b - a)),
        std::cmp::Ordering::Less => format!("\u{2212}{}", int(a - b)),
        std::cmp::Ordering::Equal => "0".into(),
    }
}

/// `part` of `whole` in percent with two decimals (`–` when `whole` is 0).
pub fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        "\u{2013}".into()
    } else {
        format!("{:.2} %", 100.0 * part as f64 / whole as f64)
    }
}

/// A compact form of `x` for axis labels: `950`, `1.2k`, `10k`, `3M`, `1.5G`.
pub fn short(x: f64) -> String {
    let a = x.abs();
    let (v, unit) = if a >= 1e9 {
        (x / 1e9, "G")
    } else if a >= 1e6 {
        (x / 1e6, "M")
    } else if a >= 1e3 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    let text = if v.fract().abs() < 1e-9 || v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    format!("{text}{unit}")
}

/// A report.json number as page text, tagged with its key and exact value.
pub fn num(key: &str, value: u64) -> String {
    format!(
        "<span class=\"n\" data-key=\"{}\" data-value=\"{value}\">{}</span>",
        esc(key),
        int(value)
    )
}

/// A number computed from several report.json keys (`how` says from which).
pub fn derived(how: &str, value: u64) -> String {
    format!(
        "<span class=\"n\" data-derived=\"{}\" data-value=\"{value}\">{}</span>",
        esc(how),
        int(value)
    )
}

/// Whether a cell holds a number (a tagged one, or text starting with a digit or a sign),
/// which tables right-align.
fn numeric(cell: &str) -> bool {
    cell.starts_with("<span class=\"n\"")
        || cell
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || "+\u{2212}\u{2013}".contains(c))
}

/// A table: a header row, then rows of cells that are already HTML; numeric cells after
/// the first column are right-aligned.
pub fn table(id: &str, head: &[&str], rows: &[Vec<String>]) -> String {
    table_of(id, head, rows, true)
}

/// A table of text (keys and values): every cell left-aligned, in class `meta`.
pub fn text_table(id: &str, head: &[&str], rows: &[Vec<String>]) -> String {
    table_of(id, head, rows, false)
}

fn table_of(id: &str, head: &[&str], rows: &[Vec<String>], numbers: bool) -> String {
    let class = if numbers { "" } else { " class=\"meta\"" };
    let mut s = format!("<table id=\"{}\"{class}>", esc(id));
    if head.iter().any(|h| !h.is_empty()) {
        s.push_str("<thead><tr>");
        for h in head {
            let _ = write!(s, "<th>{}</th>", esc(h));
        }
        s.push_str("</tr></thead>");
    }
    s.push_str("<tbody>");
    for row in rows {
        s.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            let class = if numbers && i > 0 && numeric(cell) {
                " class=\"r\""
            } else {
                ""
            };
            let _ = write!(s, "<td{class}>{cell}</td>");
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table>");
    s
}

/// A note in muted text (for data a run did not record).
pub fn note(text: &str) -> String {
    format!("<p class=\"note\">{}</p>", esc(text))
}

/// A page under construction: sections in order, then [`Page::finish`].
pub struct Page {
    title: String,
    body: String,
}

impl Page {
    /// An empty page titled `title`.
    pub fn new(title: &str) -> Page {
        Page {
            title: title.to_string(),
            body: String::new(),
        }
    }

    /// Appends raw HTML.
    pub fn push(&mut self, html: &str) {
        self.body.push_str(html);
    }

    /// Appends a section `id` headed `heading` holding `html`.
    pub fn section(&mut self, id: &str, heading: &str, html: &str) {
        let _ = writeln!(
            self.body,
            "<section id=\"{}\"><h2>{}</h2>{html}</section>",
            esc(id),
            esc(heading)
        );
    }

    /// The whole document.
    pub fn finish(self) -> String {
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>{}</title><style>{STYLE}</style></head>\n<body><main>\n{}</main></body></html>\n",
            esc(&self.title),
            self.body
        )
    }
}

/// The stylesheet: the reader's own fonts, light or dark as the reader's system prefers,
/// series colours `s0`…`s9` (a colour-blind-safe palette).
const STYLE: &str = "
:root{color-scheme:light dark;--fg:#1d1d1f;--bg:#fff;--muted:#6b6b70;--line:#d8d8dc;--card:#f6f6f8;
--s0:#4477aa;--s1:#ee6677;--s2:#228833;--s3:#ccbb44;--s4:#66ccee;--s5:#aa3377;--s6:#bbbbbb;
--s7:#222255;--s8:#994455;--s9:#117733}
@media (prefers-color-scheme:dark){:root{--fg:#e8e8ea;--bg:#161618;--muted:#9a9aa0;--line:#3a3a40;
--card:#202024;--s7:#8888dd}}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif}
main{max-width:1040px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:0 0 10px}h3{font-size:15px;margin:14px 0 6px}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px 18px;margin:16px 0}
table{border-collapse:collapse;margin:6px 0 10px;font-variant-numeric:tabular-nums}
th,td{padding:3px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
td.r,th.r{text-align:right}th{font-weight:600}
.note{color:var(--muted);font-size:13px;margin:6px 0}
.ok{color:var(--s2);font-weight:600}.bad{color:var(--s1);font-weight:600}
.warn{border-left:4px solid var(--s1);padding:4px 10px;margin:8px 0}
code,pre,.sfen{font-family:ui-monospace,'SF Mono',Menlo,Consolas,monospace;font-size:13px}
pre{white-space:pre-wrap;word-break:break-all;margin:4px 0}
.reconcile{font-size:17px;margin:4px 0 8px}
figure{margin:10px 0 16px}figcaption{color:var(--muted);font-size:13px;margin-top:2px}
svg.chart{width:100%;height:auto;display:block;overflow:visible}
svg.chart text{fill:var(--fg);font-size:12px}svg.chart .axis{stroke:var(--muted);stroke-width:1}
svg.chart .grid{stroke:var(--line);stroke-width:1}svg.chart .mark-line{stroke:var(--s1);stroke-dasharray:4 3}
svg.chart .curve{fill:none;stroke-width:2}
.legend span{display:inline-block;margin-right:14px;font-size:13px}
.legend i{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.s0{fill:var(--s0);stroke:var(--s0);background:var(--s0)}.s1{fill:var(--s1);stroke:var(--s1);background:var(--s1)}
.s2{fill:var(--s2);stroke:var(--s2);background:var(--s2)}.s3{fill:var(--s3);stroke:var(--s3);background:var(--s3)}
.s4{fill:var(--s4);stroke:var(--s4);background:var(--s4)}.s5{fill:var(--s5);stroke:var(--s5);background:var(--s5)}
.s6{fill:var(--s6);stroke:var(--s6);background:var(--s6)}.s7{fill:var(--s7);stroke:var(--s7);background:var(--s7)}
.s8{fill:var(--s8);stroke:var(--s8);background:var(--s8)}.s9{fill:var(--s9);stroke:var(--s9);background:var(--s9)}
.meta td:first-child{color:var(--muted);white-space:nowrap}
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_escapes() {
        assert_eq!(int(0), "0");
        assert_eq!(int(999), "999");
        assert_eq!(int(1000), "1,000");
        assert_eq!(int(18_280_851), "18,280,851");
        assert_eq!(delta(5, 3), "+2");
        assert_eq!(delta(3, 1003), "\u{2212}1,000");
        assert_eq!(pct(1, 3), "33.33 %");
        assert_eq!(short(100_000.0), "100k");
        assert_eq!(short(1500.0), "1.5k");
        assert_eq!(short(2_500_000.0), "2.5M");
        assert_eq!(short(0.5), "0.5");
        assert_eq!(
            esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(
            num("records.kept", 4643),
            "<span class=\"n\" data-key=\"records.kept\" data-value=\"4643\">4,643</span>"
        );
    }
}

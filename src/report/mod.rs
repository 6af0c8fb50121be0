//! The run report people look at: report.html, and the parts of report.json behind it.
//!
//! [`crate::pipeline::report`] writes report.json's counts; this module holds what report.json
//! says about what ran on what ([`provenance`]), the histograms, throughput samples and
//! game-result cross-tab behind the plots ([`record`], [`histogram`]), and the pages:
//!
//! ```text
//! OUT/report.json (+ OUT/mates.jsonl for an older run, or to compare mates)
//!   → load::RunData → page::render   → OUT/report.html        (posfilter report OUT)
//!                   → compare::render → compare.html           (posfilter report A B)
//! ```
//!
//! # Contract
//! - A page is a pure function of the directories' report.json (and mates.jsonl, read as
//!   above): `posfilter report OUT` rewrites report.html of any run, older ones and merged
//!   ones included, and gets the same bytes each time.
//! - One self-contained file: inline CSS and inline SVG, no script, nothing fetched.
//! - Every number read from report.json is tagged with its key ([`html::num`]), so tests
//!   can check the page against the JSON.
//!
//! This module reads only JSON and files; it imports nothing from `pipeline` (which uses
//! its types to fill report.json).

pub mod compare;
pub mod histogram;
pub mod html;
pub mod load;
pub mod page;
pub mod plots;
pub mod provenance;
pub mod record;
pub mod svg;

pub use load::{ReportError, RunData};

use std::path::{Path, PathBuf};

/// The page's file name in an output directory.
pub const REPORT_HTML: &str = "report.html";

/// Writes `dir/report.html` from `dir/report.json`; returns its path.
pub fn write_run_page(dir: &Path) -> Result<PathBuf, ReportError> {
    let run = RunData::load(dir)?;
    let path = dir.join(REPORT_HTML);
    write_atomic(&path, &page::render(&run))?;
    Ok(path)
}

/// Writes the page comparing run `a` with run `b` to `out`.
pub fn write_comparison(a: &Path, b: &Path, out: &Path) -> Result<(), ReportError> {
    let (ra, rb) = (RunData::load(a)?, RunData::load(b)?);
    let diff = compare::mate_diff(a, b)?;
    write_atomic(out, &compare::render(&ra, &rb, diff.as_ref()))
}

/// Writes `text` to `path` through a temporary file renamed into place, so that a reader
/// never sees half a page.
fn write_atomic(path: &Path, text: &str) -> Result<(), ReportError> {
    let io = |source| ReportError::Io {
        path: path.display().to_string(),
        source,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| REPORT_HTML.into());
    let tmp = path.with_file_name(format!("{name}.tmp"));
    std::fs::write(&tmp, text).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

#[cfg(test)]
mod tests;

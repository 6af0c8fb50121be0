//! `posfilter report OUT_DIR [OTHER_DIR]`: (re)write a run's report.html from its
//! report.json, or a page comparing two runs.

use anyhow::Result;
use posfilter::report;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Writes `dirs[0]/report.html` (one directory) or the comparison of `dirs[0]` (A) with
/// `dirs[1]` (B) to `output` (default `compare.html` in the current directory).
pub fn run(dirs: &[PathBuf], output: Option<&Path>) -> Result<ExitCode> {
    let written = match dirs {
        [dir] => match output {
            None => report::write_run_page(dir)?,
            Some(out) => {
                let run = report::RunData::load(dir)?;
                std::fs::write(out, report::page::render(&run))
                    .map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
                out.to_path_buf()
            }
        },
        [a, b] => {
            let out = output.map_or_else(|| PathBuf::from("compare.html"), Path::to_path_buf);
            report::write_comparison(a, b, &out)?;
            out
        }
        _ => anyhow::bail!("give one output directory, or two to compare"),
    };
    eprintln!("posfilter: wrote {}", written.display());
    Ok(ExitCode::SUCCESS)
}

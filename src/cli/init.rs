//! `posfilter init [DIR]`: writes DIR/pipeline.toml with every key at its default, commented
//! ([`posfilter::pipeline::config::template`]); an existing file is kept unless `--force`.

use anyhow::{bail, Context, Result};
use posfilter::pipeline::config::template;
use std::path::Path;
use std::process::ExitCode;

/// Writes `dir/pipeline.toml`; refuses to replace one unless `force`.
pub fn run(dir: &Path, force: bool) -> Result<ExitCode> {
    let path = dir.join("pipeline.toml");
    if path.exists() && !force {
        bail!(
            "{} exists; pass --force to replace it with the defaults",
            path.display()
        );
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    std::fs::write(&path, template::default_toml())
        .with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!(
        "posfilter: wrote {} (every value the default); set [input] paths, then `posfilter run {}`",
        path.display(),
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

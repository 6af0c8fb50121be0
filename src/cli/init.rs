//! `posfilter init [DIR]`: writes DIR/pipeline.toml with every key at its default, commented
//! ([`posfilter::pipeline::config::template`]); an existing file is kept unless `--force`.

use anyhow::{bail, Context, Result};
use posfilter::pipeline::config::template;
use std::path::Path;
use std::process::ExitCode;

/// Writes `dir/pipeline.toml`; refuses to replace one unless `force`. The file is written
/// under a temporary name and renamed into place, so `--force` replaces a symbolic link
/// named pipeline.toml with a file and never writes through it into the link's target.
pub fn run(dir: &Path, force: bool) -> Result<ExitCode> {
    let path = dir.join("pipeline.toml");
    // A link, dangling or not, counts as there.
    if path.symlink_metadata().is_ok() && !force {
        bail!(
            "{} exists; pass --force to replace it with the defaults",
            path.display()
        );
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let tmp = dir.join(format!(".pipeline.toml.tmp-{}", std::process::id()));
    std::fs::write(&tmp, template::default_toml())
        .and_then(|()| std::fs::rename(&tmp, &path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
        .with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!(
        "posfilter: wrote {} (every value the default); set [input] paths, then `posfilter run {}`",
        path.display(),
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

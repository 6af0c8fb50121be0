//! Records the git commit posfilter is built from, for report.json's `run.git_revision`
//! (`POSFILTER_GIT_REVISION`, read with `option_env!` in `src/report/provenance.rs`): 40 hex
//! digits, with `-dirty` when the code (src/, Cargo.toml, Cargo.lock, build.rs) had
//! uncommitted changes. Outside a git checkout (a crates.io package, no git) nothing is
//! recorded; a packager may set `POSFILTER_GIT_REVISION` itself.

use std::process::Command;

/// What `git args` prints, trimmed; `None` if git is missing or fails.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=POSFILTER_GIT_REVISION");
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("POSFILTER_GIT_REVISION").is_some() {
        return;
    }
    let Some(revision) = git(&["rev-parse", "HEAD"]) else {
        return;
    };
    let code = ["src", "Cargo.toml", "Cargo.lock", "build.rs"];
    // No optional locks: a status that refreshed the index would touch what it watches.
    let mut status = vec![
        "--no-optional-locks",
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
    ];
    status.extend(code);
    let dirty = git(&status).is_some_and(|s| !s.is_empty());
    let suffix = if dirty { "-dirty" } else { "" };
    println!("cargo:rustc-env=POSFILTER_GIT_REVISION={revision}{suffix}");
    // Again when HEAD moves (a commit, a checkout) or the code changes; only files that
    // exist are watched (cargo reruns on every build for a missing one).
    let head_ref = git(&["symbolic-ref", "-q", "HEAD"]);
    for name in ["HEAD", "packed-refs"]
        .into_iter()
        .chain(head_ref.as_deref())
    {
        let path = git(&["rev-parse", "--git-path", name]);
        if let Some(path) = path.filter(|p| std::path::Path::new(p).exists()) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    for path in code {
        println!("cargo:rerun-if-changed={path}");
    }
}

//! A previous run's output in the output directory. A run replaces it as a whole: a
//! directory that held six shards from a larger earlier run and gets two from this one must
//! not keep the other four, or a user who trains on `kept/*` trains on stale records.
//!
//! # Invariants
//! - Only files with the names a run writes are touched (manifest.json, report.json,
//!   report.html, audit.jsonl, rejected.jsonl, mates.jsonl, resume.json, resume.dedup,
//!   `mates.<format>[.zst]`,
//!   `kept/part-NNNNN.<ext>[.zst]` (`ext` as `kept_shards` allows), and the temporary names
//!   of all of them); nothing else
//!   in the directory, and never a directory.
//! - manifest.json is removed first, so from then on the directory never claims to hold a
//!   complete run until the new run writes its own manifest.
//! - A file the run reads (an input or a reference pool) is never among the files removed:
//!   [`PreviousOutput::reads_own_output`] lets the run refuse first.

use crate::codec::Format;
use std::io;
use std::path::{Path, PathBuf};

/// The side files a run writes at the top of the output directory, manifest first.
const SIDE_FILES: [&str; 8] = [
    "manifest.json",
    "report.json",
    crate::report::REPORT_HTML,
    "audit.jsonl",
    "rejected.jsonl",
    "mates.jsonl",
    super::checkpoint::CHECKPOINT_FILE,
    super::dedup_log::DEDUP_LOG_FILE,
];

/// The files of a previous run found in an output directory, in removal order.
#[derive(Debug, Default)]
pub(crate) struct PreviousOutput {
    files: Vec<PathBuf>,
}

impl PreviousOutput {
    /// Lists the previous run's files in `out_dir` (none if the directory does not exist).
    pub(crate) fn find(out_dir: &Path) -> io::Result<PreviousOutput> {
        let mut files = Vec::new();
        for name in SIDE_FILES {
            for candidate in [name.to_string(), format!("{name}.tmp")] {
                push_if_file(&mut files, out_dir.join(candidate));
            }
        }
        files.extend(matching_files(out_dir, is_mates_file)?);
        files.extend(matching_files(&out_dir.join("kept"), is_shard_file)?);
        Ok(PreviousOutput { files })
    }

    /// Whether the directory holds the checkpoint of a run that did not finish.
    pub(crate) fn unfinished(&self) -> bool {
        self.files.iter().any(|f| {
            f.file_name() == Some(std::ffi::OsStr::new(super::checkpoint::CHECKPOINT_FILE))
        })
    }

    /// The files found, in removal order.
    pub(crate) fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The first of `read` (a run's inputs and reference pools) that is one of these files.
    pub(crate) fn reads_own_output<'a>(
        &self,
        read: impl IntoIterator<Item = &'a PathBuf>,
    ) -> Option<&'a PathBuf> {
        let ours: Vec<PathBuf> = self
            .files
            .iter()
            .filter_map(|f| f.canonicalize().ok())
            .collect();
        read.into_iter()
            .find(|p| p.canonicalize().map(|c| ours.contains(&c)).unwrap_or(false))
    }

    /// Removes the files; returns how many were removed.
    pub(crate) fn remove(self) -> io::Result<usize> {
        for f in &self.files {
            match std::fs::remove_file(f) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", f.display()))),
            }
        }
        Ok(self.files.len())
    }
}

fn push_if_file(files: &mut Vec<PathBuf>, path: PathBuf) {
    if path.is_file() {
        files.push(path);
    }
}

/// Regular files directly in `dir` whose names satisfy `own`, sorted (none if `dir` is
/// missing).
fn matching_files(dir: &Path, own: fn(&str) -> bool) -> io::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", dir.display()))),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry?;
        let is_own = entry.file_name().to_str().is_some_and(own);
        if is_own && entry.file_type()?.is_file() {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

/// `name` without the temporary form's leading `.` and trailing `.tmp`, if it has them.
fn final_name(name: &str) -> &str {
    name.strip_prefix('.')
        .and_then(|n| n.strip_suffix(".tmp"))
        .unwrap_or(name)
}

/// `<stem>.<ext>[.zst]` with an extension `ext` allows, the final or the temporary name.
fn is_record_file(name: &str, stem: impl Fn(&str) -> bool, ext: impl Fn(&str) -> bool) -> bool {
    let name = final_name(name);
    let name = name.strip_suffix(".zst").unwrap_or(name);
    name.rsplit_once('.')
        .is_some_and(|(s, e)| stem(s) && ext(e))
}

/// The binary mates file: `mates.<format>[.zst]` (not mates.jsonl, a side file).
fn is_mates_file(name: &str) -> bool {
    let format_name = |e: &str| Format::ALL.iter().any(|f| f.extension() == e);
    is_record_file(name, |s| s == "mates", format_name)
}

/// A kept shard: `part-NNNNN.<ext>[.zst]` (five or more digits; `ext` a format's name or
/// an input's own extension, [`super::kept_shards::is_shard_extension`]).
fn is_shard_file(name: &str) -> bool {
    let part = |s: &str| {
        s.strip_prefix("part-")
            .is_some_and(|n| n.len() >= 5 && n.bytes().all(|b| b.is_ascii_digit()))
    };
    is_record_file(name, part, super::kept_shards::is_shard_extension)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_a_run_writes_are_recognised_and_nothing_else() {
        for own in [
            "part-00000.psv",
            "part-00012.psfen.zst",
            ".part-00003.sfen.zst.tmp",
            "part-123456.hcpe",
            // An input's own extension (`kept_shards`).
            "part-00000.bin",
            "part-00000.txt.zst",
        ] {
            assert!(is_shard_file(own), "{own}");
        }
        for other in [
            "part-0000.psv",
            "part-00000.b-n",
            "part-00000",
            "part-0000a.psv",
            "my-part-00000.psv",
            "part-00000.psv.bak",
            "notes.md",
        ] {
            assert!(!is_shard_file(other), "{other}");
        }
        assert!(is_mates_file("mates.psv"));
        assert!(is_mates_file(".mates.hcpe.zst.tmp"));
        assert!(!is_mates_file("mates.jsonl"));
        assert!(!is_mates_file("mates.psv.old"));
    }

    #[test]
    fn finds_a_previous_run_manifest_first_and_leaves_other_files() {
        let dir = std::env::temp_dir().join(format!("posfilter-previous-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("kept/sub")).unwrap();
        for f in [
            "report.json",
            "report.html",
            "manifest.json",
            "audit.jsonl.tmp",
            "mates.psv",
            "kept/part-00000.psfen.zst",
            "kept/part-00001.psfen.zst",
            "notes.md",
            "kept/readme.txt",
        ] {
            std::fs::write(dir.join(f), b"x").unwrap();
        }
        let previous = PreviousOutput::find(&dir).unwrap();
        let names: Vec<String> = previous
            .files()
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "manifest.json",
                "report.json",
                "report.html",
                "audit.jsonl.tmp",
                "mates.psv",
                "kept/part-00000.psfen.zst",
                "kept/part-00001.psfen.zst"
            ]
        );
        let inputs = [
            dir.join("notes.md"),
            dir.join("kept/../kept/part-00001.psfen.zst"),
        ];
        assert_eq!(previous.reads_own_output(&inputs), Some(&inputs[1]));
        assert_eq!(previous.reads_own_output(&inputs[..1]), None);
        assert_eq!(previous.remove().unwrap(), 7);
        assert!(dir.join("notes.md").exists() && dir.join("kept/readme.txt").exists());
        assert!(dir.join("kept/sub").is_dir());
        assert!(PreviousOutput::find(&dir).unwrap().files().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

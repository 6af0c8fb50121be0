//! One writer per directory in a job split over tasks: while a task holds a shard
//! directory, a dedup list or the gather's output (here: this test process, as a live task
//! on this host would), a second task given the same index, bucket or output stops with
//! exit status 2, naming the holder, and leaves every file as it was; other buckets of the
//! same dedup directory go on; once released the task runs.

use crate::cluster::{job_setup, ok, posfilter, shards};
use crate::support::TempDir;
use posfilter::io::output::OutputLock;
use std::collections::BTreeMap;
use std::path::Path;

fn as_str(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Every file under `dir` with its bytes.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Runs `args` while `dir` is held by this process: exit 2, the holder named, nothing in
/// `dir` changed.
fn refused_while_held(args: &[&str], dir: &Path, lock: &OutputLock) {
    let before = contents(dir);
    let (code, err) = posfilter(args, &[]);
    assert_eq!(code, 2, "{args:?}: {err}");
    let me = format!(
        "process {} on host {}",
        std::process::id(),
        lock.holder().host
    );
    assert!(err.contains(&me), "{args:?}: {err}");
    assert!(
        contents(dir) == before,
        "{args:?} touched {}",
        dir.display()
    );
}

#[test]
fn two_tasks_given_the_same_index_cannot_both_write() {
    let dir = TempDir::new("cluster-lock");
    let cfg = job_setup(&dir, "");
    let dirs = shards(&cfg, &dir, "l", 2, 2);
    let shard0 = dirs[0].to_str().unwrap();
    // A second task for shard 0 (fresh or resuming) while the first holds its directory.
    let held = OutputLock::acquire(&dirs[0], "posfilter run --shard 0/2").unwrap();
    for extra in [&[][..], &["--resume-or-start"][..]] {
        let mut args = vec!["run", &cfg, "--shard", "0/2", "--buckets", "2"];
        args.extend(["--out", shard0, "--quiet"]);
        args.extend(extra);
        refused_while_held(&args, &dirs[0], &held);
    }
    drop(held);
    // The reduce: one lock per list in the shared dedup directory.
    let lists = dir.join("dups");
    let reduce = |j: u32| {
        let part = format!("{j}/2");
        let mut args = vec!["merge", "--quiet", "--dedup-partition", &part];
        args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
        args.extend(["--out", lists.to_str().unwrap()]);
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    ok(&as_str(&reduce(0)));
    let list0 = "dups-00000-of-00002.bin.lock";
    let held = OutputLock::acquire_named(&lists, list0, "posfilter merge --dedup-partition 0/2");
    let held = held.unwrap();
    refused_while_held(&as_str(&reduce(0)), &lists, &held);
    // Bucket 1 is another task's list in the same directory: it goes on.
    ok(&as_str(&reduce(1)));
    drop(held);
    // The gather's output.
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let held = OutputLock::acquire(&out, "posfilter merge").unwrap();
    let mut args = vec!["merge", "--quiet", "--dedup", lists.to_str().unwrap()];
    args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    args.extend(["--out", out.to_str().unwrap()]);
    refused_while_held(&args, &out, &held);
    drop(held);
    ok(&args);
    assert!(out.join("manifest.json").exists());
    assert!(!out.join("posfilter.lock").exists());
}

//! One writer per directory in a job split over tasks: while a task holds a shard
//! directory, a dedup list or the gather's output (here: this test process, as a live task
//! on this host would), a second task given the same index, bucket or output stops with
//! exit status 2, naming the holder, and leaves every file as it was; other buckets of the
//! same dedup directory go on; once released the task runs. A lock left on another host
//! is taken over by a later attempt of the same scheduler task only.

use crate::cluster::{job_setup, ok, posfilter, same_as_one_run, shards};
use crate::support::TempDir;
use posfilter::io::output::{LockHolder, OutputLock, SchedulerTask};
use serde_json::Value;
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

/// Runs `args` with `env`: exit 2, the error names `holder`, nothing in `dir` changed.
fn refused(args: &[&str], env: &[(&str, &str)], dir: &Path, holder: &str) {
    let before = contents(dir);
    let (code, err) = posfilter(args, env);
    assert_eq!(code, 2, "{args:?} {env:?}: {err}");
    assert!(err.contains(holder), "{args:?} {env:?}: {err}");
    assert!(
        contents(dir) == before,
        "{args:?} {env:?} touched {}",
        dir.display()
    );
}

/// Runs `args` while `dir` is held by this process: exit 2, the holder named, nothing in
/// `dir` changed.
fn refused_while_held(args: &[&str], dir: &Path, lock: &OutputLock) {
    let me = format!(
        "process {} on host {}",
        std::process::id(),
        lock.holder().host
    );
    refused(args, &[], dir, &me);
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

/// The environment Slurm gives attempt `restart` of task `task` of array job 500.
fn slurm<'a>(task: &'a str, restart: &'a str) -> Vec<(&'static str, &'a str)> {
    vec![
        ("SLURM_JOB_ID", "517"),
        ("SLURM_ARRAY_JOB_ID", "500"),
        ("SLURM_ARRAY_TASK_ID", task),
        ("SLURM_RESTART_COUNT", restart),
    ]
}

/// A shard task of Slurm array job 500 stopped while it holds its directory (the test hook
/// exits after the first checkpoint, as a kill would), its lock then moved to another host
/// (rewritten: one machine here) as when Slurm requeues the task onto another node. The
/// requeued attempt (restart 1) takes the lock over, says so, resumes from the checkpoint,
/// and the gathered job is one run; another array index, another job with the same index, the
/// same attempt again and a run outside Slurm are refused (exit 2, nothing touched).
#[test]
fn a_requeued_shard_takes_over_its_lock_from_another_host() {
    let dir = TempDir::new("cluster-lock-requeue");
    let cfg = job_setup(&dir, "");
    let single = dir.join("single");
    ok(&["run", &cfg, "--out", single.to_str().unwrap(), "--quiet"]);
    let whole = shards(&cfg, &dir, "w", 2, 1);
    let out = dir.join("requeued");
    let shard0 = out.to_str().unwrap();
    let args = [
        "run",
        &cfg,
        "--shard",
        "0/2",
        "--out",
        shard0,
        "--quiet",
        "--resume-or-start",
    ];
    let mut first = slurm("0", "0");
    first.push(("POSFILTER_STOP_AFTER_CHECKPOINTS", "1"));
    let (code, err) = posfilter(&args, &first);
    assert_eq!(code, 75, "{err}");
    let lock_file = out.join("posfilter.lock");
    let mut left: Value = serde_json::from_slice(&std::fs::read(&lock_file).unwrap()).unwrap();
    let task = serde_json::json!({"scheduler": "slurm", "job": "500_0", "restart": 0});
    assert_eq!(left["task"], task, "{left}");
    left["host"] = "node-a".into();
    std::fs::write(&lock_file, serde_json::to_vec(&left).unwrap()).unwrap();
    let holder = format!("process {} on host node-a", left["pid"]);

    let mut other_job = slurm("0", "1");
    other_job[1].1 = "600";
    for env in [slurm("1", "1"), other_job, slurm("0", "0"), vec![]] {
        refused(&args, &env, &out, &holder);
    }
    assert!(out.join("shard-resume.json").exists());
    let mut requeued = args.to_vec();
    requeued.retain(|a| *a != "--quiet"); // to see it resume
    let (code, err) = posfilter(&requeued, &slurm("0", "1"));
    assert_eq!(code, 0, "{err}");
    for said in [
        &format!("took over the lock of {holder}")[..],
        "as Slurm job 500_0, restart 0)",
        "is a later attempt of that task (Slurm job 500_0, restart 1)",
        "resumed at record",
    ] {
        assert!(err.contains(said), "{said}: {err}");
    }
    assert!(!lock_file.exists());

    // The gather's output locked by a pod of a Kubernetes Indexed Job (of one index) that
    // was retried on another node: the pod of the next retry takes it over (and says so
    // under --quiet), a pod of another Job does not.
    let merged = dir.join("merged");
    std::fs::create_dir_all(&merged).unwrap();
    let pod = LockHolder {
        host: "posfilter-gather-0-aaaaa".into(),
        task: Some(SchedulerTask::Kubernetes {
            job_uid: "uid-1".into(),
            index: 0,
            pod: Some("posfilter-gather-0-aaaaa".into()),
            retry: 0,
        }),
        ..LockHolder::this_process("posfilter merge")
    };
    std::fs::write(
        merged.join("posfilter.lock"),
        serde_json::to_vec(&pod).unwrap(),
    )
    .unwrap();
    let gather = [
        "merge",
        whole[1].to_str().unwrap(),
        shard0,
        "--out",
        merged.to_str().unwrap(),
        "--quiet",
    ];
    let k8s = |uid| {
        vec![
            ("JOB_COMPLETION_INDEX", "0"),
            ("POSFILTER_JOB_UID", uid),
            ("POSFILTER_INDEX_FAILURES", "1"),
        ]
    };
    refused(
        &gather,
        &k8s("uid-2"),
        &merged,
        "on host posfilter-gather-0-aaaaa",
    );
    let (code, err) = posfilter(&gather, &k8s("uid-1"));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("is a later attempt of that task"), "{err}");
    same_as_one_run(&single, &merged, "a requeued shard and a retried gather");
}

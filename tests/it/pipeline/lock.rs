//! One writer per output directory: a run refuses a directory a live run holds (a second
//! `run`, a `--resume`), naming the holder; a lock left by a run that died on this host is
//! taken over; one from another host is reported, with the file to remove.

use super::*;
use posfilter::io::output::{LockError, LockHolder, OutputLock};
use std::process::Command;

/// Runs `posfilter run CFG --out OUT --threads 1 [extra]` with `env`; (exit code, stderr).
fn run_code(cfg: &str, out: &Path, extra: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let o = Command::new(crate::support::bin())
        .args(["run", cfg, "--out", out.to_str().unwrap(), "--threads", "1"])
        .args(extra)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn lock_holder(out: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(out.join("posfilter.lock")).unwrap()).unwrap()
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// While this test process holds the lock (a live run on this host), a run and a resume
/// into the directory are refused before they remove or write anything, naming the holder;
/// once it is released the run goes through and leaves no lock behind.
#[test]
fn a_run_and_a_resume_refuse_a_directory_a_live_run_holds() {
    let (dir, cfg) = startpos_setup("lock-held", 300, "[filter.mate]\nnodes = 1000\n");
    let out = dir.join("out");
    let (code, err) = run_code(&cfg, &out, &[], &[]);
    assert_eq!(code, 0, "{err}");
    let before = names_in(&out);
    assert!(
        !before.contains(&"posfilter.lock".to_string()),
        "{before:?}"
    );
    let manifest = std::fs::read(out.join("manifest.json")).unwrap();

    let held = OutputLock::acquire(&out, "a test holding the directory").unwrap();
    assert_eq!(held.holder().pid, std::process::id());
    let me = format!(
        "process {} on host {} (a test holding the directory, started ",
        std::process::id(),
        held.holder().host
    );
    for extra in [&[][..], &["--resume"][..]] {
        let (code, err) = run_code(&cfg, &out, extra, &[]);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(
            err.contains("is in use by") && err.contains(&me),
            "{extra:?}: {err}"
        );
    }
    // Nothing of the previous run was removed or replaced.
    let mut with_lock = before.clone();
    with_lock.push("posfilter.lock".into());
    with_lock.sort();
    assert_eq!(names_in(&out), with_lock);
    assert_eq!(std::fs::read(out.join("manifest.json")).unwrap(), manifest);
    // The same process cannot take it twice either.
    assert!(matches!(
        OutputLock::acquire(&out, "again"),
        Err(LockError::Held { .. })
    ));

    drop(held);
    assert_eq!(names_in(&out), before);
    let (code, err) = run_code(&cfg, &out, &[], &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(names_in(&out), before);
}

/// A run killed after its first checkpoint leaves its lock (its pid, this host); the
/// `--resume` takes it over, says so, and finishes. A lock whose pid runs but started at
/// another time (a reused pid) is stale too. A lock from another host is refused, naming
/// the host and the file to remove.
#[test]
fn a_dead_runs_lock_is_taken_over_and_another_hosts_is_reported() {
    let (dir, cfg) = startpos_setup(
        "lock-stale",
        1200,
        "[workers]\nbatch_records = 100\n[filter.mate]\nnodes = 1000\n",
    );
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "compression = \"none\"",
        "compression = \"none\"\ncheckpoint_records = 300",
    );
    std::fs::write(&cfg, text).unwrap();
    let out = dir.join("out");
    let stop = [("POSFILTER_STOP_AFTER_CHECKPOINTS", "1")];
    let (code, err) = run_code(&cfg, &out, &[], &stop);
    assert_eq!(code, 75, "{err}");
    let left = lock_holder(&out);
    let dead_pid = left["pid"].as_u64().unwrap();
    assert_ne!(dead_pid, u64::from(std::process::id()));
    assert_eq!(left["purpose"], "posfilter run");

    let (code, err) = run_code(&cfg, &out, &["--resume"], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!(
            "took over the lock of process {dead_pid} on host "
        )),
        "{err}"
    );
    assert!(!out.join("posfilter.lock").exists());
    assert_eq!(report(&out)["records"]["input"], 1200);

    // A live pid (this process) with another start time: the pid was reused.
    let mut reused = LockHolder::this_process("posfilter run");
    reused.process_start = reused.process_start.map(|s| s + 1);
    let Some(_) = reused.process_start else {
        return; // no /proc: start times cannot be told apart here
    };
    let lock_file = out.join("posfilter.lock");
    std::fs::write(&lock_file, serde_json::to_vec(&reused).unwrap()).unwrap();
    let taken = OutputLock::acquire(&out, "the next run").unwrap();
    assert_eq!(taken.took_over(), Some(&reused));
    drop(taken);

    // Another host's lock: refused whatever its pid, nothing removed.
    let mut foreign = LockHolder::this_process("posfilter run --resume");
    foreign.host = "other-node-17".into();
    std::fs::write(&lock_file, serde_json::to_vec(&foreign).unwrap()).unwrap();
    let before = names_in(&out);
    let (code, err) = run_code(&cfg, &out, &[], &[]);
    assert_eq!(code, 2, "{err}");
    let expected = format!(
        "is locked by process {} on host other-node-17 (posfilter run --resume, started ",
        foreign.pid
    );
    assert!(err.contains(&expected), "{err}");
    assert!(
        err.contains(&format!("remove {}", lock_file.display())),
        "{err}"
    );
    assert_eq!(names_in(&out), before);
    // Not a lock at all: refused, naming the file.
    std::fs::write(&lock_file, b"hello").unwrap();
    let (code, err) = run_code(&cfg, &out, &[], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a posfilter lock"), "{err}");
}

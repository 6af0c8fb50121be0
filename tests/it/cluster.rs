//! A job split over tasks (`run --shard I/N`, `merge --dedup-partition J/M`, `merge`): the
//! merged directory must hold exactly the files of one `posfilter run` of the same
//! configuration over the same input (report.json: the same but for timings, thread count
//! and the verdict cache's scheduling-dependent hit counts), for N from 1 to 5 shards, M
//! dedup buckets, any thread count per shard, a shard killed and run again; and the merge
//! must refuse shards or lists that are not one complete job, naming what is wrong.

use crate::pipeline::{config, same_outputs};
use crate::support::{bin, data, TempDir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs the binary; returns (exit code, stderr).
pub(crate) fn posfilter(args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let mut cmd = Command::new(bin());
    cmd.args(args);
    for var in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_JOB_ID",
        "SLURM_JOB_ID",
        "SLURM_RESTART_COUNT",
        "SLURM_CLUSTER_NAME",
        "JOB_COMPLETION_INDEX",
        "POSFILTER_JOB_UID",
        "POSFILTER_INDEX_FAILURES",
        "POSFILTER_INDEX_IGNORED_FAILURES",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    let o = cmd.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

pub(crate) fn ok(args: &[&str]) {
    let (code, err) = posfilter(args, &[]);
    assert_eq!(code, 0, "posfilter {args:?}:\n{err}");
}

pub(crate) fn fails(args: &[&str]) -> String {
    let (code, err) = posfilter(args, &[]);
    assert_ne!(code, 0, "posfilter {args:?} should fail");
    err
}

/// Inputs with every kind of reader state and decision a part boundary can cut through:
/// psv teacher games (batches cut at game starts, repetition), a zstd-compressed psfen
/// start-position set, SFEN lines with a malformed one, a psfen file with a truncated tail
/// (rejects), and a reference pool (with mirror dedup: duplicates of the pool and across
/// parts). Mates on with a small budget (unknowns kept and tagged), audit and mates files,
/// zstd shards rolling over and checkpoints every 500 records (zstd frames).
pub(crate) fn job_setup(dir: &TempDir, extra: &str) -> String {
    let psv = dir.join("a.psv");
    let teacher = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/teacher.psv"));
    std::fs::write(&psv, &teacher.unwrap()[..40 * 1500]).unwrap();
    let raw = std::fs::read(data("pipeline/startpos.psfen")).unwrap();
    let zst = dir.join("b.psfen.zst");
    std::fs::write(&zst, zstd::encode_all(&raw[..32 * 1500], 3).unwrap()).unwrap();
    let sfen = dir.join("c.sfen");
    let text = std::fs::read_to_string(data("pipeline/startpos.sfen")).unwrap();
    let mut lines: Vec<String> = text.lines().take(600).map(|l| format!("{l}\n")).collect();
    lines.insert(333, "sfen this is no position\n".into());
    std::fs::write(&sfen, lines.concat()).unwrap();
    let tail = dir.join("d.psfen");
    let mut bytes = raw[32 * 1400..32 * 1500].to_vec();
    bytes.extend_from_slice(&[7u8; 11]);
    std::fs::write(&tail, bytes).unwrap();
    let pool = dir.join("pool.psfen");
    std::fs::write(&pool, &raw[32 * 200..32 * 260]).unwrap();
    let cfg = config(
        dir,
        &[&psv, &zst, &sfen, &tail],
        &format!(
            "[workers]\nbatch_records = 64\n[filter.mate]\nnodes = 400\nunknown = \"tag\"\n\
             [filter.dedup]\nmirror = true\nreference = [{:?}]\n{extra}",
            pool.display().to_string()
        ),
    );
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "compression = \"none\"",
        "compression = \"zstd\"\nshard_records = 700\ncheckpoint_records = 500",
    );
    std::fs::write(&cfg, text).unwrap();
    cfg
}

/// report.json without what differs between two runs of one input (as main's Python tests
/// leave out, `python/tests/test_run.py`): timing (`seconds`, `positions_per_second`,
/// `throughput`, `histograms.micros`), thread count and scheduling (`threads`, the verdict
/// cache's hits `verdict_cache` and so `nodes`), provenance (`run`: command line, times,
/// host), and `resumed_from`.
pub(crate) fn report_sans_timing(out: &Path) -> Value {
    let mut r: Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let o = r.as_object_mut().unwrap();
    for key in [
        "seconds",
        "positions_per_second",
        "threads",
        "nodes",
        "verdict_cache",
        "resumed_from",
        "run",
        "throughput",
    ] {
        o.remove(key);
    }
    if let Some(h) = o.get_mut("histograms").and_then(Value::as_object_mut) {
        h.remove("micros");
    }
    r["config"]["workers"]["threads"] = Value::Null;
    r
}

/// The merged directory holds one run's files, and its report.html is the page the report
/// module renders from its report.json (`posfilter report DIR` rewrites the same bytes).
pub(crate) fn same_as_one_run(single: &Path, merged: &Path, what: &str) {
    same_outputs(single, merged, &[]);
    let page = std::fs::read(merged.join("report.html")).unwrap();
    ok(&["report", merged.to_str().unwrap()]);
    assert!(
        std::fs::read(merged.join("report.html")).unwrap() == page,
        "{what}: report.html is not the page of the merged report.json"
    );
    for rel in ["audit.jsonl", "mates.jsonl", "rejected.jsonl"] {
        let (a, b) = (single.join(rel), merged.join(rel));
        if a.exists() {
            assert!(
                std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
                "{what}: {rel} differs (file names included)"
            );
        }
    }
    assert_eq!(
        report_sans_timing(single),
        report_sans_timing(merged),
        "{what}: report.json"
    );
}

/// Runs the N shards of `cfg` into `dir/s{tag}-{i}` (thread counts 1 and 2 in turn).
pub(crate) fn shards(cfg: &str, dir: &TempDir, tag: &str, n: usize, m: u32) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let out = dir.join(&format!("s{tag}-{i}"));
            let threads = (1 + (i + m as usize) % 2).to_string();
            ok(&[
                "run",
                cfg,
                "--shard",
                &format!("{i}/{n}"),
                "--buckets",
                &m.to_string(),
                "--out",
                out.to_str().unwrap(),
                "--threads",
                &threads,
                "--quiet",
            ]);
            out
        })
        .collect()
}

/// The reduce of each of the `m` buckets of `dirs` into `lists`.
pub(crate) fn reduce(dirs: &[PathBuf], m: u32, lists: &Path) {
    for j in 0..m {
        let mut args = vec!["merge".to_string(), "--quiet".into()];
        args.extend(dirs.iter().map(|d| d.display().to_string()));
        args.extend([
            "--dedup-partition".into(),
            format!("{j}/{m}"),
            "--out".into(),
            lists.display().to_string(),
        ]);
        ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    }
}

/// The gather of `dirs` (given in reverse order: the shard numbers order them) into `out`.
pub(crate) fn gather(dirs: &[PathBuf], lists: Option<&Path>, out: &Path) -> (i32, String) {
    let mut args = vec!["merge".to_string(), "--quiet".into()];
    args.extend(dirs.iter().rev().map(|d| d.display().to_string()));
    if let Some(l) = lists {
        args.extend(["--dedup".into(), l.display().to_string()]);
    }
    args.extend(["--out".into(), out.display().to_string()]);
    posfilter(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[])
}

#[test]
fn shards_gathered_are_byte_identical_to_one_run() {
    let dir = TempDir::new("cluster-identity");
    let cfg = job_setup(&dir, "");
    let single = dir.join("single");
    ok(&[
        "run",
        &cfg,
        "--out",
        single.to_str().unwrap(),
        "--threads",
        "2",
        "--quiet",
    ]);
    let r = report_sans_timing(&single);
    // The input must give the merge something to do at every kind of record.
    for key in ["duplicate", "mate", "repetition"] {
        assert!(
            r["records"]["dropped"][key].as_u64().unwrap() > 0,
            "{key}: {r}"
        );
    }
    assert!(r["records"]["rejected"].as_u64().unwrap() >= 2, "{r}");
    assert!(r["unknown_kept"].as_u64().unwrap() > 0, "{r}");
    for n in 1..=5usize {
        for m in [1u32, 2, 3] {
            let tag = format!("{n}{m}");
            let dirs = shards(&cfg, &dir, &tag, n, m);
            let merged = dir.join(&format!("merged{tag}"));
            let lists = dir.join(&format!("dups{tag}"));
            // One bucket: the gather reduces it itself, or takes the reduce's list.
            if m > 1 || n == 3 {
                reduce(&dirs, m, &lists);
            }
            let given = (m > 1 || n == 3).then_some(lists.as_path());
            let (code, err) = gather(&dirs, given, &merged);
            assert_eq!(code, 0, "N={n} M={m}: {err}");
            same_as_one_run(&single, &merged, &format!("N={n} M={m}"));
            for d in dirs.iter().chain([&merged, &lists]) {
                let _ = std::fs::remove_dir_all(d);
            }
        }
    }
}

#[test]
fn shards_without_dedup_or_mates_gather_to_one_run() {
    let dir = TempDir::new("cluster-plain");
    let cfg = job_setup(&dir, "");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let text = text
        .replace("nodes = 400", "enabled = false")
        .replace("mirror = true", "enabled = false\nmirror = true");
    std::fs::write(&cfg, text).unwrap();
    let single = dir.join("single");
    ok(&["run", &cfg, "--out", single.to_str().unwrap(), "--quiet"]);
    let dirs = shards(&cfg, &dir, "p", 4, 1);
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dirs[0].join("shard.json")).unwrap()).unwrap();
    assert_eq!(manifest["job"]["buckets"], 0, "dedup off: no key runs");
    let merged = dir.join("merged");
    let (code, err) = gather(&dirs, None, &merged);
    assert_eq!(code, 0, "{err}");
    same_as_one_run(&single, &merged, "dedup and mates off");
}

/// A shard task killed at any moment (or whose files were cut short) is no complete shard:
/// the merge names it; run again with `--resume-or-start` it writes the shard anew and
/// the gather gives one run's bytes.
#[test]
fn a_killed_shard_run_again_gives_the_same_bytes() {
    let dir = TempDir::new("cluster-killed");
    let cfg = job_setup(&dir, "");
    let single = dir.join("single");
    ok(&["run", &cfg, "--out", single.to_str().unwrap(), "--quiet"]);
    let dirs = shards(&cfg, &dir, "k", 3, 2);
    let lists = dir.join("dups");
    reduce(&dirs, 2, &lists);
    // Killed after it had written some of its files: no shard.json, a short log.
    let log = dirs[1].join("outcomes.bin");
    let bytes = std::fs::read(&log).unwrap();
    std::fs::write(&log, &bytes[..bytes.len() / 2]).unwrap();
    std::fs::remove_file(dirs[1].join("shard.json")).unwrap();
    let (code, err) = gather(&dirs, Some(&lists), &dir.join("refused"));
    assert_ne!(code, 0);
    assert!(
        err.contains(&dirs[1].display().to_string()) && err.contains("not a complete shard"),
        "{err}"
    );
    // A real kill, at some moment of the task.
    let mut child = Command::new(bin())
        .args(["run", &cfg, "--shard", "1/3", "--buckets", "2", "--quiet"])
        .args(["--out", dirs[1].to_str().unwrap()])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(150));
    let _ = child.kill();
    let _ = child.wait();
    let (code, err) = posfilter(
        &[
            "run",
            &cfg,
            "--shard",
            "1/3",
            "--buckets",
            "2",
            "--resume-or-start",
            "--quiet",
            "--out",
            dirs[1].to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let merged = dir.join("merged");
    let (code, err) = gather(&dirs, Some(&lists), &merged);
    assert_eq!(code, 0, "{err}");
    same_as_one_run(&single, &merged, "a shard run again");
    // The log cut short under a complete shard.json is refused, naming the file.
    let log = dirs[2].join("outcomes.bin");
    let bytes = std::fs::read(&log).unwrap();
    std::fs::write(&log, &bytes[..bytes.len() - 5]).unwrap();
    let (code, err) = gather(&dirs, Some(&lists), &dir.join("short"));
    assert_ne!(code, 0);
    assert!(
        err.contains("outcomes.bin") && err.contains("ends early"),
        "{err}"
    );
}

/// `--shard auto` takes the task from a Slurm array's or a Kubernetes Indexed Job's
/// environment, and says what is missing otherwise.
#[test]
fn shard_auto_reads_the_scheduler_environment() {
    let dir = TempDir::new("cluster-auto");
    let cfg = job_setup(&dir, "");
    let by_hand = shards(&cfg, &dir, "h", 2, 1);
    let run_auto = |out: &Path, env: &[(&str, &str)], extra: &[&str]| {
        let mut args = vec!["run", &cfg, "--shard", "auto", "--quiet"];
        args.extend(["--out", out.to_str().unwrap()]);
        args.extend(extra);
        posfilter(&args, env)
    };
    let slurm = dir.join("slurm");
    // An array numbered from 1 (--array=1-2): task 2 is shard 1 of 2.
    let env = [
        ("SLURM_ARRAY_TASK_ID", "2"),
        ("SLURM_ARRAY_TASK_MIN", "1"),
        ("SLURM_ARRAY_TASK_COUNT", "2"),
    ];
    assert_eq!(run_auto(&slurm, &env, &[]).0, 0);
    let k8s = dir.join("k8s");
    let env = [("JOB_COMPLETION_INDEX", "1")];
    assert_eq!(run_auto(&k8s, &env, &["--shards", "2"]).0, 0);
    for out in [&slurm, &k8s] {
        // (outcomes.bin holds the solver's times: the key runs are the task's bytes.)
        let name = "keys/bucket-00000-of-00001.run";
        assert!(
            std::fs::read(out.join(name)).unwrap() == std::fs::read(by_hand[1].join(name)).unwrap(),
            "{name}"
        );
    }
    let (code, err) = run_auto(&dir.join("x"), &[("JOB_COMPLETION_INDEX", "1")], &[]);
    assert_ne!(code, 0);
    assert!(err.contains("--shards N"), "{err}");
    let (code, err) = run_auto(&dir.join("x"), &[], &[]);
    assert_ne!(code, 0);
    assert!(err.contains("SLURM_ARRAY_TASK_ID"), "{err}");
    let err = fails(&["run", &cfg, "--shard", "2/2", "--out", "x"]);
    assert!(err.contains("0 <= I < N"), "{err}");
}

/// The gather refuses what is not one complete job and says what.
#[test]
fn the_gather_refuses_shards_and_lists_of_other_jobs() {
    let dir = TempDir::new("cluster-refuse");
    let cfg = job_setup(&dir, "");
    let dirs = shards(&cfg, &dir, "r", 3, 2);
    let lists = dir.join("dups");
    reduce(&dirs, 2, &lists);
    let out = dir.join("out");
    // A shard missing.
    let (code, err) = gather(&dirs[..2], Some(&lists), &out);
    assert_ne!(code, 0);
    assert!(err.contains("shard(s) 2 of 3 missing"), "{err}");
    // Two buckets and no lists.
    let (code, err) = gather(&dirs, None, &out);
    assert_ne!(code, 0);
    assert!(err.contains("--dedup-partition J/2"), "{err}");
    // A bucket's list missing.
    let partial = dir.join("partial-dups");
    reduce(&dirs[..], 2, &partial);
    std::fs::remove_file(partial.join("dups-00001-of-00002.bin")).unwrap();
    let (code, err) = gather(&dirs, Some(&partial), &out);
    assert_ne!(code, 0);
    assert!(err.contains("dups-00001-of-00002.bin"), "{err}");
    let other = shards(&cfg, &dir, "o", 2, 2);
    // A shard of another job mixed in.
    let (code, err) = gather(&[dirs[0].clone(), other[1].clone()], None, &out);
    assert_ne!(code, 0);
    assert!(err.contains("shard plans"), "{err}");
    // The configuration changed since the shards ran.
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, text.replace("nodes = 400", "nodes = 401")).unwrap();
    let (code, err) = gather(&dirs, Some(&lists), &out);
    assert_ne!(code, 0);
    assert!(
        err.contains("not the configuration the shards ran"),
        "{err}"
    );
    assert!(!out.join("manifest.json").exists());
}

/// The command of a Job in examples/kubernetes (its `args`, a folded block or one line)
/// and its `completions` (1 when it has none).
fn job_command(yaml: &str) -> (String, usize) {
    let lines: Vec<&str> = yaml.lines().collect();
    let at = lines.iter().position(|l| l.trim() == "args:").unwrap();
    let first = lines[at + 1].trim();
    let command = match first {
        "- >-" => {
            let indent = |l: &str| l.len() - l.trim_start().len();
            let base = indent(lines[at + 1]);
            let body: Vec<&str> = lines[at + 2..]
                .iter()
                .take_while(|l| indent(l) > base && !l.trim().is_empty())
                .map(|l| l.trim())
                .collect();
            body.join(" ")
        }
        _ => first.trim_start_matches("- ").to_string(),
    };
    let completions = lines
        .iter()
        .find_map(|l| l.trim().strip_prefix("completions:"))
        .map_or(1, |v| v.split('#').next().unwrap().trim().parse().unwrap());
    (command, completions)
}

/// examples/kubernetes run as its Indexed Jobs would run them (each pod's command through
/// `sh -c` with its JOB_COMPLETION_INDEX, /data a local directory): the commands fit
/// together and the output is one run's.
#[test]
fn the_kubernetes_example_commands_give_one_run() {
    let dir = TempDir::new("cluster-k8s");
    // The examples read /data/pipeline.toml: `config` writes DIR/pipeline.toml.
    let cfg = job_setup(&dir, "");
    assert_eq!(Path::new(&cfg), dir.join("pipeline.toml"));
    let single = dir.join("single");
    ok(&["run", &cfg, "--out", single.to_str().unwrap(), "--quiet"]);
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kubernetes");
    let data = dir.0.display().to_string();
    for stage in ["shard", "reduce", "gather"] {
        let yaml = std::fs::read_to_string(examples.join(format!("{stage}-job.yaml"))).unwrap();
        let (command, pods) = job_command(&yaml);
        assert!(command.starts_with("exec posfilter "), "{command}");
        let command =
            command
                .replace("/data", &data)
                .replacen("posfilter", &bin().display().to_string(), 1);
        for index in 0..pods {
            let o = Command::new("sh")
                .args(["-c", &command])
                .env("JOB_COMPLETION_INDEX", index.to_string())
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "{stage} pod {index}: {command}\n{}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
    same_as_one_run(&single, &dir.join("out"), "examples/kubernetes");
}

/// A shard task stopped right after a checkpoint (the test hook exits as a kill would) and
/// run again with `--resume-or-start` goes on from it: its keys are those of a task that
/// was never stopped and the gather writes one run's bytes; a checkpoint of another task
/// is refused with the reason.
#[test]
fn a_stopped_shard_goes_on_from_its_checkpoint() {
    let dir = TempDir::new("cluster-shard-resume");
    let cfg = job_setup(&dir, "");
    let whole = shards(&cfg, &dir, "w", 2, 2);
    let out = dir.join("stopped");
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "run".to_string(),
            cfg.clone(),
            "--shard".into(),
            "1/2".into(),
            "--buckets".into(),
            "2".into(),
            "--threads".into(),
            "2".into(),
            "--out".into(),
            out.display().to_string(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |a: Vec<String>, env: &[(&str, &str)]| {
        posfilter(&a.iter().map(String::as_str).collect::<Vec<_>>(), env)
    };
    let (code, _) = run(args(&[]), &[("POSFILTER_STOP_AFTER_CHECKPOINTS", "3")]);
    assert_eq!(
        code, 75,
        "the hook stops the task after its third checkpoint"
    );
    assert!(out.join("shard-resume.json").exists());
    assert!(!out.join("shard.json").exists());
    // Another bucket count: not this task's checkpoint.
    let mut other = args(&["--resume-or-start"]);
    other[5] = "3".into();
    let (code, err) = run(other, &[]);
    assert_ne!(code, 0);
    assert!(err.contains("of another task"), "{err}");
    let (code, _) = run(args(&[]), &[("POSFILTER_STOP_AFTER_CHECKPOINTS", "2")]);
    assert_eq!(code, 75);
    let (code, err) = run(args(&["--resume-or-start"]), &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("resumed at record"), "{err}");
    assert!(!out.join("shard-resume.json").exists());
    // The log records which verdicts the task's verdict cache answered (scheduling, not
    // the input): the keys are the same bytes, the gathered output is one run's.
    for name in [
        "keys/bucket-00000-of-00002.run",
        "keys/bucket-00001-of-00002.run",
    ] {
        assert!(
            std::fs::read(out.join(name)).unwrap() == std::fs::read(whole[1].join(name)).unwrap(),
            "{name} differs from the uninterrupted task's"
        );
    }
    let single = dir.join("single");
    ok(&["run", &cfg, "--out", single.to_str().unwrap(), "--quiet"]);
    let parts = [whole[0].clone(), out.clone()];
    let lists = dir.join("dups");
    reduce(&parts, 2, &lists);
    let merged = dir.join("merged");
    let (code, err) = gather(&parts, Some(&lists), &merged);
    assert_eq!(code, 0, "{err}");
    same_as_one_run(&single, &merged, "a shard resumed from its checkpoint");
}

/// The merge exits as one run of the job does: 1 for an input `.zst` that breaks off (it
/// exited 0, so a Slurm `afterok` chain saw a clean job), with the same files.
#[test]
fn the_merge_exits_with_the_status_of_one_run() {
    let dir = TempDir::new("cluster-status");
    let (broken, _) = crate::pipeline::broken_zst_psv(&dir, 3000);
    let cfg = config(&dir, &[&broken], "[filter.mate]\nenabled = false\n");
    let single = dir.join("single");
    let (code, err) = posfilter(&["run", &cfg, "--out", single.to_str().unwrap()], &[]);
    assert_eq!(code, 1, "{err}");
    let dirs: Vec<PathBuf> = (0..2)
        .map(|i| {
            let out = dir.join(&format!("s-{i}"));
            let shard = format!("{i}/2");
            let args = ["run", &cfg, "--shard", &shard, "--buckets", "1", "--out"];
            posfilter(&[&args[..], &[out.to_str().unwrap()]].concat(), &[]);
            out
        })
        .collect();
    let lists = dir.join("lists");
    reduce(&dirs, 1, &lists);
    let merged = dir.join("merged");
    let (code, err) = gather(&dirs, Some(&lists), &merged);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("could not be read to the end"), "{err}");
    same_as_one_run(&single, &merged, "a broken input");
}

//! A run's life: reruns into the same directory, a killed run and its rerun, dry runs,
//! progress lines when unattended.

use super::*;

#[test]
fn a_rerun_replaces_the_previous_output_and_never_its_own_input() {
    let dir = TempDir::new("rerun");
    let input = startpos_file(&dir, "in.psfen", 600);
    let out = dir.join("out");
    let fresh = dir.join("fresh");
    let run = |extra: &str, out: &Path| {
        let cfg = config(
            &dir,
            &[&input],
            &format!("{extra}\n[filter.mate]\nnodes = 1000\n"),
        );
        run_one_thread(&cfg, out)
    };
    // `extra` continues the config's [output] table.
    // A larger first run: many shards, an audit, a psv mates file.
    run("shard_records = 50\naudit = true\n", &out);
    let first: Vec<_> = walk(&out.join("kept"));
    assert!(first.len() > 5, "{first:?}");
    // The rerun writes one shard, no audit, mates as sfen: nothing of the first may remain,
    // and a file of the user's in the directory stays.
    let second = "shard_records = 100000\naudit = false\n[mates]\nformat = \"sfen\"\n";
    for d in [&out, &fresh] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(d.join("notes.txt"), b"mine").unwrap();
    }
    let log = run(second, &out);
    assert!(log.contains("replaced"), "{log}");
    run(second, &fresh);
    same_outputs(&out, &fresh, &[]);
    assert!(!out.join("audit.jsonl").exists() && !out.join("mates.psv").exists());
    // A run that reads the previous output it would replace refuses before touching it.
    let shard = out.join("kept/part-00000.psfen");
    let cfg = config(&dir, &[&shard], "");
    let (ok, _, err) = run_bin(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(!ok && err.contains("output of a previous run"), "{err}");
    let cfg = config(
        &dir,
        &[&input],
        &format!(
            "[filter.dedup]\nreference = [{:?}]\n",
            shard.display().to_string()
        ),
    );
    let (ok, _, err) = run_bin(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(!ok && err.contains("part-00000.psfen"), "{err}");
    same_outputs(&out, &fresh, &[]);
}

/// The output contract (docs/references.md): "a run that is killed leaves no file that
/// looks complete but is not, and running it again produces the same output". A run is
/// killed (SIGKILL, no chance to clean up) once it has finished two shards: every file it
/// left under a final name (its checkpoint, resume.json and resume.dedup, aside: see
/// `resume.rs`) must be byte-identical to that file of an uninterrupted run, manifest.json
/// must be absent, and the rerun into the same directory must equal the uninterrupted run
/// file for file.
#[test]
fn a_killed_run_leaves_only_complete_files_and_a_rerun_completes_it() {
    // Debug builds solve about 10x slower; either way the run lasts seconds, not the
    // milliseconds the polling below needs.
    let records = if cfg!(debug_assertions) { 600 } else { 3000 };
    let (dir, cfg) = startpos_setup(
        "killed",
        records,
        "shard_records = 100\n[workers]\nbatch_records = 50\n[filter.mate]\nnodes = 20000\n",
    );
    let (out, fresh) = (dir.join("out"), dir.join("fresh"));
    let args = |out: &Path| {
        let out = out.to_str().unwrap().to_string();
        [
            "run".to_string(),
            cfg.clone(),
            "--out".into(),
            out,
            "--quiet".into(),
            "--threads".into(),
            "1".into(),
        ]
    };
    let mut child = std::process::Command::new(crate::support::bin())
        .args(args(&out))
        .spawn()
        .unwrap();
    let second_shard = out.join("kept/part-00001.psfen");
    let waited = std::time::Instant::now();
    while !second_shard.exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before its second shard appeared"
        );
        assert!(
            waited.elapsed().as_secs() < 120,
            "no second shard after 120 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run finished before it could be killed: use more records"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    let fresh_args = args(&fresh);
    run_ok(&fresh_args.iter().map(String::as_str).collect::<Vec<_>>());

    assert!(!out.join("manifest.json").exists(), "killed before the end");
    let left: Vec<_> = walk(&out)
        .into_iter()
        .filter(|p| {
            let name = p.to_string_lossy();
            !name.ends_with(".tmp")
                && !name.ends_with("resume.json")
                && !name.ends_with("resume.dedup")
                && !name.ends_with("posfilter.lock")
        })
        .collect();
    // The killed run's lock stays (its process is gone: the rerun takes it over).
    assert!(out.join("posfilter.lock").exists());
    assert!(
        left.iter().any(|p| p.ends_with("kept/part-00000.psfen")),
        "{left:?}"
    );
    for p in &left {
        let rel = p.strip_prefix(&out).unwrap();
        assert_eq!(
            std::fs::read(p).unwrap(),
            std::fs::read(fresh.join(rel)).unwrap(),
            "{} looks complete but differs from the uninterrupted run's",
            rel.display()
        );
    }
    let rerun = args(&out);
    run_ok(&rerun.iter().map(String::as_str).collect::<Vec<_>>());
    same_outputs(&out, &fresh, &[]);
    assert!(!out.join("posfilter.lock").exists());
}

/// `--dry-run` names every input with its format and record count, what it would replace
/// and the memory it needs, writes nothing (not even the output directory), and refuses
/// what the run would refuse.
#[test]
fn a_dry_run_describes_the_run_and_writes_nothing() {
    let (dir, cfg) = startpos_setup("dry-run", 300, "[filter.mate]\nnodes = 1000\n");
    // `config` always writes pipeline.toml: each config gets its own name.
    let keep = |cfg: String, name: &str| {
        let path = dir.join(name);
        std::fs::rename(&cfg, &path).unwrap();
        path.display().to_string()
    };
    let cfg = keep(cfg, "one.toml");
    let teacher = data("codec/teacher.psv.zst");
    let input = dir.join("in.psfen");
    let cfg_two = keep(config(&dir, &[&input, &teacher], ""), "two.toml");
    let (out, fresh) = (dir.join("out"), dir.join("fresh"));
    run_one_thread(&cfg, &out);
    let before: Vec<(std::path::PathBuf, Vec<u8>)> = walk(&out)
        .into_iter()
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    let dry =
        |cfg: &str, out: &Path| run_bin(&["run", cfg, "--out", out.to_str().unwrap(), "--dry-run"]);
    let (ok, _, log) = dry(&cfg_two, &out);
    assert!(ok, "{log}");
    for expected in [
        "inputs: 2 file(s)",
        "in.psfen  psfen, 9.38 KiB, 300 records (extension .psfen)",
        "teacher.psv.zst  psv (zstd)",
        &format!("replaces {} file(s) of a previous run", before.len()),
        "dedup index: ",
        "a lower bound on the records",
    ] {
        assert!(log.contains(expected), "{expected:?} missing:\n{log}");
    }
    let after: Vec<(std::path::PathBuf, Vec<u8>)> = walk(&out)
        .into_iter()
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    assert_eq!(before, after, "the dry run changed the output directory");
    let (ok, _, log) = dry(&cfg, &fresh);
    assert!(ok && !fresh.exists(), "{log}");
    assert!(!log.contains("replaces"), "{log}");
    // Reading the output it would replace is refused, as by the run itself.
    let shard = walk(&out.join("kept")).remove(0);
    let cfg_own = keep(config(&dir, &[&shard], ""), "own.toml");
    let (ok, _, log) = dry(&cfg_own, &out);
    assert!(!ok && log.contains("output of a previous run"), "{log}");
    // Solver tables that cannot fit in memory (the most threads allowed, 4 per core, each
    // with the largest table, 64 GiB: at least 256 GiB) are refused, by the dry run and by
    // the run, before anything is written.
    let cfg_big = keep(
        config(&dir, &[&input], "[workers]\ntable_mb = 65536\n"),
        "big.toml",
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = (4 * cores).to_string();
    for mode in ["--dry-run", "--quiet"] {
        let fresh_dir = fresh.to_str().unwrap();
        let (ok, _, log) = run_bin(&[
            "run",
            &cfg_big,
            "--out",
            fresh_dir,
            "--threads",
            &threads,
            mode,
        ]);
        assert!(!ok && !fresh.exists(), "{mode}: {log}");
        assert!(
            log.contains("the mate filter's tables need")
                && log.contains("`workers.table_mb`")
                && log.contains("available"),
            "{mode}: {log}"
        );
    }
}

/// With stderr not a terminal (here a pipe), progress comes as plain lines, at most one per
/// `--log-every`; their counts only grow and never pass the final ones. `--log-every 0` and
/// `--quiet` write none.
#[test]
fn unattended_runs_log_progress_lines() {
    let (dir, cfg) = startpos_setup(
        "loglines",
        400,
        "[workers]\nbatch_records = 20\n[filter.mate]\nnodes = 2000\n",
    );
    let out = dir.join("out");
    let out_dir = out.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", &cfg, "--out", out_dir, "--threads", "1"];
        args.extend_from_slice(extra);
        let log = run_ok(&args);
        let lines: Vec<String> = log
            .lines()
            .filter(|l| l.starts_with("posfilter: ") && l.contains(" records · "))
            .map(String::from)
            .collect();
        lines
    };
    let lines = run(&["--log-every", "0.000001"]);
    assert!(lines.len() >= 2, "{lines:?}");
    let field = |line: &str, name: &str| -> u64 {
        let after = line.split(&format!("{name} ")).nth(1).unwrap();
        after
            .split(' ')
            .next()
            .unwrap()
            .replace(',', "")
            .parse()
            .unwrap()
    };
    let kept = report(&out)["records"]["kept"].as_u64().unwrap();
    let mut previous = 0;
    for line in &lines {
        assert!(line.contains("% of ") && line.contains(" ETA "), "{line}");
        let k = field(line, "kept");
        assert!(
            previous <= k && k <= kept,
            "{line}: kept {previous} before, {kept} at the end"
        );
        previous = k;
    }
    assert!(run(&["--log-every", "0"]).is_empty());
    assert!(run(&["--log-every", "0.000001", "--quiet"]).is_empty());
}

/// `posfilter init` writes a pipeline.toml that reads back as the defaults, refuses to
/// replace an existing one (or a link) and replaces it with `--force` (a link by a file).
#[test]
fn init_writes_the_defaults_and_keeps_an_existing_file() {
    use posfilter::pipeline::config::RawConfig;
    let dir = TempDir::new("init");
    let target = dir.join("new");
    let target_arg = target.display().to_string();
    run_ok(&["init", &target_arg]);
    let path = target.join("pipeline.toml");
    let written = std::fs::read_to_string(&path).unwrap();
    let raw = RawConfig::parse(&written, &path).unwrap();
    assert_eq!(
        serde_json::to_value(&raw).unwrap(),
        serde_json::to_value(RawConfig::default()).unwrap()
    );
    std::fs::write(&path, "# mine\n").unwrap();
    let (ok, _, err) = run_bin(&["init", &target_arg]);
    assert!(!ok && err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "# mine\n");
    run_ok(&["init", &target_arg, "--force"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), written);
    // A link named pipeline.toml: kept (dangling too) without --force; with it the link is
    // replaced by a file and its target is left alone (it was written through before).
    let elsewhere = dir.join("elsewhere.toml");
    std::fs::write(&elsewhere, "# not posfilter's\n").unwrap();
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(dir.join("missing.toml"), &path).unwrap();
    assert!(!run_bin(&["init", &target_arg]).0);
    assert!(!dir.join("missing.toml").exists());
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
    run_ok(&["init", &target_arg, "--force"]);
    assert!(!path.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), written);
    assert_eq!(
        std::fs::read_to_string(&elsewhere).unwrap(),
        "# not posfilter's\n"
    );
    assert_eq!(
        std::fs::read_dir(&target).unwrap().count(),
        1,
        "no temporary left"
    );
}

/// `--threads 10000` (259 s for 100 records before: a thread and a table each) is capped at
/// 4 per core with a warning, even with --quiet; the output is that of any thread count.
#[test]
fn absurd_thread_counts_are_capped_with_a_warning() {
    let (dir, cfg) = startpos_setup("threads-cap", 100, "[filter.mate]\nnodes = 1000\n");
    let (out, one) = (dir.join("out"), dir.join("one"));
    let err = run_ok(&[
        "run",
        &cfg,
        "--out",
        out.to_str().unwrap(),
        "--threads",
        "10000",
        "--quiet",
    ]);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let expected = format!(
        "posfilter: warning: 10000 worker threads asked for, capped at {} (4 per core on {cores} cores)",
        4 * cores
    );
    assert_eq!(err.trim(), expected);
    assert_eq!(report(&out)["threads"], 4 * cores);
    run_one_thread(&cfg, &one);
    same_outputs(&out, &one, &[]);
}

//! `posfilter run --resume`: a run stopped after a checkpoint (by the test hook, at a broken
//! `.zst` input, killed with SIGKILL at a random moment, or interrupted by SIGINT / SIGTERM,
//! which must print the command that goes on) and resumed, with another thread count, must
//! write exactly the files of a run that was never stopped; and a resume that cannot be
//! sound (no checkpoint, another config, a changed input, a damaged output file) is refused
//! with a message that says why.

use crate::pipeline::{
    broken_zst_psv, config, report, run_ok, run_report_part, same_outputs, startpos_file,
    startpos_setup, walk,
};
use crate::support::{bin, data, TempDir};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Runs `posfilter run CFG --out OUT --threads T [extra]` with the checkpoint test hook
/// set to stop after `stop` checkpoints (if given); returns (exit code, stderr).
fn run_stopping(
    cfg: &str,
    out: &Path,
    threads: u32,
    stop: Option<u32>,
    extra: &[&str],
) -> (i32, String) {
    let mut cmd = Command::new(bin());
    cmd.args([
        "run",
        cfg,
        "--out",
        out.to_str().unwrap(),
        "--threads",
        &threads.to_string(),
    ])
    .args(extra);
    if let Some(k) = stop {
        cmd.env("POSFILTER_STOP_AFTER_CHECKPOINTS", k.to_string());
    }
    let o = cmd.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Three inputs that exercise every kind of reader state a checkpoint must carry: a
/// zstd-compressed PackedSfen file (the resumed reader decompresses up to the checkpoint),
/// teacher games in psv (batches cut at game starts, repetition history), and SFEN text
/// lines. Shards of 300 records roll over between checkpoints of 200 input records, and
/// compressed output ends a zstd frame at each checkpoint.
fn mixed_setup(dir: &TempDir) -> String {
    let raw = startpos_file(dir, "a.psfen", 1200);
    let zst = dir.join("a.psfen.zst");
    let packed = zstd::encode_all(std::fs::File::open(&raw).unwrap(), 3).unwrap();
    std::fs::write(&zst, packed).unwrap();
    std::fs::remove_file(&raw).unwrap();
    let psv = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/teacher.psv");
    let sfen = dir.join("c.sfen");
    let text = std::fs::read_to_string(data("pipeline/startpos.sfen")).unwrap();
    let lines: String = text.lines().take(400).map(|l| format!("{l}\n")).collect();
    std::fs::write(&sfen, lines).unwrap();
    let cfg = config(
        dir,
        &[&zst, &psv, &sfen],
        "[workers]\nbatch_records = 50\n[filter.mate]\nnodes = 3000\n",
    );
    // `config` writes compression = "none"; this test wants zstd frames too.
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "compression = \"none\"",
        "compression = \"zstd\"\nshard_records = 300\ncheckpoint_records = 200",
    );
    std::fs::write(&cfg, text).unwrap();
    cfg
}

/// The counts a resumed run must share with an uninterrupted one (its timings, thread
/// count and verdict-cache hits may differ).
fn decisions_of(r: &Value) -> Value {
    serde_json::json!({
        "records": r["records"], "unknown": r["unknown"], "unknown_kept": r["unknown_kept"],
        "mates_written": r["mates_written"], "repetition": r["repetition"],
        "rejected_reasons": r["rejected_reasons"], "move_field": r["move_field"],
        "run_report": run_report_part(r),
    })
}

/// Changes `out` (stopped at checkpoint `cp`) the way a run killed some time after the
/// checkpoint would have: junk after the checkpointed bytes of the side files, each kept
/// writer's open shard finished under its final name, and the next shard begun.
fn simulate_writes_after_the_checkpoint(out: &Path, cp: &Value) {
    use std::io::Write;
    for name in ["audit.jsonl.tmp", "mates.jsonl.tmp", "resume.dedup"] {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(out.join(name))
            .unwrap();
        f.write_all(b"{\"written after the checkpoint\": true}\n")
            .unwrap();
    }
    let writers = cp["commit"]["kept"].as_array().unwrap();
    assert!(!writers.is_empty());
    for w in writers {
        let mark = &w[1];
        let Some(name) = mark["open"]["name"].as_str() else {
            continue;
        };
        let kept = out.join("kept");
        let tmp = kept.join(format!(".{name}.tmp"));
        let mut bytes = std::fs::read(&tmp).unwrap();
        bytes.extend_from_slice(b"junk");
        std::fs::remove_file(&tmp).unwrap();
        std::fs::write(kept.join(name), bytes).unwrap();
        let next = mark["next_shard"].as_u64().unwrap();
        let begun = name.replacen(
            &format!("part-{:05}", next - 1),
            &format!("part-{next:05}"),
            1,
        );
        std::fs::write(kept.join(format!(".{begun}.tmp")), b"begun").unwrap();
    }
}

#[test]
fn a_stopped_run_resumed_writes_the_bytes_of_an_uninterrupted_one() {
    let dir = TempDir::new("resume-stops");
    let cfg = mixed_setup(&dir);
    let full = dir.join("full");
    let (code, err) = run_stopping(&cfg, &full, 2, None, &["--quiet"]);
    assert_eq!(code, 0, "{err}");
    let expected = report(&full);
    assert!(!full.join("resume.json").exists() && !full.join("resume.dedup").exists());
    assert!(expected.get("resumed_from").is_none());
    let input = expected["records"]["input"].as_u64().unwrap();
    // 1,200 + 3,012 + 400 records, a checkpoint every 200: about 23 of them.
    assert!(input > 4000, "{input}");
    let shards = walk(&full.join("kept")).len();
    assert!(
        shards >= 8,
        "{shards} shards: too few to roll over between checkpoints"
    );

    // Stops early, in the psv games, and at the last checkpoint; each resumed on the
    // other thread count.
    for (stop, threads) in [(1u32, 1u32), (9, 2), (22, 1)] {
        let out = dir.join(&format!("stop{stop}"));
        let (code, err) = run_stopping(&cfg, &out, 3 - threads, Some(stop), &["--quiet"]);
        assert_eq!(
            code, 75,
            "stop {stop}: the hook did not stop the run:\n{err}"
        );
        assert!(!out.join("manifest.json").exists());
        let cp: Value =
            serde_json::from_slice(&std::fs::read(out.join("resume.json")).unwrap()).unwrap();
        let at = cp["next"]["next_index"].as_u64().unwrap();
        assert!(
            at >= 200 * stop as u64 && at < 200 * stop as u64 + 200,
            "stop {stop}: {at}"
        );
        if stop == 9 {
            // What a kill can leave behind besides the checkpoint: bytes written after it,
            // the open shard already finished under its final name, a shard begun after it.
            simulate_writes_after_the_checkpoint(&out, &cp);
        }
        let (code, err) = run_stopping(&cfg, &out, threads, None, &["--resume"]);
        assert_eq!(code, 0, "stop {stop}: resume failed:\n{err}");
        assert!(err.contains(&format!("resumed at record {at}")), "{err}");
        same_outputs(&full, &out, &[]);
        let r = report(&out);
        assert_eq!(decisions_of(&r), decisions_of(&expected), "stop {stop}");
        assert_eq!(r["resumed_from"], serde_json::json!([at]));
        assert!(!out.join("resume.json").exists() && !out.join("resume.dedup").exists());
    }

    // Stopped twice: the second part stops again after 3 more checkpoints.
    let out = dir.join("twice");
    assert_eq!(run_stopping(&cfg, &out, 2, Some(2), &["--quiet"]).0, 75);
    assert_eq!(
        run_stopping(&cfg, &out, 1, Some(3), &["--quiet", "--resume"]).0,
        75
    );
    let (code, err) = run_stopping(&cfg, &out, 2, None, &["--quiet", "--resume"]);
    assert_eq!(code, 0, "{err}");
    same_outputs(&full, &out, &[]);
    let parts = report(&out)["resumed_from"].as_array().unwrap().len();
    assert_eq!(parts, 2);
}

/// A run of seconds (so that a signal can reach it mid-run) with a checkpoint every 100 of
/// its records, and the output of that run never stopped: (directory, config, output).
fn slow_setup(name: &str) -> (TempDir, String, std::path::PathBuf) {
    // Debug builds solve about 10x slower.
    let records = if cfg!(debug_assertions) { 600 } else { 3000 };
    let (dir, cfg) = startpos_setup(
        name,
        records,
        "shard_records = 250\ncheckpoint_records = 100\n[workers]\nbatch_records = 25\n\
         [filter.mate]\nnodes = 20000\n",
    );
    let full = dir.join("full");
    run_ok(&["run", &cfg, "--out", full.to_str().unwrap(), "--quiet"]);
    (dir, cfg, full)
}

/// 600 start positions (`in.psfen`) with a checkpoint every 100 records and a small
/// budget: a run of a fraction of a second. Returns the directory and the config.
fn quick_setup(name: &str) -> (TempDir, String) {
    startpos_setup(
        name,
        600,
        "checkpoint_records = 100\n[workers]\nbatch_records = 50\n[filter.mate]\nnodes = 3000\n",
    )
}

/// Waits until the run `child` writing to `out` has taken its first checkpoint.
fn wait_for_checkpoint(child: &mut std::process::Child, out: &Path) {
    let waited = std::time::Instant::now();
    while !out.join("resume.json").exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "ended before a checkpoint"
        );
        assert!(
            waited.elapsed().as_secs() < 120,
            "no checkpoint after 120 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// SIGKILL at an arbitrary moment after the first checkpoint (mid-batch, mid-write, maybe
/// mid-checkpoint): the resumed run still writes the uninterrupted run's files.
#[test]
fn a_run_killed_at_any_moment_resumes_from_its_last_checkpoint() {
    let (dir, cfg, full) = slow_setup("resume-kill");
    // Three kill times after the first checkpoint, spread by a clock-derived jitter.
    for round in 0..3u64 {
        let out = dir.join(&format!("killed{round}"));
        let mut child = Command::new(bin())
            .args([
                "run",
                &cfg,
                "--out",
                out.to_str().unwrap(),
                "--quiet",
                "--threads",
                "2",
            ])
            .spawn()
            .unwrap();
        wait_for_checkpoint(&mut child, &out);
        let jitter = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos() as u64
            % 40;
        std::thread::sleep(std::time::Duration::from_millis(round * 60 + jitter));
        if child.try_wait().unwrap().is_some() {
            // Finished before the kill: nothing to resume in this round.
            continue;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let (code, err) = run_stopping(&cfg, &out, 1, None, &["--resume", "--quiet"]);
        assert_eq!(code, 0, "round {round}: {err}");
        same_outputs(&full, &out, &[]);
    }
}

#[test]
fn a_resume_that_cannot_be_sound_is_refused_with_the_reason() {
    let (dir, cfg) = quick_setup("resume-refusals");
    let input = dir.join("in.psfen");
    let out = dir.join("out");
    let stop = |stop: u32| {
        let _ = std::fs::remove_dir_all(&out);
        assert_eq!(run_stopping(&cfg, &out, 1, Some(stop), &["--quiet"]).0, 75);
    };
    let refused = |cfg: &str, needle: &str| {
        let (code, err) = run_stopping(cfg, &out, 1, None, &["--resume", "--quiet"]);
        assert_ne!(code, 0, "resumed although {needle}");
        assert!(
            err.contains("cannot resume") && err.contains(needle),
            "expected {needle:?} in:\n{err}"
        );
    };

    // Nothing to resume.
    let empty = dir.join("empty");
    let (code, err) = run_stopping(&cfg, &empty, 1, None, &["--resume"]);
    assert!(
        code != 0 && err.contains("no checkpoint (resume.json)"),
        "{err}"
    );

    // Another configuration: the message names the key.
    stop(2);
    let other = dir.join("other.toml");
    std::fs::write(
        &other,
        std::fs::read_to_string(&cfg)
            .unwrap()
            .replace("nodes = 3000", "nodes = 4000"),
    )
    .unwrap();
    refused(other.to_str().unwrap(), "filter.mate.nodes");

    // A changed input.
    let bytes = std::fs::read(&input).unwrap();
    std::fs::write(&input, &bytes[..bytes.len() - 32]).unwrap();
    refused(&cfg, "in.psfen changed since");
    std::fs::write(&input, &bytes).unwrap();

    // An output file cut short, and one changed within its checkpointed bytes.
    stop(2);
    let audit = out.join("audit.jsonl.tmp");
    std::fs::write(&audit, b"{}\n").unwrap();
    refused(
        &cfg,
        "audit.jsonl.tmp: 3 bytes, but the checkpoint recorded",
    );
    stop(3);
    let shard = out.join("kept/.part-00000.psfen.tmp");
    let mut kept = std::fs::read(&shard).unwrap();
    kept[5] ^= 1;
    std::fs::write(&shard, kept).unwrap();
    refused(&cfg, "CRC-32 differs");

    // resume.json edited by hand (40,000 records resumed as 39,999 before): its checksum
    // no longer matches; only the untouched file resumes.
    stop(2);
    let resume = out.join("resume.json");
    let text = std::fs::read_to_string(&resume).unwrap();
    let cp: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(cp["checksum"].as_str().unwrap().len(), 8);
    let next = cp["next"]["next_index"].as_u64().unwrap();
    let edited = text.replacen(
        &format!("\"next_index\": {next}"),
        &format!("\"next_index\": {}", next + 1),
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&resume, edited).unwrap();
    refused(&cfg, "resume.json: its checksum does not match");
    std::fs::write(&resume, &text).unwrap();
    let (code, err) = run_stopping(&cfg, &out, 1, None, &["--resume", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    // Edited with a checksum made to match (the CRC-32 of the file with its 8 digits as
    // zeros), the reader one record further on: the resume goes through, but the end of
    // the run finds that in.psfen's 600 records were not all read.
    stop(2);
    let text = std::fs::read_to_string(&resume).unwrap();
    let cp: Value = serde_json::from_str(&text).unwrap();
    let offset = cp["next"]["offset"].as_u64().unwrap();
    let sum = cp["checksum"].as_str().unwrap();
    let edited = text
        .replacen(
            &format!("\"offset\": {offset},"),
            &format!("\"offset\": {},", offset + 32),
            1,
        )
        .replace(
            &format!("\"checksum\": \"{sum}\""),
            "\"checksum\": \"00000000\"",
        );
    let crc = format!("{:08x}", crc32fast::hash(edited.as_bytes()));
    let edited = edited.replace(
        "\"checksum\": \"00000000\"",
        &format!("\"checksum\": \"{crc}\""),
    );
    std::fs::write(&resume, edited).unwrap();
    let (code, err) = run_stopping(&cfg, &out, 1, None, &["--resume", "--quiet"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("in.psfen holds 600 records, but the run counted 599"),
        "{err}"
    );

    // The dedup log is checked too.
    stop(3);
    let log = out.join("resume.dedup");
    let mut entries = std::fs::read(&log).unwrap();
    entries[0] ^= 1;
    std::fs::write(&log, entries).unwrap();
    refused(&cfg, "resume.dedup");

    // A complete run has nothing to resume; a plain rerun over a checkpoint starts over
    // and says so.
    stop(2);
    let (code, err) = run_stopping(&cfg, &out, 1, None, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("checkpoint of an unfinished run; starting over"),
        "{err}"
    );
    refused(&cfg, "the run there is complete");
    let again = dir.join("again");
    run_ok(&["run", &cfg, "--out", again.to_str().unwrap(), "--quiet"]);
    same_outputs(&again, &out, &[]);
}

/// A run over a .zst input that breaks off part way, stopped at each of its checkpoints in
/// turn (before the break, at it, in the next file) and resumed: the resumed reader
/// decompresses up to the checkpoint, meets the break where the first run met it, and
/// every output equals the uninterrupted run's.
#[test]
fn resuming_around_a_broken_zst_input_rejects_the_same_rest() {
    let dir = TempDir::new("resume-broken");
    let (broken, _) = broken_zst_psv(&dir, 6_000);
    let good = startpos_file(&dir, "good.psfen", 700);
    let cfg = config(
        &dir,
        &[&broken, &good],
        "checkpoint_records = 1000\n[filter.mate]\nnodes = 1000\n",
    );
    let full = dir.join("full");
    // Exit status 1: complete, but the broken file could not be read to the end.
    let (code, err) = run_stopping(&cfg, &full, 2, None, &["--quiet"]);
    assert_eq!(code, 1, "{err}");
    let r = report(&full);
    assert_eq!(r["rejected_reasons"]["unreadable"], 1);
    let input = r["records"]["input"].as_u64().unwrap();
    let mut stops = 0;
    for k in 1.. {
        let out = dir.join(&format!("stop{k}"));
        let (code, err) = run_stopping(&cfg, &out, 2, Some(k), &["--quiet"]);
        if code == 1 {
            break;
        }
        assert_eq!(code, 75, "{err}");
        let (code, err) = run_stopping(&cfg, &out, 1, None, &["--quiet", "--resume"]);
        assert_eq!(code, 1, "stop {k}: {err}");
        same_outputs(&full, &out, &[]);
        stops += 1;
    }
    assert_eq!(
        stops as u64,
        input / 1000,
        "a checkpoint per 1,000 of {input} records"
    );
}

/// Ctrl-C (SIGINT) or a batch system's SIGTERM after a checkpoint: the run exits with
/// status 130 and names the command that goes on, and that command completes the run.
#[test]
fn an_interrupted_run_says_how_to_resume() {
    let (dir, cfg, full) = slow_setup("resume-signal");
    for signal in ["INT", "TERM"] {
        let out = dir.join(signal);
        let mut child = Command::new(bin())
            .args(["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        wait_for_checkpoint(&mut child, &out);
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "SIG{signal}: {err}");
        let expected = format!(
            "`posfilter run {cfg} --out {} --resume` goes on from there",
            out.display()
        );
        assert!(err.contains(&expected), "SIG{signal}: {err}");
        let (code, err) = run_stopping(&cfg, &out, 1, None, &["--resume", "--quiet"]);
        assert_eq!(code, 0, "SIG{signal}: {err}");
        same_outputs(&full, &out, &[]);
    }
}

/// The progress lines of an unattended run name the last checkpoint, so that a log shows
/// where `--resume` would go on even after a kill that printed nothing; a resumed run's
/// lines count its records from its resume point on.
#[test]
fn progress_lines_name_the_last_checkpoint() {
    let (dir, cfg) = quick_setup("resume-log");
    let out = dir.join("out");
    let at = |line: &str| -> Option<u64> {
        let after = line.split(" · checkpoint at ").nth(1)?;
        after.trim().replace(',', "").parse().ok()
    };
    assert_eq!(run_stopping(&cfg, &out, 1, Some(2), &["--quiet"]).0, 75);
    let (code, err) = run_stopping(
        &cfg,
        &out,
        1,
        None,
        &["--resume", "--log-every", "0.000001"],
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("posfilter: ") && l.contains(" ETA "))
        .collect();
    assert!(lines.len() >= 3, "{err}");
    // Records count the whole input decided so far, the earlier part's 200 included.
    for line in &lines {
        let records = line.split(" records · ").next().unwrap();
        let n: u64 = records
            .rsplit(' ')
            .next()
            .unwrap()
            .replace(',', "")
            .parse()
            .unwrap();
        assert!((200..=600).contains(&n), "{line}");
    }
    let marks: Vec<u64> = lines.iter().map(|l| at(l).unwrap_or(0)).collect();
    assert!(marks.iter().all(|&m| m >= 200), "{marks:?}: resumed at 200");
    assert!(marks.windows(2).all(|w| w[0] <= w[1]), "{marks:?}");
    assert!(*marks.last().unwrap() >= 500, "{marks:?}");
}

/// `--resume-or-start` (a task a scheduler may run again): into an empty directory it
/// starts, after a stop it goes on from the checkpoint, and both write the bytes of a run
/// that was never stopped.
#[test]
fn resume_or_start_starts_or_goes_on() {
    let dir = TempDir::new("resume-or-start");
    let cfg = mixed_setup(&dir);
    let full = dir.join("full");
    assert_eq!(run_stopping(&cfg, &full, 2, None, &["--quiet"]).0, 0);
    let fresh = dir.join("fresh");
    let (code, err) = run_stopping(&cfg, &fresh, 1, None, &["--resume-or-start"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("resumed"), "{err}");
    same_outputs(&full, &fresh, &[]);
    let out = dir.join("stopped");
    assert_eq!(run_stopping(&cfg, &out, 2, Some(5), &["--quiet"]).0, 75);
    let (code, err) = run_stopping(&cfg, &out, 1, None, &["--resume-or-start"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("resumed at record"), "{err}");
    same_outputs(&full, &out, &[]);
    assert!(report(&out)["resumed_from"].as_array().is_some());
    // Run again over its own complete output: nothing to resume, so it starts over.
    let (code, err) = run_stopping(&cfg, &out, 2, None, &["--resume-or-start"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("resumed"), "{err}");
    same_outputs(&full, &out, &[]);
}

//! Bad input: truncated and garbage records and broken `.zst` streams are rejected with
//! offsets while the run goes on; runs that read nothing say what to check; bad configs
//! name the key, the line and the choices.

use super::*;

/// `cfg` (a config file's path) with `input.max_rejected` set high: for a test of what
/// rejected.jsonl says of few records, most of them bad, not of the exit status.
fn accepting_rejects(cfg: String) -> String {
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("[input]\n", "[input]\nmax_rejected = 1000000\n");
    std::fs::write(&cfg, text).unwrap();
    cfg
}

#[test]
fn truncated_tail_and_garbage_records_are_rejected_with_offsets() {
    let dir = TempDir::new("reject");
    let mut bytes = std::fs::read(data("pipeline/startpos.psfen")).unwrap()[..10 * 32].to_vec();
    bytes.extend_from_slice(&[0xff; 32]); // does not decode
    bytes.extend_from_slice(&[1, 2, 3, 4, 5]); // a truncated tail
    let path = dir.join("bad.psfen");
    std::fs::write(&path, bytes).unwrap();
    let cfg = accepting_rejects(config(&dir, &[&path], "[filter.mate]\nnodes = 1000\n"));
    let out = dir.join("out");
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let rejected = jsonl_lines(&out.join("rejected.jsonl"));
    assert_eq!(rejected.len(), 2);
    assert_eq!(
        (
            rejected[0]["index"].as_u64(),
            rejected[0]["offset"].as_u64()
        ),
        (Some(10), Some(320))
    );
    assert_eq!(
        (
            rejected[1]["index"].as_u64(),
            rejected[1]["offset"].as_u64()
        ),
        (Some(11), Some(352))
    );
    assert!(rejected[1]["detail"]
        .as_str()
        .unwrap()
        .contains("truncated"));
    assert_eq!(rejected[0]["raw"].as_str().unwrap(), "ff".repeat(32));
    assert!(rejected[0].get("text").is_none());
    let r = report(&out);
    assert_eq!(reconciles(&r), 12);
    assert_eq!(r["records"]["rejected"], 2);
    assert_eq!(rejected[0]["bytes"], 32);
    // A huge garbage line (a file read with the wrong format) is rejected with its length
    // and only its first 4 KiB in hex; the lines around it are read as usual.
    let text = format!(
        "4k4/9/9/9/9/9/9/9/4K4 b G 1\n{}\n4k4/9/9/9/9/9/9/9/4K4 w g 1\n",
        "x".repeat(100_000)
    );
    let path = dir.join("long.sfen");
    std::fs::write(&path, text).unwrap();
    let cfg = accepting_rejects(config(&dir, &[&path], "[filter.mate]\nnodes = 1000\n"));
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let rejected = jsonl_lines(&out.join("rejected.jsonl"));
    assert_eq!(rejected.len(), 1);
    assert_eq!(
        (rejected[0]["index"].as_u64(), rejected[0]["bytes"].as_u64()),
        (Some(1), Some(100_000))
    );
    assert_eq!(rejected[0]["raw"].as_str().unwrap(), "78".repeat(4096));
    assert_eq!(rejected[0]["text"].as_str().unwrap(), "x".repeat(4096));
    assert_eq!(reconciles(&report(&out)), 3);
    // A bad line of a text format is shown as text too (CRLF trimmed, invalid UTF-8
    // replaced); binary records get only the hex.
    let path = dir.join("bad.sfen");
    std::fs::write(
        &path,
        b"4k4/9/9/9/9/9/9/9/4K4 b G 1\r\n4k4/9/9/9/9/9/9/9/4KK3 b G 1\r\nbad \xff line\n",
    )
    .unwrap();
    let cfg = accepting_rejects(config(&dir, &[&path], "[filter.mate]\nnodes = 1000\n"));
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let rejected = jsonl_lines(&out.join("rejected.jsonl"));
    let texts: Vec<&str> = rejected
        .iter()
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["4k4/9/9/9/9/9/9/9/4KK3 b G 1", "bad \u{fffd} line"]);
    // A USI line longer than any game (a king shuffle of 60,000 cycles) is cut where its
    // kept part ends right after a whole move, so that part alone would read as a legal,
    // different position: it is rejected for its length, never decoded.
    let mut head =
        "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1".to_string();
    while (head.len() + " moves ".len()) % 5 != posfilter::io::batch::MAX_LINE % 5 {
        head.push('0');
    }
    let line = format!("{head} moves {}", "5i4h 5a4b 4h5i 4b5a ".repeat(60_000));
    let path = dir.join("long.usi");
    std::fs::write(
        &path,
        format!("startpos moves 7g7f\n{}\nstartpos\n", line.trim_end()),
    )
    .unwrap();
    let cfg = accepting_rejects(config(&dir, &[&path], "[filter.mate]\nnodes = 1000\n"));
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let rejected = jsonl_lines(&out.join("rejected.jsonl"));
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0]["index"], 1);
    let detail = rejected[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains(&format!("line of {} bytes", line.trim_end().len())),
        "{detail}"
    );
    assert_eq!(reconciles(&report(&out)), 3);
}

/// Exit status: 0 for a clean run (rejections within `input.max_rejected` included), 1 for a
/// completed run with more rejections than that (unset: more than 10 % of the input, as a
/// wrong format gives; 3 of 23 here), 2 for a run that could not start.
#[test]
fn the_exit_status_tells_clean_incomplete_and_failed_runs_apart() {
    let dir = TempDir::new("exit-status");
    let mut bytes = std::fs::read(data("pipeline/startpos.psfen")).unwrap()[..20 * 32].to_vec();
    bytes.extend_from_slice(&[0xff; 3 * 32]); // 3 records that do not decode
    let path = dir.join("bad.psfen");
    std::fs::write(&path, bytes).unwrap();
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let run = |extra: &str| {
        let cfg = config(&dir, &[&path], "[filter.mate]\nnodes = 1000\n");
        let cfg = std::fs::read_to_string(&cfg)
            .unwrap()
            .replace("[input]\n", &format!("[input]\n{extra}\n"));
        let file = dir.join("status.toml");
        std::fs::write(&file, cfg).unwrap();
        run_status(&["run", file.to_str().unwrap(), "--out", out, "--quiet"])
    };
    let (code, err) = run("");
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("3 of 23 records (13.0 %) were rejected, more than 10 %"),
        "{err}"
    );
    assert_eq!(run("max_rejected = 3"), (0, String::new()));
    let (code, err) = run("max_rejected = 2");
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("3 records were rejected, more than input.max_rejected = 2"),
        "{err}"
    );
    assert_eq!(report(&dir.0.join("out"))["records"]["rejected"], 3);
    let (code, err) = run("max_rejected = -1");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("max_rejected"), "{err}");
}

#[test]
fn a_broken_zst_input_is_rejected_from_the_break_on_and_the_run_goes_on() {
    let dir = TempDir::new("broken");
    let (broken, whole) = broken_zst_psv(&dir, 10_000);
    let good = startpos_file(&dir, "good.psfen", 100);
    let cfg = config(&dir, &[&broken, &good], "[filter.mate]\nnodes = 1000\n");
    let out = dir.join("out");
    let (code, log) = run_status(&["run", &cfg, "--out", out.to_str().unwrap()]);
    // Completed, but part of the input is missing: status 1, said even with --quiet.
    assert_eq!(code, 1, "{log}");
    assert!(log.contains("could not be read to the end"), "{log}");
    let (code, log) = run_status(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(code, 1, "{log}");
    assert_eq!(
        log.trim(),
        "posfilter: the run completed, but 1 input file(s) could not be read to the end: \
         exit status 1 (see rejected.jsonl)"
    );
    let r = report(&out);
    assert_eq!(reconciles(&r), whole + 1 + 100);
    assert_eq!(r["rejected_reasons"]["unreadable"], 1);
    let rejected: Vec<Value> = jsonl_lines(&out.join("rejected.jsonl"))
        .into_iter()
        .filter(|v: &Value| {
            v["detail"]
                .as_str()
                .unwrap()
                .contains("truncated or corrupt")
        })
        .collect();
    assert_eq!(rejected.len(), 1);
    assert_eq!(
        (
            rejected[0]["index"].as_u64(),
            rejected[0]["offset"].as_u64()
        ),
        (Some(whole), Some(whole * 40))
    );
    // The good file after it was read whole: its 100 records are decided as usual.
    assert_eq!(r["inputs"][1]["records"], 100);
}

/// A run that reads no records, or rejects every one, succeeds (the counts reconcile) but
/// says what probably went wrong; a normal run says neither.
#[test]
fn runs_that_read_nothing_or_reject_everything_say_what_to_check() {
    let dir = TempDir::new("hints");
    let empty = dir.join("empty.psfen");
    std::fs::write(&empty, b"").unwrap();
    let good = startpos_file(&dir, "good.psfen", 20);
    let out = dir.join("out");
    let run = |input: &Path, format: &str| {
        let cfg = dir.join("hints.toml");
        let text = format!(
            "[input]\npaths = [{:?}]\nformat = {format:?}\n",
            input.display()
        );
        std::fs::write(&cfg, text).unwrap();
        let (code, log) =
            run_status(&["run", cfg.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        // Status 1 when (and only when) more than 10 % was rejected.
        let rejected = report(&out)["records"]["rejected"].as_u64().unwrap_or(0);
        assert_eq!(code, (rejected > 0) as i32, "{log}");
        log
    };
    let nothing = "no records (1 file(s), all empty): check input.paths";
    let rejected = "every record was rejected: are the files really hcpe?";
    let log = run(&empty, "auto");
    assert!(log.contains(nothing) && !log.contains(rejected), "{log}");
    // PackedSfen records read as hcpe (38 bytes each) are impossible positions.
    let log = run(&good, "hcpe");
    assert!(log.contains(rejected) && !log.contains(nothing), "{log}");
    assert!(report(&out)["records"]["rejected"].as_u64().unwrap() > 0);
    let log = run(&good, "auto");
    assert!(!log.contains(rejected) && !log.contains(nothing), "{log}");
}

#[test]
fn bad_configs_name_the_key_the_line_and_the_choices() {
    let dir = TempDir::new("config");
    let cases = [
        (
            "[input]\npaths = [\"x.psv\"]\n[output]\nshards = 3\n",
            &["shards", "line 4", "shard_records"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[output]\ncompression = \"gzip\"\n",
            &["gzip", "line 4", "zstd"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[filter.declaration]\nrule = \"25\"\n",
            &["rule", "line 4", "csa27"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[workers]\ntable_mb = 0\n",
            &["workers.table_mb", "line 4"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[workers]\ntable_mb = 6400000\n",
            &["workers.table_mb", "line 4", "6400000", "65536"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[workers]\nbatch_records = 100000000\n",
            &["workers.batch_records", "line 4", "1048576", "into memory"][..],
        ),
        (
            "[input]\npaths = [\"missing-*.psv\"]\n",
            &["missing-*.psv", "matches no file"][..],
        ),
        (
            "[input]\npaths = [\"../\"]\n",
            &["is a directory", "/*.psv"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[filter.mate]\ntable_scope = \"game\"\n",
            &["game", "line 4", "position", "batch"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[filter.mate]\ntable_scope = \"batch\"\n",
            &["filter.mate.table_scope", "line 4", "cache_mb = 0"][..],
        ),
        (
            "[input]\npaths = [\"x.psv\"]\n[output]\naudit = false\n[filter.mate]\nunknown = \"tag\"\n",
            &["filter.mate.unknown", "line 6", "output.audit is false"][..],
        ),
    ];
    for (text, needles) in cases {
        let path = dir.join("pipeline.toml");
        std::fs::write(&path, text).unwrap();
        let (ok, _, err) = run_bin(&["run", path.to_str().unwrap(), "--quiet"]);
        assert!(!ok, "{text}");
        for needle in needles {
            assert!(
                err.contains(needle),
                "{text}\nmissing {needle:?} in:\n{err}"
            );
        }
    }
}

/// A file of long garbage lines (as a zstd bomb of text decompresses to): every record still
/// gets its line in rejected.jsonl, but the bytes shown stop after 1 MiB of them for the file
/// (each line shows at most 4 KiB), and the lines past that say `"raw_cut": true`. Before,
/// 1,000 such lines wrote 12 MB (a 2 KB bomb wrote 445 MB).
#[test]
fn rejected_jsonl_shows_at_most_1_mib_of_one_files_bytes() {
    let dir = TempDir::new("raw-cap");
    let path = dir.join("junk.sfen");
    let line = format!("{}\n", "x".repeat(5000));
    std::fs::write(&path, line.repeat(1000)).unwrap();
    let cfg = config(&dir, &[&path], "[filter.mate]\nnodes = 1000\n");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("[input]\n", "[input]\nformat = \"sfen\"\n");
    std::fs::write(&cfg, text).unwrap();
    let out = dir.join("out");
    let (code, err) = run_status(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(code, 1, "every record rejected: {err}");
    let rejected = jsonl_lines(&out.join("rejected.jsonl"));
    assert_eq!(rejected.len(), 1000);
    for (i, r) in rejected.iter().enumerate() {
        assert_eq!(r["index"], i as u64);
        assert_eq!(r["bytes"], 5000);
        let shown = r["raw"].as_str().unwrap().len() / 2;
        if i < 256 {
            assert_eq!((shown, r.get("raw_cut")), (4096, None), "line {i}");
            assert_eq!(r["text"].as_str().unwrap().len(), 4096);
        } else {
            assert_eq!((shown, &r["raw_cut"]), (0, &Value::Bool(true)), "line {i}");
            assert!(r.get("text").is_none());
        }
    }
    let size = std::fs::metadata(out.join("rejected.jsonl")).unwrap().len();
    assert!(size < 3_500_000, "{size} bytes");
}

/// A zstd bomb of bad records (200,000 PackedSfen records that do not decode, about 1 KB of
/// `.zst`) and a second file of 2,500 of them: each file's rejects of one reason get a line
/// each up to 1,000, then one summary line with the count and the first and last index and
/// offset (before, a line per record: 365 MB for a 2 KB bomb). Every rejected record is in
/// one line, the counts reconcile, and a run stopped at checkpoints inside the summarised
/// stretch resumes to the bytes of an uninterrupted run.
#[test]
fn rejects_of_one_reason_past_1000_in_a_file_make_one_summary_line() {
    let dir = TempDir::new("reject-summary");
    let good = std::fs::read(data("pipeline/startpos.psfen")).unwrap();
    let mut a = good[..50 * 32].to_vec();
    a.extend(std::iter::repeat_n(0xffu8, 200_000 * 32));
    a.extend_from_slice(&good[..10 * 32]);
    a.extend_from_slice(&[1, 2, 3]); // a truncated tail: another reason, its own line
    let bomb = zstd::encode_all(&a[..], 19).unwrap();
    assert!(bomb.len() < 4096, "{}", bomb.len());
    let (pa, pb) = (dir.join("a.psfen.zst"), dir.join("b.psfen"));
    std::fs::write(&pa, &bomb).unwrap();
    let mut b = vec![0xffu8; 2_500 * 32];
    b.extend_from_slice(&good[..5 * 32]);
    std::fs::write(&pb, &b).unwrap();
    let cfg = config(&dir, &[&pa, &pb], "[filter.mate]\nenabled = false\n");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("[input]\n", "[input]\nformat = \"psfen\"\n");
    let text = text.replace("[output]\n", "[output]\ncheckpoint_records = 30000\n");
    std::fs::write(&cfg, text).unwrap();
    let run = |out: &Path, stop: Option<u32>, resume: bool| {
        let mut cmd = std::process::Command::new(crate::support::bin());
        cmd.args(["run", &cfg, "--quiet", "--threads", "2", "--out"])
            .arg(out);
        if resume {
            cmd.arg("--resume");
        }
        if let Some(k) = stop {
            cmd.env("POSFILTER_STOP_AFTER_CHECKPOINTS", k.to_string());
        }
        let o = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        (o.status.code().unwrap_or(-1), err)
    };
    let full = dir.join("full");
    // Completed, but nearly every record was rejected: status 1.
    let (code, err) = run(&full, None, false);
    assert_eq!(code, 1, "{err}");
    let lines = jsonl_lines(&full.join("rejected.jsonl"));
    let summaries: Vec<&Value> = lines.iter().filter(|l| l["summary"] == true).collect();
    assert_eq!(
        lines.len(),
        1000 + 1 + 1000 + summaries.len(),
        "{summaries:?}"
    );
    assert_eq!(summaries.len(), 2);
    let (sa, sb) = (summaries[0], summaries[1]);
    assert!(
        sa["file"].as_str().unwrap().ends_with("a.psfen.zst"),
        "{sa}"
    );
    assert_eq!(
        (&sa["count"], &sa["first_index"], &sa["last_index"]),
        (
            &Value::from(199_000),
            &Value::from(1050),
            &Value::from(200_049)
        )
    );
    assert_eq!(
        (&sa["first_offset"], &sa["last_offset"]),
        (&Value::from(1050 * 32), &Value::from(200_049 * 32))
    );
    assert_eq!(
        (&sb["count"], &sb["first_index"]),
        (&Value::from(1500), &Value::from(200_061 + 1000))
    );
    assert_eq!(
        (&sb["first_offset"], &sb["last_offset"]),
        (&Value::from(1000 * 32), &Value::from(2_499 * 32))
    );
    // The summary of a.psfen.zst follows its other lines (the truncated tail's included).
    let at = lines.iter().position(|l| l["summary"] == true).unwrap();
    assert_eq!((at, &lines[at - 1]["index"]), (1001, &Value::from(200_060)));
    let r = report(&full);
    let rec = &r["records"];
    let in_lines: u64 = lines.iter().map(|l| l["count"].as_u64().unwrap_or(1)).sum();
    assert_eq!(rec["rejected"].as_u64(), Some(in_lines));
    assert_eq!(rec["rejected"], 200_000 + 1 + 2_500);
    reconciles(&r);
    let size = std::fs::metadata(full.join("rejected.jsonl"))
        .unwrap()
        .len();
    assert!(size < 2_000_000, "{size} bytes");
    for stop in [2u32, 5] {
        let out = dir.join(&format!("stop{stop}"));
        assert_eq!(run(&out, Some(stop), false).0, 75, "stop {stop}");
        let (code, err) = run(&out, None, true);
        assert_eq!(code, 1, "stop {stop}: {err}");
        same_outputs(&full, &out, &[]);
    }
}

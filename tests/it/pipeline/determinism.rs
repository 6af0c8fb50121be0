//! Output bytes do not depend on thread count, batching or the verdict cache; more threads
//! than cores warn and change nothing.

use super::*;

#[test]
fn one_and_two_threads_write_identical_bytes() {
    let dir = TempDir::new("threads");
    let psfen = startpos_file(&dir, "a.psfen", 1500);
    let psv = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/teacher.psv");
    let cfg = config(
        &dir,
        &[&psfen, &psv],
        "[workers]\nbatch_records = 64\n[filter.mate]\nnodes = 3000\n",
    );
    let (o1, o2) = (dir.join("o1"), dir.join("o2"));
    run_ok(&[
        "run",
        &cfg,
        "--threads",
        "1",
        "--out",
        o1.to_str().unwrap(),
        "--quiet",
    ]);
    run_ok(&[
        "run",
        &cfg,
        "--threads",
        "2",
        "--out",
        o2.to_str().unwrap(),
        "--quiet",
    ]);
    same_outputs(&o1, &o2, &[]);
    let r = report(&o2);
    assert_eq!(run_report_part(&report(&o1)), run_report_part(&r));
    assert!(r["histograms"]["nodes"]["mate"]["count"].as_u64() > Some(0));
    assert_eq!(reconciles(&r), 1500 + 3012);
    assert_eq!(r["threads"], 2);
    // The keys the output contract promises to other tools (docs/references.md).
    for key in [
        "unknown",
        "nodes",
        "seconds",
        "positions_per_second",
        "threads",
        "config",
    ] {
        assert!(!r[key].is_null(), "report.json lacks {key}");
    }
    for reason in [
        "checkmated",
        "no_legal_moves",
        "mate",
        "mated",
        "repetition",
        "declaration",
        "duplicate",
    ] {
        assert!(
            r["records"]["dropped"][reason].is_u64(),
            "report.json lacks dropped.{reason}"
        );
    }
    assert!(r["nodes"].as_u64().unwrap() > 0);
}

/// The verdict cache changes no output: with it off and on (the default, 1 and 2 threads)
/// every file is the same, and the nodes it saved are exactly the nodes the uncached run
/// searched more (a cached verdict is the one a new search returns, node count included).
/// Hits are counted with one thread, where they do not depend on scheduling.
#[test]
fn verdict_cache_changes_no_output() {
    let dir = TempDir::new("verdict_cache");
    let psv = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/teacher.psv");
    let mut outs = Vec::new();
    for (name, cache, threads) in [("off", 0, "2"), ("on1", 64, "1"), ("on2", 64, "2")] {
        let cfg = config(
            &dir,
            &[&psv],
            &format!("[filter.mate]\nnodes = 3000\ncache_mb = {cache}\n"),
        );
        let o = dir.join(name);
        let out = o.to_str().unwrap();
        run_ok(&["run", &cfg, "--threads", threads, "--out", out, "--quiet"]);
        outs.push(o);
    }
    let off = report(&outs[0]);
    assert_eq!(off["verdict_cache"]["hits"], 0);
    for on in &outs[1..] {
        same_outputs(&outs[0], on, &[]);
        let r = report(on);
        let saved = r["verdict_cache"]["nodes_saved"].as_u64().unwrap();
        assert_eq!(
            r["nodes"].as_u64().unwrap() + saved,
            off["nodes"].as_u64().unwrap()
        );
        assert_eq!(r["config"]["filter"]["mate"]["cache_mb"], 64);
    }
    let one = report(&outs[1]);
    let hits = one["verdict_cache"]["hits"].as_u64().unwrap();
    let saved = one["verdict_cache"]["nodes_saved"].as_u64().unwrap();
    assert!(hits >= 10 && saved > 2_000, "{hits} hits, {saved} nodes");
}

/// `table_scope = "batch"`: a worker keeps its table across the positions of a batch (psv:
/// whole games). The output is still the same for 1 and 2 threads; the table's reuse is real
/// (fewer nodes than a table per position); and it changes verdicts only between `unknown`
/// and a proven mate: no other decision moves, and no position is decided two ways.
#[test]
fn table_per_batch_reuses_proofs_and_stays_thread_independent() {
    let dir = TempDir::new("table_scope");
    let psv = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/teacher.psv");
    let mut outs = Vec::new();
    for (name, scope, threads) in [
        ("position", "position", "2"),
        ("batch1", "batch", "1"),
        ("batch2", "batch", "2"),
    ] {
        let cfg = config(
            &dir,
            &[&psv],
            &format!(
                "[filter.mate]\nnodes = 10000\ncache_mb = 0\ntable_scope = \"{scope}\"\n\
                 [filter.dedup]\nenabled = false\n"
            ),
        );
        let o = dir.join(name);
        run_ok(&[
            "run",
            &cfg,
            "--threads",
            threads,
            "--out",
            o.to_str().unwrap(),
            "--quiet",
        ]);
        outs.push(o);
    }
    same_outputs(&outs[1], &outs[2], &[]);
    let (per_position, per_batch) = (report(&outs[0]), report(&outs[1]));
    assert_eq!(
        per_batch["config"]["filter"]["mate"]["table_scope"],
        "batch"
    );
    assert_eq!(reconciles(&per_batch), 3012);
    let nodes = |r: &Value| r["nodes"].as_u64().unwrap();
    assert!(
        nodes(&per_batch) < nodes(&per_position) * 19 / 20,
        "no reuse: {} nodes per batch against {} per position",
        nodes(&per_batch),
        nodes(&per_position)
    );
    let (a, b) = (decisions(&outs[0]), decisions(&outs[1]));
    let mut moved = 0;
    for i in a.keys().chain(b.keys()) {
        let (x, y) = (
            a.get(i).map_or("keep", String::as_str),
            b.get(i).map_or("keep", String::as_str),
        );
        if x != y {
            let pair = [x, y];
            assert!(
                pair.contains(&"keep") && (pair.contains(&"mate") || pair.contains(&"mated")),
                "record {i}: {x} per position, {y} per batch"
            );
            moved += 1;
        }
    }
    assert!(moved > 0, "the same verdicts: reuse settles nothing more");
}

#[test]
fn more_threads_than_cores_warn_and_change_no_output() {
    let (dir, cfg) = startpos_setup(
        "oversubscribed",
        300,
        "[workers]\ntable_mb = 1\nbatch_records = 16\n[filter.mate]\nnodes = 2000\n",
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // The most allowed (4 per core): more are capped, tested in lifecycle.rs.
    let many = (4 * cores).to_string();
    let (one, lots) = (dir.join("one"), dir.join("many"));
    let log = run_one_thread(&cfg, &one);
    assert!(!log.contains("warning"), "{log}");
    let log = run_ok(&[
        "run",
        &cfg,
        "--out",
        lots.to_str().unwrap(),
        "--threads",
        &many,
    ]);
    assert!(
        log.contains(&format!("{many} worker threads on {cores} cores")),
        "{log}"
    );
    same_outputs(&one, &lots, &[]);
}

//! A run controlled from its own process (`pipeline::control`, what the Python binding's
//! `run` uses): its counts end at the report's, the run it watches writes what an
//! unwatched one writes, and a stop ends it soon, committing nothing more.

use super::{config, report, run_ok};
use crate::support::{data, TempDir};
use posfilter::mate::{MateResult, Solver};
use posfilter::pipeline::config::{Config, Overrides, RawConfig};
use posfilter::pipeline::RunControl;
use posfilter::pipeline::{self, PipelineError};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The config at `path` as `posfilter run` resolves it, quiet, with `control`.
fn controlled(path: &str, out: &Path, control: &Arc<RunControl>) -> Config {
    let path = Path::new(path);
    let raw = RawConfig::load(path).unwrap();
    let overrides = Overrides {
        out_dir: Some(out.to_path_buf()),
        quiet: true,
        threads: Some(2),
        ..Overrides::default()
    };
    let mut config = Config::resolve(raw, path, &overrides).unwrap();
    config.set_control(control.clone());
    config
}

#[test]
fn a_watched_run_writes_what_the_command_writes_and_counts_to_its_report() {
    let dir = TempDir::new("control-watched");
    let cfg = config(
        &dir,
        &[&data("pipeline/startpos.psfen")],
        "[filter.mate]\nnodes = 2000",
    );
    run_ok(&[
        "run",
        &cfg,
        "--quiet",
        "--out",
        &dir.join("cli").display().to_string(),
    ]);
    let control = Arc::new(RunControl::new());
    let report_lib = pipeline::run(&controlled(&cfg, &dir.join("lib"), &control)).unwrap();
    let p = control.progress();
    assert_eq!(p.decided, report_lib.records.input);
    assert_eq!(p.kept, report_lib.records.kept);
    assert_eq!(p.dropped, report_lib.records.dropped.total());
    assert_eq!((p.disk_done, p.disk_total), (5000 * 32, 5000 * 32));
    for name in [
        "kept/part-00000.psfen",
        "audit.jsonl",
        "mates.jsonl",
        "manifest.json",
    ] {
        let cli = std::fs::read(dir.join("cli").join(name)).unwrap();
        assert_eq!(
            cli,
            std::fs::read(dir.join("lib").join(name)).unwrap(),
            "{name}"
        );
    }
    assert_eq!(
        report(&dir.join("cli"))["records"],
        report(&dir.join("lib"))["records"]
    );
}

#[test]
fn a_stopped_run_ends_within_a_second_and_claims_no_complete_output() {
    let dir = TempDir::new("control-stopped");
    // Budgets no position exhausts quickly: without the stop this runs for hours.
    let extra = "[filter.mate]\nnodes = 1000000000\ncache_mb = 0";
    let cfg = config(&dir, &[&data("pipeline/startpos.psfen")], extra);
    let control = Arc::new(RunControl::new());
    let config = controlled(&cfg, &dir.join("out"), &control);
    let (result, took) = std::thread::scope(|s| {
        let run = s.spawn(|| pipeline::run(&config));
        std::thread::sleep(Duration::from_millis(1500));
        assert!(!run.is_finished());
        let stopped = Instant::now();
        control.stop();
        let result = run.join().unwrap();
        (result, stopped.elapsed())
    });
    assert!(
        matches!(result, Err(PipelineError::Interrupted)),
        "{result:?}"
    );
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert!(!dir.join("out/manifest.json").exists());
    assert!(!dir.join("out/report.json").exists());
}

#[test]
fn a_solver_stops_at_its_abort_flag() {
    // cshogi leaves it unknown at 100,000 nodes, and we after 3,000,000.
    let sfen = "+S4+P2l/7g1/1P4g1P/p2P1l2p/1KS1P1kp1/P2G3r1/5+p+p2/2p6/LN7 b 2BG2S3NLPr5p 201";
    let mut pos = posfilter::codec::text::parse_position(sfen).unwrap();
    let mut solver = Solver::new(4);
    let flag = Arc::new(AtomicBool::new(true));
    solver.set_abort(Some(flag.clone()));
    let limits = posfilter::mate::Limits {
        nodes: u64::MAX,
        ..Default::default()
    };
    let v = solver.solve(&mut pos, &limits).unwrap();
    assert_eq!(v.result, MateResult::Unknown);
    assert!(v.nodes <= 1024, "{}", v.nodes);
    solver.set_abort(None);
    let limits = posfilter::mate::Limits {
        nodes: 5_000,
        ..Default::default()
    };
    assert_eq!(solver.solve(&mut pos, &limits).unwrap().nodes, 5_000);
}

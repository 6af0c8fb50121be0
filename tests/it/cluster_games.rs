//! A job split over tasks on game inputs: hcpe3, .pack and sbinpack (batches of whole
//! games, framed from each file's start) and hcpe with its games inferred from the best
//! moves (batches cut where the chain breaks), with repetition, mates, dedup across the
//! formats (the same games in each) and the kept positions written back as games. For N
//! shards and M buckets the gathered directory holds one run's bytes: a part boundary is a
//! game boundary exactly where one run's batches end.

use crate::cluster::{gather, reduce, same_as_one_run, shards};
use crate::games::unzstd;
use crate::pipeline::config;
use crate::pipeline::games::first_games;
use crate::support::{jsonl, TempDir};
use posfilter::codec::game::GameFormat;
use std::path::Path;

#[test]
fn game_format_shards_gather_to_one_run() {
    let dir = TempDir::new("cluster-games");
    let games = if cfg!(debug_assertions) { 12 } else { 30 };
    let mut paths = Vec::new();
    for format in GameFormat::ALL {
        let path = dir.join(&format!("in.{}", format.name()));
        std::fs::write(&path, first_games(format, games)).unwrap();
        paths.push(path);
    }
    let starts = jsonl("codec/teacher.games.jsonl");
    let end = starts[games]["first_record"].as_u64().unwrap() as usize;
    let hcpe = dir.join("in.hcpe");
    std::fs::write(&hcpe, &unzstd("codec/teacher.hcpe.zst")[..end * 38]).unwrap();
    paths.push(hcpe);
    let refs: Vec<&std::path::Path> = paths.iter().map(|p| p.as_path()).collect();
    let cfg = config(
        &dir,
        &refs,
        "[workers]\nbatch_records = 97\n[filter.mate]\nnodes = 300\n",
    );
    let single = dir.join("single");
    crate::cluster::ok(&["run", &cfg, "--out", single.to_str().unwrap(), "--quiet"]);
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(single.join("report.json")).unwrap()).unwrap();
    for key in ["duplicate", "mate", "repetition"] {
        assert!(r["records"]["dropped"][key].as_u64().unwrap() > 0, "{key}");
    }
    assert!(r["games_written"].as_u64().unwrap() > 0);
    assert!(r["hcpe_games_inferred"].as_u64().unwrap() > 0);
    let cases = [(1, 1), (2, 2), (3, 1), (5, 2)];
    gathers_to_one_run(&cfg, &dir, &single, "games", &cases);
}

/// For each `(N, M)` of `cases`: `N` shards of `cfg`, the reduce of `M` buckets (if more
/// than one) and the gather hold the bytes of one run (`single`).
fn gathers_to_one_run(cfg: &str, dir: &TempDir, single: &Path, what: &str, cases: &[(usize, u32)]) {
    for &(n, m) in cases {
        let tag = format!("{what}{n}{m}").replace(' ', "-");
        let dirs = shards(cfg, dir, &tag, n, m);
        let lists = dir.join(&format!("dups{tag}"));
        let given = (m > 1).then(|| {
            reduce(&dirs, m, &lists);
            lists.as_path()
        });
        let merged = dir.join(&format!("merged{tag}"));
        let (code, err) = gather(&dirs, given, &merged);
        assert_eq!(code, 0, "N={n} M={m}: {err}");
        same_as_one_run(single, &merged, &format!("{what} N={n} M={m}"));
    }
}

/// hcpe whose best moves chain past the reader's look-ahead (the shard plan's whole-file
/// fallback, `shard_plan::parts_of_hcpe_with_a_chain_longer_than_the_look_ahead_...`):
/// the shards gathered are still one run.
#[test]
fn hcpe_with_a_chain_longer_than_the_look_ahead_shards_gather_to_one_run() {
    let dir = TempDir::new("cluster-hcpe-chain");
    let hcpe = dir.join("chain.hcpe");
    std::fs::write(&hcpe, crate::shard_plan::hcpe_with_a_long_chain(17_500)).unwrap();
    let cfg = config(
        &dir,
        &[hcpe.as_path()],
        "[workers]\nbatch_records = 1000\n[filter.mate]\nenabled = false\n",
    );
    let single = dir.join("single");
    crate::cluster::ok(&["run", &cfg, "--out", single.to_str().unwrap(), "--quiet"]);
    gathers_to_one_run(&cfg, &dir, &single, "hcpe chain", &[(2, 1), (3, 2)]);
}

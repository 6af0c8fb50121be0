//! The dedup reduce across shards (`cluster::reduce`, `io::key_run`, `io::dup_list`): for
//! records cut into any number of shards, keys split into any number of buckets, the
//! duplicate lists of all buckets together are exactly the duplicates one run's dedup index
//! (`filter::FirstSeen`, reference pools inserted first) finds, each with the same first
//! record; a shard's key logs resume from a checkpoint to the same runs; and a set of shard
//! directories that is not one complete job is refused, naming the directory.

use crate::support::{bin, Rng, TempDir};
use posfilter::cluster::manifest::{
    load_shard_set, JobIdentity, ShardManifest, ShardSetError, SHARD_MANIFEST,
};
use posfilter::cluster::reduce::reduce_bucket;
use posfilter::filter::first_seen::identity;
use posfilter::filter::FirstSeen;
use posfilter::io::dup_list::{dup_list_name, DupListReader, Duplicate};
use posfilter::io::key_run::{KeyEntry, KeyRunWriter, REFERENCE};
use posfilter::shogi::Fingerprint;
use std::path::{Path, PathBuf};

/// A generated job: kept records (index, key) in input order and reference pool keys.
struct Records {
    kept: Vec<(u64, Fingerprint)>,
    reference: Vec<Fingerprint>,
    total: u64,
}

/// Keys drawn from a small pool (so many repeat), some differing from a pool key only in
/// the bits a run's dedup index does not compare (the same position to it), some records
/// not kept by the other stages (no key), and reference keys partly from the pool.
fn records(rng: &mut Rng, total: u64) -> Records {
    let pool: Vec<u128> = (0..total / 3 + 1)
        .map(|_| (rng.next() as u128) << 64 | rng.next() as u128)
        .collect();
    let mut kept = Vec::new();
    for index in 0..total {
        if rng.below(10) < 3 {
            continue; // dropped by another stage, or rejected: no key
        }
        let mut key = pool[rng.below(pool.len())];
        if rng.below(6) == 0 {
            key ^= (rng.next() as u128 & 0xffff_ffff) << 64; // ignored bits
        }
        kept.push((index, Fingerprint(key)));
    }
    let reference = (0..total / 20)
        .map(|i| match i % 2 {
            0 => Fingerprint(pool[rng.below(pool.len())]),
            _ => Fingerprint((rng.next() as u128) << 64 | rng.next() as u128),
        })
        .collect();
    Records {
        kept,
        reference,
        total,
    }
}

/// What one run decides: every duplicate with its first record (the index itself).
fn one_run(r: &Records) -> Vec<Duplicate> {
    let mut index = FirstSeen::with_capacity(0);
    for &k in &r.reference {
        index.first_or_insert(k, u64::MAX);
    }
    r.kept
        .iter()
        .filter_map(|&(i, k)| {
            index
                .first_or_insert(k, i)
                .map(|first| Duplicate { index: i, first })
        })
        .collect()
}

fn job(buckets: u32, shards: usize) -> JobIdentity {
    JobIdentity {
        version: "test".into(),
        config: serde_json::json!({"filter": {"dedup": {"mirror": false}}}),
        inputs: Vec::new(),
        plan: Vec::new(),
        file_records: vec![shards as u64],
        buckets,
    }
}

/// Writes the shard directories of `r` cut at `cuts` (shard `i` holds indices
/// `cuts[i]..cuts[i + 1]`) with `m` buckets; reference keys go to the shards in turn. Shard
/// 0's logs are checkpointed half way, written on with junk, and resumed.
fn write_shards(dir: &Path, r: &Records, cuts: &[u64], m: u32) -> Vec<PathBuf> {
    let n = cuts.len() - 1;
    let mut dirs = Vec::new();
    for i in 0..n {
        let shard = dir.join(format!("shard-{i}"));
        let keys = shard.join("keys");
        let mut w = KeyRunWriter::create(&keys, m).unwrap();
        let mut entries: Vec<KeyEntry> = r
            .kept
            .iter()
            .filter(|(idx, _)| (cuts[i]..cuts[i + 1]).contains(idx))
            .map(|&(index, k)| KeyEntry {
                key: identity(k),
                index,
            })
            .collect();
        entries.extend(r.reference.iter().skip(i).step_by(n).map(|&k| KeyEntry {
            key: identity(k),
            index: REFERENCE,
        }));
        let half = entries.len() / 2;
        for e in &entries[..half] {
            w.append(*e).unwrap();
        }
        if i == 0 {
            let marks = w.checkpoint().unwrap();
            for e in entries.iter().take(9) {
                w.append(*e).unwrap(); // written after the checkpoint: cut off on resume
            }
            drop(w);
            w = KeyRunWriter::resume(&keys, &marks).unwrap();
        }
        for e in &entries[half..] {
            w.append(*e).unwrap();
        }
        let runs = w.finish().unwrap();
        let manifest = ShardManifest {
            shard: i,
            shards: n,
            job: job(m, n),
            runs,
            config_file: "pipeline.toml".into(),
            working_dir: dir.display().to_string(),
            records: cuts[i + 1] - cuts[i],
            resumed_from: None,
        };
        std::fs::write(
            shard.join(SHARD_MANIFEST),
            serde_json::to_vec(&manifest).unwrap(),
        )
        .unwrap();
        dirs.push(shard);
    }
    dirs
}

fn read_dups(dir: &Path, m: u32) -> Vec<Duplicate> {
    let mut all = Vec::new();
    for j in 0..m {
        let mut r = DupListReader::open(&dir.join(dup_list_name(j, m)), j, m).unwrap();
        while let Some(d) = r.next_dup().unwrap() {
            all.push(d);
        }
    }
    all.sort();
    all
}

#[test]
fn buckets_together_find_what_one_run_finds() {
    let dir = TempDir::new("dedup-reduce");
    let mut rng = Rng(0x5eed_d0b5);
    for case in 0..12 {
        let total = 2000 + rng.below(3000) as u64;
        let r = records(&mut rng, total);
        let want = one_run(&r);
        assert!(want.iter().any(|d| d.first == REFERENCE) && want.len() > 500);
        let n = 1 + case % 5;
        let mut cuts: Vec<u64> = (1..n).map(|_| rng.below(r.total as usize) as u64).collect();
        cuts.sort();
        cuts.insert(0, 0);
        cuts.push(r.total);
        let m = [1, 2, 3, 7, 16][case % 5];
        let case_dir = dir.join(&format!("case-{case}"));
        let dirs = write_shards(&case_dir, &r, &cuts, m);
        let shards = load_shard_set(&dirs).unwrap();
        let out = case_dir.join("dups");
        let mut keys = 0;
        for j in 0..m {
            let counts = reduce_bucket(&shards, j, m, &out).unwrap();
            keys += counts.entries;
        }
        assert_eq!(keys as usize, r.kept.len() + r.reference.len());
        assert_eq!(
            read_dups(&out, m),
            want,
            "case {case}: {n} shards, {m} buckets"
        );
    }
}

#[test]
fn a_set_that_is_not_one_complete_job_is_refused() {
    let dir = TempDir::new("dedup-refuse");
    let mut rng = Rng(0x5eed_0bad);
    let r = records(&mut rng, 500);
    let dirs = write_shards(&dir.0, &r, &[0, 100, 300, 500], 2);
    let err = |dirs: &[PathBuf]| load_shard_set(dirs).unwrap_err().to_string();
    let e = err(&[dirs[0].clone(), dirs[2].clone()]);
    assert!(e.contains("shard(s) 1 of 3 missing"), "{e}");
    let e = err(&[
        dirs[0].clone(),
        dirs[1].clone(),
        dirs[1].clone(),
        dirs[2].clone(),
    ]);
    assert!(e.contains("both hold shard 1 of 3"), "{e}");
    // A shard of another job: another configuration.
    let path = dirs[2].join(SHARD_MANIFEST);
    let mut m: ShardManifest = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    m.job.config["filter"]["dedup"]["mirror"] = true.into();
    std::fs::write(&path, serde_json::to_vec(&m).unwrap()).unwrap();
    let e = err(&dirs);
    assert!(
        e.contains("shard-2 is shard 2 of another job") && e.contains("configurations"),
        "{e}"
    );
    // An incomplete shard: its task never wrote shard.json.
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(
        load_shard_set(&dirs),
        Err(ShardSetError::Incomplete { .. })
    ));
    let e = err(&dirs);
    assert!(e.contains("shard-2: not a complete shard"), "{e}");
}

#[test]
fn merge_dedup_partition_on_the_command_line() {
    let dir = TempDir::new("dedup-cli");
    let mut rng = Rng(0x5eed_0c11);
    let r = records(&mut rng, 3000);
    let dirs = write_shards(&dir.0, &r, &[0, 1000, 2000, 3000], 2);
    let out = dir.join("dups");
    let mut want = one_run(&r);
    want.sort();
    for j in 0..2 {
        let o = std::process::Command::new(bin())
            .args(["merge", "--dedup-partition", &format!("{j}/2"), "--out"])
            .arg(&out)
            .args(&dirs)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{stderr}");
        assert!(
            stderr.contains(&format!("bucket {j} of 2")) && stderr.contains("keys/s"),
            "{stderr}"
        );
    }
    assert_eq!(read_dups(&out, 2), want);
    // The shards wrote 2 buckets: another M is refused with the right one.
    let o = std::process::Command::new(bin())
        .args(["merge", "--dedup-partition", "0/4", "--out"])
        .arg(&out)
        .args(&dirs)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && stderr.contains("give J/2"),
        "{stderr}"
    );
    let o = std::process::Command::new(bin())
        .args(["merge", "--dedup-partition", "4/4", "--out"])
        .arg(&out)
        .args(&dirs)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("0 <= J < M"));
}

#!/usr/bin/env python3
"""The overhead of a job split over tasks (issue #36): N shards run one after another, the
dedup reduce (M > 1) and the gather, against one `posfilter run` of the same configuration,
in CPU seconds (user + sys of each process, from wait4) and peak RSS per task.

usage: split_overhead.py INPUT.psfen [--bin NAME=PATH ...] [--rounds R] [--shards N]
                         [--buckets M] [--mate] [--zstd] [--callgrind]

Every round runs each binary's single run and split job, interleaved, so that all see the
same load; medians over the rounds are printed with the load average. Every merged output
is compared with its single run (every file byte for byte; report.json without the keys
docs/cluster.md leaves out). --mate: the mate filter on at its default budget (otherwise
off); --zstd: kept shards compressed (otherwise the default: plain for a plain input);
--callgrind: one more pass of each stage under valgrind callgrind (instructions, which the
machine's load does not change). The log's size is printed as bytes per input record.

The figures in docs/performance.md use 3,000,000 positions of seeded cshogi playouts:
`python3 -c 'import sys; sys.path.insert(0, "benches"); import pipeline_compare as p;
p.playouts("3m.psfen", 3_000_000)'` (needs `pip install cshogi==1.1.0 numpy`), and for the
mate-on check data/startpos.psfen.
"""
import argparse
import filecmp
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# report.json keys that differ between two single runs of one input (docs/cluster.md).
VOLATILE = {"seconds", "positions_per_second", "throughput", "threads", "verdict_cache",
            "nodes", "run", "resumed_from"}


def rusage(cmd, callgrind=None):
    """(cpu seconds, max rss MiB, instructions or None) of `cmd`."""
    if callgrind:
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={callgrind}"] + cmd
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, ru = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {err.decode(errors='replace')}")
    instr = None
    if callgrind:
        with open(callgrind) as f:
            for line in f:
                m = re.match(r"(?:summary|totals): (\d+)", line)
                if m:
                    instr = int(m.group(1))
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, instr


def config(tmp, inp, mate, zstd):
    path = os.path.join(tmp, "pipeline.toml")
    with open(path, "w") as f:
        f.write(f'[input]\npaths = ["{os.path.abspath(inp)}"]\n[output]\ndir = "out"\n')
        if zstd:
            f.write('compression = "zstd"\n')
        f.write(f"[filter.mate]\nenabled = {'true' if mate else 'false'}\n")
    return path


def one_pass(binary, cfg, work, n, m, cg=None):
    """Runs the single run and the split job once; {stage: [(cpu, rss, instr)]}."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cgf = (lambda name: os.path.join(work, f"cg-{name}")) if cg else (lambda name: None)
    base = [binary, "run", cfg, "--threads", "1", "--quiet"]
    stages = {"one run": [rusage(base + ["--out", f"{work}/one"], cgf("one"))]}
    stages["shard"] = [
        rusage(base + ["--out", f"{work}/shard-{i}", "--shard", f"{i}/{n}", "--buckets", str(m)],
               cgf(f"shard{i}"))
        for i in range(n)]
    shards = [f"{work}/shard-{i}" for i in range(n)]
    gather = [binary, "merge"] + shards + ["--out", f"{work}/merged"]
    if m > 1:
        stages["reduce"] = [
            rusage([binary, "merge", "--dedup-partition", f"{j}/{m}"] + shards
                   + ["--out", f"{work}/dups"], cgf(f"reduce{j}"))
            for j in range(m)]
        gather += ["--dedup", f"{work}/dups"]
    stages["gather"] = [rusage(gather, cgf("gather"))]
    log = sum(os.path.getsize(f"{s}/outcomes.bin") for s in shards)
    keys = sum(os.path.getsize(p) for s in shards for p in glob.glob(f"{s}/keys/*.run"))
    check_same(f"{work}/one", f"{work}/merged")
    return stages, log, keys


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in VOLATILE}
    return v


def check_same(one, merged):
    for root, _, files in os.walk(one):
        for name in files:
            a = os.path.join(root, name)
            b = os.path.join(merged, os.path.relpath(a, one))
            if name == "report.json":
                with open(a) as fa, open(b) as fb:
                    ra, rb = json.load(fa), json.load(fb)
                for r in (ra, rb):
                    r.get("histograms", {}).pop("micros", None)
                    r.get("config", {}).get("workers", {}).pop("threads", None)
                if strip(ra) != strip(rb):
                    raise SystemExit(f"{b}: report differs from the single run's")
            elif name not in ("report.html", "manifest.json", "posfilter.lock"):
                if not filecmp.cmp(a, b, shallow=False):
                    raise SystemExit(f"{b} differs from the single run's")


def records(inp):
    return os.path.getsize(inp) // 32


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("--bin", action="append", default=[])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--buckets", type=int, default=1)
    ap.add_argument("--mate", action="store_true")
    ap.add_argument("--zstd", action="store_true")
    ap.add_argument("--callgrind", action="store_true")
    a = ap.parse_args()
    bins = [b.split("=", 1) for b in a.bin] or [["head", f"{ROOT}/target/release/posfilter"]]
    tmp = tempfile.mkdtemp(prefix="split-overhead-")
    cfg = config(tmp, a.input, a.mate, a.zstd)
    n_rec = records(a.input)
    runs = {name: [] for name, _ in bins}
    loads = []
    for _ in range(a.rounds):
        for name, path in bins:
            loads.append(os.getloadavg()[0])
            runs[name].append(one_pass(path, cfg, f"{tmp}/{name}", a.shards, a.buckets))
    print(f"input {a.input}: {n_rec} records; N = {a.shards}, M = {a.buckets}, mate "
          f"{'on' if a.mate else 'off'}, {'zstd' if a.zstd else 'plain'} output; {a.rounds} "
          f"rounds; load average {min(loads):.1f}-{max(loads):.1f}\n")
    print("| binary | one run CPU | shards CPU (sum) | reduce CPU (sum) | gather CPU | "
          "overhead | rounds' overheads | log bytes/record | key run bytes/record |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, _ in bins:
        def cpu(p, stage):
            return sum(c for c, _, _ in p[0].get(stage, []))
        ovh = [(cpu(p, "shard") + cpu(p, "reduce") + cpu(p, "gather")) / cpu(p, "one run") - 1
               for p in runs[name]]
        med = lambda stage: statistics.median(cpu(p, stage) for p in runs[name])
        log, keys = runs[name][0][1], runs[name][0][2]
        print(f"| {name} | {med('one run'):.3f} s | {med('shard'):.3f} s | {med('reduce'):.3f} s "
              f"| {med('gather'):.3f} s | {100 * statistics.median(ovh):.1f} % | "
              f"{' '.join(f'{100 * o:.1f}' for o in ovh)} | {log / n_rec:.1f} | "
              f"{keys / n_rec:.1f} |")
    print("\nper task (medians): CPU s, peak RSS MiB")
    for name, _ in bins:
        for stage in ("one run", "shard", "reduce", "gather"):
            cells = [x for p in runs[name] for x in p[0].get(stage, [])]
            if cells:
                print(f"  {name} {stage}: {statistics.median(c for c, _, _ in cells):.3f} s, "
                      f"{statistics.median(r for _, r, _ in cells):.0f} MiB (max "
                      f"{max(r for _, r, _ in cells):.0f})")
    if a.callgrind:
        print("\ninstructions (callgrind, one pass)")
        for name, path in bins:
            stages, _, _ = one_pass(path, cfg, f"{tmp}/{name}-cg", a.shards, a.buckets, cg=True)
            tot = {s: sum(i for _, _, i in v) for s, v in stages.items()}
            split = sum(v for s, v in tot.items() if s != "one run")
            print(f"  {name}: " + ", ".join(f"{s} {v / 1e9:.3f} G" for s, v in tot.items())
                  + f"; overhead {100 * (split / tot['one run'] - 1):.1f} %")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

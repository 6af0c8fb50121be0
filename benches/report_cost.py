#!/usr/bin/env python3
"""The cost of the run report (report.json's run keys and report.html), measured against a
build without it, side by side in one script so that both see the same load.

usage: report_cost.py BASE_BIN BIG.psfen [--reps N] [--callgrind-records N]

BASE_BIN is `posfilter` built from the commit before the report was recorded by the run
(for instance `git archive <commit> | tar -x -C /tmp/base && cargo build --release` there);
the build measured is target/release/posfilter. BIG.psfen is a large PackedSfen file (the
figures in docs/performance.md use 10,000,000 positions of seeded cshogi playouts:
`python3 -c 'import sys; sys.path.insert(0, "benches"); import pipeline_compare as p;
p.playouts("big.psfen", 10_000_000)'`).

Measures, interleaving the two builds in every repetition:
  1. the bundled sample (pipeline.toml, mate filter on), wall time;
  2. BIG.psfen with the mate filter off (other settings default), wall time;
  3. `posfilter report OUT` on both outputs: the page alone, as the run writes it at its end;
  4. with --callgrind-records N: instructions (valgrind callgrind, 1 thread) of a mate-off
     run on the first N records of BIG.psfen, a count the machine's load does not change.
Prints Markdown tables with medians, and the load average.
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NEW = os.path.join(ROOT, "target", "release", "posfilter")


def wall(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def mate_off_config(tmp, name, inp):
    cfg = os.path.join(tmp, f"{name}.toml")
    with open(cfg, "w") as f:
        f.write(f'[input]\npaths = ["{inp}"]\n[filter.mate]\nenabled = false\n')
    return cfg


def callgrind(binary, cfg, out, tmp):
    log = os.path.join(tmp, "cg.out")
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={log}", binary, "run", cfg,
         "--out", out, "--threads", "1", "--quiet"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(log) as f:
        for line in f:
            m = re.match(r"summary: (\d+)", line) or re.match(r"totals: (\d+)", line)
            if m:
                return int(m.group(1))
    raise RuntimeError("no instruction total in callgrind output")


def row(name, base, new):
    b, n = statistics.median(base), statistics.median(new)
    return f"| {name} | {b:.3f} | {n:.3f} | {n - b:+.3f} ({100 * (n - b) / b:+.2f} %) | {len(base)} |"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("big")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--callgrind-records", type=int, default=0)
    ap.add_argument("--skip-sample", action="store_true")
    a = ap.parse_args()
    bins = {"base": os.path.abspath(a.base), "new": NEW}
    sample = os.path.join(ROOT, "pipeline.toml")
    times = {k: {"base": [], "new": []} for k in ("sample", "big", "page_sample", "page_big")}
    with tempfile.TemporaryDirectory() as tmp:
        big_cfg = mate_off_config(tmp, "big", os.path.abspath(a.big))
        for rep in range(a.reps):
            order = ["base", "new"] if rep % 2 == 0 else ["new", "base"]
            for who in order:
                out_s, out_b = os.path.join(tmp, f"s-{who}"), os.path.join(tmp, f"b-{who}")
                if not a.skip_sample:
                    times["sample"][who].append(
                        wall([bins[who], "run", sample, "--out", out_s, "--quiet"]))
                times["big"][who].append(
                    wall([bins[who], "run", big_cfg, "--out", out_b, "--quiet"]))
                print(f"rep {rep} {who}: " + ", ".join(
                    f"{k} {v[who][-1]:.3f}" for k, v in times.items() if v[who]), flush=True)
            for key, out in (("page_sample", "s-new"), ("page_big", "b-new")):
                if os.path.exists(os.path.join(tmp, out, "report.json")):
                    times[key]["new"].append(wall([NEW, "report", os.path.join(tmp, out)]))
        print(f"\nload average at the end: {open('/proc/loadavg').read().strip()}\n")
        print("| run | base s | new s | new − base | reps |")
        print("|---|---|---|---|---|")
        for key, name in (("sample", "bundled sample, mate on"),
                          ("big", f"{os.path.basename(a.big)}, mate off")):
            if times[key]["base"]:
                print(row(name, times[key]["base"], times[key]["new"]))
        for key, name in (("page_sample", "`posfilter report` on the sample's output"),
                          ("page_big", "`posfilter report` on the big run's output")):
            if times[key]["new"]:
                print(f"| {name} | | {statistics.median(times[key]['new']):.3f} | | {len(times[key]['new'])} |")
        if a.callgrind_records:
            part = os.path.join(tmp, "part.psfen")
            with open(a.big, "rb") as src, open(part, "wb") as dst:
                dst.write(src.read(32 * a.callgrind_records))
            cfg = mate_off_config(tmp, "part", part)
            print(f"\ncallgrind, mate off, 1 thread, {a.callgrind_records:,} records:\n")
            print("| build | instructions | per record |")
            print("|---|---|---|")
            counts = {}
            for who in ("base", "new"):
                counts[who] = callgrind(bins[who], cfg, os.path.join(tmp, f"cg-{who}"), tmp)
                print(f"| {who} | {counts[who]:,} | {counts[who] / a.callgrind_records:.1f} |")
            d = counts["new"] - counts["base"]
            print(f"| new − base | {d:+,} | {d / a.callgrind_records:+.1f} |")


if __name__ == "__main__":
    main()

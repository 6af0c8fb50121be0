#!/usr/bin/env python3
"""End-to-end pipeline timings, peers side by side in one run.

Runs, on one PackedSfen file:
  1. `posfilter run` at the given node budget with 1 and with 2 threads (scaling);
  2. the cshogi DfPn loop (benches/peer_cshogi_pipeline.py) at the same budget;
  3. `posfilter run` with the mate filter off (decode, validity, declaration, dedup, write)
     against the raw sequential read speed of the same file (read into memory, page cache
     warm).
Prints a Markdown table. Needs a release build (`cargo build --release`) and, for the peer,
`pip install cshogi==1.1.0`.

usage: pipeline_compare.py FILE.psfen [--nodes N] [--repeat-file K]
  --repeat-file K  concatenates the file K times for the mate-off throughput run (dedup off)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "posfilter")


def run_posfilter(inp, threads, extra, tmp):
    cfg = os.path.join(tmp, f"p{threads}.toml")
    out = os.path.join(tmp, f"out{threads}")
    with open(cfg, "w") as f:
        f.write(f'[input]\npaths = ["{inp}"]\n[output]\ndir = "{out}"\ncompression = "none"\n{extra}\n')
    t = time.perf_counter()
    subprocess.run([BIN, "run", cfg, "--threads", str(threads), "--quiet"], check=True)
    wall = time.perf_counter() - t
    with open(os.path.join(out, "report.json")) as f:
        rep = json.load(f)
    return wall, rep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--repeat-file", type=int, default=50)
    a = ap.parse_args()
    inp = os.path.abspath(a.file)
    n = os.path.getsize(inp) // 32
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        mate = f"[filter.mate]\nnodes = {a.nodes}\n"
        w1, r1 = run_posfilter(inp, 1, mate, tmp)
        w2, r2 = run_posfilter(inp, 2, mate, tmp)
        mates1 = sum(r1["records"]["dropped"][k] for k in ("mate", "mated", "checkmated"))
        rows.append(("posfilter, 1 thread", n, w1, n / w1, mates1, r1["unknown"]))
        mates2 = sum(r2["records"]["dropped"][k] for k in ("mate", "mated", "checkmated"))
        rows.append(("posfilter, 2 threads", n, w2, n / w2, mates2, r2["unknown"]))
        peer = subprocess.run(
            [sys.executable, os.path.join(ROOT, "benches", "peer_cshogi_pipeline.py"), inp, "--nodes", str(a.nodes)],
            check=True, capture_output=True, text=True,
        )
        p = json.loads(peer.stdout)
        rows.append(("cshogi DfPn loop (Python), 1 thread", p["records"], p["seconds"], p["positions_per_second"], p["mates"], None))
        big = os.path.join(tmp, "big.psfen")
        data = open(inp, "rb").read()
        with open(big, "wb") as f:
            for _ in range(a.repeat_file):
                f.write(data)
        nb = os.path.getsize(big) // 32
        t = time.perf_counter()
        with open(big, "rb") as f:
            while f.read(1 << 24):
                pass
        raw = time.perf_counter() - t
        t = time.perf_counter()
        with open(big, "rb") as f:
            while f.read(1 << 24):
                pass
        raw = min(raw, time.perf_counter() - t)
        off = "[filter.mate]\nenabled = false\n[filter.dedup]\nenabled = false\n"
        w, _ = run_posfilter(big, 2, off, tmp)
        rows.append(("posfilter, mate filter off, 2 threads", nb, w, nb / w, None, None))
        rows.append(("raw sequential read of the same file", nb, raw, nb / raw, None, None))
    print(f"nodes per position: {a.nodes}; scaling 2 vs 1 thread: {w1 / w2:.2f}x; "
          f"vs cshogi (2 threads): {(n / w2) / p['positions_per_second']:.1f}x; "
          f"mate-off vs raw read: {100 * raw / w:.1f}%")
    print("| run | records | seconds | records/s | mates | unknown |")
    print("|---|---|---|---|---|---|")
    for name, recs, secs, rate, mates, unk in rows:
        print(f"| {name} | {recs} | {secs:.2f} | {rate:,.0f} | {'' if mates is None else mates} | {'' if unk is None else unk} |")


if __name__ == "__main__":
    main()

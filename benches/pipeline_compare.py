#!/usr/bin/env python3
"""End-to-end pipeline timings, peers side by side in one run.

Runs, on one PackedSfen file:
  1. `posfilter run` at the given node budget with 1 and with 2 threads (scaling);
  2. the cshogi DfPn loop (benches/peer_cshogi_pipeline.py) at the same budget;
  3. `posfilter run` with the mate filter off (decode, validity, declaration, write; dedup
     off and on) on a file of distinct positions (cshogi random playouts, seeded), against
     the raw sequential read speed of that file: page cache warm, and cold (caches dropped,
     when /proc/sys/vm/drop_caches is writable, i.e. as root).
Prints a Markdown table. Needs a release build (`cargo build --release`) and
`pip install cshogi==1.1.0` (peer and playouts).

usage: pipeline_compare.py FILE.psfen [--nodes N] [--records N] [--skip-mate]
  --records N   distinct positions for the mate-off run (default 4,000,000: 128 MB)
  --skip-mate   only the mate-off run
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


def playouts(path, n, seed=12345):
    """Writes `n` PackedSfen positions of seeded random games (up to 300 plies each)."""
    import cshogi
    import numpy as np
    import random
    rng = random.Random(seed)
    board = cshogi.Board()
    buf = np.zeros(32, dtype=np.uint8)
    written = 0
    with open(path, "wb") as f:
        while written < n:
            board.reset()
            for _ in range(300):
                moves = list(board.legal_moves)
                if not moves or written >= n:
                    break
                board.push(rng.choice(moves))
                board.to_psfen(buf)
                f.write(buf.tobytes())
                written += 1


def drop_caches():
    """Empties the page cache; False when not allowed."""
    try:
        subprocess.run(["sync"], check=True)
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def read_all(path):
    t = time.perf_counter()
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--records", type=int, default=4_000_000)
    ap.add_argument("--skip-mate", action="store_true")
    a = ap.parse_args()
    inp = os.path.abspath(a.file)
    n = os.path.getsize(inp) // 32
    rows = []
    notes = []
    with tempfile.TemporaryDirectory() as tmp:
        if not a.skip_mate:
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
            for t, r in ((1, r1), (2, r2)):
                c = r.get("verdict_cache", {})
                notes.append(f"{t} thread(s): {r['nodes']:,} nodes searched, {c.get('hits', 0)} repeated "
                             f"positions from the verdict cache ({c.get('nodes_saved', 0):,} nodes saved)")
            notes.append(f"nodes per position: {a.nodes}; scaling 2 vs 1 thread: {w1 / w2:.2f}x; "
                         f"vs cshogi (2 threads): {(n / w2) / p['positions_per_second']:.1f}x")
        big = os.path.join(tmp, "distinct.psfen")
        playouts(big, a.records)
        nb = os.path.getsize(big) // 32
        warm = min(read_all(big), read_all(big))
        off = "[filter.mate]\nenabled = false\n"
        w_off, _ = run_posfilter(big, 2, off + "[filter.dedup]\nenabled = false\n", tmp)
        w_off = min(w_off, run_posfilter(big, 2, off + "[filter.dedup]\nenabled = false\n", tmp)[0])
        w_dd, r_dd = run_posfilter(big, 2, off, tmp)
        w_dd = min(w_dd, run_posfilter(big, 2, off, tmp)[0])
        rows.append(("raw sequential read, page cache warm", nb, warm, nb / warm, None, None))
        rows.append(("posfilter, mate filter off, dedup off, 2 threads, warm", nb, w_off, nb / w_off, None, None))
        rows.append((f"posfilter, mate filter off, dedup on ({r_dd['records']['dropped']['duplicate']} dropped), 2 threads, warm", nb, w_dd, nb / w_dd, None, None))
        notes.append(f"mate-off vs warm read: dedup off {100 * warm / w_off:.1f}%, dedup on {100 * warm / w_dd:.1f}%")
        if drop_caches():
            cold = read_all(big)
            drop_caches()
            w_cold, _ = run_posfilter(big, 2, off, tmp)
            rows.append(("raw sequential read, caches dropped", nb, cold, nb / cold, None, None))
            rows.append(("posfilter, mate filter off, dedup on, 2 threads, caches dropped", nb, w_cold, nb / w_cold, None, None))
            notes.append(f"mate-off (dedup on) vs cold read: {100 * cold / w_cold:.1f}%")
        else:
            notes.append("cold-cache rows skipped: /proc/sys/vm/drop_caches is not writable")
    for note in notes:
        print(note)
    print("| run | records | seconds | records/s | mates | unknown |")
    print("|---|---|---|---|---|---|")
    for name, recs, secs, rate, mates, unk in rows:
        print(f"| {name} | {recs} | {secs:.2f} | {rate:,.0f} | {'' if mates is None else mates} | {'' if unk is None else unk} |")


if __name__ == "__main__":
    main()

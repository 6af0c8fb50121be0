"""Overhead of posfilter.decide against `posfilter run` on the same 100,000 psv records,
measured side by side: the two alternate within each pass, so both see the same machine load.

    python decide_vs_run.py POSFILTER_BIN [--passes 5] [--nodes 10000] [--threads 0]

Input: the bundled teacher games (tests/data/codec/teacher.psv.zst, 97,609 records) and their
first 2,391 records again, 100,000 records written once to a plain .psv file, which the run
reads (from the page cache after the first pass) and decide() gets as a numpy array loaded
beforehand. The run is timed as a process (start to exit, its output written with the default
config, and with mate off also with plain shards and no audit); decide() as the call (the decider and its tables made, the records copied, every
record decided, the rows built). Prints the median seconds and records/s of each, mate filter
off and on, the ratio decide / run, and the load average before and after.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import zstandard

import posfilter

REPO = Path(__file__).resolve().parents[2]
RECORDS = 100_000


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def make_input(directory: Path) -> Path:
    raw = zstandard.ZstdDecompressor().stream_reader(
        (REPO / "tests" / "data" / "codec" / "teacher.psv.zst").read_bytes()).read()
    records = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 40)
    records = np.concatenate([records, records[: RECORDS - len(records)]])
    path = directory / "in.psv"
    records.tofile(path)
    return path


def time_run(binary: str, config: Path, out: Path) -> float:
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    subprocess.run([binary, "run", str(config), "--quiet", "--out", str(out)], check=True)
    return time.perf_counter() - start


def time_decide(records: np.ndarray, **settings) -> float:
    start = time.perf_counter()
    rows = posfilter.decide(records, format="psv", **settings)
    took = time.perf_counter() - start
    assert len(rows) == len(records)
    return took


def measure(binary: str, directory: Path, source: Path, mate: bool, args, lean: bool) -> None:
    records = np.fromfile(source, dtype=np.uint8).reshape(-1, 40)
    mate_toml = f"nodes = {args.nodes}" if mate else "enabled = false"
    config = directory / f"mate-{mate}.toml"
    output = 'compression = "none"\naudit = false\n' if lean else ""
    config.write_text(f'[input]\npaths = ["{source}"]\n[output]\ndir = "out"\n{output}'
                      f"[workers]\nthreads = {args.threads}\n[filter.mate]\n{mate_toml}\n")
    settings = dict(mate=mate, nodes=args.nodes, threads=args.threads)
    if not mate:
        # One untimed round of each: the page cache, the allocator.
        time_run(binary, config, directory / "out")
        time_decide(records, **settings)
    runs, decides = [], []
    before = load_average()
    for _ in range(args.passes):
        runs.append(time_run(binary, config, directory / "out"))
        decides.append(time_decide(records, **settings))
    after = load_average()
    run_s, decide_s = statistics.median(runs), statistics.median(decides)
    label = f"mate on ({args.nodes} nodes)" if mate else "mate off"
    label += ", run writing plain shards and no audit" if lean else ""
    print(f"{label}: run {run_s:.3f} s ({RECORDS / run_s:,.0f} records/s), "
          f"decide {decide_s:.3f} s ({RECORDS / decide_s:,.0f} records/s), "
          f"decide/run time {decide_s / run_s:.3f}; {args.passes} passes, "
          f"load {before} -> {after}")
    print(f"  run:    {' '.join(f'{t:.3f}' for t in runs)}")
    print(f"  decide: {' '.join(f'{t:.3f}' for t in decides)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--only", choices=["off", "on"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        source = make_input(directory)
        for mate in (False, True):
            if args.only in (None, "on" if mate else "off"):
                measure(args.binary, directory, source, mate, args, lean=False)
                if not mate:
                    measure(args.binary, directory, source, mate, args, lean=True)


if __name__ == "__main__":
    main()

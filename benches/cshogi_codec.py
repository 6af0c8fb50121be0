#!/usr/bin/env python3
"""Peer timing for benches/codec.rs: cshogi's Board.set_psfen over every record of a psv file.

Usage: cshogi_codec.py FILE.psv [REPEAT]
Prints one JSON object: {"peer": "cshogi", "records": n, "seconds": s, "records_per_second": r,
"cpu_seconds": c, "records_per_cpu_second": rc} (best of REPEAT runs; CPU time of this thread,
comparable with the Rust bench's per-core numbers on a shared machine).
"""
import json
import sys
import time

import numpy as np
import cshogi


def main() -> None:
    path = sys.argv[1]
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    psvs = np.fromfile(path, dtype=cshogi.PackedSfenValue)
    sfens = psvs["sfen"]
    board = cshogi.Board()
    best = None
    best_cpu = None
    for _ in range(repeat):
        start = time.perf_counter()
        cpu = time.thread_time()
        for psfen in sfens:
            board.set_psfen(psfen)
        elapsed = time.perf_counter() - start
        cpu = time.thread_time() - cpu
        best = elapsed if best is None else min(best, elapsed)
        best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
    n = len(sfens)
    print(json.dumps({"peer": "cshogi", "version": "1.1.0", "records": n,
                      "seconds": best, "records_per_second": n / best,
                      "cpu_seconds": best_cpu, "records_per_cpu_second": n / best_cpu}))


if __name__ == "__main__":
    main()

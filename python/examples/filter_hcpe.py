"""Filter an hcpe file (dlshogi teacher data) and save the kept rows.

    python filter_hcpe.py IN.hcpe OUT.hcpe [--nodes 100000] [--chunk 1000000]

The input is read through a memory map, a chunk of records at a time, with cshogi's
HuffmanCodedPosAndEval dtype; one posfilter.Decider decides every chunk, so a position kept
in one chunk drops its copies in later ones, as `posfilter run` would on the whole file. The
kept rows are appended to OUT, and the count of each decision is printed.
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

import posfilter

try:
    from cshogi import HuffmanCodedPosAndEval as HCPE
except ImportError:  # the same 38-byte layout without cshogi
    HCPE = np.dtype([("hcp", "u1", (32,)), ("eval", "<i2"), ("bestMove16", "<i2"),
                     ("gameResult", "i1"), ("dummy", "u1")])


def filter_hcpe(source: str, target: str, chunk: int = 1_000_000, **settings) -> Counter:
    """Writes the kept records of `source` to `target`; returns the count of each decision."""
    records = np.memmap(source, dtype=HCPE, mode="r")
    decider = posfilter.Decider(**settings)
    counts: Counter = Counter()
    with open(target, "wb") as out:
        for start in range(0, len(records), chunk):
            part = records[start:start + chunk]
            rows = decider.decide(part)
            part[rows["keep"]].tofile(out)
            codes = np.bincount(rows["decision"], minlength=len(posfilter.DECISIONS))
            counts.update({name: int(n) for name, n in zip(posfilter.DECISIONS, codes) if n})
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--nodes", type=int, default=100_000, help="mate search budget")
    parser.add_argument("--chunk", type=int, default=1_000_000, help="records per call")
    args = parser.parse_args()
    counts = filter_hcpe(args.source, args.target, args.chunk, nodes=args.nodes)
    for name, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"{name:>15} {n}")


if __name__ == "__main__":
    main()

"""Clean a directory of psv files with ray.data: one task per file, kept records written
beside the originals' names.

    python ray_psv.py IN_DIR OUT_DIR [--nodes 100000]

`map_batches` gets the files one at a time (`batch_size=1`) and decides each with
posfilter.decide on one thread (ray runs as many tasks as there are cores). Each file is
decided on its own: duplicates are found within a file, not across files (use one
posfilter.Decider, or `posfilter run`, to dedup across files). Tested with ray 2.60.
"""

from __future__ import annotations

import argparse
import os
from typing import Any, Dict

import numpy as np
import ray

import posfilter


def clean(batch: Dict[str, np.ndarray], nodes: int) -> Dict[str, Any]:
    """A batch of files (`bytes`, `path`) to their kept bytes and decision counts."""
    kept, counts = [], []
    for data in batch["bytes"]:
        records = np.frombuffer(data, dtype=np.uint8).reshape(-1, 40)
        rows = posfilter.decide(records, format="psv", nodes=nodes, threads=1)
        kept.append(records[rows["keep"]].tobytes())
        counts.append(np.bincount(rows["decision"], minlength=len(posfilter.DECISIONS)))
    return {"path": batch["path"], "kept": np.array(kept, dtype=object),
            "counts": np.stack(counts)}


def clean_directory(source: str, target: str, nodes: int = 100_000) -> Dict[str, int]:
    """Writes the kept records of every .psv file of `source` to `target` (same names);
    returns the count of each decision over all files."""
    os.makedirs(target, exist_ok=True)
    files = ray.data.read_binary_files(source, include_paths=True, file_extensions=["psv"])
    cleaned = files.map_batches(clean, batch_size=1, batch_format="numpy",
                                fn_kwargs={"nodes": nodes})
    totals = np.zeros(len(posfilter.DECISIONS), dtype=np.int64)
    for row in cleaned.iter_rows():
        with open(os.path.join(target, os.path.basename(row["path"])), "wb") as out:
            out.write(row["kept"])
        totals += row["counts"]
    return {name: int(n) for name, n in zip(posfilter.DECISIONS, totals) if n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--nodes", type=int, default=100_000)
    args = parser.parse_args()
    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
    print(clean_directory(args.source, args.target, args.nodes))


if __name__ == "__main__":
    main()

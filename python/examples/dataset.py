"""A PyTorch-style dataset of psv teacher positions that drops decided positions on load.

    python dataset.py FILE.psv [FILE.psv ...] [--nodes 100000]

`CleanPsvDataset` follows the map-style protocol of `torch.utils.data.Dataset` (`__len__` and
`__getitem__`), so a `torch.utils.data.DataLoader` takes it as it is; torch itself is not
needed to run this file. Each file is decided when the dataset is made (one
posfilter.Decider for all, so duplicates are found across files, as in `posfilter run`), and
only the kept positions are served.
"""

from __future__ import annotations

import argparse
from typing import Dict, Sequence

import numpy as np

import posfilter

#: The 40-byte PackedSfenValue layout (cshogi.PackedSfenValue).
PSV = np.dtype([("sfen", "u1", (32,)), ("score", "<i2"), ("move", "<u2"), ("gamePly", "<u2"),
                ("game_result", "i1"), ("padding", "u1")])


class CleanPsvDataset:
    """The kept positions of psv files (checkmated, mate, mated, repetition, declaration,
    duplicate and malformed records dropped), as dicts of numpy values."""

    def __init__(self, paths: Sequence[str], **settings) -> None:
        decider = posfilter.Decider(**settings)
        kept = []
        self.dropped: Dict[str, int] = {}
        for path in paths:
            records = np.fromfile(path, dtype=PSV)
            rows = decider.decide(records)
            kept.append(records[rows["keep"]])
            for code in rows["decision"][~rows["keep"]]:
                name = posfilter.DECISIONS[code]
                self.dropped[name] = self.dropped.get(name, 0) + 1
        self.records = np.concatenate(kept) if kept else np.zeros(0, dtype=PSV)

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, i: int) -> Dict[str, np.ndarray]:
        r = self.records[i]
        return {
            "sfen": r["sfen"],  # PackedSfen bytes: decode with cshogi's Board.set_psfen
            "score": np.int16(r["score"]),
            "move": np.uint16(r["move"]),
            "result": np.int8(r["game_result"]),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--nodes", type=int, default=100_000, help="mate search budget")
    args = parser.parse_args()
    dataset = CleanPsvDataset(args.paths, nodes=args.nodes)
    print(f"kept {len(dataset)}, dropped {dataset.dropped}")
    if len(dataset):
        print("first:", {k: v.tolist() for k, v in dataset[0].items()})


if __name__ == "__main__":
    main()

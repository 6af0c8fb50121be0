#!/usr/bin/env python3
"""Writes fresh_misses.jsonl: positions of the fresh differential sets that cshogi 1.1.0's
DfPn proves at 100,000 nodes and posfilter leaves `unknown` at that budget (the bench's
`MATE_BENCH_MISSES` list), each with cshogi's verdict, re-checked here.

usage (from the repo root, needs cshogi from PyPI):
    python3 benches/fresh_positions.py 7331 20000 > fresh7331.sfen
    MATE_BENCH_FILE=fresh7331.sfen MATE_BENCH_MISSES=misses7331.txt MATE_BENCH_SUMMARY_ONLY=1 \\
        cargo bench --bench mate
    (the same for seeds 2611 and 9001, 30000 positions each)
    python3 tests/data/mate/fresh_misses.py 7331 fresh7331.sfen misses7331.txt \\
        2611 fresh2611.sfen misses2611.txt 9001 fresh9001.sfen misses9001.txt \\
        > tests/data/mate/fresh_misses.jsonl

A misses file holds `SFEN<TAB>budget` lines; only the 100,000-node ones are used. Each row:
`seed`, `line` (0-based line of the SFEN in its fresh set), `sfen`, `root` (`or` when the side
to move is not in check: `search`; `and` when it is: `search_andnode`), `cshogi` (`mate` or
`mated`) and `cshogi_nodes`. The script fails if cshogi does not prove a listed position."""
import json
import sys

import cshogi

BUDGET = 100_000

args = sys.argv[1:]
if not args or len(args) % 3:
    sys.exit(__doc__)
for k in range(0, len(args), 3):
    seed, fresh_path, misses_path = int(args[k]), args[k + 1], args[k + 2]
    lines = open(fresh_path).read().splitlines()
    where = {sfen: i for i, sfen in enumerate(lines)}
    for row in open(misses_path):
        sfen, budget = row.rstrip("\n").split("\t")
        if int(budget) != BUDGET:
            continue
        board = cshogi.Board(sfen)
        dfpn = cshogi.DfPn(depth=1600, nodes=BUDGET)
        in_check = board.is_check()
        proved = dfpn.search_andnode(board) if in_check else dfpn.search(board)
        assert proved, f"cshogi does not prove {sfen}"
        print(json.dumps({
            "seed": seed,
            "line": where[sfen],
            "sfen": sfen,
            "root": "and" if in_check else "or",
            "cshogi": "mated" if in_check else "mate",
            "cshogi_nodes": dfpn.searched_node,
        }))

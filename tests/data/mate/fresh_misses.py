#!/usr/bin/env python3
"""Writes fresh_misses.jsonl: positions of the fresh differential sets that cshogi 1.1.0's
DfPn proves at 100,000 nodes and posfilter leaves `unknown` at that budget (the bench's
`MATE_BENCH_MISSES` list), each with cshogi's verdict, re-checked here.

usage (from the repo root, needs cshogi from PyPI):
    python3 benches/fresh_positions.py 7331 20000 > fresh7331.sfen
    MATE_BENCH_FILE=fresh7331.sfen MATE_BENCH_MISSES=misses7331.txt MATE_BENCH_SUMMARY_ONLY=1 \\
        cargo bench --bench mate
    (the same for seeds 2611 and 9001, 30000 positions each, 5150, 20000, 8123 and 3907,
    15000 each, and 4711, 1357, 6029, 2718, 4242, 5555, 8642 and 9753, 8000 each)
    python3 tests/data/mate/fresh_misses.py 7331 fresh7331.sfen misses7331.txt \\
        2611 fresh2611.sfen misses2611.txt 9001 fresh9001.sfen misses9001.txt \\
        5150 fresh5150.sfen misses5150.txt 8123 fresh8123.sfen misses8123.txt \\
        3907 fresh3907.sfen misses3907.txt 4711 fresh4711.sfen misses4711.txt \\
        1357 fresh1357.sfen misses1357.txt 6029 fresh6029.sfen misses6029.txt \\
        2718 fresh2718.sfen misses2718.txt 4242 fresh4242.sfen misses4242.txt \\
        5555 fresh5555.sfen misses5555.txt 8642 fresh8642.sfen misses8642.txt \\
        9753 fresh9753.sfen misses9753.txt \\
        > tests/data/mate/fresh_misses.jsonl

A misses file holds `SFEN<TAB>budget` lines; only the 100,000-node ones are used. Each row:
`seed`, `line` (0-based line of the SFEN in its fresh set), `sfen`, `root` (`or` when the side
to move is not in check: `search`; `and` when it is: `search_andnode`), `cshogi` (`mate` or
`mated`) and `cshogi_nodes`. The script fails if cshogi does not prove a listed position.
The positions in LEFT_OUT are skipped, each for the reason given there."""
import json
import sys

import cshogi

BUDGET = 100_000

LEFT_OUT = {
    # cshogi's "mate" is false: its search never tries the defence 3g1e (the bishop takes
    # unpromoted), after which its own search finds no mate. The position three plies in is
    # in nonpromotion.jsonl; posfilter answers no_mate here.
    "1+P7/Ggp6/L1g2PN1k/4S4/1p1K3S1/4n1r2/2G3b2/2N2SpLN/1S3+l1Lr b 13Pb 249":
        "cshogi false mate",
    # A real 71-ply mate that posfilter proves only with 13.8 M nodes (512 MB table), far
    # beyond the test's 1 M budget.
    "3G1+R3/1g6S/2+b6/2+B6/8N/n1P5P/L3PP3/2G1KG2k/4L1S2 b S2NL10Prsl4p 125":
        "needs 13.8 M nodes",
}

args = sys.argv[1:]
if not args or len(args) % 3:
    sys.exit(__doc__)
for k in range(0, len(args), 3):
    seed, fresh_path, misses_path = int(args[k]), args[k + 1], args[k + 2]
    lines = open(fresh_path).read().splitlines()
    where = {sfen: i for i, sfen in enumerate(lines)}
    for row in open(misses_path):
        sfen, budget = row.rstrip("\n").split("\t")
        if int(budget) != BUDGET or sfen in LEFT_OUT:
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

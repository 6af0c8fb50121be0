#!/usr/bin/env python3
"""Writes hard.jsonl: bench positions (benches/data/dfpn_bench.sfen, by index) that neither
cshogi nor posfilter settles at 100,000 nodes, with cshogi 1.1.0's DfPn verdict at a budget
30 times larger. Run from the repo root: python3 tests/data/mate/hard.py (needs cshogi from
PyPI; a few minutes).

- `cshogi` is `mate`, `no_mate` or `unknown` (out of nodes) for the root at ROOT_BUDGET, with
  the nodes it used. Only roots it settles, or that have a `child` check below, are written.
- `child`: a check of the root and cshogi's verdict on the position after it (`search_andnode`
  at CHILD_BUDGET). A `mated` child proves the root a mate even where cshogi's root search
  ran out: here posfilter found a 39-ply mate that cshogi's root search misses at 3 M nodes,
  and cshogi confirms it from the position after the first move."""
import json, os, cshogi

ROOT_BUDGET = 3_000_000
CHILD_BUDGET = 20_000_000
# The 30 positions not in check that stay unknown for both solvers at 100,000 nodes.
INDICES = [52, 61, 109, 200, 445, 446, 447, 516, 551, 561, 589, 820, 849, 920, 1061, 1085,
           1103, 1112, 1252, 1268, 1305, 1335, 1340, 1380, 1397, 1406, 1530, 1564, 1794, 1801]
CHILD = {1252: "7d8d"}

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
sfens = open(os.path.join(root, "benches", "data", "dfpn_bench.sfen")).read().splitlines()
with open(os.path.join(here, "hard.jsonl"), "w") as out:
    for i in INDICES:
        sfen = sfens[i]
        board = cshogi.Board(sfen)
        assert not board.is_check(), sfen
        dfpn = cshogi.DfPn()
        dfpn.set_max_search_node(ROOT_BUDGET)
        found = dfpn.search(board)
        nodes = dfpn.searched_node
        verdict = "mate" if found else ("unknown" if nodes >= ROOT_BUDGET else "no_mate")
        row = {"index": i, "sfen": sfen, "cshogi": verdict, "cshogi_nodes": nodes}
        if i in CHILD:
            board.push_usi(CHILD[i])
            dfpn = cshogi.DfPn()
            dfpn.set_max_search_node(CHILD_BUDGET)
            mated = dfpn.search_andnode(board)
            child_nodes = dfpn.searched_node
            row["child"] = {
                "move": CHILD[i],
                "cshogi": "mated" if mated else ("unknown" if child_nodes >= CHILD_BUDGET else "not_mated"),
                "cshogi_nodes": child_nodes,
            }
        if verdict != "unknown" or "child" in row:
            out.write(json.dumps(row, separators=(",", ":")) + "\n")
            out.flush()

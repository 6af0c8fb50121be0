#!/usr/bin/env python3
"""Peer for benches/mate.rs: cshogi 1.1.0 DfPn on the same positions, like our roots:
`search` when the side to move is not in check, `search_andnode` when it is.

usage: mate_peer.py SFEN_FILE NODES  ->  one JSON object on stdout:
{"nodes_budget", "seconds", "cpu_seconds", "positions", "mates", "nodes", "results": [[mate(bool), exhausted(bool)], ...],
 "times": [seconds per position, ...]}
`seconds` (wall) and `cpu_seconds` (this process's CPU time) cover the solving loop only
(boards are built before the clocks start)."""
import json
import sys
import time

import cshogi

path, budget = sys.argv[1], int(sys.argv[2])
boards = []
with open(path) as f:
    for line in f:
        line = line.strip()
        if line:
            boards.append(cshogi.Board(line))
dfpn = cshogi.DfPn(depth=1600, nodes=budget)
results = []
times = []
mates = 0
total_nodes = 0
start = time.perf_counter()
cpu_start = time.process_time()
for b in boards:
    t = time.perf_counter()
    if b.is_check():
        m = dfpn.search_andnode(b)
    else:
        m = dfpn.search(b)
    times.append(time.perf_counter() - t)
    n = dfpn.searched_node
    total_nodes += n
    mates += bool(m)
    results.append([bool(m), n >= budget])
seconds = time.perf_counter() - start
cpu_seconds = time.process_time() - cpu_start
print(json.dumps({"nodes_budget": budget, "seconds": seconds, "cpu_seconds": cpu_seconds,
                  "positions": len(boards),
                  "mates": mates, "nodes": total_nodes, "results": results,
                  "times": times}))

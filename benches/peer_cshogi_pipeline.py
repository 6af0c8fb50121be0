#!/usr/bin/env python3
"""Peer for the pipeline benchmark: cshogi DfPn over a PackedSfen file in a plain loop.

For each 32-byte record: decode with set_psfen, then (like posfilter's roots) call
search_andnode when the side to move is in check and search otherwise, with the same node
budget. Prints one JSON object: records, mates (mate + mated + checkmated), seconds,
positions_per_second. Needs `pip install cshogi==1.1.0`.

usage: peer_cshogi_pipeline.py FILE.psfen [--nodes N]
"""
import argparse
import json
import time

import cshogi
import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--nodes", type=int, default=100_000)
    args = ap.parse_args()
    data = np.fromfile(args.file, dtype=np.uint8)
    records = data.reshape(-1, 32)
    board = cshogi.Board()
    dfpn = cshogi.DfPn()
    dfpn.set_max_search_node(args.nodes)
    mates = 0
    start = time.perf_counter()
    for rec in records:
        board.set_psfen(rec)
        if board.is_game_over():
            mates += board.is_check()
            continue
        if board.is_check():
            mates += bool(dfpn.search_andnode(board))
        else:
            mates += bool(dfpn.search(board))
    seconds = time.perf_counter() - start
    print(json.dumps({
        "tool": "cshogi DfPn loop",
        "records": int(len(records)),
        "mates": int(mates),
        "nodes_budget": args.nodes,
        "seconds": seconds,
        "positions_per_second": len(records) / seconds if seconds > 0 else 0.0,
    }))


if __name__ == "__main__":
    main()

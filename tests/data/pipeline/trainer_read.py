"""Reads a kept shard the way trainers load one: numpy's np.fromfile with cshogi's record
dtype (cshogi.PackedSfenValue for psv, cshogi.HuffmanCodedPosAndEval for hcpe), then a cshogi
Board on every row. Prints one JSON line per row: the position's SFEN (board, side, hands),
the move field and the score. Used by tests/it/pipeline/trainer_ready.rs.

usage: trainer_read.py psv|hcpe FILE
"""
import json
import sys

import cshogi
import numpy as np

fmt, path = sys.argv[1], sys.argv[2]
dtype = {"psv": cshogi.PackedSfenValue, "hcpe": cshogi.HuffmanCodedPosAndEval}[fmt]
rows = np.fromfile(path, dtype=dtype)
board = cshogi.Board()
for row in rows:
    if fmt == "psv":
        board.set_psfen(row["sfen"])
        move, score = int(row["move"]), int(row["score"])
    else:
        board.set_hcp(row["hcp"])
        move, score = int(row["bestMove16"]), int(row["eval"])
    sfen = " ".join(board.sfen().split()[:3])
    print(json.dumps({"sfen": sfen, "move": move, "score": score}))

#!/usr/bin/env python3
"""Reads a game file with the independent tools and prints what they see, one JSON per line.

    python3 oracle_read.py pack|sbinpack|hcpe3 FILE

- pack / sbinpack: rsshogi.record.decode_pack_file / decode_sbinpack_file; one line per game:
  {"sfen": start SFEN, "moves": [USI], "evals": [int], "result": rsshogi result name,
   "metadata": hex (sbinpack)}.
- hcpe3: dlshogi's loader loop (cppshogi __load_hcpe3) in numpy with cshogi doing the
  HuffmanCodedPos and move16: one line per training position (candidateNum > 0):
  {"sfen": position SFEN, "eval": int, "candidates": [[move16, visits], ...]}.
Used by tests/it/games.rs (rsshogi==1.7.0, cshogi==1.1.0, numpy).
"""
import json
import sys

import numpy as np


def read_records(kind, path):
    from rsshogi.record import decode_pack_file, decode_sbinpack_file
    if kind == "pack":
        games = [(r, None) for r in decode_pack_file(path)]
    else:
        games = decode_sbinpack_file(path)
    for record, metadata in games:
        row = {"sfen": record.init_position_sfen,
               "moves": [m.move.to_usi() for m in record.moves],
               "evals": [m.engine_info.eval for m in record.moves],
               "result": record.result.name}
        if metadata is not None:
            row["metadata"] = bytes(metadata).hex()
        print(json.dumps(row))


def read_hcpe3(path):
    import cshogi
    header = np.dtype([("hcp", cshogi.dtypeHcp), ("moveNum", "<u2"), ("result", "u1"),
                       ("opponent", "u1")])
    info = np.dtype([("selectedMove16", "<u2"), ("eval", "<i2"), ("candidateNum", "<u2")])
    visits = np.dtype([("move16", "<u2"), ("visitNum", "<u2")])
    data = open(path, "rb").read()
    at, board = 0, cshogi.Board()
    while at < len(data):
        h = np.frombuffer(data, header, 1, at)[0]
        at += header.itemsize
        board.set_hcp(np.asarray(h["hcp"]))
        for _ in range(h["moveNum"]):
            m = np.frombuffer(data, info, 1, at)[0]
            at += info.itemsize
            n = int(m["candidateNum"])
            if n > 0:
                v = np.frombuffer(data, visits, n, at)
                at += visits.itemsize * n
                print(json.dumps({"sfen": board.sfen(), "eval": int(m["eval"]),
                                  "candidates": [[int(a), int(b)] for a, b in v]}))
            board.push(board.move_from_move16(int(m["selectedMove16"])))


if __name__ == "__main__":
    kind, path = sys.argv[1], sys.argv[2]
    read_hcpe3(path) if kind == "hcpe3" else read_records(kind, path)

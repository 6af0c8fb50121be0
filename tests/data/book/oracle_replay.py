"""Replays USI position lines under cshogi 1.1.0 (for tests/it/book.rs).

Usage: python3 oracle_replay.py FILE. Prints one JSON object per line of FILE:
legal (every move legal where it is played), repeat (a position, board + side + hands,
occurs twice on the line), over (the final position has no legal move), mate1 (the side
to move mates in one), sfen (the final position without its move number).
"""
import json
import sys

import cshogi

for line in open(sys.argv[1]):
    words = line.split()
    b = cshogi.Board()
    if words[0] == "sfen":
        end = words.index("moves") if "moves" in words else len(words)
        b.set_sfen(" ".join(words[1:end]))
        moves = words[end + 1:]
    else:
        moves = words[2:]
    seen = {" ".join(b.sfen().split()[:3])}
    legal, repeat = True, False
    for u in moves:
        m = b.move_from_usi(u)
        if not m or not b.is_legal(m):
            legal = False
            break
        b.push(m)
        key = " ".join(b.sfen().split()[:3])
        repeat |= key in seen
        seen.add(key)
    print(json.dumps({"legal": legal, "repeat": repeat, "over": b.is_game_over(),
                      "mate1": bool(b.mate_move_in_1ply()), "sfen": " ".join(b.sfen().split()[:3])}))

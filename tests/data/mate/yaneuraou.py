#!/usr/bin/env python3
"""Writes yaneuraou.jsonl.zst: real-game mate problems with known shortest lengths.

Source: YaneuraOu's published mate problem sets (mate3 ... mate11, about a million positions
each, cut from real games; N-ply mates whose shortest mate is N plies), as split into files
of 1,000 by the shogimate app (github.com/usumerican/shogimate, public/data/mateN/NNN.txt,
commit 26b9d8c3e9651fb07f5f2f36b23475c33ea5176d), which stores each problem with a mate line
found by KomoringHeights v1.0.0: `SFEN moves M1 ... MN`.

usage (needs cshogi 1.1.0 from PyPI and zstd):
    git clone https://github.com/usumerican/shogimate /tmp/shogimate   # or any copy
    python3 tests/data/mate/yaneuraou.py /tmp/shogimate

Rows (one JSON object per line, then `zstd -19`):
- `set` (`mate3` ... `mate11`), `file` (NNN), `line` (1-based), `sfen`, `plies` (N, the
  published shortest length), `pv` (the file's line, USI), `check` (side to move in check);
- the first FIRST problems of file 000 of each set (the sample the length test measures), and
  every problem whose side to move is in check (the side in check mates with a checking
  evasion) in files 000 .. CHECK_FILES-1, at most CHECK_PER_SET per set.

Each row is checked with cshogi before it is written: the line has N moves, every move is
legal, every attacker move gives check, and the final position is checkmated."""
import json, os, subprocess, sys

import cshogi

FIRST = 600
CHECK_FILES = 40
CHECK_PER_SET = 40
SETS = [3, 5, 7, 9, 11]


def read(repo, n, f):
    path = f"public/data/mate{n}/{f:03d}.txt"
    if os.path.isdir(os.path.join(repo, ".git")) or os.path.exists(os.path.join(repo, "HEAD")):
        out = subprocess.run(["git", "-C", repo, "show", f"HEAD:{path}"], capture_output=True,
                             text=True)
        if out.returncode == 0:
            return out.stdout.splitlines()
    with open(os.path.join(repo, path)) as fh:
        return fh.read().splitlines()


def checked(line, n):
    sfen, moves = line.split(" moves ")
    pv = moves.split()
    assert len(pv) == n, line
    board = cshogi.Board(sfen)
    check = board.is_check()
    for i, m in enumerate(pv):
        mv = board.move_from_usi(m)
        assert board.is_legal(mv), line
        board.push(mv)
        if i % 2 == 0:
            assert board.is_check(), line
    assert board.is_game_over() and board.is_check(), line
    return sfen, pv, check


def main(repo):
    rows = []
    for n in SETS:
        in_check = 0
        for f in range(CHECK_FILES):
            for k, line in enumerate(read(repo, n, f)):
                first = f == 0 and k < FIRST
                if not first and in_check >= CHECK_PER_SET:
                    continue
                sfen = line.split(" moves ")[0]
                if not first and not cshogi.Board(sfen).is_check():
                    continue
                sfen, pv, check = checked(line, n)
                if not first:
                    in_check += 1
                rows.append({"set": f"mate{n}", "file": f"{f:03d}", "line": k + 1,
                             "sfen": sfen, "plies": n, "pv": pv, "check": check})
    here = os.path.dirname(os.path.abspath(__file__))
    text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows)
    out = os.path.join(here, "yaneuraou.jsonl.zst")
    subprocess.run(["zstd", "-19", "-q", "-f", "-o", out], input=text.encode(), check=True)
    checks = sum(r["check"] for r in rows)
    print(f"{len(rows)} rows, {checks} with the side to move in check", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])

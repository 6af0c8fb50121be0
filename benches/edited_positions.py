#!/usr/bin/env python3
"""Edited positions for a differential check of the mate solver against cshogi on positions
no game reaches: real start positions (tests/data/startpos.sfen) with one to four board
edits (a piece replaced by another kind, given to the other side, promoted or unpromoted,
or swapped with an empty square; kings stay), the other side to move three times in ten,
and new random hands (up to 18 of a kind) four times in ten. Most edits are not valid
positions; posfilter itself sorts them out (`posfilter mate --nodes 1`), and the first
COUNT valid ones are printed, one SFEN per line.

usage: edited_positions.py SEED COUNT > edited.sfen   (after `cargo build --release`)
then:  MATE_BENCH_FILE=edited.sfen MATE_BENCH_SUMMARY_ONLY=1 MATE_SKIP_SEEDS=1 \\
           cargo bench --bench mate
The test `edited_positions_round_trip_and_agree_with_brute_force` makes edits of the same
kinds with its own generator."""
import json
import random
import subprocess
import sys

random.seed(int(sys.argv[1]))
count = int(sys.argv[2])
sources = [l.split() for l in open("tests/data/startpos.sfen") if l.strip()]
PIECES = "PLNSGBRplnsgbr"


def edit(fields):
    board, side, hands = fields[0], fields[1], fields[2]
    cells = []
    chars = iter(board)
    for c in chars:
        if c == "/":
            continue
        if c.isdigit():
            cells += [""] * int(c)
        elif c == "+":
            cells.append("+" + next(chars))
        else:
            cells.append(c)
    for _ in range(random.randint(1, 4)):
        i = random.choice([j for j, c in enumerate(cells) if c and c not in "Kk"])
        letter = cells[i][-1]
        op = random.randrange(4)
        if op == 0:
            k = random.choice("PLNSGBR")
            cells[i] = k if letter.isupper() else k.lower()
        elif op == 1:
            cells[i] = cells[i][:-1] + letter.swapcase()
        elif op == 2:
            cells[i] = cells[i][1:] if cells[i].startswith("+") else "+" + cells[i]
        else:
            j = random.choice([j for j, c in enumerate(cells) if not c])
            cells[i], cells[j] = cells[j], cells[i]
    ranks = []
    for r in range(9):
        text, run = "", 0
        for c in cells[9 * r:9 * r + 9]:
            if not c:
                run += 1
                continue
            text += (str(run) if run else "") + c
            run = 0
        ranks.append(text + (str(run) if run else ""))
    if random.random() < 0.3:
        side = "w" if side == "b" else "b"
    if random.random() < 0.4:
        hands = "".join(random.choice(["", "2", "3", "10", "18"]) + random.choice(PIECES)
                        for _ in range(random.randint(0, 4))) or "-"
    return " ".join(["/".join(ranks), side, hands] + fields[3:4])


out = []
while len(out) < count:
    batch = [edit(random.choice(sources)) for _ in range(4 * count)]
    run = subprocess.run(["target/release/posfilter", "mate", "--file", "-", "--nodes", "1",
                          "--threads", "1", "--json"], input="\n".join(batch) + "\n",
                         capture_output=True, text=True)
    for line in run.stdout.splitlines():
        row = json.loads(line)
        if "result" in row and len(out) < count:
            out.append(row["position"])
print("\n".join(out))

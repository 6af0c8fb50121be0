#!/usr/bin/env python3
"""Fresh positions for a differential check of the mate solver against cshogi: random
playouts made by cshogi's own move generator (half the moves captures when one exists, so
material flows into the hands and kings get exposed), stopped after 40-260 plies; positions
with no legal move are skipped. One SFEN per line on stdout.

usage: fresh_positions.py SEED COUNT > fresh.sfen
then:  MATE_BENCH_FILE=fresh.sfen MATE_BENCH_SUMMARY_ONLY=1 cargo bench --bench mate
(or MATE_BENCH_FRESH=SEED[,COUNT] with benches/mate.rs or mate_frontier.rs, which run this)
(needs `pip install cshogi==1.1.0`)."""
import random
import sys

import cshogi

random.seed(int(sys.argv[1]))
n = int(sys.argv[2])
out = []
while len(out) < n:
    b = cshogi.Board()
    length = random.randint(40, 260)
    ok = True
    for _ in range(length):
        moves = list(b.legal_moves)
        if not moves or b.is_draw() == cshogi.REPETITION_DRAW:
            ok = False
            break
        caps = [m for m in moves if b.piece(cshogi.move_to(m)) != 0]
        m = random.choice(caps) if caps and random.random() < 0.5 else random.choice(moves)
        b.push(m)
    if ok and list(b.legal_moves):
        out.append(b.sfen())
print("\n".join(out))

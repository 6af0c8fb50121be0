"""Builds the book fault fixtures from the real games of ../codec/teacher.usi (cshogi 1.1.0).

Run from this directory: python3 make_fixtures.py. Each fixture holds positions of real
games with the moves played in them, plus the one fault it is named for.
"""
import cshogi

H = "#YANEURAOU-DB2016 1.00"
games = [l.split()[2:] for l in open("../codec/teacher.usi") if l.startswith("startpos moves")]


def sfen(board, ply=None):
    parts = board.sfen().split()
    return " ".join(parts[:3] + ([str(ply)] if ply is not None else []))


def lines_of(game, plies, first=0):
    """(sfen with ply, move, next move) for plies first..plies of a game."""
    b = cshogi.Board()
    out = []
    for i, m in enumerate(game[:plies]):
        nxt = game[i + 1] if i + 1 < len(game) else "none"
        if i >= first:
            out.append((sfen(b, i + 1), m, nxt))
        b.push_usi(m)
    return out


def write(name, lines, newline="\n", bom=False):
    with open(name, "w", newline="") as f:
        if bom:
            f.write("\ufeff")
        f.write(newline.join(lines) + newline)


# 1. illegal.db: game 0's first 6 positions; the third also has an illegal move (the
#    side to move moves the opponent's king) and the fifth a move from an empty square.
rows = []
for i, (s, m, p) in enumerate(lines_of(games[0], 6)):
    rows += ["sfen " + s, f"{m} {p} 30 12 3"]
    if i == 2:
        rows.append("5a4b none 0 0 1")
    if i == 4:
        rows.append("5e5d none 0 0 1")
write("illegal.db", [H] + rows)

# 2. into_mate.db: the last 4 positions of the first game that ends in checkmate; the
#    last move played mates.
for g in games:
    b = cshogi.Board()
    for m in g:
        b.push_usi(m)
    if b.is_game_over():
        write("into_mate.db", [H] + [r for s, m, p in lines_of(g, len(g), len(g) - 4)
                                     for r in ("sfen " + s, f"{m} {p} 0 20 1")])
        break

# 3. repetition.db: a real opening (game 0, 4 plies) then rooks shuffling 2h3h 8b7b 3h2h 7b8b
#    back to the position after the opening: the book line loops.
opening = games[0][:4] + ["2h3h", "8b7b", "3h2h", "7b8b"]
b = cshogi.Board()
rows = []
for i, m in enumerate(opening):
    rows += ["sfen " + sfen(b, i + 1), f"{m} none 0 10 1"]
    b.push_usi(m)
write("repetition.db", [H] + rows)

# 4. several_plies.db: game 0's positions 1..8, then its position 5 again under ply 9 with
#    another (legal) move and a different value for the move ply 5 already has.
rows, kept = [], lines_of(games[0], 8)
for s, m, p in kept:
    rows += ["sfen " + s, f"{m} {p} 40 16 5"]
s5, m5, p5 = kept[4]
b = cshogi.Board(" ".join(s5.split()[:3]) + " 1")
alt = next(cshogi.move_to_usi(x) for x in b.legal_moves if cshogi.move_to_usi(x) != m5)
rows += ["sfen " + " ".join(s5.split()[:3]) + " 9", f"{alt} none 7 8 2", f"{m5} none -99 1 1"]
write("several_plies.db", [H] + rows)

# 5. unsorted.db: the first 12 positions of games 1 and 2, in game order (not SFEN order).
rows = []
for g in games[1:3]:
    for s, m, p in lines_of(g, 12):
        rows += ["sfen " + s, f"{m} {p} 0 0 1"]
write("unsorted.db", [H] + rows)

# 6. messy.db: BOM, CRLF, comments, trailing comments, None ponder, missing fields, ply 0,
#    missing ply, a resign line, the peta-shock markers, and three malformed lines.
k = lines_of(games[3], 6)
rows = [
    "# NOE:6", "// a comment", "",
    "sfen " + " ".join(k[0][0].split()[:3]) + " 0", f"{k[0][1]} None 12 3 4 # trailing",
    "sfen " + " ".join(k[1][0].split()[:3]), f"{k[1][1]}",
    "sfen " + k[2][0], f"{k[2][1]} {k[2][2]} -32768 9999 1", "resign",
    "sfen " + k[3][0], f"{k[3][1]} none 5 9998", "7g7x none 0 0 1",
    "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1", "7g7f none 0 0 1",
    "sfen " + k[4][0], f"{k[4][1]} {k[4][2]} 1 9997 2 // trailing",
    "sfen " + k[5][0], f"{k[5][1]} {k[5][2]} abc 0 1",
]
write("messy.db", [H] + rows, newline="\r\n", bom=True)

#!/usr/bin/env python3
"""Writes nonpromotion.jsonl: positions where a non-promotion of a pawn, bishop or rook is
the only way to mate (attacker to move) or the only escape (defender in check), with
cshogi's verdict for every child of the root. Run from the repo root:
python3 tests/data/mate/nonpromotion.py (needs cshogi from PyPI).

The positions were found by logging, in our own solver's search trees of random
positions with a king near a corner or an edge, the non-promotions that settled their node
after the promotion had settled the other way; the roots kept here are those where cshogi confirms that every other child
goes the other way. A child's verdict is cshogi's DfPn at up to 2,000,000 nodes: `mated` /
`not_mated` from an OR root (after each check), `mate` / `no_mate` from an AND root (after
each evasion); a search that runs out of nodes is `unknown`, and a root is only written if
none is."""
import json, os, cshogi

ROOTS = [
    # The rook goes to 2c unpromoted: a dragon there would guard 1b, so the pawn drop that
    # lures the king onto 1b (P*1b, K takes) would be pawn-drop mate and the promotion fails.
    ("7k1/5s3/8R/7P1/6+RS1/9/1K7/9/9 b P 1", "1c2c"),
    # The same idea deep in a 29-ply mate (cshogi's PV).
    ("9/8k/4BN3/5S3/9/6R2/9/9/4K4 b P 1", "3f3b"),
    # The defender's side: White, in check, escapes only by interposing the bishop at 8i
    # unpromoted; a horse there could take a pawn on 9i, so Black's later P*9i would not be
    # pawn-drop mate but a legal check that wins.
    ("6K2/9/1+B7/G8/9/2r6/9/2b6/k1+R6 w SPl 12", "7h8i"),
    # From a fresh differential set (benches/fresh_positions.py, seed 5150), three plies into
    # cshogi's 21-ply "mate": White escapes only by taking the pawn with the bishop
    # unpromoted (a horse on 1e could take the next pawn drop on 1d). cshogi's DfPn never
    # tries this defence inside its own search, so it reported the root
    # 1+P7/Ggp6/L1g2PN1k/4S4/1p1K3S1/4n1r2/2G3b2/2N2SpLN/1S3+l1Lr b 13Pb 249 as mate,
    # while its own search after 3g1e finds no mate.
    ("1+P7/Ggp6/L1g2PN2/4S2Sk/1p1K4P/4n1r2/2G3b2/2N2SpLN/1S3+l1Lr w 12Pb 252", "3g1e"),
]
BUDGET = 2_000_000


def verdict(dfpn, board, or_child):
    if board.is_game_over():
        return "mated" if or_child else "no_mate"
    if or_child:
        found = dfpn.search_andnode(board)
        yes, no = "mated", "not_mated"
    else:
        found = dfpn.search(board)
        yes, no = "mate", "no_mate"
    if found:
        return yes
    return no if dfpn.searched_node < BUDGET else "unknown"


def main():
    dfpn = cshogi.DfPn()
    dfpn.set_max_search_node(BUDGET)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nonpromotion.jsonl")
    with open(out, "w") as o:
        for sfen, only in ROOTS:
            b = cshogi.Board(sfen)
            or_root = not b.is_check()
            children = {}
            for m in b.legal_moves:
                u = cshogi.move_to_usi(m)
                b.push(m)
                if not or_root or b.is_check():
                    children[u] = verdict(dfpn, b, or_root)
                b.pop()
            settles = "mated" if or_root else "no_mate"
            assert "unknown" not in children.values(), (sfen, children)
            assert [u for u, v in children.items() if v == settles] == [only], (sfen, children)
            assert children[only + "+"] != settles, (sfen, children)
            o.write(json.dumps({"sfen": sfen, "only": only, "children": children},
                               separators=(",", ":")) + "\n")


main()

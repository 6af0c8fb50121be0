#!/usr/bin/env python3
"""Audits a mate that cshogi 1.1.0's DfPn proves and posfilter does not (a bench conflict):
walks cshogi's own line and, at every defender move, tries each legal non-promotion of a
pawn, lance, bishop or rook whose promotion is also legal. cshogi's DfPn never generates
those defences, so its "mate" is false when one of them escapes; the audit asks cshogi's
own search (`search` after the defence) whether the attacker still mates.

usage: cshogi_line_audit.py NODES SFEN [SFEN ...]  ->  one line per SFEN on stdout:
  `skipped defence <move> after <line>: cshogi's own search finds no mate` (cshogi's "mate"
  is false: that defence escapes within NODES nodes of cshogi's search), or
  `no skipped defence refutes cshogi's line` (the conflict is not explained this way).

The walk follows cshogi's PV from the root as given (an AND root when the side to move is in
check: `search_andnode`, else `search`)."""
import sys

import cshogi

PROMOTABLE = {cshogi.PAWN, cshogi.LANCE, cshogi.BISHOP, cshogi.ROOK}


def skipped_defences(board):
    """The defender's legal non-promotions that have a legal promoting twin."""
    moves = list(board.legal_moves)
    promoting = {(cshogi.move_from(m), cshogi.move_to(m))
                 for m in moves if not cshogi.move_is_drop(m) and cshogi.move_is_promotion(m)}
    for m in moves:
        if cshogi.move_is_drop(m) or cshogi.move_is_promotion(m):
            continue
        if cshogi.piece_to_piece_type(board.piece(cshogi.move_from(m))) not in PROMOTABLE:
            continue
        if (cshogi.move_from(m), cshogi.move_to(m)) in promoting:
            yield m


def audit(sfen, nodes):
    board = cshogi.Board(sfen)
    dfpn = cshogi.DfPn(depth=1600, nodes=nodes)
    proved = dfpn.search_andnode(board) if board.is_check() else dfpn.search(board)
    if not proved:
        return "cshogi does not prove this position"
    line = [cshogi.move_to_usi(m) for m in dfpn.get_pv(board)]
    attacker = board.turn if not board.is_check() else 1 - board.turn
    played = []
    for usi in [None] + line:
        if usi is not None:
            board.push_usi(usi)
            played.append(usi)
        if board.turn == attacker or not board.is_check():
            continue
        for m in skipped_defences(board):
            board.push(m)
            escapes = not dfpn.search(board) and dfpn.searched_node < nodes
            board.pop()
            if escapes:
                return (f"skipped defence {cshogi.move_to_usi(m)} after "
                        f"{' '.join(played) or '(root)'}: cshogi's own search finds no mate")
    return "no skipped defence refutes cshogi's line"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    nodes = int(sys.argv[1])
    for sfen in sys.argv[2:]:
        print(audit(sfen, nodes), flush=True)


main()

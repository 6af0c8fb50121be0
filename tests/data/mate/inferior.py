#!/usr/bin/env python3
"""Writes inferior.jsonl: bench positions (benches/data/dfpn_bench.sfen, by 0-based line)
that our solver left `unknown` at 10,000 nodes until it cut lines that come back to a
board on the search path with less in the attacker's hand (src/mate/path.rs), and then
disproved within that budget. Each row holds cshogi 1.1.0's DfPn verdict at up to
3,000,000 nodes (`search`: none of them is in check) and the nodes it took; cshogi needs
more than 10,000 for every one. The script fails unless cshogi proves no mate for each.
Run from the repo root: python3 tests/data/mate/inferior.py > tests/data/mate/inferior.jsonl
(needs cshogi from PyPI)."""
import json

import cshogi

LINES = [120, 229, 345, 443, 455, 611, 624, 664, 806, 1194, 1869]
BUDGET = 3_000_000


def main():
    with open("benches/data/dfpn_bench.sfen") as f:
        sfens = [line.strip() for line in f]
    for line in LINES:
        sfen = sfens[line]
        board = cshogi.Board(sfen)
        assert not board.is_check(), sfen
        dfpn = cshogi.DfPn()
        dfpn.set_max_depth(255)
        dfpn.set_max_search_node(BUDGET)
        found = dfpn.search(board)
        nodes = dfpn.searched_node
        if found or nodes >= BUDGET:
            raise SystemExit(f"cshogi does not prove no mate for line {line}: {sfen}")
        row = {"line": line, "sfen": sfen, "cshogi": "no_mate", "cshogi_nodes": nodes}
        print(json.dumps(row))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Makes the game-format test vectors from the corpus teacher games kept in tests/data/codec.

    python3 tests/data/games/make_vectors.py        (from the repository root)

Needs `pip install rsshogi==1.7.0 cshogi==1.1.0 numpy` and the `zstd` command.

Inputs: codec/teacher.usi (655 games as USI lines), codec/teacher.games.jsonl (winner and
end reason of each) and codec/teacher.psv.zst (a score for every position, in game order).
Outputs, all zstd -19:
- teacher.pack.zst      rsshogi.record.write_pack of the 655 games
- teacher.sbinpack.zst  rsshogi.record.write_sbinpack of the same games (stem_score 0; games
                        whose index is a multiple of 7 carry metadata b"game-<index>")
- teacher.hcpe3.zst     the same games in dlshogi's hcpe3 layout, written here with numpy
                        from the published structs (cppshogi/cppshogi.h, see README.md);
                        cshogi makes every HuffmanCodedPos (to_hcp) and Move16 (move16).
Every move carries the psv score of the position it is played from as its eval. hcpe3 extras:
the first 4 moves of every game have candidateNum 0 (as dlshogi's csa_to_hcpe3.py writes for
book moves); every other move has the played move plus up to 2 other legal moves (cshogi
legal_moves order, every 7th) as candidates, with visit counts 64 + ply % 64 for the played
move and that divided by 2 and 3 for the others.
"""
import json
import subprocess
import sys
from pathlib import Path

import cshogi
import numpy as np
from rsshogi.record import (EngineInfo, GameResult, MoveEntry, Record, SpecialMoveEntry,
                            write_pack, write_sbinpack)

HERE = Path(__file__).resolve().parent
CODEC = HERE.parent / "codec"

HCPE3_HEADER = np.dtype([("hcp", cshogi.dtypeHcp), ("moveNum", "<u2"), ("result", "u1"),
                         ("opponent", "u1")])
MOVE_INFO = np.dtype([("selectedMove16", "<u2"), ("eval", "<i2"), ("candidateNum", "<u2")])
MOVE_VISITS = np.dtype([("move16", "<u2"), ("visitNum", "<u2")])
assert HCPE3_HEADER.itemsize == 36 and MOVE_INFO.itemsize == 6 and MOVE_VISITS.itemsize == 4
BOOK_MOVES = 4
GAMERESULT_SENNICHITE, GAMERESULT_NYUGYOKU, GAMERESULT_MAXMOVE = 0x4, 0x8, 0x10


def unzstd(path):
    return subprocess.run(["zstd", "-dc", str(path)], check=True, capture_output=True).stdout


def zstd_write(path, data):
    subprocess.run(["zstd", "-19", "-q", "-f", "-o", str(path)], input=data, check=True)


def terminal(game):
    """The rsshogi terminal of a corpus game (winner + end_reason)."""
    reason, winner = game["end_reason"], game["winner"]
    side = {"black": "BLACK", "white": "WHITE"}.get(winner)
    if reason.startswith("sennichite"):
        result = GameResult.DRAW_BY_REPETITION
    elif reason == "max_moves":
        result = GameResult.DRAW_BY_MAX_PLIES
    elif reason == "jishogi":
        result = GameResult.DRAW_BY_IMPASSE
    elif side is None:
        result = GameResult.PAUSED
    elif reason == "entering_king_declaration":
        result = getattr(GameResult, side + "_WIN_BY_DECLARATION")
    elif reason.startswith("perpetual_check") or reason.startswith("illegal"):
        result = getattr(GameResult, side + "_WIN_BY_ILLEGAL_MOVE")
    else:
        result = getattr(GameResult, side + "_WIN")
    return SpecialMoveEntry.from_result(result)


def hcpe3_result(game):
    """dlshogi's result byte: xxxxxx11 winner (0 draw, 1 black, 2 white), then flags."""
    value = {"black": 1, "white": 2}.get(game["winner"], 0)
    reason = game["end_reason"]
    if reason.startswith("sennichite"):
        value |= GAMERESULT_SENNICHITE
    if reason == "entering_king_declaration":
        value |= GAMERESULT_NYUGYOKU
    if reason == "max_moves":
        value |= GAMERESULT_MAXMOVE
    return value


def split_usi(line):
    words = line.split()
    if words[0] == "startpos":
        sfen, rest = cshogi.STARTING_SFEN, words[1:]
    else:
        sfen, rest = " ".join(words[1:5]), words[5:]
    return sfen, rest[1:] if rest and rest[0] == "moves" else []


def hcpe3_game(sfen, moves, evals, game):
    board = cshogi.Board(sfen)
    header = np.zeros(1, HCPE3_HEADER)
    hcp = np.zeros(1, cshogi.HuffmanCodedPos)
    board.to_hcp(hcp)
    header["hcp"] = hcp["hcp"]
    header["moveNum"] = len(moves)
    header["result"] = hcpe3_result(game)
    out = [header.tobytes()]
    for ply, (usi, ev) in enumerate(zip(moves, evals)):
        move = board.move_from_usi(usi)
        assert board.is_legal(move), (sfen, ply, usi)
        info = np.zeros(1, MOVE_INFO)
        info["selectedMove16"] = cshogi.move16(move)
        info["eval"] = ev
        visits = []
        if ply >= BOOK_MOVES:
            others = [m for m in board.legal_moves if m != move][::7][:2]
            total = 64 + ply % 64
            visits.append((cshogi.move16(move), total))
            for k, m in enumerate(others):
                visits.append((cshogi.move16(m), total // (k + 2)))
        info["candidateNum"] = len(visits)
        out.append(info.tobytes())
        if visits:
            out.append(np.array(visits, MOVE_VISITS).tobytes())
        board.push(move)
    return b"".join(out)


def main():
    lines = (CODEC / "teacher.usi").read_text().splitlines()
    games = [json.loads(l) for l in (CODEC / "teacher.games.jsonl").read_text().splitlines()]
    psv = np.frombuffer(unzstd(CODEC / "teacher.psv.zst"), cshogi.PackedSfenValue)
    assert len(lines) == len(games) == 655
    records, metadatas, hcpe3 = [], [], []
    for i, (line, game) in enumerate(zip(lines, games)):
        sfen, moves = split_usi(line)
        assert len(moves) + 1 == game["records"], i
        scores = psv["score"][game["first_record"]:game["first_record"] + len(moves)]
        evals = [int(s) for s in scores]
        entries = [MoveEntry(m, engine_info=EngineInfo(eval=e)) for m, e in zip(moves, evals)]
        records.append(Record(sfen, moves=entries, terminal=terminal(game)))
        metadatas.append(f"game-{i}".encode() if i % 7 == 0 else None)
        hcpe3.append(hcpe3_game(sfen, moves, evals, game))
    zstd_write(HERE / "teacher.pack.zst", write_pack(records))
    zstd_write(HERE / "teacher.sbinpack.zst", write_sbinpack(records, stem_score=0,
                                                            metadatas=metadatas))
    zstd_write(HERE / "teacher.hcpe3.zst", b"".join(hcpe3))
    print(f"{len(records)} games, {sum(len(r.moves) for r in records)} moves", file=sys.stderr)


if __name__ == "__main__":
    main()

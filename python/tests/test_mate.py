"""posfilter.mate and mate_many against the CLI (`posfilter mate --json`), against
cshogi's verdicts and mate checks, and under Ctrl-C and other threads."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import cshogi
import numpy as np
import pytest

import posfilter
from conftest import DATA, HARD, without_seconds


def cli_answers(posfilter_bin, positions, tmp_path, *flags):
    """`posfilter mate --file F --json FLAGS` for `positions`, one dict per line."""
    path = tmp_path / "positions.txt"
    path.write_text("".join(p + "\n" for p in positions))
    out = subprocess.run(
        [str(posfilter_bin), "mate", "--file", str(path), "--json", *flags],
        check=True, capture_output=True, text=True,
    ).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    return [{k: v for k, v in r.items() if k not in ("seconds", "line", "position")} for r in rows]


def test_answers_equal_the_cli_json(posfilter_bin, labels, tmp_path):
    # 200 labelled positions (mates, no mates, unknowns, positions in check) and USI lines.
    positions = [x["sfen"] for x in labels[:200]]
    positions += ["startpos moves 7g7f 3c3d 8h2b+", "position startpos moves 2g2f"]
    want = cli_answers(posfilter_bin, positions, tmp_path, "--nodes", "20000", "--threads", "2")
    got = posfilter.mate_many(positions, nodes=20_000, threads=2)
    assert without_seconds(got) == want
    assert len({a["result"] for a in got}) >= 4  # the sample covers several answers
    one = posfilter.mate(positions[1], nodes=20_000)
    assert set(one) == {"result", "plies", "plies_exact", "pv", "nodes", "seconds"}
    assert without_seconds([one]) == want[1:2]


def test_limits_are_those_of_the_cli(posfilter_bin, labels, tmp_path):
    mates = [x["sfen"] for x in labels[:400] if x.get("dfpn") == "mate"][:40]
    flags = ["--nodes", "50000", "--shorten", "0", "--max-plies", "9", "--table-mb", "4"]
    want = cli_answers(posfilter_bin, mates, tmp_path, *flags)
    got = posfilter.mate_many(mates, nodes=50_000, shorten=0, max_plies=9, table_mb=4)
    assert without_seconds(got) == want
    assert any(a["result"] == "unknown" for a in got)  # mates longer than 9 plies


def _replay_mate(sfen, answer):
    """Checks a mate / mated answer with cshogi: every move legal, the attacker's moves
    checks, the last position checkmated."""
    board = cshogi.Board(sfen)
    attacker_first = answer["result"] == "mate"
    for ply, usi in enumerate(answer["pv"]):
        move = board.move_from_usi(usi)
        assert board.is_legal(move), (sfen, answer["pv"], ply)
        board.push(move)
        if (ply % 2 == 0) == attacker_first:
            assert board.is_check(), (sfen, answer["pv"], ply)
    assert board.is_check() and board.is_game_over(), (sfen, answer["pv"])


def test_no_verdict_conflicts_with_cshogi_and_every_line_mates(labels):
    sample = labels[:600]
    answers = posfilter.mate_many([x["sfen"] for x in sample], nodes=100_000)
    conflicts, checked = [], 0
    for x, a in zip(sample, answers):
        theirs = x.get("andnode") if x["check"] else x.get("dfpn")
        if x["checkmated"]:
            assert a["result"] == "checkmated", x
        mine = a["result"]
        if x["check"]:
            # cshogi's andnode answers "is the side in check mated?"; a side in check that
            # is not mated may still mate (our `mate`), which is no conflict.
            conflict = (mine == "mated" and theirs == "not_mated") or (
                mine in ("mate", "no_mate") and theirs == "mated"
            )
        else:
            conflict = (mine == "mate" and theirs == "no_mate") or (
                mine == "no_mate" and theirs == "mate"
            )
        if conflict:
            conflicts.append((x["i"], mine, theirs))
        if mine in ("mate", "mated"):
            _replay_mate(x["sfen"], a)
            checked += 1
    assert conflicts == []
    assert checked > 50


def test_thread_count_does_not_change_answers(labels):
    positions = [x["sfen"] for x in labels[200:320]]
    one = posfilter.mate_many(positions, nodes=20_000, threads=1)
    two = posfilter.mate_many(positions, nodes=20_000, threads=2)
    assert without_seconds(one) == without_seconds(two)


@pytest.mark.parametrize("name,dtype", [("psfen", cshogi.PackedSfen), ("hcp", cshogi.HuffmanCodedPos)])
def test_records_give_the_answers_of_their_sfen(name, dtype):
    records = np.fromfile(DATA / "pipeline" / f"startpos.{name}", dtype=dtype)[:150]
    sfens = (DATA / "pipeline" / "startpos.sfen").read_text().splitlines()[:150]
    from_records = posfilter.mate_many(records, nodes=10_000)
    assert without_seconds(from_records) == without_seconds(posfilter.mate_many(sfens, nodes=10_000))
    rows = records.view(np.uint8).reshape(-1, 32)
    assert without_seconds(posfilter.mate_many(rows, nodes=10_000, format=name)) == without_seconds(
        from_records
    )


def test_bad_positions_raise_value_error_naming_index_and_reason():
    with pytest.raises(ValueError, match=r"bad position \"garbage\""):
        posfilter.mate("garbage")
    with pytest.raises(ValueError, match=r"position 2: .*move 2"):
        posfilter.mate_many(["startpos", "startpos moves 7g7f", "startpos moves 7g7f 7g7f"])
    # Kings side by side: parses, but cannot occur.
    with pytest.raises(ValueError, match="position 0: .*impossible"):
        posfilter.mate_many(["9/9/9/9/3kK4/9/9/9/9 b - 1"])
    records = np.fromfile(DATA / "pipeline" / "startpos.psfen", dtype=cshogi.PackedSfen)[:3].copy()
    records.view(np.uint8).reshape(3, 32)[1] = 0xFF
    with pytest.raises(ValueError, match=r"record 1: does not decode as psfen"):
        posfilter.mate_many(records)
    with pytest.raises(TypeError):
        posfilter.mate_many("startpos")


@pytest.mark.parametrize(
    "kwargs,message",
    [({"nodes": 0}, "nodes"), ({"table_mb": 0}, "table_mb"), ({"table_mb": 70_000}, "table_mb")],
)
def test_bad_limits_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        posfilter.mate("startpos", **kwargs)


def test_huge_node_budgets_are_searched_until_answered():
    # A budget beyond any search is no error: the answer comes when the search ends.
    big = posfilter.mate("startpos moves 7g7f 3c3d", nodes=2**64 - 1)
    assert big["result"] == "no_mate"
    with pytest.raises(OverflowError):
        posfilter.mate("startpos", nodes=2**64)


def test_empty_list_gives_no_answers():
    assert posfilter.mate_many([]) == []
    assert posfilter.mate_many(np.zeros(0, dtype=cshogi.PackedSfenValue)) == []


INTERRUPTED = """
import sys, time, posfilter
sys.stdout.write("ready\\n"); sys.stdout.flush()
try:
    {call}
except KeyboardInterrupt:
    sys.stdout.write("interrupted\\n"); sys.stdout.flush(); sys.exit(0)
sys.stdout.write("finished\\n"); sys.exit(1)
"""


def seconds_to_stop(call: str, cwd, settle: float = 1.5) -> float:
    """Seconds from SIGINT to the exit of a Python process running `call`, which must
    catch the KeyboardInterrupt."""
    script = textwrap.dedent(INTERRUPTED).format(call=call)
    child = subprocess.Popen([sys.executable, "-c", script], cwd=cwd, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "ready\n"
        time.sleep(settle)  # well into the Rust call
        assert child.poll() is None, "the call ended before the signal"
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        child.wait(timeout=30)
        took = time.monotonic() - sent
        assert child.stdout.read() == "interrupted\n"
        return took
    finally:
        child.kill()


def test_ctrl_c_stops_mate_within_a_second(tmp_path):
    took = seconds_to_stop(f"posfilter.mate({HARD!r}, nodes=10**12)", tmp_path)
    assert took < 1.0, took


def test_ctrl_c_stops_mate_many_within_a_second(tmp_path):
    took = seconds_to_stop(f"posfilter.mate_many([{HARD!r}] * 8, nodes=10**12, threads=2)", tmp_path)
    assert took < 1.0, took


def test_other_threads_run_while_the_solver_works():
    done = threading.Event()
    result = {}

    def solve():
        result["answer"] = posfilter.mate(HARD, nodes=300_000)
        done.set()

    worker = threading.Thread(target=solve)
    worker.start()
    spins = 0
    while not done.is_set():
        spins += 1  # pure Python: only runs while the solver has let go of the GIL
        time.sleep(0.001)
    worker.join()
    assert result["answer"]["nodes"] == 300_000
    assert spins > 20, spins


def test_the_readme_mate_example_gives_what_it_shows():
    # Its first example was an impossible position (five lances) and raised ValueError.
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    found = re.search(r'posfilter\.mate\("([^"]+)"\)\n# (\{.*\})', readme)
    assert found, "no mate example with its answer in python/README.md"
    got = posfilter.mate(found.group(1))
    shown = found.group(2)
    for key in ("result", "plies", "plies_exact", "nodes"):
        assert f"'{key}': {got[key]!r}" in shown, (key, got[key], shown)
    assert ", ".join(repr(m) for m in got["pv"][:3]) in shown

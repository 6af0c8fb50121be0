"""posfilter.decide against `posfilter run` on the same records: the same decision for every
record (audit.jsonl and rejected.jsonl), mate lengths and kept bytes, with the mate filter
on and off, for the four binary formats; cshogi reads the kept rows back; malformed rows
are rejected rows; the documented array and setting behaviour; Ctrl-C."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import cshogi
import numpy as np
import pytest
import zstandard

import posfilter
from conftest import DATA, HARD
from test_mate import seconds_to_stop

#: cshogi's dtype for each binary format.
DTYPES = {
    "psfen": cshogi.PackedSfen,
    "psv": cshogi.PackedSfenValue,
    "hcp": cshogi.HuffmanCodedPos,
    "hcpe": cshogi.HuffmanCodedPosAndEval,
}

#: The bundled inputs: start-position sets and teacher games (psv in game order).
INPUTS = {
    "psfen": DATA / "pipeline" / "startpos.psfen",
    "hcp": DATA / "pipeline" / "startpos.hcp",
    "psv": DATA / "codec" / "teacher.psv.zst",
    "hcpe": DATA / "codec" / "teacher.hcpe.zst",
}

#: Records taken from each input (the teacher files hold 97,609).
COUNT = 6000
#: Rows spoilt in every input: they must come out as rejected rows, and the run agrees.
SPOILT = (7, 1234, 4321)


def load(format: str, count: int = COUNT) -> np.ndarray:
    """The first `count` records of the bundled `format` input, with cshogi's dtype and
    `SPOILT` rows overwritten with 0xff bytes (beyond the psv gamePly, so games stay)."""
    path = INPUTS[format]
    raw = path.read_bytes()
    if path.suffix == ".zst":
        raw = zstandard.ZstdDecompressor().stream_reader(raw).read()
    records = np.frombuffer(raw, dtype=DTYPES[format])[:count].copy()
    flat = records.view(np.uint8).reshape(len(records), -1)
    for i in (i for i in SPOILT if i < count):
        flat[i, :32] = 0xFF
    return records


def run_cli(posfilter_bin, tmp_path: Path, records: np.ndarray, format: str, toml: str) -> Path:
    """`posfilter run` over `records` written to a file; returns the output directory."""
    tmp_path.mkdir(exist_ok=True)
    source = tmp_path / f"in.{format}"
    records.tofile(source)
    config = tmp_path / "p.toml"
    config.write_text(
        f'[input]\npaths = ["{source}"]\nformat = "{format}"\n'
        f'[output]\ndir = "{tmp_path / "out"}"\ncompression = "none"\n{toml}'
    )
    subprocess.run([str(posfilter_bin), "run", str(config), "--quiet"], check=True)
    return tmp_path / "out"


def run_decisions(out: Path) -> dict:
    """index -> (decision, audit line) of every record the run did not keep."""
    found = {}
    for name in ("audit.jsonl", "rejected.jsonl"):
        path = out / name
        for line in path.read_text().splitlines() if path.exists() else []:
            entry = json.loads(line)
            if entry["decision"] != "keep":
                found[entry["index"]] = (entry["decision"], entry)
    return found


@pytest.mark.parametrize("mate", [True, False], ids=["mate-on", "mate-off"])
@pytest.mark.parametrize("format", list(INPUTS))
def test_decisions_equal_the_run_record_for_record(posfilter_bin, tmp_path, format, mate):
    records = load(format)
    toml = "[filter.mate]\nnodes = 3000\n" if mate else "[filter.mate]\nenabled = false\n"
    out = run_cli(posfilter_bin, tmp_path, records, format, toml + "[workers]\nthreads = 2\n")
    result = posfilter.decide(records, nodes=3000, mate=mate, threads=1)

    assert result.dtype == posfilter.DECIDE_DTYPE and len(result) == len(records)
    from_run = run_decisions(out)
    ours = {
        i: posfilter.DECISIONS[code]
        for i, code in enumerate(result["decision"])
        if code != 0
    }
    assert ours == {i: d for i, (d, _) in from_run.items()}
    assert all(ours[i] == "rejected" for i in SPOILT)
    assert (result["keep"] == (result["decision"] == 0)).all()
    # The report's counts, by the names DECISIONS gives the codes.
    report = json.loads((out / "report.json").read_text())["records"]
    counts = dict(zip(posfilter.DECISIONS, np.bincount(result["decision"], minlength=len(posfilter.DECISIONS))))
    assert counts["keep"] == report["kept"] and counts["rejected"] == report["rejected"]
    assert {k: counts[k] for k in report["dropped"]} == report["dropped"]
    # Mate lengths and nodes as the audit has them.
    for i, (decision, entry) in from_run.items():
        if decision in ("mate", "mated", "checkmated"):
            assert result["plies"][i] == entry["detail"]["plies"], i
            assert result["nodes"][i] == entry["detail"]["nodes"], i
    if mate:
        assert counts["mate"] > 0 and result["plies"].max() > 1
    else:
        assert result["nodes"].sum() == 0 and not result["unknown"].any()
    # The kept rows are the run's kept bytes.
    kept = b"".join(p.read_bytes() for p in sorted((out / "kept").iterdir()))
    assert records[result["keep"]].tobytes() == kept


def test_the_whole_teacher_hcpe_is_decided_as_the_run_decides_it(posfilter_bin, tmp_path):
    # Its games (chains of best moves) cross the 256-record batches of a mate-on run; a
    # decide that cut hcpe elsewhere than the run kept records the run drops as
    # repetitions (43520, 51456, 54017, 54019, 54021, 68608, 68610).
    records = load("hcpe", count=1 << 30)
    assert len(records) == 97609
    toml = "[filter.mate]\nnodes = 10000\n[workers]\nthreads = 2\n"
    out = run_cli(posfilter_bin, tmp_path, records, "hcpe", toml)
    result = posfilter.decide(records, nodes=10000, threads=2)
    from_run = {i: d for i, (d, _) in run_decisions(out).items()}
    ours = {i: posfilter.DECISIONS[c] for i, c in enumerate(result["decision"]) if c != 0}
    assert ours == from_run
    for i in (43520, 51456, 54017, 54019, 54021, 68608, 68610):
        assert ours[i] == "repetition", i


def test_cshogi_reads_the_kept_rows_back():
    records = load("hcpe", 3000)
    result = posfilter.decide(records, nodes=3000)
    kept = records[result["keep"]]
    assert 0 < len(kept) < len(records)
    board = cshogi.Board()
    for row in kept:
        board.set_hcp(row["hcp"])
        assert board.is_ok() and not board.is_game_over()
        if not board.is_check():
            # A kept position has no mate in one (by cshogi's own mate search).
            assert board.mate_move_in_1ply() == 0, board.sfen()
    mates = records[result["decision"] == posfilter.DECISIONS.index("mate")]
    ones = mates[result["plies"][result["decision"] == posfilter.DECISIONS.index("mate")] == 1]
    assert len(ones) > 0
    for row in ones:
        board.set_hcp(row["hcp"])
        assert board.mate_move_in_1ply() != 0, board.sfen()


def test_malformed_rows_are_rejected_rows_and_the_rest_is_decided_as_without_them():
    clean = load("psfen", 2000)
    spoilt = clean.copy()
    raw = spoilt.view(np.uint8).reshape(len(spoilt), 32)
    raw[100] = 0xFF
    raw[200] = 0  # decodes as an empty board: no kings
    got = posfilter.decide(spoilt, mate=False, dedup=False)
    want = posfilter.decide(clean, mate=False, dedup=False)
    rejected = posfilter.DECISIONS.index("rejected")
    assert got["decision"][100] == rejected and got["decision"][200] == rejected
    others = np.ones(len(clean), dtype=bool)
    others[[100, 200]] = False
    assert (got[others] == want[others]).all()


def test_thread_counts_and_batch_sizes_of_a_run_give_the_same_rows():
    records = load("psv", 4000)
    one = posfilter.decide(records, nodes=2000, threads=1)
    assert (posfilter.decide(records, nodes=2000, threads=2) == one).all()
    assert (posfilter.decide(records.view(np.uint8).reshape(-1, 40), nodes=2000) == one).all()


def test_settings_are_the_config_keys_of_a_run():
    records = load("psv", 4000)
    names = posfilter.DECISIONS
    base = posfilter.decide(records, mate=False)
    assert (base["decision"] == names.index("repetition")).any()
    assert (base["decision"] == names.index("duplicate")).any()
    none = posfilter.decide(records, mate=False, repetition=None, dedup=False, declaration=None)
    assert set(none["decision"]) <= {0, names.index("rejected")}
    exact = posfilter.decide(records, mate=False, repetition=["exact"])
    assert (exact["decision"] == names.index("repetition")).sum() <= (
        base["decision"] == names.index("repetition")
    ).sum()
    no_root = posfilter.decide(records[:500], nodes=2000, filter__mate__and_root=False)
    assert (no_root["decision"] != names.index("mated")).all()
    with pytest.raises(ValueError, match="nodes"):
        posfilter.decide(records, nodes=0)
    with pytest.raises(ValueError, match="rule"):
        posfilter.decide(records, declaration="27")
    with pytest.raises(ValueError, match="no_such_key"):
        posfilter.decide(records, **{"filter.mate.no_such_key": 1})


def test_arrays_behave_as_documented():
    records = load("hcpe", 600)
    whole = posfilter.decide(records, mate=False, dedup=False)
    # Non-contiguous: the rows of its contiguous copy.
    strided = posfilter.decide(records[::3], mate=False, dedup=False)
    assert (strided == posfilter.decide(records[::3].copy(), mate=False, dedup=False)).all()
    assert (strided["decision"] == whole["decision"][::3]).all()
    # Empty arrays: empty results of the same dtype.
    empty = posfilter.decide(records[:0])
    assert empty.dtype == posfilter.DECIDE_DTYPE and len(empty) == 0
    assert len(posfilter.decide(np.zeros((0, 40), dtype=np.uint8))) == 0
    # Bad dtypes and widths raise ValueError before any work.
    with pytest.raises(ValueError, match="holds no shogi records"):
        posfilter.decide(np.zeros(10, dtype=np.float32))
    with pytest.raises(ValueError, match="no record format has 33 bytes"):
        posfilter.decide(np.zeros((3, 33), dtype=np.uint8))
    with pytest.raises(ValueError, match="format='psfen'"):
        posfilter.decide(np.zeros((3, 32), dtype=np.uint8))
    with pytest.raises(ValueError, match="40-byte records"):
        posfilter.decide(np.zeros((3, 38), dtype=np.uint8), format="psv")
    with pytest.raises(TypeError):
        posfilter.decide(records.tobytes())


def assert_same_within_budget(larger: np.ndarray, bounded: np.ndarray) -> None:
    """`larger`, rows decided with a larger node budget, has the verdicts and lengths of
    `bounded` (rows a budget settled). A proven mate's shortening (the search that proves
    no shorter mate, `plies_exact`) may spend more of a larger budget, so a mate's node
    count may only grow; every other row's is the same."""
    for column in ("keep", "decision", "plies", "unknown"):
        assert (larger[column] == bounded[column]).all(), column
    names = np.array(posfilter.DECISIONS)[bounded["decision"]]
    mates = np.isin(names, ["mate", "mated"])
    assert (larger["nodes"][~mates] == bounded["nodes"][~mates]).all()
    assert (larger["nodes"][mates] >= bounded["nodes"][mates]).all()


def test_huge_node_budgets_are_accepted_up_to_a_config_integer():
    records = load("psfen", 300)
    bounded = posfilter.decide(records, nodes=100_000)
    settled = records[~bounded["unknown"]]
    # Positions decided within 100,000 nodes: the same verdicts and lengths with no budget
    # to speak of. A proven mate's shortening (the search that proves no shorter mate,
    # `plies_exact`) may spend more of a larger budget, so its node count may only grow.
    huge = posfilter.decide(settled, nodes=2**63 - 1)
    assert_same_within_budget(huge, bounded[~bounded["unknown"]])
    with pytest.raises(ValueError, match="64-bit integer"):
        posfilter.decide(records, nodes=2**64)


@pytest.mark.parametrize("bad", [1.5, True, 3000.0, np.float64(2.0), "3000"])
def test_a_budget_that_is_not_a_whole_number_is_refused_with_its_keyword(bad):
    # int() used to make 1.5 and True one node, silently (pipeline.toml refuses 1.5).
    records = load("psfen", 10)
    with pytest.raises(ValueError, match="nodes must be a whole number"):
        posfilter.decide(records, nodes=bad)
    with pytest.raises(ValueError, match="threads must be a whole number"):
        posfilter.Decider(threads=bad)
    with pytest.raises(ValueError, match="nodes must be a whole number"):
        posfilter.mate("startpos", nodes=bad)
    with pytest.raises(ValueError, match="table_mb must be a whole number"):
        posfilter.mate_many(["startpos"], table_mb=bad)
    assert len(posfilter.decide(records, nodes=np.int64(500))) == len(records)


def test_ctrl_c_stops_decide_within_a_second(tmp_path):
    board = cshogi.Board(HARD)
    hard = np.zeros((4, 32), dtype=np.uint8)
    for row in hard:
        board.to_psfen(row)
    np.save(tmp_path / "hard.npy", hard)
    call = (
        "import numpy as np; posfilter.decide(np.load('hard.npy'), format='psfen',"
        " nodes=10**12, threads=2, filter__mate__time_ms=0, filter__mate__cache_mb=0)"
    )
    assert seconds_to_stop(call, tmp_path) < 1.0


def test_a_decider_decides_its_calls_as_a_run_decides_its_files(posfilter_bin, tmp_path):
    records = load("psv", 5000)
    # Cut between two games (gamePly does not rise), as a user chunking a psv file would.
    plies = records["gamePly"]
    cut = next(i for i in range(2500, len(records)) if plies[i] <= plies[i - 1])
    parts = [records[:cut], records[cut:]]
    paths = []
    for n, part in enumerate(parts):
        paths.append(tmp_path / f"in{n}.psv")
        part.tofile(paths[-1])
    config = tmp_path / "p.toml"
    config.write_text(
        f"[input]\npaths = {json.dumps([str(p) for p in paths])}\n"
        f'[output]\ndir = "{tmp_path / "out"}"\n[filter.mate]\nnodes = 2000\n'
    )
    subprocess.run([str(posfilter_bin), "run", str(config), "--quiet"], check=True)
    decider = posfilter.Decider(nodes=2000, threads=2)
    rows = np.concatenate([decider.decide(part) for part in parts])
    ours = {i: posfilter.DECISIONS[c] for i, c in enumerate(rows["decision"]) if c != 0}
    from_run = {i: d for i, (d, _) in run_decisions(tmp_path / "out").items()}
    assert ours == from_run
    # Dedup spans the calls: every record kept the first time is a duplicate now.
    again = decider.decide(parts[0])
    kept_before = rows["keep"][:cut]
    assert (again["decision"][kept_before] == posfilter.DECISIONS.index("duplicate")).all()


def test_a_decider_interrupted_by_ctrl_c_decides_again():
    import _thread
    import threading

    board = cshogi.Board(HARD)
    hard = np.zeros((2, 32), dtype=np.uint8)
    for row in hard:
        board.to_psfen(row)
    limits = dict(threads=2, dedup=False, filter__mate__time_ms=0, filter__mate__cache_mb=0)
    decider = posfilter.Decider(nodes=10**12, **limits)
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        decider.decide(hard, format="psfen")
    timer.join()
    # The next call runs to its end (the stop flag of the interrupted one is cleared): on
    # positions settled within 100,000 nodes, the rows of a decider with that budget.
    records = load("psfen", 300)
    bounded = posfilter.decide(records, nodes=100_000, **limits)
    settled = ~bounded["unknown"]
    assert_same_within_budget(decider.decide(records[settled]), bounded[settled])

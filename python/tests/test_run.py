"""posfilter.run against `posfilter run` on the same config: the same files byte for byte
and the same report; overrides, progress, errors and Ctrl-C."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import posfilter
from conftest import DATA, REPO
from test_mate import seconds_to_stop

#: report.json keys that differ between two runs of the same input (docs/output-schema.md):
#: timing, scheduling and provenance (the run's command line and times).
RUN_DEPENDENT = {
    "seconds", "positions_per_second", "threads", "nodes", "verdict_cache", "resumed_from",
    "run", "throughput",
}


def make_config(tmp_path: Path, mate: str = "nodes = 10000") -> Path:
    """A config over 1,500 start positions (PackedSfen) and the bundled psv teacher games."""
    data = tmp_path / "in"
    data.mkdir()
    (data / "a.psfen").write_bytes((DATA / "pipeline" / "startpos.psfen").read_bytes()[: 1500 * 32])
    shutil.copy(REPO / "data" / "teacher.psv", data / "b.psv")
    config = tmp_path / "p.toml"
    config.write_text(
        f'[input]\npaths = ["in/a.psfen", "in/b.psv"]\n[output]\ndir = "out"\n'
        f"[filter.mate]\n{mate}\n"
    )
    return config


def files(out: Path) -> dict:
    """Every file a run wrote, by path, except report.json and report.html (its page)."""
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name not in ("report.json", "report.html")
    }


def comparable(report: dict) -> dict:
    """`report` without the keys that differ between runs (and the solver's times)."""
    kept = {k: v for k, v in report.items() if k not in RUN_DEPENDENT}
    if "histograms" in kept:
        kept["histograms"] = {k: v for k, v in kept["histograms"].items() if k != "micros"}
    return kept


def test_run_writes_what_the_cli_writes(posfilter_bin, tmp_path):
    config = make_config(tmp_path)
    subprocess.run(
        [str(posfilter_bin), "run", str(config), "--quiet", "--out", str(tmp_path / "cli")],
        check=True,
    )
    seen = []
    report = posfilter.run(config, out=tmp_path / "py", threads=2, progress=seen.append)
    cli = json.loads((tmp_path / "cli" / "report.json").read_text())
    assert comparable(report) == comparable(cli)
    assert report == json.loads((tmp_path / "py" / "report.json").read_text())
    assert files(tmp_path / "py") == files(tmp_path / "cli")
    assert report["records"]["input"] == 1500 + 3012
    assert report["records"]["dropped"]["mate"] > 0
    # Progress: counts that only grow, ending at the run's.
    assert seen, "no progress reported"
    for a, b in zip(seen, seen[1:]):
        assert all(a[k] <= b[k] for k in ("decided", "disk_done", "kept", "dropped"))
    last = seen[-1]
    assert last["decided"] == report["records"]["input"]
    assert last["kept"] == report["records"]["kept"]
    assert last["disk_done"] == last["disk_total"] > 0


def test_overrides_set_config_keys(tmp_path):
    config = make_config(tmp_path)
    report = posfilter.run(
        config, out=tmp_path / "o", progress=False,
        filter__mate__enabled=False, **{"filter.dedup.mirror": True, "output.compression": "none"},
    )
    assert report["config"]["filter"]["mate"]["enabled"] is False
    assert report["config"]["filter"]["dedup"]["mirror"] is True
    assert report["records"]["dropped"]["mate"] == 0
    assert list((tmp_path / "o" / "kept").iterdir())[0].suffix == ".psfen"


@pytest.mark.parametrize(
    "overrides,message",
    [
        ({"filter__mate__nodez": 5}, "nodez"),
        ({"filter__mate__nodes": "many"}, "nodes"),
        ({"output__zstd_level": 99}, "output.zstd_level"),
        ({"filter__mate__nodes": object()}, "not a config value"),
        ({"input__paths__x": 1}, "not a table"),
    ],
)
def test_bad_overrides_raise_value_error_naming_the_key(tmp_path, overrides, message):
    config = make_config(tmp_path)
    with pytest.raises(ValueError, match=message):
        posfilter.run(config, out=tmp_path / "o", progress=False, **overrides)


@pytest.mark.parametrize(
    "overrides,expected",
    [
        ({"output__shard_records": -1},
         "override output.shard_records = -1: invalid value: integer `-1`, expected u64"),
        ({"output__zstd_level": 99},
         "override output.zstd_level = 99: `output.zstd_level`: 99 is outside 1..=22"),
        ({"filter__mate__nodes": 0},
         "override filter.mate.nodes = 0: `filter.mate.nodes`: must be at least 1 when the mate filter is enabled"),
    ],
)
def test_a_refused_override_is_named_not_a_line_of_a_toml_never_written(tmp_path, overrides, expected):
    # The message quoted line 46 of the TOML built for the overrides ("46 | shard_records = -1").
    config = make_config(tmp_path)
    with pytest.raises(ValueError) as raised:
        posfilter.run(config, out=tmp_path / "o", progress=False, **overrides)
    assert str(raised.value) == expected
    if "zstd_level" not in expected:  # decide checks [filter] and [workers] keys only
        with pytest.raises(ValueError) as raised:
            posfilter.Decider(**overrides)
        assert str(raised.value) == expected


def test_missing_files_raise_os_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        posfilter.run(tmp_path / "none.toml")
    config = tmp_path / "p.toml"
    config.write_text('[input]\npaths = ["missing.psv"]\n')
    with pytest.raises(OSError, match="missing.psv"):
        posfilter.run(config, progress=False)


def test_ctrl_c_stops_a_run_within_a_second(tmp_path):
    config = make_config(tmp_path, mate="nodes = 100000000\ncache_mb = 0")
    call = f"posfilter.run({str(config)!r}, threads=2, progress=False)"
    took = seconds_to_stop(call, tmp_path, settle=2.0)
    assert took < 1.0, took
    out = tmp_path / "out"
    assert out.is_dir() and not (out / "manifest.json").exists()

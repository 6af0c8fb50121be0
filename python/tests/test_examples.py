"""The scripts in python/examples, run as a user runs them, against `posfilter run` (and
posfilter.decide) on the same records."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import posfilter
from test_decide import load, run_cli

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def example(name: str, *args, cwd=None) -> str:
    """Runs examples/`name` with `args`; returns what it printed."""
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *map(str, args)],
                          check=True, capture_output=True, text=True, cwd=cwd)
    return done.stdout


def test_filter_hcpe_writes_the_records_a_run_keeps(posfilter_bin, tmp_path):
    records = load("hcpe", 3000)
    records = np.concatenate([records, records[:700]])  # copies in a later chunk
    source, target = tmp_path / "in.hcpe", tmp_path / "kept.hcpe"
    records.tofile(source)
    printed = example("filter_hcpe.py", source, target, "--nodes", 3000, "--chunk", 1000)
    out = run_cli(posfilter_bin, tmp_path / "cli", records, "hcpe",
                  "[filter.mate]\nnodes = 3000\n")
    kept = b"".join(p.read_bytes() for p in sorted((out / "kept").iterdir()))
    assert target.read_bytes() == kept
    report = json.loads((out / "report.json").read_text())["records"]
    assert f"duplicate {report['dropped']['duplicate']}" in " ".join(printed.split())
    assert report["dropped"]["duplicate"] >= 700


def test_the_dataset_serves_the_records_a_run_keeps(posfilter_bin, tmp_path):
    records = load("psv", 4000)
    paths = [tmp_path / "a.psv", tmp_path / "b.psv"]
    cut = next(i for i in range(2000, 4000) if records["gamePly"][i] <= records["gamePly"][i - 1])
    records[:cut].tofile(paths[0])
    records[cut:].tofile(paths[1])
    config = tmp_path / "p.toml"
    config.write_text(
        f"[input]\npaths = {json.dumps([str(p) for p in paths])}\n"
        f'[output]\ndir = "{tmp_path / "out"}"\ncompression = "none"\n'
        "[filter.mate]\nnodes = 2000\n"
    )
    subprocess.run([str(posfilter_bin), "run", str(config), "--quiet"], check=True)
    kept = b"".join(p.read_bytes() for p in sorted((tmp_path / "out" / "kept").iterdir()))
    printed = example("dataset.py", *paths, "--nodes", 2000)
    assert printed.startswith(f"kept {len(kept) // 40},")

    sys.path.insert(0, str(EXAMPLES))
    try:
        from dataset import CleanPsvDataset
    finally:
        sys.path.remove(str(EXAMPLES))
    dataset = CleanPsvDataset([str(p) for p in paths], nodes=2000)
    assert dataset.records.tobytes() == kept
    item = dataset[len(dataset) - 1]
    assert item["sfen"].tobytes() == kept[-40:-8]


def test_ray_map_batches_cleans_each_file_as_decide_does(tmp_path):
    if os.environ.get("CI") is None:
        pytest.importorskip("ray")  # under CI, .ci/run installs ray and this must run
    records = load("psv", 6000)
    source, target = tmp_path / "in", tmp_path / "out"
    source.mkdir()
    bounds = [0, 2000, 4000, 6000]
    for n in range(3):
        records[bounds[n]:bounds[n + 1]].tofile(source / f"part{n}.psv")
    (source / "notes.txt").write_text("not a psv file")
    printed = example("ray_psv.py", source, target, "--nodes", 2000, cwd=tmp_path)
    totals = np.zeros(len(posfilter.DECISIONS), dtype=np.int64)
    for n in range(3):
        part = np.fromfile(source / f"part{n}.psv", dtype=np.uint8).reshape(-1, 40)
        rows = posfilter.decide(part, nodes=2000)
        assert (target / f"part{n}.psv").read_bytes() == part[rows["keep"]].tobytes()
        totals += np.bincount(rows["decision"], minlength=len(totals))
    want = {name: int(n) for name, n in zip(posfilter.DECISIONS, totals) if n}
    assert printed.strip().splitlines()[-1] == str(want)

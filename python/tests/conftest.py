"""Shared fixtures: the repository's test data and the posfilter binary the Python API is
compared with (built by `cargo test --release` / `cargo build --release`, or named by
POSFILTER_BIN)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"

#: A position our solver leaves undecided after 3,000,000 nodes (about 10 s): searches on it
#: run as long as their budget lets them, for the interrupt and GIL tests.
HARD = "+S4+P2l/7g1/1P4g1P/p2P1l2p/1KS1P1kp1/P2G3r1/5+p+p2/2p6/LN7 b 2BG2S3NLPr5p 201"


@pytest.fixture(scope="session")
def posfilter_bin() -> Path:
    """The posfilter command-line binary of this repository."""
    named = os.environ.get("POSFILTER_BIN")
    path = Path(named) if named else REPO / "target" / "release" / "posfilter"
    if not path.exists():
        subprocess.run(["cargo", "build", "--release", "--bin", "posfilter"], cwd=REPO, check=True)
    return path


@pytest.fixture(scope="session")
def labels() -> list:
    """The labelled corpus start positions (cshogi 1.1.0 verdicts at 100,000 nodes)."""
    with open(DATA / "mate" / "labels.jsonl") as f:
        return [json.loads(line) for line in f]


def without_seconds(answers):
    """Answers with the one field that depends on the machine removed."""
    return [{k: v for k, v in a.items() if k != "seconds"} for a in answers]

"""Type stub of posfilter._native, the Rust back end of the public functions in
posfilter/__init__.py (which check and convert the arguments; call those instead)."""

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

__version__: str

def mate(position: str, nodes: int, table_mb: int, shorten: int, max_plies: int) -> Dict[str, Any]:
    """One position: ``{"result", "plies", "pv", "nodes", "seconds"}``. ValueError for a
    position that does not parse or cannot occur, or bad limits."""

def mate_many_text(
    positions: Sequence[str], nodes: int, table_mb: int, shorten: int, max_plies: int, threads: int
) -> List[Dict[str, Any]]:
    """Many SFEN / USI positions on `threads` threads (0: every core), answers in order.
    ValueError "position I: ..." for the first that does not parse, before any search."""

def mate_many_records(
    data: npt.NDArray[np.uint8],
    format: str,
    nodes: int,
    table_mb: int,
    shorten: int,
    max_plies: int,
    threads: int,
) -> List[Dict[str, Any]]:
    """Many binary records: `data` is their bytes back to back (flat, contiguous, a whole
    number of `format`'s records). ValueError "record I: ..." for the first that does not
    decode, before any search."""

def run(
    config_path: str,
    overrides: List[Tuple[str, Any]],
    threads: Optional[int],
    out: Optional[str],
    resume: bool,
    progress: Optional[Callable[[Dict[str, int]], Any]],
) -> Dict[str, Any]:
    """The pipeline of `config_path` with dotted-key `overrides`; returns the report.
    `progress` is called with the counts every 100 ms and at the end."""

class Decider:
    """The library's pipeline::Decider: the calls' records are the files of one run."""

    def __init__(self, settings: List[Tuple[str, Any]]) -> None:
        """Settings as dotted config keys and values. ValueError for a bad one."""

    def decide(
        self, data: npt.NDArray[np.uint8], format: str
    ) -> Tuple[
        npt.NDArray[np.bool_],
        npt.NDArray[np.uint8],
        npt.NDArray[np.uint32],
        npt.NDArray[np.uint64],
        npt.NDArray[np.bool_],
    ]:
        """The records in `data` (bytes back to back, a whole number of `format`'s
        records): the columns keep, decision, plies, nodes, unknown, one entry per record."""

def decision_names() -> List[str]:
    """The name of each decision code, in code order."""

"""posfilter: clean shogi training data from Python.

The solver and the pipeline of the `posfilter` command, on the records and positions of a
Python program: numpy arrays of PackedSfen, PackedSfenValue (psv), HuffmanCodedPos (hcp)
and HuffmanCodedPosAndEval (hcpe) records (cshogi's dtypes or plain uint8 rows), SFEN and
USI strings, and pipeline configs.

Every call releases the GIL while it works, and Ctrl-C (KeyboardInterrupt) stops it within
about a second. Bad input raises ValueError naming the record or position and the reason.
"""

from __future__ import annotations

import numbers
import os
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._records import WIDTHS, as_bytes, infer_format

__all__ = [
    "decide", "Decider", "mate", "mate_many", "record_format", "run",
    "DECISIONS", "DECIDE_DTYPE", "WIDTHS", "__version__",
]

__version__: str = _native.__version__

#: The default node budget per position, as `posfilter mate` and `[filter.mate] nodes`.
DEFAULT_NODES = 100_000
#: The default table per solver in MiB, as `posfilter mate --table-mb`.
DEFAULT_TABLE_MB = 16

#: The name of each decision code of :func:`decide`: ``DECISIONS[row["decision"]]`` is the
#: record's ``decision`` in audit.jsonl (``rejected`` for rejected.jsonl), and the drop
#: names are the keys of report.json's ``records.dropped``.
DECISIONS: Tuple[str, ...] = tuple(_native.decision_names())

#: The dtype of :func:`decide`'s rows.
DECIDE_DTYPE = np.dtype(
    [("keep", "?"), ("decision", "u1"), ("plies", "<u4"), ("nodes", "<u8"), ("unknown", "?")]
)

Position = str
Records = np.ndarray
PathLike = Union[str, "os.PathLike[str]"]


def decide(
    records: Records,
    format: Optional[str] = None,
    *,
    nodes: int = DEFAULT_NODES,
    mate: bool = True,
    repetition: Optional[Sequence[str]] = ("exact", "inferior"),
    declaration: Optional[str] = "csa27",
    dedup: bool = True,
    threads: int = 0,
    **settings: Any,
) -> np.ndarray:
    """Decide every record of a numpy array as `posfilter run` would if the array were its
    input file: the same stages in the same order (validity, repetition, declaration,
    checkmated / mate / mated, then duplicates), the same batches and the same verdicts.

    `records`: cshogi's ``PackedSfen``, ``PackedSfenValue``, ``HuffmanCodedPos`` or
    ``HuffmanCodedPosAndEval`` arrays, uint8 rows of the record width, or void records
    (see :func:`record_format`; `format` names the format when the dtype cannot). psv
    records in game order (gamePly rising within a game) and hcpe records whose best moves
    chain from one to the next carry their game's history into the repetition stage, cut
    into batches by the run's own rule, as in `run`.

    Settings, each the config key of `run`: `nodes` (``filter.mate.nodes``, at least 1),
    `mate` (``filter.mate.enabled``), `repetition` (``filter.repetition.drop``: the kinds,
    ``"exact"`` and ``"inferior"``; empty or None turns the stage off), `declaration`
    (``filter.declaration.rule``: ``"csa27"``, ``"24"``, or ``"off"`` / None), `dedup`
    (``filter.dedup.enabled``), `threads` (``workers.threads``, 0: every core). Any other
    ``[filter]`` or ``[workers]`` key as a keyword, dotted or with double underscores:
    ``filter__mate__and_root=False``, ``**{"workers.table_mb": 256}``.

    Returns one row per record, in order, of dtype :data:`DECIDE_DTYPE`: `keep` (bool),
    `decision` (a code: ``DECISIONS[code]`` is its name in report.json and audit.jsonl),
    `plies` (mate length for ``mate`` / ``mated``, else 0), `nodes` (solver nodes spent)
    and `unknown` (the solver ran out of budget; such records are kept). So
    ``records[result["keep"]]`` are the records `run` keeps. Duplicates are found within
    the call; each call starts with no positions seen (:class:`Decider` carries them from call
    to call).

    A record that does not decode or is impossible is a ``rejected`` row, never an error.
    Raises ValueError for an array that holds no records of a known width or a bad setting,
    before any work. The records are copied once (so other threads may use the array
    meanwhile); the GIL is released while the work runs, and Ctrl-C stops it within about
    a second (KeyboardInterrupt).
    """
    decider = Decider(
        nodes=nodes, mate=mate, repetition=repetition, declaration=declaration,
        dedup=dedup, threads=threads, **settings,
    )
    return decider.decide(records, format)


class Decider:
    """:func:`decide` over many arrays, as `posfilter run` over many files: duplicates
    are found across calls (a position kept by an earlier call drops later copies), psv
    games and their history do not cross calls (a run starts a game at each file). The
    workers, their tables and the positions seen are kept between calls, so a large input
    can be decided chunk by chunk (each chunk a file of the run; cut psv chunks between
    games to keep whole games together).

    The settings are :func:`decide`'s. A call interrupted by Ctrl-C leaves the positions
    of its decided batches seen. One call at a time (another thread gets RuntimeError).
    """

    def __init__(
        self,
        *,
        nodes: int = DEFAULT_NODES,
        mate: bool = True,
        repetition: Optional[Sequence[str]] = ("exact", "inferior"),
        declaration: Optional[str] = "csa27",
        dedup: bool = True,
        threads: int = 0,
        **settings: Any,
    ) -> None:
        pairs: List[Tuple[str, Any]] = [
            ("filter.mate.enabled", bool(mate)),
            ("filter.mate.nodes", _whole("nodes", nodes)),
            ("filter.repetition.enabled", bool(repetition)),
            ("filter.declaration.rule", "off" if declaration is None else str(declaration)),
            ("filter.dedup.enabled", bool(dedup)),
            ("workers.threads", _whole("threads", threads)),
            # decide() writes no mates file: do not build its records.
            ("mates.enabled", False),
        ]
        if repetition:
            kinds = (repetition,) if isinstance(repetition, str) else repetition
            pairs.append(("filter.repetition.drop", [str(kind) for kind in kinds]))
        pairs += [(key.replace("__", "."), value) for key, value in settings.items()]
        self._native = _native.Decider(pairs)

    def decide(self, records: Records, format: Optional[str] = None) -> np.ndarray:
        """The rows of :func:`decide` for `records`, with this decider's settings and the
        positions its earlier calls kept counted as seen."""
        name, count = infer_format(records, format)
        data = as_bytes(records) if count else np.zeros(0, dtype=np.uint8)
        keep, decision, plies, nodes, unknown = self._native.decide(data, name)
        out = np.empty(count, dtype=DECIDE_DTYPE)
        out["keep"], out["decision"], out["plies"] = keep, decision, plies
        out["nodes"], out["unknown"] = nodes, unknown
        return out


def mate(
    position: Position,
    nodes: int = DEFAULT_NODES,
    table_mb: int = DEFAULT_TABLE_MB,
    *,
    shorten: int = 1,
    max_plies: int = 0,
) -> Dict[str, Any]:
    """Solve one position with df-pn, as `posfilter mate --sfen POSITION --json`.

    `position` is an SFEN (``startpos`` and a leading ``sfen`` accepted) or a USI position
    with moves (``"startpos moves 7g7f 3c3d"``), replayed and checked move by move.

    Returns ``{"result", "plies", "pv", "nodes", "seconds"}``: `result` is one of
    ``mate`` (the side to move mates), ``no_mate`` (proved), ``mated`` (in check, every
    evasion loses), ``checkmated``, ``no_legal_moves`` or ``unknown`` (the budget ran
    out); `pv` is the verified mating line in USI moves (empty unless mate / mated),
    `plies` its length, `nodes` the nodes searched and `seconds` the search time.

    `nodes`: node budget (at least 1). `table_mb`: the solver's table in MiB (1 to 65,536).
    `shorten`: after a proof, look for a shorter mate with this many times the proof's
    nodes (0: report the first line found). `max_plies`: the longest mate looked for
    (0: no limit); a longer mate is ``unknown``.

    Raises ValueError for a position that does not parse or cannot occur, or bad limits.
    """
    limits = _wholes(nodes=nodes, table_mb=table_mb, shorten=shorten, max_plies=max_plies)
    return _native.mate(str(position), *limits)


def mate_many(
    positions: Union[Sequence[Position], Records],
    nodes: int = DEFAULT_NODES,
    table_mb: int = DEFAULT_TABLE_MB,
    *,
    shorten: int = 1,
    max_plies: int = 0,
    threads: int = 0,
    format: Optional[str] = None,
) -> List[Dict[str, Any]]:
    """Solve many positions on `threads` threads (0: every core), as
    `posfilter mate --file F --json`; one answer per position, in order, each as
    :func:`mate` returns it and the same for any thread count.

    `positions` is a list (or any iterable) of SFEN / USI strings, a numpy array of
    strings, or a numpy array of binary records (see :func:`record_format` for the dtypes;
    `format` names it when the dtype cannot). Each table holds `table_mb` MiB.

    Every position is parsed first: one that does not parse or decode raises ValueError
    naming its index ("position 3: ..." or "record 3: ...") before anything is searched.
    """
    args = _wholes(
        nodes=nodes, table_mb=table_mb, shorten=shorten, max_plies=max_plies, threads=threads
    )
    if isinstance(positions, np.ndarray) and positions.dtype.kind not in "UOS":
        name, _ = infer_format(positions, format)
        return _native.mate_many_records(as_bytes(positions), name, *args)
    if isinstance(positions, (str, bytes)):
        raise TypeError("mate_many takes a list of positions; use mate() for one")
    texts = [p.decode() if isinstance(p, bytes) else str(p) for p in _iterate(positions)]
    return _native.mate_many_text(texts, *args)


def record_format(records: Records, format: Optional[str] = None) -> str:
    """The record format of a numpy array: ``psfen``, ``psv``, ``hcp`` or ``hcpe``.

    Accepted: cshogi's ``PackedSfen``, ``PackedSfenValue``, ``HuffmanCodedPos`` and
    ``HuffmanCodedPosAndEval`` dtypes (their first field and width name the format);
    uint8 arrays of shape ``(n, width)``; void records (``V40``...). 40 bytes are psv, 38
    hcpe; 32-byte rows are PackedSfen or HuffmanCodedPos, so they need
    ``format="psfen"`` or ``format="hcp"``. With `format`, a flat uint8 array of whole
    records is accepted too. A non-contiguous array (``a[::2]``) is copied once to a
    contiguous one. Raises ValueError saying what does not fit.
    """
    return infer_format(records, format)[0]


def run(
    config_path: PathLike,
    *,
    threads: Optional[int] = None,
    out: Optional[PathLike] = None,
    resume: bool = False,
    progress: Union[bool, Callable[[Dict[str, int]], Any], None] = True,
    **overrides: Any,
) -> Dict[str, Any]:
    """Run the pipeline of a config file, as `posfilter run CONFIG`; returns the report
    (the contents of report.json, see docs/output-schema.md).

    `threads`, `out` and `resume` are the command's ``--threads``, ``--out`` and
    ``--resume``. Any other keyword overrides a config key: dotted
    (``**{"filter.mate.nodes": 30000}``) or with double underscores
    (``filter__mate__nodes=30000``); values are bool, int, float, str, paths or lists of
    them, checked as the config file's own (errors name the key; their line numbers refer
    to the config as overridden).

    `progress`: True shows a tqdm bar when tqdm is installed (nothing otherwise); a
    callable is called about every 100 ms, and once at the end, with a dict of counts
    (``decided``, ``disk_done``, ``disk_total``, ``kept``, ``dropped``, ``unknown``);
    False or None: no progress.

    Ctrl-C stops the run within about a second and raises KeyboardInterrupt; the output
    directory is then as a killed run leaves it (no manifest.json), and ``resume=True``
    goes on from its last checkpoint. Raises ValueError for a bad config or override,
    OSError when inputs or outputs cannot be read or written.
    """
    pairs = [(key.replace("__", "."), value) for key, value in overrides.items()]
    callback, close = _progress(progress)
    try:
        return _native.run(
            os.fspath(config_path),
            pairs,
            None if threads is None else _whole("threads", threads),
            None if out is None else os.fspath(out),
            bool(resume),
            callback,
        )
    finally:
        close()


def _iterate(positions: Iterable[Any]) -> Iterable[Any]:
    """The items of a list, tuple, numpy array of strings or other iterable."""
    if isinstance(positions, np.ndarray):
        return positions.reshape(-1).tolist()
    return positions


def _progress(progress: Any) -> "tuple[Optional[Callable[[Dict[str, int]], Any]], Callable[[], None]]":
    """The callback for `run`'s `progress` argument and what closes it."""
    if callable(progress):
        return progress, lambda: None
    if not progress:
        return None, lambda: None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None, lambda: None
    bars: List[Any] = []  # made at the first call: a run that fails to start shows none

    def update(counts: Dict[str, int]) -> None:
        if not bars:
            bars.append(tqdm(total=counts["disk_total"] or None, unit="B", unit_scale=True,
                             desc="posfilter"))
        bar = bars[0]
        bar.n = counts["disk_done"]
        bar.set_postfix(
            records=counts["decided"], kept=counts["kept"], dropped=counts["dropped"],
            unknown=counts["unknown"], refresh=False,
        )
        bar.refresh()

    def close() -> None:
        for bar in bars:
            bar.close()

    return update, close


def _whole(keyword: str, value: Any) -> int:
    """`value` of keyword `keyword` as an int; ValueError naming the keyword for a bool or a
    number that is not whole (``nodes=1.5`` or ``nodes=True`` is no node budget, as
    ``nodes = 1.5`` in pipeline.toml is not)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{keyword} must be a whole number, not {value!r}")
    return int(value)


def _wholes(**values: Any) -> Tuple[int, ...]:
    """:func:`_whole` of each keyword, in the order given."""
    return tuple(_whole(keyword, value) for keyword, value in values.items())

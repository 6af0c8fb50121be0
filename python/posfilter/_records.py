"""numpy record arrays at the boundary: which format an array holds, and its bytes.

The formats and their widths are posfilter's (and cshogi's): PackedSfen 32 bytes,
PackedSfenValue (psv) 40, HuffmanCodedPos (hcp) 32, HuffmanCodedPosAndEval (hcpe) 38.
"""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

#: Bytes per record of each binary format.
WIDTHS = {"psfen": 32, "psv": 40, "hcp": 32, "hcpe": 38}

#: cshogi's field names: the first field's name tells the family, the width the format.
_FAMILY = {("sfen", 32): "psfen", ("sfen", 40): "psv", ("hcp", 32): "hcp", ("hcp", 38): "hcpe"}

#: The one width two formats share.
_AMBIGUOUS = {32: ("psfen", "hcp")}


def infer_format(records: np.ndarray, format: Optional[str]) -> Tuple[str, int]:
    """The format of `records` and its record count, or ValueError saying why not.

    `format` (a name) wins over the dtype but must agree with its width. Without it a
    cshogi dtype names its format; a plain width says psv (40) or hcpe (38), and 32 bytes
    (PackedSfen or HuffmanCodedPos) needs `format`.
    """
    if not isinstance(records, np.ndarray):
        raise TypeError(f"records must be a numpy array, not {type(records).__name__}")
    dtype = records.dtype
    if format is not None:
        name = str(format).strip().lower()
        if name not in WIDTHS:
            raise ValueError(
                f"format {format!r} is not a binary record format "
                f"(one of {', '.join(WIDTHS)})"
            )
        width = WIDTHS[name]
    else:
        name, width = None, _width(records)
    if dtype.fields is not None:
        if dtype.itemsize != width:
            raise ValueError(
                f"dtype of {dtype.itemsize} bytes per record does not fit {name} "
                f"({width} bytes per record)"
            )
        if name is None:
            first = dtype.names[0]
            name = _FAMILY.get((first, width))
            if name is None:
                name = _by_width(width, f"a record dtype of {width} bytes with fields {dtype.names}")
        return name, records.size
    if dtype == np.uint8 or dtype == np.int8 or dtype.kind == "V":
        count = _count(records, width)
        return name or _by_width(width, f"rows of {width} bytes"), count
    raise ValueError(
        f"dtype {dtype} holds no shogi records: use a cshogi record dtype "
        "(PackedSfen, PackedSfenValue, HuffmanCodedPos, HuffmanCodedPosAndEval), "
        "uint8 rows of the record width, or raw void records"
    )


def _width(records: np.ndarray) -> int:
    """Bytes per record the array's shape and dtype say (no format given)."""
    dtype = records.dtype
    if dtype.fields is not None or dtype.kind == "V":
        return dtype.itemsize
    if dtype.itemsize == 1 and records.ndim == 2:
        return records.shape[1]
    if dtype.itemsize == 1:
        raise ValueError(
            "a flat byte array does not say its record width: reshape it to (n, width) "
            "or pass format="
        )
    return dtype.itemsize


def _count(records: np.ndarray, width: int) -> int:
    """Records in a byte or void array of `width`-byte records."""
    if records.dtype.kind == "V":
        if records.dtype.itemsize != width:
            raise ValueError(f"{records.dtype.itemsize}-byte records, but the format has {width}")
        return records.size
    if records.ndim == 2:
        if records.shape[1] != width:
            raise ValueError(
                f"rows of {records.shape[1]} bytes, but the format has {width}-byte records"
            )
        return records.shape[0]
    if records.ndim == 1:
        if records.size % width:
            raise ValueError(
                f"{records.size} bytes are not a whole number of {width}-byte records"
            )
        return records.size // width
    raise ValueError(f"a byte array of shape {records.shape}: expected (n, {width}) or flat")


def _by_width(width: int, what: str) -> str:
    """The format of `width`-byte records when only one has that width."""
    if width in _AMBIGUOUS:
        a, b = _AMBIGUOUS[width]
        raise ValueError(
            f"{what} may be {a} (PackedSfen) or {b} (HuffmanCodedPos): pass format='{a}' "
            f"or format='{b}'"
        )
    for name, w in WIDTHS.items():
        if w == width:
            return name
    raise ValueError(
        f"{what}: no record format has {width} bytes (psfen 32, psv 40, hcp 32, hcpe 38)"
    )


def as_bytes(records: np.ndarray) -> np.ndarray:
    """The records' bytes as one flat contiguous uint8 array: a view when `records` is
    C-contiguous, else a contiguous copy (a strided slice such as `a[::2]`)."""
    contiguous = np.ascontiguousarray(records)
    return contiguous.reshape(-1).view(np.uint8)

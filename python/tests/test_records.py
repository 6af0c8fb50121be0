"""Record arrays at the boundary: which dtypes and shapes are accepted, which format each
is read as, and the errors for the rest (as python/README.md documents them)."""

from __future__ import annotations

import cshogi
import numpy as np
import pytest

import posfilter
from conftest import DATA, without_seconds


@pytest.mark.parametrize(
    "array,format,expected",
    [
        (np.zeros(3, cshogi.PackedSfen), None, "psfen"),
        (np.zeros(3, cshogi.PackedSfenValue), None, "psv"),
        (np.zeros(3, cshogi.HuffmanCodedPos), None, "hcp"),
        (np.zeros(3, cshogi.HuffmanCodedPosAndEval), None, "hcpe"),
        (np.zeros((3, 40), np.uint8), None, "psv"),
        (np.zeros((3, 38), np.uint8), None, "hcpe"),
        (np.zeros(3, "V40"), None, "psv"),
        (np.zeros((3, 32), np.uint8), "hcp", "hcp"),
        (np.zeros((3, 32), np.uint8), "PSFEN", "psfen"),
        (np.zeros(96, np.uint8), "hcp", "hcp"),
        (np.zeros(3, cshogi.PackedSfen), "psfen", "psfen"),
    ],
)
def test_formats_are_inferred_from_the_dtype(array, format, expected):
    assert posfilter.record_format(array, format) == expected


@pytest.mark.parametrize(
    "array,format,message",
    [
        (np.zeros((3, 32), np.uint8), None, "may be psfen .* or hcp"),
        (np.zeros(3, "V32"), None, "may be psfen .* or hcp"),
        (np.zeros((3, 39), np.uint8), None, "no record format has 39 bytes"),
        (np.zeros((3, 40), np.uint8), "hcpe", "rows of 40 bytes, but the format has 38"),
        (np.zeros(3, cshogi.PackedSfenValue), "hcpe", "40 bytes per record does not fit hcpe"),
        (np.zeros(100, np.uint8), "psv", "100 bytes are not a whole number of 40-byte"),
        (np.zeros(120, np.uint8), None, "flat byte array"),
        (np.zeros(3, np.float64), None, "holds no shogi records"),
        (np.zeros((2, 3, 40), np.uint8), None, "shape"),
        (np.zeros(3, cshogi.PackedSfen), "sfen", "not a binary record format"),
    ],
)
def test_arrays_that_are_not_records_raise_value_error(array, format, message):
    with pytest.raises(ValueError, match=message):
        posfilter.record_format(array, format)
    with pytest.raises(ValueError, match=message):
        posfilter.mate_many(array, nodes=1, format=format)


def test_non_contiguous_arrays_give_the_answers_of_their_copy():
    records = np.fromfile(DATA / "pipeline" / "startpos.hcp", dtype=cshogi.HuffmanCodedPos)[:120]
    strided = records[::3]
    assert not strided.flags.c_contiguous
    want = without_seconds(posfilter.mate_many(strided.copy(), nodes=5_000))
    assert without_seconds(posfilter.mate_many(strided, nodes=5_000)) == want
    # A column slice of uint8 rows: each row's 32 bytes, taken out of wider rows.
    wide = np.zeros((len(strided), 48), np.uint8)
    wide[:, 8:40] = strided.copy().view(np.uint8).reshape(-1, 32)
    assert without_seconds(posfilter.mate_many(wide[:, 8:40], nodes=5_000, format="hcp")) == want


def test_empty_arrays_give_empty_results():
    for empty in (np.zeros(0, cshogi.HuffmanCodedPosAndEval), np.zeros((0, 40), np.uint8)):
        assert posfilter.mate_many(empty) == []

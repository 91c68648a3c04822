"""The report's fast rows against its general ones, bit for bit.

NVFP4 rows of inputs of at most 24 significant bits take one float64 division a
value (:mod:`fpexplore.report.routes.nvfp4`); float64 inputs take
:func:`fpexplore.quantize_blocks`, rounding every quotient to odd. The same values
as float32 and as float64 must give the same records and statistics, whatever the
block length along the axis (1 to 100: short axes are one block a row)."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fpexplore.report.routes import stats as S
from fpexplore.report.routes.stream import numpy_stats
from fpexplore.report.tensor import parse_formats, tensor_report

ROWS = [["nvfp4"], ["e4m3", "mxfp4", "nvfp4"]]


def _hist(h: S.Hist) -> list[tuple[int, int]]:
    return [(h.offset + i, int(c)) for i, c in enumerate(h.counts) if c]


def _same_records(a: list[dict[str, object]], b: list[dict[str, object]]) -> None:
    for u, v in zip(a, b, strict=True):
        for key, value in u.items():
            other = v[key]
            nan = isinstance(value, float) and math.isnan(value)
            assert value == other or (nan and math.isnan(other)), (u["format"], key)  # type: ignore[arg-type]


def _same(x: np.ndarray, formats: list[str], axis: int = -1) -> None:
    """``x`` (at most 24 bits a value) against the same values as float64."""
    wide = x.astype(np.float64)
    _, rows = parse_formats(formats)
    ax = axis % x.ndim
    fast, _ = numpy_stats(x, rows, ax)
    slow, _ = numpy_stats(wide, rows, ax)
    for row, a, b in zip(rows, fast.rows, slow.rows, strict=True):
        for key in ("overflow", "clipped", "flushed_to_zero", "subnormal", "zero", "became_inf",
                    "became_nan", "overflow_from"):  # fmt: skip
            assert getattr(a, key) == getattr(b, key), (row.label, key)
        assert a.max_rel == b.max_rel or (math.isnan(a.max_rel) and math.isnan(b.max_rel))
        assert _hist(a.hist) == _hist(b.hist), row.label
        assert a.noise.log2() == b.noise.log2(), row.label
    _same_records(tensor_report(x, formats, axis=axis).records,
                  tensor_report(wide, formats, axis=axis).records)  # fmt: skip


def _edges() -> np.ndarray:
    values = [0.0, 1.0, 5.0, 6.0, 7.0, 448.0, 464.0, 2688.0, 0.25, 0.75, 1.75, 2.0**-9,
              2.0**-10, 2.0**-126, 2.0**-149, 1e-38, 3.4e38, 2.0**127, 1e-6, 3.0]  # fmt: skip
    base = np.array(values, np.float32)
    near = [np.nextafter(base, np.float32(np.inf)), np.nextafter(base, np.float32(-np.inf))]
    out = np.concatenate([base, *near])
    return np.concatenate([out, -out])


@pytest.mark.parametrize("length", [1, 2, 3, 5, 15, 16, 17, 32, 33, 48, 100])
def test_nvfp4_edges_any_block_length(length: int) -> None:
    rng = np.random.default_rng(length)
    x = rng.choice(_edges(), 40 * length).reshape(40, length)
    for formats in ROWS:
        _same(x, formats)
        _same(x, formats, axis=0)


def test_nvfp4_every_scale_and_non_finite() -> None:
    rng = np.random.default_rng(3)
    for scale in (1e-44, 1e-30, 1e-6, 1.0, 1e20, 1e38):
        with np.errstate(over="ignore"):  # a few beyond float32's range: inf
            x = (rng.standard_t(2, (24, 64)) * scale).astype(np.float32)
        _same(x, ROWS[1])
    x = np.array([1.0, np.nan, np.inf, -np.inf, 500.0, 3e38, 0.0, 2.0**-140] * 8, np.float32)
    _same(x.reshape(4, 16), ROWS[1])
    _same(np.zeros((3, 16), np.float32), ROWS[1])


def test_nvfp4_other_narrow_dtypes() -> None:
    base = np.random.default_rng(4).standard_normal((12, 48)) * 30
    for dtype in (np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, np.int16):
        _same(base.astype(dtype), ["nvfp4"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=200), st.integers(1, 40))
def test_nvfp4_random_bit_patterns(bits: list[int], length: int) -> None:
    x = np.array(bits, np.uint64).astype(np.uint32).view(np.float32)
    x = np.resize(x, (max(1, x.size // length), length))
    with np.errstate(all="ignore"):
        _same(x, ROWS[1])

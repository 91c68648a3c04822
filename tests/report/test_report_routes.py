"""The narrow route (float32 inputs, errors in float32) against the wide route
(everything in float64): every statistic equal, bit for bit, on adversarial tensors."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fpexplore.formats import get_format
from fpexplore.report.routes import stats as S
from fpexplore.report.routes.rows import make_plan, stored_limits
from fpexplore.report.routes.stream import numpy_stats
from fpexplore.report.tensor import parse_formats

FORMATS = ["float8_e4m3fn", "float8_e5m2", "mxfp4"]
MORE = ["float16", "bfloat16", "float4_e2m1fn", "float6_e3m2fn", "mxfp6_e2m3", "nvfp4",
        "mxint8", "float8_e4m3fnuz", "float32", "float8_e8m0fnu"]  # fmt: skip


def _hist(h: S.Hist) -> list[tuple[int, int]]:
    return [(h.offset + i, int(c)) for i, c in enumerate(h.counts) if c]


def _same(x: np.ndarray, formats: list[str], axis: int = -1, **kw: object) -> S.TensorStats:
    _, rows = parse_formats(formats)
    ax = axis % max(x.ndim, 1)
    fast, amax = numpy_stats(x, rows, ax, **kw)  # type: ignore[arg-type]
    slow, amax2 = numpy_stats(x, rows, ax, narrow=False, **kw)  # type: ignore[arg-type]
    assert make_plan(rows, amax, x.dtype).narrow
    assert amax == amax2
    assert (fast.n, fast.finite, fast.nonzero, fast.amax) == (slow.n, slow.finite, slow.nonzero,
                                                             slow.amax)  # fmt: skip
    assert _hist(fast.log2_hist) == _hist(slow.log2_hist)
    assert fast.signal.log2() == slow.signal.log2()
    for row, a, b in zip(rows, fast.rows, slow.rows, strict=True):
        where = (row.label, row.scaling)
        for key in ("overflow", "clipped", "flushed_to_zero", "subnormal", "zero", "became_inf",
                    "became_nan"):  # fmt: skip
            assert getattr(a, key) == getattr(b, key), (where, key)
        assert a.max_rel == b.max_rel or (math.isnan(a.max_rel) and math.isnan(b.max_rel)), where
        assert a.overflow_from == b.overflow_from, where
        assert _hist(a.hist) == _hist(b.hist), where
        assert a.noise.log2() == b.noise.log2(), where
    return fast


def _edges() -> np.ndarray:
    """Ties, limits and extremes of the formats above, and around them."""
    values = [0.0, -0.0, 1.0, 464.0, 465.0, 480.0, 448.0, 57344.0, 61440.0, 6.0, 7.0, 5.0, 28.0,
              2.0**-10, 2.0**-9, 3 * 2.0**-11, 2.0**-6, 2.0**-6 - 2.0**-10, 2.0**-17, 2.0**-16,
              2.0**-15, 2.0**-14, 0.25, 0.75, 1.75, 2.0**-149, 2.0**-126, 2.0**-127, 3.4e38,
              2.0**127, 1e-38, 1e38, 65504.0, 65520.0, 2.0**-24, 2.0**-25]  # fmt: skip
    base = np.array(values, np.float32)
    near = [np.nextafter(base, np.float32(np.inf)), np.nextafter(base, np.float32(-np.inf))]
    out = np.concatenate([base, *near])
    return np.concatenate([out, -out])


def test_edges_and_ties() -> None:
    x = _edges()
    _same(x, FORMATS + MORE)
    _same(np.resize(x, (7, 64)), FORMATS + MORE, axis=0)
    _same(np.resize(x, (3, 5, 37)), FORMATS, axis=1)  # ragged blocks along a middle axis


def test_random_tensors_of_every_scale() -> None:
    rng = np.random.default_rng(7)
    for scale in (1e-40, 1e-20, 1e-6, 1e-2, 1.0, 1e3, 1e20, 1e35):
        x = (rng.standard_t(2, (64, 96)) * scale).astype(np.float32)
        _same(x, [*FORMATS, "bfloat16", "float16"])


def test_blocks_spanning_float32_and_tiny_blocks() -> None:
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((16, 64)) * 1e-3).astype(np.float32)
    x[0, 0] = 3e38  # one block whose small values underflow when scaled
    x[1, :32] = np.float32(2.0**-140) * rng.integers(1, 100, 32)  # scale clamped at 2**-127
    x[2, :32] = 0.0  # a block of zeros
    x[3, 5] = np.float32(2.0**-149)
    _same(x, [*FORMATS, "mxfp6_e3m2", "mxfp6_e2m3", "float8_e5m2"])


def test_non_finite_inputs_and_overflow_to_nan_and_inf() -> None:
    x = np.array([1.0, np.nan, np.inf, -np.inf, 500.0, 7e4, 1e30, 0.0, 2.0**-12] * 8, np.float32)
    stats = _same(x, FORMATS + MORE)
    assert stats.finite == 48


def test_other_narrow_dtypes() -> None:
    rng = np.random.default_rng(9)
    base = rng.standard_normal(300) * 10
    for dtype in (np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, np.int8, np.int16,
                  np.uint16, np.dtype(">f4")):  # fmt: skip
        _same(base.astype(dtype), [*FORMATS, "bfloat16"])


def test_zeros_only_and_one_value() -> None:
    _same(np.zeros((4, 40), np.float32), FORMATS)
    _same(np.array([3.0], np.float32), FORMATS)


def test_chunks_threads_and_figure() -> None:
    x = (np.random.default_rng(10).standard_t(3, (50, 256)) * 1e-2).astype(np.float32)
    _same(x, FORMATS, chunk_bytes=4096)
    _same(x, FORMATS, figure=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=200))
def test_random_bit_patterns(bits: list[int]) -> None:
    x = np.array(bits, np.uint64).astype(np.uint32).view(np.float32)
    _same(x, [*FORMATS, "bfloat16", "float4_e2m1fn"])


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "bfloat16",
                                  "float16", "float32", "float6_e2m3fn"])  # fmt: skip
def test_stored_limits_against_rounding(name: str) -> None:
    import fpexplore.codes as K

    fmt = get_format(name)
    rng = np.random.default_rng(11)
    for scale in (1.0, float(np.float32(448 / 3.7)), float(np.float32(2.0**-20 / 3)), 2.0**100):
        h, u = stored_limits(fmt, scale)
        v = np.concatenate([np.array([h, u], np.float32), rng.random(2000).astype(np.float32)
                            * np.float32(2 * u)])  # fmt: skip
        v = np.concatenate([v, np.nextafter(v, np.float32(0)), np.nextafter(v, np.float32(1e38))])
        with np.errstate(over="ignore"):
            stored = np.abs(K.round_values(v.astype(np.float64) * scale, fmt, overflow="saturate"))
        assert np.array_equal(v <= h, stored == 0)
        assert np.array_equal((v > h) & (v < u), (stored > 0) & (stored < fmt.smallest_normal))


def test_bins_drain_as_the_per_piece_histograms_did() -> None:
    rng = np.random.default_rng(12)
    bins, total = S.Bins(low=S.LOW_BIN), S.Hist()
    for _ in range(5):
        rel = np.abs(rng.standard_normal(500)) * np.exp2(rng.integers(-80, 20, 500))
        rel[:50] = 0.0
        exact = int(np.count_nonzero(rel == 0))
        index = np.maximum(rel, 2.0**-64).view(np.int64) >> (52 - S.REL_BITS)
        bins.add(index, float(rel.max()))
        bins.exact += exact
        old = S.Hist.of(rel.copy())
        old.take_from_low(exact)
        total = total.add(old)
    assert _hist(bins.drain()) == _hist(total)
    assert not bins.counts.any() and _hist(bins.drain()) == []

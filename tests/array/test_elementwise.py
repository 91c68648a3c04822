"""FormatArray's elementwise operations against the scalar operations and exact oracles."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore import codes as K
from fpexplore.exact import exact_op, parse_real, round_real
from fpexplore.formats import get_format

SMALL = ["float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn"]
EIGHT = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"]
UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
MODES = ["nearest_even", "toward_zero", "up", "down", "nearest_away"]


def _values(fmt: str) -> np.ndarray:
    f = get_format(fmt)
    return K.codes_to_values(np.arange(1 << f.bits).astype(K.code_dtype(f)), f)


def _pairs(fmt: str, sample: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = 1 << get_format(fmt).bits
    if sample is None:
        pairs = np.array(list(itertools.product(range(n), range(n))))
    else:
        pairs = np.random.default_rng(0).integers(0, n, size=(sample, 2))
    v = _values(fmt)
    return v[pairs[:, 0]], v[pairs[:, 1]], pairs


@pytest.mark.parametrize("fmt", SMALL + EIGHT)
@pytest.mark.parametrize("op", list(UFUNCS))
def test_every_pair_equals_the_array_operations(fmt: str, op: str) -> None:
    """All codes pairwise (FP4, FP6, FP8): the ufunc on FormatArrays is fpx.add... on arrays."""
    a, b, _ = _pairs(fmt)
    if get_format(fmt).has_nan is False:  # FP6/FP4: no NaN, so no invalid operations
        keep = np.isfinite(a) & np.isfinite(b) & ((b != 0) | (op != "div"))
        a, b = a[keep], b[keep]
    x, y = fpx.FormatArray(a, fmt), fpx.FormatArray(b, fmt)
    got = np.asarray(UFUNCS[op](x, y))
    want = getattr(fpx, op)(a, b, fmt)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fmt", SMALL)
@pytest.mark.parametrize("rounding", MODES)
@pytest.mark.parametrize("op", ["add", "mul", "div"])
def test_every_pair_and_its_flags_equal_exact_op(fmt: str, rounding: str, op: str) -> None:
    """FP4 and FP6 exhaustively, every mode: values and per-element flags as exact_op."""
    a, b, pairs = _pairs(fmt)
    keep = (b != 0) if op == "div" else np.ones(a.shape, bool)
    a, b, pairs = a[keep], b[keep], pairs[keep]
    x = fpx.FormatArray(a, fmt, rounding)
    r = UFUNCS[op](x, fpx.FormatArray(b, fmt, rounding))
    f = get_format(fmt)
    for i, (ca, cb) in enumerate(pairs.tolist()):
        want = exact_op(op, (ca, cb), f, rounding)
        assert np.asarray(r)[i] == K.codes_to_values(np.array([want.code]), f)[0]
        assert r.element_flags(i) == want.flags, (a[i], b[i])


@pytest.mark.parametrize("fmt", [*EIGHT, "float8_e8m0fnu"])
@pytest.mark.parametrize("rounding", ["nearest_even", "up"])
def test_fp8_flags_sampled_equal_exact_op(fmt: str, rounding: str) -> None:
    a, b, pairs = _pairs(fmt, sample=1500)
    f = get_format(fmt)
    for op in ("add", "sub", "mul", "div"):
        r = UFUNCS[op](fpx.FormatArray(a, fmt, rounding), fpx.FormatArray(b, fmt, rounding))
        counts = dict.fromkeys(fpx.FLAGS, 0)
        for i, (ca, cb) in enumerate(pairs.tolist()):
            want = exact_op(op, (ca, cb), f, rounding)
            assert r.element_flags(i) == want.flags
            for name in want.flags:
                counts[name] += 1
        assert r.flag_counts == counts


@pytest.mark.parametrize("fmt", ["float16", "bfloat16"])
def test_sixteen_bit_sampled_against_exact_op(fmt: str) -> None:
    a, b, pairs = _pairs(fmt, sample=3000)
    f = get_format(fmt)
    for op in ("add", "sub", "mul", "div"):
        r = UFUNCS[op](fpx.FormatArray(a, fmt), fpx.FormatArray(b, fmt))
        want = [exact_op(op, (int(p), int(q)), f) for p, q in pairs.tolist()]
        codes = np.array([w.code for w in want], dtype=K.code_dtype(f))
        np.testing.assert_array_equal(np.asarray(r), K.codes_to_values(codes, f))
        for i in range(0, len(want), 7):
            assert r.element_flags(i) == want[i].flags


def test_float32_random_against_fractions() -> None:
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(2000) * 10.0 ** rng.integers(-30, 30, 2000)).astype(np.float32)
    b = (rng.standard_normal(2000) * 10.0 ** rng.integers(-30, 30, 2000)).astype(np.float32)
    x, y = fpx.FormatArray(a, "float32"), fpx.FormatArray(b, "float32")
    for op, ufunc in UFUNCS.items():
        got = np.asarray(ufunc(x, y))
        np.testing.assert_array_equal(got, getattr(fpx, op)(a, b, "float32"))
        for i in range(0, 2000, 50):
            fa, fb = Fraction(float(a[i])), Fraction(float(b[i]))
            exact = {"add": fa + fb, "sub": fa - fb, "mul": fa * fb, "div": fa / fb}[op]
            code = round_real(parse_real(exact), "float32")
            assert got[i] == float(np.uint32(code).view(np.float32))


def test_sqrt_abs_negative_minimum_power() -> None:
    v = _values("float8_e4m3fn")
    v = v[np.isfinite(v)]
    x = fpx.FormatArray(v, "float8_e4m3fn")
    np.testing.assert_array_equal(np.asarray(np.sqrt(x)), fpx.sqrt(v, "float8_e4m3fn"))
    np.testing.assert_array_equal(np.asarray(-x), -v)
    np.testing.assert_array_equal(np.asarray(abs(x)), np.abs(v))
    np.testing.assert_array_equal(np.asarray(np.minimum(x, 1.0)), np.minimum(v, 1.0))
    np.testing.assert_array_equal(np.asarray(x**2), fpx.mul(v, v, "float8_e4m3fn"))
    cubes = [
        K.codes_to_values(
            np.array([round_real(parse_real(Fraction(t) ** 3), "float8_e4m3fn")]),
            get_format("float8_e4m3fn"),
        )[0]
        for t in v.tolist()
    ]
    np.testing.assert_array_equal(np.asarray(x**3), cubes)


def test_comparisons_give_plain_arrays() -> None:
    x = fpx.FormatArray([1.0, np.nan, -2.0], "float16")
    for result in (x < 0, x == x, np.isnan(x), np.isfinite(x), np.sign(x)):
        assert type(result) is np.ndarray
    assert (x < 0).tolist() == [False, False, True]


def test_python_numbers_and_plain_arrays_are_rounded_in_and_flagged() -> None:
    x = fpx.FormatArray([1.0, 2.0], "bfloat16")
    y = x + 0.1  # 0.1 is rounded into bfloat16 first
    want = fpx.add(np.array([1.0, 2.0]), 0.10009765625, "bfloat16")
    assert np.asarray(y).tolist() == want.tolist()
    assert "inexact" in y.flags
    z = x * np.array([3.0, 0.5])
    assert z.flags == frozenset() and z.tolist() == [3.0, 1.0]


def test_broadcasting_indexing_where_and_out() -> None:
    x = fpx.FormatArray(np.arange(6.0).reshape(2, 3), "float16")
    y = x + fpx.FormatArray([1.0, 2.0, 3.0], "float16")
    assert y.shape == (2, 3) and y[1, 2].tolist() == 8.0
    assert x[:, 1].tolist() == [1.0, 4.0] and x[0].format == get_format("float16")
    out = fpx.FormatArray(np.full((2, 3), 7.0), "float16")
    np.multiply(x, 2, out=out, where=np.array([True, False, True]))
    assert out.tolist() == [[0.0, 7.0, 4.0], [6.0, 7.0, 10.0]]
    x += 1
    assert x.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def test_stochastic_rounding_is_reproducible() -> None:
    a = np.full(1000, 1.0)
    runs = []
    for _ in range(2):
        x = fpx.FormatArray(a, "bfloat16", "stochastic", rng=7)
        runs.append(np.asarray(x + 2.0**-10))
    np.testing.assert_array_equal(runs[0], runs[1])
    assert set(runs[0].tolist()) == {1.0, 1.0078125}
    assert 0.05 < np.mean(runs[0] > 1) < 0.25  # 2**-10 is an eighth of the gap


@pytest.mark.parametrize("rounding", MODES)
def test_every_mode_matches_the_scalar_operation(rounding: str) -> None:
    a = np.random.default_rng(2).standard_normal(64)
    x = fpx.FormatArray(a, "bfloat16", rounding)
    got = np.asarray(x / 3)
    for i in range(64):
        assert got[i] == fpx.div(float(np.asarray(x)[i]), 3, "bfloat16", rounding).value

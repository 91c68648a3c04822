"""Exact sums and dot products (issue 21, 8): exact however many values share an
exponent (float64 weights in ``np.bincount`` stop being exact past 2**53, which
the old parts of 26 bits reached from 2**26 + 1 equal values), against Fractions;
exact_dot never warns (``filterwarnings = error``)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.arith import exact_sums
from fpexplore.arith.exact_sums import exact_dot, exact_sum


def _fraction_sum(x: np.ndarray) -> Fraction:
    return sum((Fraction(v) for v in x.tolist()), Fraction(0))


def test_random_sums_against_fractions() -> None:
    rng = np.random.default_rng(21)
    for _ in range(20):
        n = int(rng.integers(1, 3000))
        x = rng.standard_normal(n) * np.exp2(rng.integers(-1074, 1000, n))
        x[rng.random(n) < 0.1] = np.finfo(np.float64).max * rng.choice([-1, 1])
        x[rng.random(n) < 0.1] = 5e-324
        assert exact_sum(x) == _fraction_sum(x)


def test_many_equal_values_in_one_bin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Passes of a few values each (the chunking) give the same exact sums."""
    x = np.full(5000, 2 - 2.0**-52)
    x[::7] = -(2.0**1023)
    want = _fraction_sum(x)
    assert exact_sum(x) == want
    monkeypatch.setattr(exact_sums, "CHUNK", 3)
    assert exact_sum(x) == want


@pytest.mark.slow
def test_past_two_to_the_53_in_one_bin() -> None:
    """2**26 + 3 copies of 2 - 2**-52 (a broadcast array: no memory): the old
    26-bit parts summed past 2**53 in float64 and lost bits."""
    n = 2**26 + 3
    x = np.broadcast_to(np.float64(2 - 2.0**-52), (n,))
    assert exact_sum(x) == n * Fraction(2 - 2.0**-52)


def test_the_issue_sum_has_no_error() -> None:
    r = fpx.sum(np.full(4096, 2 - 2.0**-26), "float64", order="pairwise")
    assert r.abs_error == 0.0 and r.exact == 4096 * Fraction(2 - 2.0**-26)


def test_exact_dot_never_warns() -> None:
    for a, b in [([1e300, 1.0], [1e300, 1.0]), ([1e200, 1e-200], [1e200, 3.0]),
                 ([1e-300, 2.0], [1e-300, 0.5]), ([np.finfo(float).max], [2.0])]:  # fmt: skip
        a, b = np.array(a), np.array(b)
        want = sum((Fraction(p) * Fraction(q) for p, q in zip(a, b, strict=True)), Fraction(0))
        assert exact_dot(a, b) == want
    assert exact_dot(np.array([np.inf]), np.array([1.0])) is None
    r = fpx.dot([1e300, 1.0], [1e300, 1.0], "float64")  # overflows, silently
    assert r.value == math.inf and r.exact == Fraction(1e300) ** 2 + 1


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, ">i8", np.int32, "list"])
def test_integer_sums_and_dots_are_exact_beyond_two_to_the_53(dtype: object) -> None:
    """Integers are exact inputs (DESIGN.md): sum and dot round each one once into
    the format and report the exact sum of the integers themselves (they went
    through float64 first: [2**63 - 1, -2**63] summed to 0, not -1)."""
    big = [2**62 + 2**36 + 1, 2**60 + 2**36 + 1, 3, 2**53 + 1]
    if dtype == np.int32:
        big = [7, 2**31 - 1, -(2**31)]
    if dtype in (np.int64, ">i8", "list"):
        big += [-(2**63), 2**63 - 1, -(2**60 + 2**36 + 1)]
    if dtype == np.uint64:
        big += [2**64 - 1, 2**64 - 2**11 - 1]
    x = big if dtype == "list" else np.array(big, dtype=dtype)  # type: ignore[arg-type]
    y = list(range(1, len(big) + 1))
    for fmt in ("float64", "float32", "bfloat16", "e8m10"):
        stored = [Fraction(fpx.decode(v, fmt).value) for v in big]
        s = fpx.sum(x, fmt, accumulate="float64")
        assert s.exact == sum(big), fmt
        assert s.stored_exact == sum(stored), fmt
        d = fpx.dot(x, y, fmt, accumulate="float64")
        assert d.exact == sum(p * q for p, q in zip(big, y, strict=True)), fmt
    # one value: the sum is that value rounded once (2**60 + 2**36 + 1 lies above
    # float32's midpoint 2**60 + 2**36, which float64 rounds it onto)
    assert fpx.sum([2**60 + 2**36 + 1], "float32").value == 2.0**60 + 2**37
    assert fpx.dot([2**60 + 2**36 + 1], [1], "float32").value == 2.0**60 + 2**37


@pytest.mark.parametrize("fmt", ["float64", "float32", "e11m40", "float16"])
def test_dot_of_infinities_and_nans(fmt: str) -> None:
    """inf * 0 is NaN, inf * 2 is inf, in every format (float64's products went
    through Fractions and raised OverflowError)."""
    r = fpx.dot([np.inf, 1.0], [0.0, 1.0], fmt)
    assert math.isnan(r.value) and r.exact is None
    r = fpx.dot([np.inf, 1.0], [2.0, 1.0], fmt)
    assert r.value == math.inf and r.exact is None
    r = fpx.dot([np.nan], [2.0], fmt, order="pairwise")
    assert math.isnan(r.value)
    r = fpx.dot([-np.inf, np.inf], [1.0, 1.0], fmt, order="kahan")
    assert math.isnan(r.value)

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

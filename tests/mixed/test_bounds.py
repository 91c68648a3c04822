"""The error bounds of summation hold for the sums fpexplore computes."""

import doctest
from fractions import Fraction

import numpy as np
import pytest

import fpexplore
from fpexplore.mixed import bounds


def test_examples_run():
    result = doctest.testmod(bounds)
    assert result.attempted > 0 and result.failed == 0


def test_bounds_are_highams_first_order_terms():
    u = 2.0**-11
    n = np.array([2, 3, 1024, 1025])
    assert (bounds.sum_error_bound(n, "sequential", u) == (n - 1) * u).all()
    assert (bounds.sum_error_bound(n, "pairwise", u) == np.array([1, 2, 10, 11]) * u).all()
    assert (bounds.sum_error_bound(n, "kahan", u) == 2 * u).all()
    with pytest.raises(ValueError, match="order"):
        bounds.sum_error_bound(4, "backwards", u)


@pytest.mark.parametrize("fmt", ["float16", "bfloat16"])
def test_measured_errors_stay_under_their_bounds(fmt):
    r = bounds.summation_errors(sizes=(2, 8, 64, 512, 2048), fmt=fmt, trials=4, seed=3)
    for order in r.errors:
        assert (r.worst(order) <= r.bound[order]).all(), order
    # the measurement is the error against the exact sum of the stored values
    x = np.random.default_rng(3).random(2)
    s = fpexplore.sum(x, fmt)
    stored = [Fraction(float(v)) for v in fpexplore.round_to(x, fmt)]
    assert s.stored_exact == sum(stored)
    assert r.errors["sequential"][0, 0] == float(abs(Fraction(s.value) - sum(stored)) / sum(stored))

"""round_to, representation_error, ulp and neighbours: properties and oracles."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fpexplore import decode, get_format, next_down, next_up, representation_error, round_to, ulp

finite64 = st.floats(allow_nan=False, allow_infinity=False)
FORMATS_32_64 = ["float32", "float64", "bfloat16", "float16"]


@given(finite64, finite64, st.sampled_from(FORMATS_32_64))
def test_round_to_is_monotonic(x: float, y: float, fmt: str) -> None:
    lo, hi = min(x, y), max(x, y)
    with np.errstate(over="ignore"):
        for mode in ("nearest_even", "nearest_away", "toward_zero", "up", "down"):
            assert round_to(lo, fmt, mode) <= round_to(hi, fmt, mode)


@given(finite64, st.sampled_from(FORMATS_32_64))
def test_relative_error_bound_in_normal_range(x: float, fmt: str) -> None:
    f = get_format(fmt)
    stored = round_to(x, fmt)
    if f.smallest_normal <= abs(stored) <= f.max:
        err = representation_error(x, fmt)
        assert err.rel_error <= f.eps / 2
        assert err.ulp_error <= 0.5
        exact = abs(Fraction(stored) - Fraction(x)) / abs(Fraction(x))
        assert exact <= Fraction(f.eps) / 2


@given(finite64, st.sampled_from(FORMATS_32_64))
def test_directed_modes_bracket_exact_value(x: float, fmt: str) -> None:
    f = get_format(fmt)
    with np.errstate(over="ignore"):
        down, up = round_to(x, fmt, "down"), round_to(x, fmt, "up")
        toward = round_to(x, fmt, "toward_zero")
    assert down <= x <= up
    assert abs(toward) <= abs(x)
    if abs(x) <= f.max:
        assert down == up or next_up(down, fmt) == up


@given(finite64, st.sampled_from(FORMATS_32_64))
def test_next_up_next_down_inverse(x: float, fmt: str) -> None:
    stored = round_to(x, fmt)
    f = get_format(fmt)
    if abs(stored) < f.max and stored != 0:
        assert next_up(next_down(stored, fmt), fmt) == stored
        assert next_down(next_up(stored, fmt), fmt) == stored


@given(st.floats(allow_nan=False, width=32), st.sampled_from(FORMATS_32_64))
def test_round_to_matches_scalar_decode(x: float, fmt: str) -> None:
    with np.errstate(over="ignore"):
        assert round_to(x, fmt) == decode(x, fmt).value


def test_round_to_shapes_and_types() -> None:
    out = round_to(np.ones((2, 3), dtype=np.float32), "bfloat16")
    assert out.shape == (2, 3) and out.dtype == np.float64
    assert isinstance(round_to(0.1, "float16"), np.float64)
    assert round_to([0.1, 0.2], "float16").shape == (2,)
    assert round_to(np.array([], dtype=np.float64), "e4m3").shape == (0,)


def test_round_to_modes_examples() -> None:
    x = np.array([2049.0, 2051.0, -2049.0])  # float16 spacing is 2 between 2048 and 4096
    assert round_to(x, "float16").tolist() == [2048.0, 2052.0, -2048.0]
    assert round_to(x, "float16", "nearest_away").tolist() == [2050.0, 2052.0, -2050.0]
    assert round_to(x, "float16", "toward_zero").tolist() == [2048.0, 2050.0, -2048.0]
    assert round_to(x, "float16", "up").tolist() == [2050.0, 2052.0, -2048.0]
    assert round_to(x, "float16", "down").tolist() == [2048.0, 2050.0, -2050.0]


def test_round_to_overflow_policies() -> None:
    x = np.array([1e6, -1e6])
    with np.errstate(over="ignore"):
        assert round_to(x, "float16").tolist() == [np.inf, -np.inf]
    assert round_to(x, "float16", overflow="saturate").tolist() == [65504.0, -65504.0]
    assert np.isnan(round_to(x, "e4m3")).all()
    assert round_to(x, "e4m3", overflow="saturate").tolist() == [448.0, -448.0]
    assert round_to(x, "e2m1").tolist() == [6.0, -6.0]
    with pytest.raises(ValueError, match="saturate"):
        round_to(x, "e4m3", overflow="wrap")


def test_stochastic_needs_rng_for_reproducibility() -> None:
    x = np.full(1000, 1 / 3)
    a = round_to(x, "float16", "stochastic", rng=np.random.default_rng(5))
    b = round_to(x, "float16", "stochastic", rng=5)
    np.testing.assert_array_equal(a, b)
    assert len(np.unique(a)) == 2


def test_representation_error_grows_absolutely_not_relatively() -> None:
    x = np.logspace(-4, 4, 10_001)
    err = representation_error(x, "float16")
    first, last = err.abs_error[:1000].max(), err.abs_error[-1000:].max()
    assert last > 1e6 * first  # absolute error grows with magnitude (claim 10)
    assert err.rel_error.max() <= get_format("float16").eps / 2  # relative error does not
    assert err.ulp_error.max() <= 0.5
    summary = err.summary()
    assert summary["max_ulp_error"] <= 0.5


def test_representation_error_edges() -> None:
    with np.errstate(over="ignore"):
        err = representation_error([0.0, np.inf, np.nan, 1e6, 1e-9], "float16")
    assert err.abs_error[0] == 0 and err.rel_error[0] == 0
    assert err.abs_error[1] == 0  # inf stored as inf
    assert np.isnan(err.abs_error[2])
    assert np.isinf(err.abs_error[3]) and np.isinf(err.ulp_error[3])
    assert err.rel_error[4] == 1.0  # underflow to zero loses everything
    # subnormal results: relative error can exceed eps/2 (claim 10's bound is for normals)
    sub = representation_error(np.array([3e-7]), "float16")
    assert sub.rel_error[0] > get_format("float16").eps / 2


def test_representation_error_float32_matches_numpy_cast() -> None:
    x = np.random.default_rng(1).standard_normal(10_000)
    err = representation_error(x, "float32")
    np.testing.assert_array_equal(err.rounded, x.astype(np.float32).astype(np.float64))
    np.testing.assert_array_equal(err.abs_error, np.abs(x.astype(np.float32) - x))


def test_ulp_values() -> None:
    assert ulp(1.0, "float32") == 2.0**-23
    assert ulp(-3.0, "float16") == 2.0**-9
    assert ulp(0.0, "float16") == 2.0**-24
    assert ulp(1e-7, "float16") == 2.0**-24
    assert np.isnan(ulp(np.inf, "float16"))
    assert ulp([1.0, 2.0], "bfloat16").tolist() == [2.0**-7, 2.0**-6]


def test_next_up_down_arrays() -> None:
    assert next_up([1.0, 0.3], "float16").tolist() == [
        1 + 2**-10,
        decode(0.3, "float16", rounding="up").value,
    ]
    assert next_down(0.0, "float16") == -(2.0**-24)
    assert next_up(65504.0, "float16") == np.inf
    assert next_down(-np.inf, "float16") == -np.inf


def test_ml_dtypes_arrays_are_accepted() -> None:
    import ml_dtypes

    weights = np.array([1.5, 3.14, -0.02], dtype=ml_dtypes.bfloat16)
    wide = weights.astype(np.float64)
    np.testing.assert_array_equal(round_to(weights, "float16"), round_to(wide, "float16"))
    np.testing.assert_array_equal(
        representation_error(weights, "e4m3").abs_error,
        representation_error(wide, "e4m3").abs_error,
    )
    from fpexplore import decode_array

    fp8 = np.array([1.5, -448], dtype=ml_dtypes.float8_e4m3fn)
    assert decode_array(fp8, "e2m1").value.tolist() == [1.5, -6.0]
    assert decode_array(fp8, "e4m3").code.tolist() == [0x3C, 0xFE]


def test_neighbours_in_formats_without_sign_or_negative_zero() -> None:
    e8m0 = "float8_e8m0fnu"  # values 2**-127 .. 2**127, no zero, no negatives
    x = np.array([0.0, -1.0, 1e-40, 1.0, 1.5, 2.0**127, np.inf, np.nan])
    up = next_up(x, e8m0)
    np.testing.assert_array_equal(up, [2.0**-127, 2.0**-127, 2.0**-127, 2.0, 2.0] + [np.nan] * 3)
    down = next_down(x, e8m0)
    np.testing.assert_array_equal(down, [np.nan] * 3 + [0.5, 1.0, 2.0**126, 2.0**127, np.nan])
    zero = next_down(np.array([1e-9, 2.0**-10]), "float8_e4m3fnuz")
    assert zero.tolist() == [0.0, 0.0] and not np.signbit(zero).any()
    assert next_up(-1e-9, "p3109_p3") == 0.0 and not np.signbit(next_up(-1e-9, "p3109_p3"))

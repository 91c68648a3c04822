"""Per-tensor scaling at the edges (issue 21, 3): ``x * scale`` rounded once from
its exact value for every input dtype, format, mode and overflow policy (an
oracle on Fractions); a scale that stays in float32's range whatever amax and
margin; amax histories with NaN refused in any order; bad arguments named."""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import fpexplore as fpx
from fpexplore import DelayedScaling, compute_scale, scale_per_tensor
from tests.explain_check import Value
from tests.oracle import round_exact
from tests.scaling_oracle import expected_scaled

FORMATS = ["float8_e4m3fn", "float8_e5m2", "float6_e2m3fn", "float4_e2m1fn", "bfloat16",
           "float16", "float8_e4m3fnuz", "p3109_p3", "float32", "float64"]  # fmt: skip
MODES = ["nearest_even", "nearest_away", "toward_zero", "up", "down"]


def _as_value(v: float) -> Value:
    if np.isnan(v):
        return Value("nan", Fraction(0), False)
    if np.isinf(v):
        return Value("inf", Fraction(0), v < 0)
    return Value("finite", Fraction(v), bool(np.signbit(v)))


def _check_scaled(t: fpx.ScaledTensor, x: np.ndarray, rounding: str, overflow: str | None):
    assert np.float32(t.scale) == t.scale and t.scale > 0  # a float32 value
    wide = x.tolist() if x.dtype.kind in "iu" else x.astype(np.float64).tolist()
    for given, got in zip(wide, t.scaled.tolist(), strict=True):
        if not np.isfinite(given):  # inf stays inf (or what the format makes of it)
            want = float(fpx.round_to(given, t.format, overflow=overflow))
            assert got == want or (np.isnan(got) and np.isnan(want))
            continue
        negative = bool(np.signbit(given))
        given = Fraction(given)
        want = expected_scaled(given, t.scale, t.format, rounding, overflow, negative)
        have = _as_value(got)
        same_zero = want.value != 0 or have.neg == want.neg  # -0 stays -0
        assert have.kind == want.kind and (want.kind == "nan" or have.value == want.value), (
            t.format.name, rounding, overflow, given, t.scale, got, want)  # fmt: skip
        assert same_zero, (t.format.name, rounding, given, got)


def test_the_issue_example_rounds_once() -> None:
    t = scale_per_tensor([3.0, 1.9618443748557354e-05], "float8_e4m3fn")
    assert t.scaled[1] == 0.001953125  # the exact product lies just below the midpoint


def _inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    x = rng.standard_normal(300) * np.exp2(rng.integers(-40, 10, 300))
    x[:4] = [3.0, 1.9618443748557354e-05, 0.0, -0.0]
    x[4:8] = [1e-300, -5e-324, 2.0**-1000, 1e300]  # beyond TwoProduct's range
    with np.errstate(over="ignore"):  # 1e300 becomes inf in the narrow types
        narrow = {
            "float16": (x * 2.0**10).astype(np.float16),
            "bfloat16": x.astype(ml_dtypes.bfloat16),
            "float32": x.astype(np.float32),
        }
    return {
        **narrow,
        "float64": x,
        ">f8": x.astype(">f8"),
        "int64": np.array([2**62 + 1, -(2**60) - 3, 2**53 + 1, 7, 0, -1]),
    }


@pytest.mark.parametrize("name", FORMATS)
def test_scaled_values_round_once_from_the_exact_product(name: str) -> None:
    rng = np.random.default_rng(sum(map(ord, name)))
    for dtype, x in _inputs(rng).items():
        for rounding in MODES:
            for overflow in ("saturate", None):
                t = scale_per_tensor(x, name, rounding=rounding, overflow=overflow)
                _check_scaled(t, x, rounding, overflow)
                history = [float(t.amax) / 2.0**40]  # delayed: far too small, overflows
                d = scale_per_tensor(x, name, recipe="delayed", amax_history=history,
                                     rounding=rounding, overflow=overflow)  # fmt: skip
                _check_scaled(d, x, rounding, overflow)
            assert t.values.dtype == np.float64, dtype


@pytest.mark.parametrize("name", FORMATS)
def test_products_that_float64_rounds_onto_a_boundary(name: str) -> None:
    """x beside b / s for values and midpoints b of the format: the float64 product
    often lands exactly on b while the exact one lies beside it."""
    f = fpx.get_format(name)
    rng = np.random.default_rng(len(name))
    values = fpx.round_to(np.concatenate([rng.uniform(0.5, 8.0, 40), [f.max, 3 * f.smallest_normal,
                                          f.smallest_normal]]), name)  # fmt: skip
    above = fpx.next_up(values, name)
    bounds = np.concatenate([values, (values + above) / 2])
    bounds = bounds[np.isfinite(bounds) & (bounds > 0)]
    history = [f.max / 3.7]  # s = 3.7 as float32: no power of two
    scale = compute_scale(history[0], name)
    x = bounds / scale
    with np.errstate(over="ignore"):
        for _ in range(3):
            x = np.concatenate([x, np.nextafter(x, np.inf), np.nextafter(x, 0.0)])
    x = x[np.isfinite(x)]
    x = np.concatenate([x, -x])
    with np.errstate(over="ignore"):
        assert np.isin(np.abs(x) * scale, bounds).any()  # float64 lands on a boundary
    for rounding in MODES:
        t = scale_per_tensor(x, name, rounding=rounding, recipe="delayed", amax_history=history)
        assert t.scale == scale
        _check_scaled(t, x, rounding, "saturate")


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float64"])
def test_stochastic_rounding_stays_between_the_neighbours(name: str) -> None:
    x = np.random.default_rng(1).standard_normal(500)
    t = scale_per_tensor(x, name, rounding="stochastic", rng=5)
    down = scale_per_tensor(x, name, rounding="down").scaled
    up = scale_per_tensor(x, name, rounding="up").scaled
    assert ((t.scaled == down) | (t.scaled == up)).all()
    assert (t.scaled == scale_per_tensor(x, name, rounding="stochastic", rng=5).scaled).all()


@pytest.mark.parametrize("power_of_two", [False, True])
def test_the_scale_stays_a_float32_value(power_of_two: bool) -> None:
    """Clamped to [2**-127, 2**127]: a positive float32 whose inverse is one too."""
    cases = {
        (1e50, 0): 2.0**-127, (1e-50, 0): 2.0**127, (1.0, 2000): 2.0**-127,
        (1.0, -2000): 2.0**127, (2.0**1000, 0): 2.0**-127, (5e-324, 0): 2.0**127,
    }  # fmt: skip
    for (amax, margin), clamped in cases.items():
        s = compute_scale(amax, "float8_e4m3fn", margin=margin, power_of_two=power_of_two)
        assert s == clamped and isinstance(s, float) and np.float32(s) == s
    for amax in (3.0, 1e-30, 1e30, 448.0, 7.0):
        s = compute_scale(amax, "float8_e4m3fn", power_of_two=power_of_two)
        exact = Fraction(448) / Fraction(amax)
        assert np.float32(s) == s
        if power_of_two:
            assert s <= exact < 2 * s and s == 2.0 ** np.frexp(s)[1] / 2
        else:  # the float32 nearest the exact quotient, rounded once
            assert Fraction(s) == round_exact(exact, fpx.get_format("float32"), "nearest_even")


def test_a_huge_amax_saturates_and_never_gives_nan() -> None:
    t = scale_per_tensor([1e50, 1.0, -1e49], "float8_e4m3fn")  # filterwarnings = error
    assert t.scale == 2.0**-127 and np.isfinite(t.values).all()
    assert t.scaled.tolist() == [448.0, 0.0, -448.0]
    assert compute_scale(1e50, "float8_e4m3fn", margin=2000) == 2.0**-127
    assert compute_scale(1.0, "float8_e4m3fn", margin=-2000) == 2.0**127


@pytest.mark.parametrize("history", [[np.nan, 1.0], [1.0, np.nan], [np.inf], [1.0, -np.inf]])
def test_a_non_finite_amax_history_is_refused_in_any_order(history: list[float]) -> None:
    with pytest.raises(ValueError, match="amax_history"):
        scale_per_tensor([1.0], "float8_e4m3fn", recipe="delayed", amax_history=history)


def test_bad_arguments_are_named() -> None:
    with pytest.raises(TypeError, match="amax"):
        compute_scale("3", "float8_e4m3fn")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="amax"):
        compute_scale(True, "float8_e4m3fn")
    with pytest.raises(ValueError, match="amax"):
        compute_scale(-1.0, "float8_e4m3fn")
    with pytest.raises(ValueError, match="amax"):
        compute_scale(np.nan, "float8_e4m3fn")
    with pytest.raises(TypeError, match="amax_history"):
        scale_per_tensor([1.0], "e4m3", recipe="delayed", amax_history=["3"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="margin"):
        compute_scale(1.0, "e4m3", margin=1.5)  # type: ignore[arg-type]
    for bad in ("3", True, [3.0]):
        with pytest.raises(TypeError, match="tensor_amax"):
            fpx.quantize_blocks(np.ones(16), "nvfp4", tensor_amax=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tensor_amax"):
        fpx.quantize_blocks(np.ones(16), "nvfp4", tensor_amax=np.nan)


def test_delayed_scaling_keeps_working() -> None:
    d = DelayedScaling("float8_e4m3fn", history_len=2)
    for x in (np.array([1e50]), np.array([1.0]), np.array([np.nan, 2.0])):
        t = d(x)
        assert np.float32(t.scale) == t.scale and t.scale > 0


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, ">i8"])
def test_the_amax_of_integers_beyond_2_53_is_exact(dtype: object) -> None:
    """max / amax rounded once to float32 from the integer amax itself: for this
    amax the float64 nearest it (a multiple of 128) puts 448 / amax on the other
    side of a float32 midpoint, and the scale came out one float32 step off."""
    amax = 1552353763435038657
    exact = round_exact(Fraction(448, amax), fpx.get_format("float32"), "nearest_even")
    assert Fraction(compute_scale(amax, "float8_e4m3fn")) == exact
    x = np.array([1, amax, 3], dtype=dtype)
    t = scale_per_tensor(x, "float8_e4m3fn")
    assert Fraction(t.scale) == exact
    assert Fraction(DelayedScaling("float8_e4m3fn")(x).scale) == exact
    if np.dtype(dtype).kind == "i":
        assert Fraction(scale_per_tensor(-x, "float8_e4m3fn").scale) == exact


def test_an_amax_of_any_numeric_kind() -> None:
    """Decimal and 0-d arrays are numbers (as everywhere else in fpexplore): taken
    exactly; a non-finite or negative one is still refused, naming the argument."""
    from decimal import Decimal

    want = compute_scale(3.0, "float8_e4m3fn")
    for amax in (Decimal("3"), np.array(3.0), np.array(3, np.int64), np.float16(3)):
        assert compute_scale(amax, "float8_e4m3fn") == want, amax
        t = scale_per_tensor([1.0], "e4m3", recipe="delayed", amax_history=[amax])
        assert t.scale == want
    exact = Fraction(448) / Fraction(Decimal("0.1"))
    want_tenth = float(round_exact(exact, fpx.get_format("float32"), "nearest_even"))
    assert compute_scale(Decimal("0.1"), "float8_e4m3fn") == want_tenth
    for bad in (Decimal("nan"), Decimal("-inf"), Decimal("-1"), np.array(-1.0), np.array(np.inf)):
        with pytest.raises(ValueError, match="amax"):
            compute_scale(bad, "float8_e4m3fn")
    for bad in (np.array([3.0]), np.array("3"), np.array(True)):
        with pytest.raises(TypeError, match="amax"):
            compute_scale(bad, "float8_e4m3fn")


@pytest.mark.parametrize("x", [-3.3, np.float32(-3.3), np.array(-3.3), np.float16(2.5), 7, 1e-300])
@pytest.mark.parametrize("fmt", ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "bfloat16"])
def test_a_scalar_or_0d_tensor_scales_as_a_one_element_tensor(x: object, fmt: str) -> None:
    """A 0-d tensor is a tensor: its scaled values, scale and amax are those of the
    same value as a one-element array, with the 0-d shape kept."""
    for recipe in ("current", "delayed"):
        kw = {"amax_history": [4.0]} if recipe == "delayed" else {}
        one = scale_per_tensor(np.reshape(np.asarray(x), 1), fmt, recipe=recipe, **kw)
        got = scale_per_tensor(x, fmt, recipe=recipe, **kw)
        assert np.shape(got.values) == () and got.scale == one.scale and got.amax == one.amax
        assert np.array_equal(np.reshape(got.values, 1), one.values, equal_nan=True)


@pytest.mark.parametrize(
    "kind", [ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu, np.float32]
)
def test_an_amax_of_an_ml_dtypes_type(kind: type) -> None:
    """``np.abs(x).max()`` of a bfloat16 or FP8 tensor is an ml_dtypes scalar: a
    number like np.float32's (it was refused as 'not a real number'), taken
    exactly, in compute_scale, an amax history (array or list) and NVFP4's
    tensor_amax; its NaN is still refused."""
    want = compute_scale(4.0, "float8_e4m3fn")
    amax = kind(4.0)
    assert compute_scale(amax, "float8_e4m3fn") == want
    assert compute_scale(np.array(amax), "float8_e4m3fn") == want
    for history in ([kind(1.0), amax], np.array([1.0, 4.0], dtype=kind)):
        t = scale_per_tensor([1.0], "e4m3", recipe="delayed", amax_history=history)
        assert t.scale == want
    x = np.linspace(-4, 4, 16)
    got = fpx.quantize_blocks(x, "nvfp4", tensor_amax=amax).values
    assert np.array_equal(got, fpx.quantize_blocks(x, "nvfp4", tensor_amax=4.0).values)
    with pytest.raises(ValueError, match="amax"):
        compute_scale(kind(np.nan), "float8_e4m3fn")


def test_delayed_scaling_takes_numpy_integers() -> None:
    """history_len and margin of numpy integer types are ints (np.int64(2) was
    refused as 'not a positive int'); bool and non-integers still are not."""
    d = DelayedScaling("float8_e4m3fn", history_len=np.int64(2), margin=np.int32(1))
    assert [float(d(np.array([a])).amax) for a in (1.0, 4.0, 2.0, 0.5)] == [1.0, 1.0, 4.0, 4.0]
    for bad in (True, 2.0, 0, np.int64(-1)):
        with pytest.raises((TypeError, ValueError), match="history_len"):
            DelayedScaling("float8_e4m3fn", history_len=bad)

"""Transcendental ufuncs, refused functions, bad input, display and the flag counter."""

from __future__ import annotations

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore import codes as K
from fpexplore.array.ops.transcendental import hard_cases, reference
from fpexplore.formats import get_format

FUNCTIONS = ["exp", "log", "tanh", "sin", "cos", "arctan", "expm1", "log1p", "sinh", "exp2"]


def _finite_values(fmt: str) -> np.ndarray:
    f = get_format(fmt)
    v = K.codes_to_values(np.arange(1 << f.bits).astype(K.code_dtype(f)), f)
    return v[np.isfinite(v)]


def _domain(name: str, v: np.ndarray) -> np.ndarray:
    if name in ("log",):
        return v[v > 0]
    if name == "log1p":
        return v[v > -1]
    if name in ("exp", "sinh", "exp2", "expm1"):
        return v[np.abs(v) < 60]
    return v[np.abs(v) < 1000]


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("rounding", ["nearest_even", "toward_zero", "up"])
def test_fp8_every_value_is_correctly_rounded(name: str, rounding: str) -> None:
    fmt = "float8_e4m3fn"
    v = _domain(name, _finite_values(fmt))
    got = np.asarray(getattr(np, name)(fpx.FormatArray(v, fmt, rounding, overflow="saturate")))
    f = get_format(fmt)
    for x, y in zip(v.tolist(), got.tolist(), strict=True):
        want = reference(name, (x,), f, rounding, "saturate")
        assert y == want or (np.isnan(y) and np.isnan(want)), (name, x)


@pytest.mark.parametrize("fmt", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", ["exp", "log", "tanh", "sin"])
def test_sixteen_bit_sampled_against_decimal(fmt: str, name: str) -> None:
    v = _domain(name, _finite_values(fmt))
    v = np.random.default_rng(0).choice(v, 400, replace=False)
    got = np.asarray(getattr(np, name)(fpx.FormatArray(v, fmt)))
    f = get_format(fmt)
    for x, y in zip(v.tolist(), got.tolist(), strict=True):
        want = reference(name, (x,), f, "nearest_even")
        assert y == want or (np.isinf(y) and np.isinf(want)), (name, x)


def test_hard_cases_are_detected_and_resolved() -> None:
    f = get_format("bfloat16")
    midpoint = 1.0 + 2.0**-8  # halfway between 1 and 1 + 2**-7
    y = np.array([midpoint, midpoint * (1 + 2.0**-50), 1.3])
    assert hard_cases(y, f, "nearest_even", None).tolist() == [True, True, False]
    assert reference("exp2", (3.0,), f, "up") == 8.0  # an exact case stays exact


def test_transcendental_flags() -> None:
    x = fpx.FormatArray([0.0, 1.0, 20.0], "float16")
    r = np.exp(x)
    assert r.element_flags(0) == frozenset()
    assert r.element_flags(1) == {"inexact"}
    assert r.element_flags(2) == {"overflow", "inexact"}
    z = np.log(fpx.FormatArray([0.0, -1.0], "float16"))
    assert z.element_flags(0) == {"division_by_zero"} and z.element_flags(1) == {"invalid"}


@pytest.mark.parametrize(
    "call",
    [
        lambda x: np.linalg.solve(x, x),
        lambda x: np.linalg.inv(x),
        lambda x: np.fft.fft(x),
        lambda x: np.percentile(x, 50),
        lambda x: np.convolve(x[0], x[1]),
    ],
)
def test_functions_that_cannot_be_emulated_raise_type_error(call: object) -> None:
    x = fpx.FormatArray(np.eye(2), "bfloat16")
    with pytest.raises(TypeError, match="cannot be emulated|not emulated"):
        call(x)  # type: ignore[operator]


def test_non_emulated_ufunc_names_itself() -> None:
    with pytest.raises(TypeError, match="np.bitwise_and"):
        np.bitwise_and(fpx.FormatArray([1.0], "float16"), 1)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="unknown|format"):
        fpx.FormatArray([1.0], "float7_nonsense")
    with pytest.raises(ValueError, match="no sign.*-2.0"):
        fpx.FormatArray([1.0, -2.0], "float8_e8m0fnu")
    x, y = fpx.FormatArray([1.0], "float16"), fpx.FormatArray([1.0], "bfloat16")
    with pytest.raises(TypeError, match="float16 and bfloat16"):
        x + y
    out = fpx.FormatArray([5.0], "bfloat16")
    with pytest.raises(TypeError, match="out= is a FormatArray of bfloat16"):
        np.add(x, x, out=out)
    assert out.tolist() == [5.0]  # nothing written
    with pytest.raises(TypeError, match="out= must be a FormatArray"):
        np.add(x, x, out=np.zeros(1))
    with pytest.raises(ValueError, match="shape"):
        np.add(x, x, out=fpx.FormatArray([0.0, 0.0], "float16"))
    with pytest.raises(ValueError, match="order"):
        fpx.FormatArray([1.0], "float16", order="backwards")


def test_asarray_repr_html_and_explain() -> None:
    x = fpx.FormatArray([0.1, 0.2], "bfloat16")
    assert np.asarray(x).dtype == np.float64
    assert repr(x) == "FormatArray([0.10009765625, 0.2001953125], bfloat16)"
    assert "bfloat16" in x._repr_html_() and "inexact" in x._repr_html_()
    y = x + x
    assert str(y.explain(1)) == str(fpx.add(0.2001953125, 0.2001953125, "bfloat16"))
    assert y[1].explain(0).value == fpx.add(0.2001953125, 0.2001953125, "bfloat16").value


def test_flag_counter_reports_first_index() -> None:
    x = fpx.FormatArray([1.0, 10.0, 20.0, 30.0], "float16")
    with fpx.flag_counter() as flags:
        np.exp(x)
    assert flags["overflow"] == 2
    assert ("exp", "overflow", 2, (2,)) in flags.events
    assert "2 overflow in exp, first at [2]" in str(flags)


@pytest.mark.slow
@pytest.mark.parametrize("rounding", ["nearest_even", "down"])
def test_bfloat16_table_equals_the_float64_path(rounding: str) -> None:
    """Every bfloat16 value, to nearest and rounded down (where tanh of every large value
    lies just below 1: each is re-evaluated exactly)."""
    from fpexplore.array.ops.transcendental import evaluate

    codes = np.arange(0, 1 << 16).astype(np.uint16)
    every = K.codes_to_values(codes, get_format("bfloat16"))
    x = fpx.FormatArray(every, "bfloat16", rounding)
    with np.errstate(all="ignore"):
        want = evaluate("tanh", [every], get_format("bfloat16"), rounding, None, None)
    got = np.asarray(np.tanh(x))
    assert ((got == want) | (np.isnan(got) & np.isnan(want))).all()
    assert np.tanh(x).element_flags(int(np.flatnonzero(every == 1.0)[0])) == {"inexact"}


@pytest.mark.parametrize("name", ["exp", "tanh", "log"])
@pytest.mark.parametrize("rounding", ["nearest_even", "up"])
def test_float16_table_equals_the_float64_path_on_every_value(name: str, rounding: str) -> None:
    """A float16 array of 65,536 values or more looks each value up in a table; on
    every float16 value it equals the float64 path with its hard cases resolved."""
    from fpexplore.array.ops.transcendental import evaluate

    every = K.codes_to_values(np.arange(1 << 16).astype(np.uint16), get_format("float16"))
    x = fpx.FormatArray(every, "float16", rounding)
    with np.errstate(all="ignore"):
        want = evaluate(name, [every], get_format("float16"), rounding, None, None)
    got = np.asarray(getattr(np, name)(x))
    assert ((got == want) | (np.isnan(got) & np.isnan(want))).all()
    small = fpx.FormatArray(every[::97], "float16", rounding)  # below the table's size
    assert np.array_equal(np.asarray(getattr(np, name)(small)), want[::97], equal_nan=True)


@pytest.mark.parametrize(
    ("fmt", "below_one"), [("bfloat16", 1 - 2.0**-8), ("float16", 1 - 2.0**-11)]
)
def test_tanh_of_large_values_rounds_by_its_distance_below_one(fmt: str, below_one: float):
    """tanh(x) < 1 for every finite x: rounded down (or toward zero) it is the largest
    value below 1, rounded up or to nearest it is 1, however large x is."""
    x = [10.0, 300.0, 60000.0, 1e30]
    big = [v for v in x if np.isfinite(fpx.round_to(v, fmt))]
    for rounding, want in [("down", below_one), ("toward_zero", below_one), ("up", 1.0),
                           ("nearest_even", 1.0)]:  # fmt: skip
        got = np.tanh(fpx.FormatArray(big, fmt, rounding))
        assert np.asarray(got).tolist() == [want] * len(big), (rounding, got)
        assert np.asarray(np.tanh(-fpx.FormatArray(big, fmt, rounding))).tolist() == (
            [-want if rounding in ("toward_zero", "nearest_even") else
             -1.0 if rounding == "down" else -below_one] * len(big)
        )  # fmt: skip


def test_results_are_freed_without_the_garbage_collector() -> None:
    """No result keeps itself alive through a reference cycle (its record's methods),
    so a loop of big operations does not hold every intermediate until a collection."""
    import gc
    import weakref

    x = fpx.FormatArray(np.linspace(-2, 2, 64).reshape(8, 8), "float16")
    operations = [
        lambda: x + x, lambda: x * 3, lambda: np.exp(x), lambda: np.sqrt(abs(x)),
        lambda: x.sum(), lambda: x.sum(axis=0), lambda: x @ x, lambda: np.einsum("ij,jk", x, x),
        lambda: np.var(x, ddof=1), lambda: np.cumsum(x), lambda: x[2:5], lambda: -x,
        lambda: np.where(x > 0, x, 0), lambda: fpx.FormatArray(x, "bfloat16"),
    ]  # fmt: skip
    gc.disable()
    try:
        for k, make in enumerate(operations):
            result = make()
            refs = [weakref.ref(result._values)]
            if result._record is not None:  # it holds the operands and the values
                refs.append(weakref.ref(result._record))
            del result
            assert all(r() is None for r in refs), f"operation {k}: alive until gc runs"
    finally:
        gc.enable()

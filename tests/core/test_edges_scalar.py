"""Scalar entry points at the edges: errors beyond float64, inputs of any size
answered in bounded time, clear refusals, steps from infinity."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.core.rounding_explain import explain_rounding
from fpexplore.exact import parse_real
from fpexplore.render.comparison import compare
from tests.cpu_time import within
from tests.oracle import round_exact

MODES = ("nearest_even", "nearest_away", "toward_zero", "up", "down")


def _quick(call, limit: float = 1.0):
    """call(), which must take under ``limit`` CPU seconds (tests/cpu_time.py: the
    machines running the suite are shared)."""
    return within(call, limit)[0]


@pytest.mark.parametrize(
    "x,fmt,rounding",
    [("1e400", "fp4", "nearest_even"), (5e-324, "float16", "up"), (-(2**2000), "e3m2", "down"),
     ("1e99999999999999999999", "fp4", "toward_zero"), (2**3_000_000, "float64", "toward_zero")],
    ids=["1e400", "5e-324", "-2**2000", "1e99999999999999999999", "2**3e6"],
)  # fmt: skip
def test_errors_beyond_float64_are_inf_not_a_crash(x, fmt, rounding) -> None:
    p = _quick(lambda: fpx.decode(x, fmt, rounding=rounding))
    for name in ("abs_error", "rel_error", "ulp_error"):
        value = getattr(p, name)
        assert isinstance(value, float) and not math.isnan(value)
    assert _quick(lambda: str(p)) and _quick(lambda: p._repr_html_())
    table = _quick(lambda: compare(x, rounding=rounding))
    assert str(table) and table._repr_html_()
    explanation = explain_rounding(x, fmt, rounding)
    assert _quick(lambda: explanation.to_svg()) and str(explanation)


def test_error_values_of_the_issue() -> None:
    assert fpx.decode("1e400", "fp4").abs_error == math.inf
    assert fpx.decode("1e400", "fp4").rel_error == 1.0
    assert fpx.decode(5e-324, "float16", rounding="up").rel_error == math.inf


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fmt", ["float32", "float16", "fp4", "float8_e4m3fn", "bfloat16"])
def test_huge_and_tiny_exponents_answer_by_mode(mode: str, fmt: str) -> None:
    f = fpx.get_format(fmt)
    huge, tiny = "1e99999999999999999999", "7.5e-99999999999999999999"
    for text in (huge, "-" + huge, tiny, "-" + tiny, "3e401", "-2e-401"):
        p = _quick(lambda text=text: fpx.decode(text, fmt, rounding=mode), 0.05)
        sign = -1 if text.startswith("-") else 1
        # the stand-in rounds as any value beyond every format does: 10**500 or 10**-500
        proxy = sign * (Fraction(10) ** 500 if "e-" not in text else Fraction(1, 10**500))
        want = round_exact(proxy, f, mode)
        if want == "nan":
            assert p.kind == "nan"
        else:
            assert p.value == float(want)
    big = fpx.decode("1e99999999999999999999", "float32", overflow="saturate")
    assert big.value == f.max if fmt == "float32" else True


def test_ulp_error_of_huge_stand_ins_matches_exact_arithmetic() -> None:
    for digits, exponent in (("1", 400), ("3", 400), ("123456789", 1000), ("98765", 5000)):
        x = int(digits) * 10**exponent
        exact = float(Fraction(x - 6, 2 ** (x.bit_length() - 1 - 1)))
        assert fpx.decode(f"{digits}e{exponent}", "fp4").ulp_error == exact


def test_long_decimals_are_fast_and_exact_enough() -> None:
    text = "0." + "1" * 1_000_000
    p = _quick(lambda: fpx.decode(text, "float32"))
    assert p.code == fpx.decode("1/9", "float32").code
    assert p.abs_error == float(abs(p.exact - Fraction(1, 9)))  # 1/9 - 10**-1e6/9: same float
    _quick(lambda: str(p))
    # a tie decided by the digits after the 2200th place
    tie = "1.00048828125" + "0" * 3000 + "1"  # 1 + 2**-11 and a little: rounds up in float16
    assert fpx.decode(tie, "float16").code == 0x3C01
    assert fpx.decode("1.00048828125" + "0" * 3000, "float16").code == 0x3C00
    for mode in MODES:
        low = fpx.decode("-" + tie, "float16", rounding=mode)
        want = round_exact(-Fraction(tie), fpx.get_format("float16"), mode)
        assert low.value == float(want)


def test_long_decimal_rel_error_is_exact() -> None:
    text = "0." + "3" * 5000
    p = fpx.decode(text, "float64")
    exact = Fraction(Decimal(text))
    assert p.rel_error == float(abs(p.exact - exact) / exact)


def test_huge_ints_render_fast() -> None:
    for x in (2**3_000_000, -(2**10**7)):
        p = _quick(lambda x=x: fpx.decode(x, "float64"))
        assert "inf" in _quick(lambda p=p: str(p))
        _quick(lambda p=p: p._repr_html_())


@pytest.mark.parametrize(
    "call,match",
    [(lambda: fpx.decode("1/" + "9" * 5000), None),
     (lambda: fpx.decode("1/" + "9" * 50_000), "too long"),
     (lambda: fpx.values_between(0, 10**5000, "float64"), "values"),
     (lambda: fpx.decode("0x1p99999999"), "binary exponent"),
     (lambda: fpx.decode("1e" + "9" * 200), "exponent")],
)  # fmt: skip
def test_messages_in_our_words(call, match) -> None:
    try:
        _quick(call)
    except ValueError as err:
        assert "sys.set_int_max_str_digits" not in str(err)
        assert match is None or match in str(err)
        assert len(str(err)) < 400


@pytest.mark.parametrize(
    "bad",
    [np.timedelta64(5, "s"), np.datetime64("2020-01-01"), np.str_("1.5"), np.bytes_(b"1"),
     np.void(b"1"), np.bool_(True), True],
)  # fmt: skip
def test_non_numbers_refused(bad) -> None:
    with pytest.raises(TypeError, match=type(bad).__name__):
        fpx.decode(bad, "float32")


@pytest.mark.parametrize("dtype", ["m8[s]", "M8[D]", "U3", "S3", "V4", "O", "?", "c16"])
def test_non_numeric_arrays_refused(dtype: str) -> None:
    arr = np.zeros(3, dtype)
    for call in (fpx.round_to, fpx.representation_error, fpx.ulp, fpx.next_up):
        with pytest.raises(TypeError, match="dtype"):
            call(arr, "float16")
    with pytest.raises(TypeError):
        fpx.decode_array(arr, "float16")


def test_ml_dtypes_scalars_of_every_known_format() -> None:
    for name in ("float8_e4m3", "float8_e3m4", "float8_e4m3fn", "float8_e5m2", "bfloat16"):
        t = getattr(ml_dtypes, name)
        assert fpx.decode(t(1.5), "float32").value == 1.5
        assert parse_real(t(-0.25)).value == Fraction(-1, 4)


@pytest.mark.parametrize("fmt", ["float8_e4m3fn", "fp4", "e3m2", "e2m3", "float16", "e5m2"])
def test_steps_from_infinity(fmt: str) -> None:
    f = fpx.get_format(fmt)
    assert fpx.next_up(-math.inf, fmt) == -f.max
    assert fpx.next_down(math.inf, fmt) == f.max
    assert fpx.decode(-math.inf, fmt).next_up().value == -f.max
    assert fpx.decode(math.inf, fmt).next_down().value == f.max
    assert fpx.next_up(np.array([-np.inf]), fmt)[0] == -f.max


def test_steps_from_beyond_max_in_saturating_formats() -> None:
    # 29 is above FP6 E3M2's max (28): it rounds to max both ways, yet max lies below it
    assert fpx.next_down(29.0, "e3m2") == 28.0
    assert fpx.next_up(-29.0, "e3m2") == -28.0
    assert fpx.next_down(np.array([29], np.int8), "e3m2")[0] == 28.0
    assert fpx.next_down(28.0, "e3m2") == 24.0

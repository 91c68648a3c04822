"""explain_rounding: neighbours, guard/round/sticky bits and each mode's pick.

The dropped bits are checked against the bits of the float64 input itself, and each
mode's direction (worked out from those bits alone) against what decode() returns.
"""

from __future__ import annotations

import math
import struct
import xml.etree.ElementTree as ET
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fpexplore import FORMATS, decode, get_format
from fpexplore.core.rounding_explain import MODES, explain_rounding


def picks(x, fmt="float16"):
    ex = explain_rounding(x, fmt)
    return {mode: (c.picks, c.result.value) for mode, c in ex.choices.items()}


def test_point_one_in_float16():
    ex = explain_rounding("0.1", "float16")
    assert (ex.below.value, ex.above.value) == (0.0999755859375, 0.10003662109375)
    assert ex.spacing == Fraction(1, 2**14)  # 0.1 is in [2**-4, 2**-3): ULP 2**(-4-10)
    assert ex.position == (Fraction(1, 10) - Fraction(0.0999755859375)) / ex.spacing
    assert (ex.guard, ex.round, ex.sticky) == (0, 1, 1)  # 0.4 ULP = 0.0110011..._2
    assert not ex.is_tie and not ex.is_exact
    assert ex.result.value == 0.0999755859375
    assert picks("0.1")["up"] == ("above", 0.10003662109375)


def test_ties_to_even_and_away():
    ex = explain_rounding("2049", "float16")  # between 2048 (even) and 2050 (odd)
    assert ex.is_tie and (ex.guard, ex.round, ex.sticky) == (1, 0, 0)
    assert ex.choices["nearest_even"].result.value == 2048.0
    assert ex.choices["nearest_away"].result.value == 2050.0
    assert "ties to even" in ex.choices["nearest_even"].reason
    ex = explain_rounding("2051", "float16")  # between 2050 (odd) and 2052 (even)
    assert ex.choices["nearest_even"].result.value == 2052.0
    assert ex.choices["nearest_even"].away


def test_negative_input_mirrors():
    ex = explain_rounding("-0.1", "float16")
    assert ex.below.value == -0.10003662109375 and ex.above.value == -0.0999755859375
    assert picks("-0.1")["up"] == ("above", -0.0999755859375)  # toward zero
    assert picks("-0.1")["down"] == ("below", -0.10003662109375)
    assert ex.choices["up"].away is False and ex.choices["down"].away is True


def test_underflow_keeps_the_sign():
    ex = explain_rounding("-1e-10", "float16")
    assert ex.choices["nearest_even"].result.code == 0x8000  # -0
    assert ex.choices["down"].result.value == -(2.0**-24)
    assert (ex.guard, ex.round, ex.sticky) == (0, 0, 1)


def test_overflow_in_each_kind_of_format():
    assert picks(70000)["nearest_even"] == ("beyond", math.inf)
    assert picks(70000)["toward_zero"] == ("below", 65504.0)
    ex = explain_rounding(70000, "float16")
    assert ex.guard is None and ex.position > 1
    tie = explain_rounding(65520, "float16")  # max + half an ULP: IEEE rounds to inf
    assert tie.is_tie and tie.choices["nearest_even"].result.value == math.inf
    e4m3 = explain_rounding(464, "float8_e4m3fn")  # 448 + 16: 448's mantissa is even
    assert e4m3.choices["nearest_even"].result.value == 448.0
    assert math.isnan(e4m3.choices["nearest_away"].result.value)
    assert e4m3.choices["nearest_away"].picks == "beyond"
    fp4 = explain_rounding(100, "float4_e2m1fn")  # saturates
    assert fp4.choices["up"].result.value == 6.0 and "saturates" in fp4.choices["up"].reason


@pytest.mark.parametrize(
    ("x", "fmt", "value", "words"),
    [
        ("1", "float16", 1.0, "nothing to round"),
        ("-0", "float16", -0.0, "nothing to round"),
        ("nan", "float16", math.nan, "NaN stays NaN"),
        ("-inf", "float16", -math.inf, "infinity stays"),
        ("inf", "float8_e4m3fn", math.nan, "becomes NaN"),
        ("inf", "float4_e2m1fn", 6.0, "saturates"),
    ],
)
def test_exact_and_special_inputs(x, fmt, value, words):
    ex = explain_rounding(x, fmt)
    assert ex.is_exact and ex.guard in (None, 0) and ex.sticky in (None, 0)
    for choice in ex.choices.values():
        assert choice.picks == "exact" and words in choice.reason
        result = choice.result.value
        assert result == value or (math.isnan(value) and math.isnan(result))
    assert "<svg" in ex._repr_html_()


def test_bad_input_raises_like_decode():
    with pytest.raises(ValueError):
        explain_rounding("abc", "float16")
    with pytest.raises(ValueError):
        explain_rounding("1", "float16", rounding="sideways")
    with pytest.raises(ValueError):
        explain_rounding("nan", "float4_e2m1fn")


def test_text_html_and_svg():
    ex = explain_rounding("0.1", "float16", rounding="up")
    text = str(ex)
    assert all(mode in text for mode in MODES)
    assert "guard 0, round 1, sticky 1" in text and "* up" in text
    ET.fromstring(ex.to_svg())  # well-formed
    ET.fromstring(explain_rounding(70000, "float16").to_svg())
    for x in ("1/3", "-inf", "nan", "-1e-10", 464):
        ET.fromstring(explain_rounding(x, "float8_e4m3fn").to_svg())
    html = ex._repr_html_()
    assert "<script" not in html and "0.10003662109375" in html


@pytest.mark.parametrize(
    "x, fmt",
    [
        ("2049.5", "float16"),
        ("0.1", "float16"),
        ("-0.1", "bfloat16"),
        ("1/3", "float8_e4m3fn"),
        ("-1e-10", "float16"),
        (1e-300, "float32"),
        ("447", "float8_e4m3fn"),
    ],
)
def test_stochastic_probability_is_distance_from_below_over_spacing(x, fmt):
    ex = explain_rounding(x, fmt, rounding="stochastic")
    low, high = ex.below.exact, ex.above.exact
    p = ex.probability_above
    assert isinstance(p, Fraction) and 0 < p < 1
    assert p == (ex.exact - low) / (high - low)
    assert p * high + (1 - p) * low == ex.exact  # unbiased: right on average
    assert ex.result.value == ex.choices["nearest_even"].result.value  # the likelier one
    text, html = str(ex), ex._repr_html_()
    shown_below, shown_above = ex._chance_text(False), ex._chance_text(True)
    assert shown_above == (str(p) if p.denominator < 10**9 else f"{float(p):.6g}")
    assert f"* stochastic    {ex.below.value!r} with probability {shown_below}" in text
    assert f"(p = {shown_above})" in ex.to_svg() and f"probability {shown_above}" in html
    ET.fromstring(ex.to_svg())


def test_stochastic_mean_matches_round_to():
    import numpy as np

    from fpexplore import round_to

    p = explain_rounding("2049.5", "float16", "stochastic").probability_above
    draws = round_to(np.full(40_000, 2049.5), "float16", "stochastic", rng=np.random.default_rng(1))
    assert abs(float(np.mean(draws == 2050.0)) - float(p)) < 0.01


def test_stochastic_probability_of_a_huge_fraction_reads_as_a_decimal():
    ex = explain_rounding("1e-400", "float64", "stochastic")
    p = ex.probability_above
    assert p.denominator > 10**9
    assert f"probability {float(p):.6g}" in str(ex)
    ET.fromstring(ex.to_svg())


@pytest.mark.parametrize("x", ["2048", "inf", "nan", "70000"])
def test_stochastic_has_nothing_to_choose(x):
    ex = explain_rounding(x, "float16", "stochastic")
    assert ex.probability_above is None
    assert "nothing to choose" in str(ex)
    ET.fromstring(ex.to_svg())


def test_examples_in_docstrings():
    import doctest

    import fpexplore.core.rounding_explain

    assert doctest.testmod(fpexplore.core.rounding_explain).failed == 0


# -- properties -----------------------------------------------------------------------


def float64_dropped_bits(x: float, mantissa_bits: int) -> tuple[int, int, int]:
    """Guard, round and sticky bits read straight off the float64 encoding of x, for
    a normal x whose binade is normal in the target format too."""
    fraction = struct.unpack("<Q", struct.pack("<d", x))[0] & ((1 << 52) - 1)
    cut = 52 - mantissa_bits  # how many float64 fraction bits rounding drops
    guard = (fraction >> (cut - 1)) & 1
    round_bit = (fraction >> (cut - 2)) & 1
    sticky = int(fraction & ((1 << (cut - 2)) - 1) != 0)
    return guard, round_bit, sticky


@settings(max_examples=300, deadline=None)
@given(
    fmt=st.sampled_from(["float16", "bfloat16", "float32", "tf32", "float8_e5m2"]),
    data=st.data(),
)
def test_dropped_bits_match_the_float64_encoding(fmt, data):
    f = get_format(fmt)
    exponent = data.draw(st.integers(f.emin, f.emax - 1))
    significand = data.draw(st.floats(1.0, 2.0, exclude_max=True))
    x = data.draw(st.sampled_from([1.0, -1.0])) * math.ldexp(significand, exponent)
    ex = explain_rounding(x, f)
    if ex.is_exact:
        assert float64_dropped_bits(x, f.mantissa_bits) == (0, 0, 0)
    else:
        assert (ex.guard, ex.round, ex.sticky) == float64_dropped_bits(x, f.mantissa_bits)


@st.composite
def exact_inputs(draw):
    fmt = FORMATS[draw(st.sampled_from(sorted(set(FORMATS) - {"float64"})))]
    top = Fraction(fmt.max) * 3
    numerator = draw(st.integers(-(2**40), 2**40))
    scale = Fraction(2) ** draw(st.integers(fmt.emin - fmt.mantissa_bits - 3, fmt.emax + 2))
    x = numerator * scale / 2**20
    return min(max(x, -top), top), fmt


@settings(max_examples=400, deadline=None)
@given(exact_inputs())
def test_each_modes_direction_agrees_with_decode(case):
    x, fmt = case
    ex = explain_rounding(x, fmt)
    if ex.out_of_domain:  # E8M0: zero, negatives, below 2**-127; some modes give NaN
        assert any(c.result.kind == "nan" for c in ex.choices.values())
        return
    if ex.is_exact:
        assert decode(x, fmt).error in (0, None)
        return
    nearer_zero, farther = (ex.above, ex.below) if x < 0 else (ex.below, ex.above)
    saturating = fmt.nan_encoding == "none" and abs(x) > fmt.max
    if saturating:  # FP6 / FP4: no inf, no NaN; both neighbours are +-max
        assert nearer_zero.exact == farther.exact == math.copysign(fmt.max, x)
    else:  # the farther one is inf / NaN past the largest finite value
        assert abs(nearer_zero.exact) < abs(x)
        assert farther.exact is None or abs(x) < abs(farther.exact)
        if farther.exact is not None:
            assert abs(farther.exact - nearer_zero.exact) == ex.spacing
    assert 0 < ex.position
    for mode, choice in ex.choices.items():
        assert choice.result.code == decode(x, fmt, rounding=mode).code
        if not choice.away:
            assert choice.result.code == nearer_zero.code, (mode, choice)
        else:
            assert choice.result.code != nearer_zero.code or saturating, (mode, choice)
        if ex.position < Fraction(1, 2) and mode.startswith("nearest"):
            assert not choice.away

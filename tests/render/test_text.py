"""Plain-text rendering of FloatParts."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fpexplore import decode, from_bits
from fpexplore.render.text import exact_decimal, parts_text


@pytest.mark.parametrize(
    "x", [Fraction(1, 8), Fraction(-3), Fraction(0), Fraction(1, 2**1074), Fraction(5, 2**60)]
)
def test_exact_decimal_is_exact(x: Fraction) -> None:
    assert Fraction(exact_decimal(x)) == x


def test_exact_decimal_refuses_non_dyadic() -> None:
    with pytest.raises(ValueError, match="binary"):
        exact_decimal(Fraction(1, 3))


def test_colour_only_when_asked() -> None:
    p = decode(-2.5, "float16")
    assert "\x1b[" not in parts_text(p)
    coloured = parts_text(p, color=True)
    assert coloured.count("\x1b[0m") == 3
    assert "1" in coloured.splitlines()[1]


def test_texts_for_every_kind() -> None:
    assert "NaN (quiet, payload 0)" in str(decode("nan", "float32"))
    assert "infinity" in str(decode("-inf", "float16"))
    assert "subnormal" in str(decode("1e-7", "float16"))
    assert "= -0 (exactly)" in str(decode("-0", "float16"))
    assert str(from_bits("0x3C00", "float16")).startswith("bit pattern 0x3C00 of float16")
    text = str(decode(0.1, "float32"))
    assert "0.1000000000000000055511151231257827" in text  # a float is taken exactly
    assert "'0.1' in float32" in str(decode("0.1", "float32"))


def test_no_impossible_neighbours_at_the_top() -> None:
    assert "none (the format saturates here)" in str(from_bits(0x7, "e2m1"))
    assert "none (the next pattern, 0x7F, is NaN)" in str(from_bits(0x7E, "e4m3"))
    assert "< this < inf (0x7C00)" in str(decode(65504, "float16"))


def test_errors_below_float64_range_are_not_shown_as_zero() -> None:
    text = str(decode("1e-400", "e5m2"))
    assert "abs 1e-400" in text and "rel 1" in text
    assert "ULP here" not in str(decode("-inf", "float16"))


@pytest.mark.parametrize(
    "x",
    [10**5000, -(10**5000), Fraction(1, 10**5000), Fraction(3, 7)],
    ids=["googol-ish", "negative", "tiny", "third"],
)
def test_huge_inputs_render_everywhere(x: object) -> None:
    from fpexplore import compare
    from fpexplore.core.rounding_explain import explain_rounding

    parts = decode(x, "float64")
    text, html = str(parts), parts._repr_html_()
    assert "float64" in text and "<" in html
    assert "float16" in str(compare(x, ["float16"]))
    assert str(explain_rounding(x, "float16", "nearest_even"))


def test_magnitude_text_any_size() -> None:
    from fpexplore.render.text import magnitude_text, short_repr

    assert magnitude_text(Fraction(10**5000 * 3)) == "3.00000e+5000"
    assert magnitude_text(Fraction(999999999, 10**9)) == "1.00000e+0"
    assert short_repr(10**5000) == "int ~1.00000e+5000"
    assert short_repr("0.1") == "'0.1'"

"""The flags of a decoded value, and why, in the text breakdown and the HTML card."""

from __future__ import annotations

import pytest

from fpexplore import decode, from_bits
from fpexplore.render.html import parts_html
from fpexplore.render.text import flags_text


def _flags_line(parts) -> str:
    lines = [line for line in str(parts).splitlines() if line.startswith("  flags ")]
    assert len(lines) == 1, str(parts)
    return lines[0]


CASES = {
    "e4m3 overflow": (
        decode(500, "e4m3"),
        "overflow, inexact: above the largest value, 448: float8_e4m3fn has no infinity, "
        "overflow gives NaN",
    ),
    "float16 overflow": (
        decode(65520, "float16"),
        "overflow, inexact: above the largest value, 65504: overflow gives inf",
    ),
    "saturated": (
        decode(1e6, "float16", overflow="saturate"),
        "overflow, inexact: above the largest value, 65504: saturated to the largest value",
    ),
    "fp4 saturates": (
        decode(100, "fp4"),
        "overflow, inexact: above the largest value, 6: float4_e2m1fn has no infinity and no "
        "NaN: saturated to the largest value",
    ),
    "flushed": (
        decode("1e-10", "float16"),
        "underflow, inexact: below the smallest subnormal value, 5.96046e-08: flushed to zero",
    ),
    "subnormal": (
        decode("1e-6", "float16"),
        "underflow, inexact: below the smallest normal value, 6.10352e-05: stored as a "
        "subnormal, with fewer significant bits",
    ),
    "inexact": (decode("0.1", "float32"), "inexact"),
    "exact": (decode(0.5, "float32"), "none"),
    "no infinity": (decode("inf", "e4m3"), "invalid: float8_e4m3fn has no infinity: NaN"),
    "no negative": (decode(-1, "e8m0"), "invalid: float8_e8m0fnu has no negative values: NaN"),
    "no zero": (decode(0, "e8m0"), "invalid: float8_e8m0fnu has no zero: NaN"),
    "inf saturates": (
        decode("-inf", "fp4"),
        "inexact: float4_e2m1fn has no infinity: saturated to the largest value",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_flags_line_says_why(case: str) -> None:
    parts, expected = CASES[case]
    assert flags_text(parts) == expected
    assert _flags_line(parts) == f"  flags     {expected}"
    card = parts_html(parts)
    assert "flags" in card and expected.split(":")[0] in card


def test_bit_patterns_have_no_flags_line() -> None:
    text = str(from_bits(0x7C00, "float16"))
    assert "flags" not in text
    assert "flags" not in parts_html(from_bits(0x7C00, "float16"))

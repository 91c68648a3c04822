"""An independent rounding oracle: the sorted list of every finite value of a
small format, exact Fractions, and bisection. It shares no code with fpexplore's
rounding (only the format's parameters)."""

from __future__ import annotations

import bisect
from fractions import Fraction
from functools import cache

from fpexplore import Format, get_format


@cache
def finite_values(name: str) -> list[Fraction]:
    """Every non-negative finite value of the format, ascending (fields by hand)."""
    fmt = get_format(name)
    m, bias = fmt.mantissa_bits, fmt.bias
    values = []
    for field in range(fmt.max_exponent_field + 1):
        for mantissa in range(2**m):
            if field == fmt.max_exponent_field and mantissa > fmt.max_mantissa:
                break
            lead = 1 if field else 0
            exponent = max(field, 1) - bias
            values.append((lead + Fraction(mantissa, 2**m)) * Fraction(2) ** exponent)
    return values


def oracle_round(x: Fraction, fmt: Format, mode: str) -> Fraction | str:
    """Round x into fmt by brute force; returns a Fraction, "inf", "-inf" or "nan".

    Overflow: IEEE formats give inf (max when rounding toward zero), 'fn' formats NaN,
    formats without inf/NaN saturate, as fpexplore documents.
    """
    values = finite_values(fmt.name)
    sign = -1 if x < 0 else 1
    a = abs(x)
    top = values[-1]
    if a > top:
        # the first value above max, as if the exponent range went on
        step = Fraction(2) ** (fmt.emax - fmt.mantissa_bits)
        lo, hi = top, top + step
    else:
        i = bisect.bisect_left(values, a)
        if values[i] == a:
            return sign * a
        lo, hi = values[i - 1], values[i]
    magnitude_mode = {
        ("up", 1): "away", ("up", -1): "zero", ("down", 1): "zero", ("down", -1): "away",
    }.get((mode, sign), mode)  # fmt: skip
    if magnitude_mode == "zero" or magnitude_mode == "toward_zero":
        pick = lo
    elif magnitude_mode == "away":
        pick = hi
    else:
        mid = (lo + hi) / 2
        if a != mid:
            pick = lo if a < mid else hi
        elif magnitude_mode == "nearest_away":
            pick = hi
        else:  # ties to even: the neighbour whose last significand bit is 0
            pick = lo if _is_even(lo, fmt) else hi
    if pick > top:
        if fmt.nan_encoding == "none":
            return sign * top
        if fmt.nan_encoding == "fn":
            return "nan"
        return "-inf" if sign < 0 else "inf"
    return sign * pick


def _is_even(v: Fraction, fmt: Format) -> bool:
    if v == 0:
        return True
    exponent = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** exponent > v:
        exponent -= 1
    quantum = Fraction(2) ** (max(exponent, fmt.emin) - fmt.mantissa_bits)
    n = v / quantum
    assert n.denominator == 1
    return n.numerator % 2 == 0

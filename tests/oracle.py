"""An independent rounding oracle: the sorted list of every finite value of a
small format, exact Fractions, and bisection. It shares no code with fpexplore's
rounding (only the format's parameters)."""

from __future__ import annotations

import bisect
from fractions import Fraction
from functools import cache

from fpexplore import Format, get_format


def _special_magnitudes(fmt: Format) -> int:
    """How many of the top exponent|mantissa patterns are not finite, from the specs:
    IEEE 754-2019 3.4 (the all-ones exponent field: inf and NaNs); OCP OFP8 rev 1.0
    Table 1 (E4M3: only S.1111.111 is NaN); OCP MX v1.0 5.4.1 (E8M0: 0xFF is NaN)
    and Tables 3, 5 (FP6, FP4: none); ml_dtypes' README on "fnuz" (the code of -0 is
    NaN, every other pattern finite); gfloat's P3109 encoding (the top pattern of each
    sign is infinity, the code of -0 NaN)."""
    return {
        "ieee": 2**fmt.mantissa_bits, "fn": 1, "none": 0, "fnuz": 0, "p3109": 1,
    }[fmt.nan_encoding]  # fmt: skip


@cache
def finite_values(name: str | Format) -> list[Fraction]:
    """Every non-negative finite value of the format, ascending (fields by hand)."""
    fmt = get_format(name)
    m, bias = fmt.mantissa_bits, fmt.bias
    finite_patterns = 2 ** (fmt.exponent_bits + m) - _special_magnitudes(fmt)
    values = []
    for pattern in range(finite_patterns):
        field, mantissa = divmod(pattern, 2**m)
        if fmt.has_subnormals:
            lead, exponent = (1 if field else 0), max(field, 1) - bias
        else:  # E8M0: no subnormals, no zero; field 0 is 2**-bias
            lead, exponent = 1, field - bias
        values.append((lead + Fraction(mantissa, 2**m)) * Fraction(2) ** exponent)
    return values


def oracle_round(x: Fraction, fmt: Format, mode: str) -> Fraction | str:
    """Round x into fmt by brute force; returns a Fraction, "inf", "-inf" or "nan".

    Overflow: IEEE formats give inf (max when rounding toward zero), 'fn' formats NaN,
    formats without inf/NaN saturate, as fpexplore documents.
    """
    values = finite_values(fmt)
    sign = -1 if x < 0 else 1
    a = abs(x)
    top = values[-1]
    if (sign < 0 and not fmt.is_signed) or (a == 0 and values[0] != 0):
        return "nan"  # no such value (ml_dtypes: negative and zero E8M0 inputs are NaN)
    if a > top:
        # the first value above max, as if the exponent range went on
        step = Fraction(2) ** (fmt.emax - fmt.mantissa_bits)
        lo, hi = top, top + step
    elif a < values[0]:  # below E8M0's smallest value: nothing toward zero
        lo, hi = None, values[0]
    else:
        i = bisect.bisect_left(values, a)
        if values[i] == a:
            return sign * a
        lo, hi = values[i - 1], values[i]
    magnitude_mode = {
        ("up", 1): "away", ("up", -1): "zero", ("down", 1): "zero", ("down", -1): "away",
    }.get((mode, sign), mode)  # fmt: skip
    if lo is None:
        return "nan" if magnitude_mode in ("zero", "toward_zero") else sign * hi
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
        if fmt.nan_encoding in ("fn", "fnuz"):
            return "nan"
        return "-inf" if sign < 0 else "inf"
    return sign * pick


def _is_even(v: Fraction, fmt: Format) -> bool:
    if v == 0:
        return True
    if fmt.nan_encoding == "p3109" and fmt.mantissa_bits == 0:
        # gfloat's P3109 rule for precision 1 (its round.py): ties to the even code;
        # finite_values lists the values in code order
        return finite_values(fmt).index(v) % 2 == 0
    exponent = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** exponent > v:
        exponent -= 1
    quantum = Fraction(2) ** (max(exponent, fmt.emin) - fmt.mantissa_bits)
    n = v / quantum
    assert n.denominator == 1
    return n.numerator % 2 == 0

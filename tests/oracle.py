"""Independent rounding oracles, sharing no code with fpexplore's rounding (only
a format's parameters): the sorted list of every finite value of a small format
with bisection (:func:`oracle_round`), and, for any format and any input kind,
:func:`round_exact`, :func:`expected_code` and the NaN rule :func:`nan_code`
(see "the oracle for every path" below)."""

from __future__ import annotations

import bisect
import math
import struct
from fractions import Fraction
from functools import cache

import numpy as np

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


# -- the oracle for every path ---------------------------------------------------------
#
# Every rounding path of fpexplore (scalar decode, decode_array, round_to, round_codes,
# representation_error, next_up/next_down, and whatever comes next: arithmetic, new
# formats, block scaling) is checked against the functions below. They share no code
# with fpexplore: only a Format's primary parameters are read.
#
#   exact_input(x)              -> Fraction, or ("nan", sign, quiet, payload52) / ("inf", sign)
#   exact_elements(array)       -> the same for each element of an array of any dtype,
#                                  byte order included (read from the raw bytes)
#   round_exact(x, fmt, mode)   -> Fraction, "inf", "-inf" or "nan" for any "ieee", "fn"
#                                  or "none" format of any width (no table); the
#                                  tabulated encodings (fnuz, P3109, E8M0) are small and
#                                  checked with oracle_round's list of every value
#   expected_code(x, fmt, mode) -> the bit pattern (an int), NaN payload rule included
#   nan_code(sign, quiet, payload52, fmt) -> the one NaN rule (docs/formats.md)
#
# A new path is tested by: for each input (array element), expected_code(exact_input)
# equals the path's code (or its value equals round_exact), in every mode and format.


def _floor_log2(x: Fraction) -> int:
    e = x.numerator.bit_length() - x.denominator.bit_length()
    while Fraction(2) ** e > x:
        e -= 1
    while Fraction(2) ** (e + 1) <= x:
        e += 1
    return e


def _field_widths(fmt: Format) -> tuple[int, int, int]:
    return fmt.exponent_bits, fmt.mantissa_bits, fmt.bias


def format_max(fmt: Format) -> Fraction:
    """The largest finite value, from the fields: the top exponent field holds
    finite values except in IEEE formats; 'fn' loses only the all-ones mantissa."""
    e, m, bias = _field_widths(fmt)
    top_field = 2**e - 1 if fmt.nan_encoding != "ieee" else 2**e - 2
    top_mantissa = 2**m - 1 - (1 if fmt.nan_encoding == "fn" else 0)
    if top_mantissa < 0:  # 'fn' with no mantissa bits: the top field is NaN only
        top_field, top_mantissa = top_field - 1, 0
    lead = 1 if top_field else 0
    return (lead + Fraction(top_mantissa, 2**m)) * Fraction(2) ** (max(top_field, 1) - bias)


def round_exact(x: Fraction, fmt: Format, mode: str) -> Fraction | str:
    """Round x once into any format (no table): quantum of the binade, floor and
    ceiling on that grid, the mode's pick, then the format's overflow convention."""
    _, m, bias = _field_widths(fmt)
    emin = 1 - bias
    sign = -1 if x < 0 else 1
    a = abs(x)
    if a == 0:
        return x
    quantum = Fraction(2) ** (max(_floor_log2(a), emin) - m)
    lo = (a // quantum) * quantum
    if lo == a:
        pick = a
    else:
        hi = lo + quantum
        toward_zero = mode == "toward_zero" or (mode, sign) in (("up", -1), ("down", 1))
        away = (mode, sign) in (("up", 1), ("down", -1))
        if toward_zero:
            pick = lo
        elif away:
            pick = hi
        elif a != (lo + hi) / 2:
            pick = lo if a < (lo + hi) / 2 else hi
        elif mode == "nearest_away":
            pick = hi
        else:
            pick = lo if (lo / quantum) % 2 == 0 else hi
    top = format_max(fmt)
    if pick > top:
        toward_zero = mode == "toward_zero" or (mode, sign) in (("up", -1), ("down", 1))
        if fmt.nan_encoding == "none" or toward_zero:
            return sign * top
        if fmt.nan_encoding == "fn":
            return "nan"
        return "-inf" if sign < 0 else "inf"
    return sign * pick


def nan_code(sign: int, quiet: bool, payload52: int | None, fmt: Format) -> int:
    """The one NaN rule: keep the sign, the quiet bit and the top payload bits; a
    signalling NaN left with no payload gets payload 1; a NaN spelled in text
    (payload None) gets the canonical pattern; 'fn' formats have one NaN per sign.
    ``payload52``: the 52 fraction bits of the NaN as float64 holds them (quiet bit
    first), whatever format it came from."""
    e, m, _ = _field_widths(fmt)
    sign_bit = sign << (e + m)
    if fmt.nan_encoding == "none":
        raise ValueError("no NaN")
    if fmt.nan_encoding == "fn":
        return sign_bit | (2 ** (e + m) - 1)
    inf = (2**e - 1) << m
    if payload52 is None:
        return sign_bit | inf | ((1 << (m - 1)) if quiet or m == 1 else 1)
    kept = payload52 >> (52 - m)
    return sign_bit | inf | (kept or 1)


def code_of(value: Fraction | str, fmt: Format, negative: bool = False) -> int:
    """The bit pattern of a finite value (or "inf"/"-inf") of ``fmt``."""
    e, m, bias = _field_widths(fmt)
    if isinstance(value, str):
        assert value in ("inf", "-inf")
        return ((1 if value == "-inf" else 0) << (e + m)) | ((2**e - 1) << m)
    sign = 1 if value < 0 or (value == 0 and negative) else 0
    a = abs(value)
    if a == 0:
        return sign << (e + m)
    exponent = _floor_log2(a)
    if exponent < 1 - bias:  # subnormal
        body = a / Fraction(2) ** (1 - bias - m)
    else:
        body = ((exponent + bias) << m) + (a / Fraction(2) ** (exponent - m) - 2**m)
    assert body.denominator == 1, (value, fmt)
    return (sign << (e + m)) | int(body)


def exact_input(x: object) -> object:
    """An input's exact value: a Fraction (with the sign of zero as ("zero", sign)),
    ("inf", sign) or ("nan", sign, quiet, payload52). Independent of fpexplore's
    parser: Python's own Fraction, int and float, and numpy's raw bytes."""
    if (isinstance(x, np.generic) and x.dtype.kind == "f") or (
        isinstance(x, np.generic) and x.dtype.kind == "V"
    ):
        return _from_bytes(np.array(x))
    if isinstance(x, str):
        text = x.strip().lower().replace("_", "")
        if text.lstrip("+-") in ("inf", "infinity"):
            return ("inf", int(text.startswith("-")))
        if text.lstrip("+-") in ("nan", "snan"):
            return ("nan", int(text.startswith("-")), "snan" not in text, None)
        value = Fraction(text)
        if value == 0:
            return ("zero", int(text.startswith("-")))
        return value
    if isinstance(x, float):
        if math.isnan(x):
            bits = struct.unpack("<Q", struct.pack("<d", x))[0]
            return ("nan", bits >> 63, bool(bits >> 51 & 1), bits & ((1 << 52) - 1))
        if math.isinf(x):
            return ("inf", int(x < 0))
        if x == 0:
            return ("zero", int(math.copysign(1.0, x) < 0))
        return Fraction(x)
    if isinstance(x, np.integer):
        return Fraction(int(x))
    return Fraction(x)  # int, Fraction, Decimal


def _from_bytes(arr: np.ndarray) -> object:
    """One element (0-d array) of any float dtype and byte order, from its bytes."""
    from fpexplore import get_format as _get

    fmt = _get(arr.dtype.newbyteorder("=") if arr.dtype.kind == "f" else arr.dtype)
    raw = int.from_bytes(arr.tobytes(), "big" if arr.dtype.byteorder == ">" else "little")
    e, m, bias = _field_widths(fmt)
    sign, field, mantissa = raw >> (e + m) & 1, raw >> m & (2**e - 1), raw & (2**m - 1)
    top = 2**e - 1
    if fmt.nan_encoding == "ieee" and field == top:
        if mantissa == 0:
            return ("inf", sign)
        return ("nan", sign, bool(mantissa >> (m - 1)), mantissa << (52 - m))
    if fmt.nan_encoding == "fn" and field == top and mantissa == 2**m - 1:
        return ("nan", sign, True, None)
    lead = 1 if field else 0
    value = (lead + Fraction(mantissa, 2**m)) * Fraction(2) ** (max(field, 1) - bias)
    return ("zero", sign) if value == 0 else (-value if sign else value)


def exact_elements(arr: np.ndarray) -> list[object]:
    """:func:`exact_input` of each element of an array of any dtype and byte order."""
    flat = np.asarray(arr).reshape(-1)
    if flat.dtype.kind in "iu":
        return [Fraction(int(v)) for v in flat.astype(flat.dtype.newbyteorder("="))]
    return [_from_bytes(flat[i : i + 1].reshape(())) for i in range(flat.size)]


def expected_code(x: object, fmt: Format, mode: str = "nearest_even") -> int:
    """The code every path must give for the exact input ``x`` (from exact_input)."""
    e, m, _ = _field_widths(fmt)
    if isinstance(x, tuple) and x[0] == "nan":
        return nan_code(x[1], x[2], x[3], fmt)
    if isinstance(x, tuple) and x[0] == "inf":
        sign = x[1]
        if fmt.nan_encoding == "ieee":
            return code_of("-inf" if sign else "inf", fmt)
        if fmt.nan_encoding == "fn":
            return (sign << (e + m)) | (2 ** (e + m) - 1)
        return code_of(-format_max(fmt) if sign else format_max(fmt), fmt)
    if isinstance(x, tuple) and x[0] == "zero":
        return x[1] << (e + m)
    assert isinstance(x, Fraction)
    result = round_exact(x, fmt, mode)
    if result == "nan":
        return ((1 if x < 0 else 0) << (e + m)) | (2 ** (e + m) - 1)
    return code_of(result, fmt, negative=x < 0)

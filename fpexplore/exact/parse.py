"""Exact parsing of any real input: int, float, str, Fraction, Decimal, numpy scalar.

Every input becomes an :class:`ExactReal`: a sign bit and either an exact
:class:`fractions.Fraction` magnitude or one of the special values. Nothing is
rounded here; :mod:`fpexplore.exact.rounding` rounds the result once.

Examples
--------
>>> from fpexplore.exact import parse_real
>>> parse_real("0.1").magnitude
Fraction(1, 10)
>>> parse_real(0.1).magnitude == 0.1
True
"""

from __future__ import annotations

import math
import re
import struct
import sys
from decimal import Decimal
from fractions import Fraction
from numbers import Rational
from typing import Any

import numpy as np

from ..formats import Format, get_format
from .decimal_input import (
    DECIMAL_PLACES,
    MAX_BINARY_EXPONENT,
    MAX_DECIMAL_EXPONENT,
    MAX_RATIO_DIGITS,
    StandIn,
    bounded,
    quotient,
    ratio,
)
from .real import ExactReal, to_float

__all__ = [
    "DECIMAL_PLACES",
    "MAX_DECIMAL_EXPONENT",
    "ExactReal",
    "StandIn",
    "parse_real",
    "quotient",
    "ratio",
    "to_float",
]


_DIGITS = r"\d(?:_?\d)*"
_DECIMAL = re.compile(rf"(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:e[+-]?{_DIGITS})?")
_HEXDIGITS = r"[0-9a-f](?:_?[0-9a-f])*"
_HEX = re.compile(
    rf"0x(?P<int>{_HEXDIGITS})?(?:\.(?P<frac>{_HEXDIGITS})?)?(?:p(?P<exp>[+-]?{_DIGITS}))?"
)
_RATIO = re.compile(rf"(?P<num>{_DIGITS})\s*/\s*(?P<den>{_DIGITS})")


def _from_float(x: float) -> ExactReal:
    sign = 1 if math.copysign(1.0, x) < 0 else 0
    if math.isnan(x):
        (bits,) = struct.unpack("<Q", struct.pack("<d", x))
        payload = bits & ((1 << 52) - 1)
        return ExactReal(sign, None, "nan", payload, bool(payload >> 51))
    if math.isinf(x):
        return ExactReal(sign, None, "inf")
    return ExactReal(sign, Fraction(abs(x)))


def _from_narrow_float(x: np.generic, fmt: Format) -> ExactReal:
    """A float16/float32 or ml_dtypes scalar: its exact value, or for a NaN its bits
    (``float()`` would quiet a signalling NaN): sign, quiet bit and payload aligned
    to float64's 52 fraction bits; an 'fn' NaN, which has no quiet bit, is quiet."""
    with np.errstate(invalid="ignore"):  # comparing a signalling NaN signals
        if not np.isnan(x):
            return _from_float(float(x))
    raw = np.array(x).view(f"u{np.dtype(type(x)).itemsize}")
    bits = int(raw) & ((1 << fmt.bits) - 1)
    sign = bits >> (fmt.bits - 1) if fmt.is_signed else 0  # E8M0's top bit: exponent
    if fmt.nan_encoding != "ieee":
        return ExactReal(sign, None, "nan", None, True)
    m = fmt.mantissa_bits
    payload = (bits & ((1 << m) - 1)) << (52 - m)
    return ExactReal(sign, None, "nan", payload, bool(payload >> 51))


def _scalar_format(x: Any) -> Format | None:
    """The format of a numpy float16/float32 or ml_dtypes scalar, else None."""
    if not isinstance(x, np.generic) or isinstance(x, np.float64 | np.longdouble):
        return None
    try:
        return get_format(np.dtype(type(x)))
    except (TypeError, ValueError):
        return None


def _from_fraction(x: Fraction) -> ExactReal:
    return ExactReal(1 if x < 0 else 0, abs(x))


def _from_decimal(d: Decimal) -> ExactReal:
    sign = 1 if d.is_signed() else 0
    if d.is_nan():
        return ExactReal(sign, None, "nan", None, not d.is_snan())
    if d.is_infinite():
        return ExactReal(sign, None, "inf")
    _, digit_tuple, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    return bounded("".join(map(str, digit_tuple)), exponent, sign)


def _parse_string(text: str) -> ExactReal:
    s = text.strip().lower()
    sign = 0
    if s[:1] in "+-" and s:
        sign = 1 if s[0] == "-" else 0
        s = s[1:]
    if s in ("inf", "infinity"):
        return ExactReal(sign, None, "inf")
    if s in ("nan", "qnan"):
        return ExactReal(sign, None, "nan", None, True)
    if s == "snan":
        return ExactReal(sign, None, "nan", None, False)
    if _is_plain_decimal(s) or _DECIMAL.fullmatch(s):
        body, _, power = s.replace("_", "").partition("e")
        whole, _, fraction = body.partition(".")
        if len(power.lstrip("+-0")) > 100:
            raise ValueError(
                f"{short_text(text)} has a decimal exponent of more than 100 digits; "
                "expected a number of reasonable size"
            )
        return bounded(whole + fraction, int(power or "0") - len(fraction), sign)
    hex_match = _HEX.fullmatch(s)
    if hex_match and (hex_match["int"] or hex_match["frac"]):
        int_part = (hex_match["int"] or "").replace("_", "")
        frac_part = (hex_match["frac"] or "").replace("_", "")
        exponent = int((hex_match["exp"] or "0").replace("_", ""))
        if abs(exponent) > MAX_BINARY_EXPONENT or len(int_part + frac_part) > MAX_RATIO_DIGITS:
            raise ValueError(
                f"{short_text(text)} has a binary exponent beyond +-{MAX_BINARY_EXPONENT} or more "
                f"than {MAX_RATIO_DIGITS} digits; "
                "expected a hex float of reasonable size (or write it as a decimal)"
            )
        mantissa = int(int_part + frac_part or "0", 16)
        exponent -= 4 * len(frac_part)
        magnitude = Fraction(mantissa) * (Fraction(2) ** exponent)
        return ExactReal(sign, magnitude)
    ratio_match = _RATIO.fullmatch(s)
    if ratio_match:
        num, den = (ratio_match[part].replace("_", "") for part in ("num", "den"))
        if max(len(num), len(den)) > MAX_RATIO_DIGITS:
            raise ValueError(
                f"a ratio with {max(len(num), len(den))} digits is too long; expected at "
                f"most {MAX_RATIO_DIGITS} digits above and below the '/'"
            )
        if not den.strip("0"):
            raise ValueError(f"{short_text(text)} divides by zero; expected a real number")
        return ExactReal(sign, Fraction(int(Decimal(num)), int(Decimal(den))))
    raise ValueError(
        f"could not read {short_text(text)} as a number; expected a decimal such as '0.1' or "
        "'-1e-8', a hex float such as '0x1.8p1', a ratio such as '1/3', 'inf' or 'nan'"
    )


def _is_plain_decimal(s: str) -> bool:
    """A fast check (linear, no regex) for the common spelling ``123.456e-7``."""
    mantissa, e, power = s.partition("e")
    whole, _, fraction = mantissa.partition(".")
    power = power[1:] if power[:1] in ("+", "-") else power
    digits = (whole + fraction).isascii() and (whole + fraction).isdigit()
    return digits and (not e or (power.isascii() and power.isdigit()))


def parse_real(x: Any) -> ExactReal:
    """Take any real input exactly.

    Accepts ``int`` (any size), ``float`` (its exact binary64 value, NaN payload
    kept), ``str`` (decimal, hex float, ``"p/q"``, ``"inf"``, ``"nan"``,
    ``"snan"``, with an optional sign and ``_`` digit separators), ``Fraction``,
    ``Decimal`` and numpy (or ml_dtypes) scalars. Never uses ``eval``.

    Raises
    ------
    TypeError
        For objects that are not real numbers (None, bool, complex, arrays, numpy
        dates, durations, ``str_``, ``bytes_``, ``void``...).
    ValueError
        For strings that do not spell a number.

    Examples
    --------
    >>> parse_real("0.1").magnitude
    Fraction(1, 10)
    >>> parse_real(0.1).magnitude == Fraction(3602879701896397, 2**55)
    True
    >>> parse_real("-0x1.8p1").value
    Fraction(-3, 1)

    Decimals of any length or exponent are answered in bounded time: beyond
    1e+-400, or past 2200 decimal places, ``magnitude`` is a stand-in that every
    rounding treats as the decimal itself (see
    :func:`fpexplore.exact.decimal_input.bounded`).

    >>> parse_real("1e99999999999999999999").given.kind
    'huge'

    """
    if isinstance(x, bool | np.bool_):
        raise TypeError(f"expected a real number, got the bool {x!r}")
    if isinstance(x, _NOT_NUMBERS):
        raise TypeError(
            f"expected a real number, got the numpy {type(x).__name__} {x!r}; "
            "dates, durations, text and raw bytes are not numbers"
        )
    if isinstance(x, int | np.integer):
        return _from_fraction(Fraction(int(x)))
    narrow = _scalar_format(x)
    if narrow is not None:
        return _from_narrow_float(x, narrow)
    if isinstance(x, float | np.float64):
        return _from_float(float(x))
    if isinstance(x, str):
        return _parse_string(x)
    if isinstance(x, Decimal):
        return _from_decimal(x)
    if isinstance(x, Fraction | Rational):
        return _from_fraction(Fraction(int(x.numerator), int(x.denominator)))
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return parse_real(x[()])
    if isinstance(x, np.floating):  # longdouble: more bits than float64
        if not np.isfinite(x):
            return _from_float(float(x))
        return ExactReal(1 if np.signbit(x) else 0, abs(Fraction(*x.as_integer_ratio())))
    if _is_ml_integer(x):  # ml_dtypes' int4, uint2...
        return _from_fraction(Fraction(int(x)))
    if isinstance(x, np.ndarray | list | tuple):
        raise TypeError(
            f"expected a single real number, got a {type(x).__name__}; "
            "use decode_array() or round_to() for arrays"
        )
    raise TypeError(
        f"expected a real number (int, float, str, Fraction, Decimal or numpy scalar), "
        f"got {type(x).__name__}: {x!r}"
    )


def _is_ml_integer(x: Any) -> bool:
    """Whether ``x`` is a scalar of an ml_dtypes integer type (int4, uint4, int2...)."""
    ml = sys.modules.get("ml_dtypes")
    if ml is None or not isinstance(x, np.generic) or x.dtype.kind != "V":
        return False
    try:
        ml.iinfo(x.dtype)
    except (TypeError, ValueError):
        return False
    return True


_NOT_NUMBERS = (np.timedelta64, np.datetime64, np.str_, np.bytes_, np.void, np.object_)


def short_text(text: str, limit: int = 60) -> str:
    """``repr(text)``, cut to about ``limit`` characters for error messages."""
    shown = repr(text)
    return shown if len(shown) <= limit else f"{shown[: limit - 4]}...' ({len(text)} characters)"

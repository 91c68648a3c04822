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
from decimal import Decimal
from fractions import Fraction
from numbers import Rational
from typing import Any, NamedTuple

import numpy as np

from ..formats import FORMATS

__all__ = ["MAX_DECIMAL_EXPONENT", "ExactReal", "parse_real", "to_float"]

MAX_DECIMAL_EXPONENT = 100_000
"""Decimal inputs beyond 1e+-100000 are refused (far outside every format)."""


class ExactReal(NamedTuple):
    """An input taken exactly: sign bit, then a magnitude, ``inf`` or ``nan``.

    ``magnitude`` is a non-negative Fraction for finite inputs and None for
    inf/NaN. A NaN read from a float carries its ``payload`` (the 52 mantissa
    bits of float64); one spelled in text has payload None and gets the
    format's canonical pattern; ``quiet`` says whether it is a quiet NaN.
    """

    sign: int
    magnitude: Fraction | None
    special: str | None = None  # None, "inf" or "nan"
    payload: int | None = 0
    quiet: bool = True

    @property
    def is_finite(self) -> bool:
        return self.special is None

    def to_float(self) -> float:
        """The nearest float (inf past float64's range, NaN for NaN)."""
        if self.special == "nan":
            return math.nan
        if self.special == "inf" or self.magnitude is None:
            magnitude = math.inf
        else:
            magnitude = to_float(self.magnitude)
        return -magnitude if self.sign else magnitude

    @property
    def value(self) -> Fraction | None:
        """The signed exact value (None for inf/NaN). -0 is Fraction(0)."""
        if self.magnitude is None:
            return None
        return -self.magnitude if self.sign else self.magnitude


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


def _from_narrow_nan(x: np.floating) -> ExactReal:
    """A float16/float32 NaN read from its bits, payload aligned to float64's 52."""
    width = x.dtype.itemsize * 8
    m = {16: 10, 32: 23}[width]
    bits = int(np.array(x).view(f"u{x.dtype.itemsize}"))
    payload = (bits & ((1 << m) - 1)) << (52 - m)
    return ExactReal(bits >> (width - 1), None, "nan", payload, bool(payload >> 51))


def _from_fraction(x: Fraction) -> ExactReal:
    return ExactReal(1 if x < 0 else 0, abs(x))


def _from_decimal(d: Decimal, original: Any) -> ExactReal:
    sign = 1 if d.is_signed() else 0
    if d.is_nan():
        return ExactReal(sign, None, "nan", None, not d.is_snan())
    if d.is_infinite():
        return ExactReal(sign, None, "inf")
    if d and abs(d.adjusted()) > MAX_DECIMAL_EXPONENT:
        raise ValueError(
            f"{original!r} has a decimal exponent beyond +-{MAX_DECIMAL_EXPONENT}; "
            "expected a number of reasonable size"
        )
    return ExactReal(sign, abs(Fraction(d)))


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
    if _DECIMAL.fullmatch(s):
        exact = _from_decimal(Decimal(s.replace("_", "")), text)
        return exact._replace(sign=sign)
    hex_match = _HEX.fullmatch(s)
    if hex_match and (hex_match["int"] or hex_match["frac"]):
        int_part = (hex_match["int"] or "").replace("_", "")
        frac_part = (hex_match["frac"] or "").replace("_", "")
        exponent = int((hex_match["exp"] or "0").replace("_", ""))
        if abs(exponent) > 4 * MAX_DECIMAL_EXPONENT:
            raise ValueError(f"{text!r} has a binary exponent too large to handle")
        mantissa = int(int_part + frac_part or "0", 16)
        exponent -= 4 * len(frac_part)
        magnitude = Fraction(mantissa) * (Fraction(2) ** exponent)
        return ExactReal(sign, magnitude)
    ratio = _RATIO.fullmatch(s)
    if ratio:
        den = int(ratio["den"].replace("_", ""))
        if den == 0:
            raise ValueError(f"{text!r} divides by zero; expected a real number")
        return ExactReal(sign, Fraction(int(ratio["num"].replace("_", "")), den))
    raise ValueError(
        f"could not read {text!r} as a number; expected a decimal such as '0.1' or "
        "'-1e-8', a hex float such as '0x1.8p1', a ratio such as '1/3', 'inf' or 'nan'"
    )


def parse_real(x: Any) -> ExactReal:
    """Take any real input exactly.

    Accepts ``int`` (any size), ``float`` (its exact binary64 value, NaN payload
    kept), ``str`` (decimal, hex float, ``"p/q"``, ``"inf"``, ``"nan"``,
    ``"snan"``, with an optional sign and ``_`` digit separators), ``Fraction``,
    ``Decimal`` and numpy (or ml_dtypes) scalars. Never uses ``eval``.

    Raises
    ------
    TypeError
        For objects that are not real numbers (None, bool, complex, arrays...).
    ValueError
        For strings that do not spell a number.

    Examples
    --------
    >>> parse_real("0.1").magnitude
    Fraction(1, 10)
    >>> parse_real(0.1).magnitude == Fraction(3602879701896397, 2**55)
    True
    >>> parse_real("-0x1.8p1")
    ExactReal(sign=1, magnitude=Fraction(3, 1), special=None, payload=0, quiet=True)
    """
    if isinstance(x, bool | np.bool_):
        raise TypeError(f"expected a real number, got the bool {x!r}")
    if isinstance(x, int | np.integer):
        return _from_fraction(Fraction(int(x)))
    if isinstance(x, np.float16 | np.float32) and np.isnan(x):
        return _from_narrow_nan(x)  # float() would quiet a signalling NaN
    if isinstance(x, float | np.float16 | np.float32 | np.float64):
        return _from_float(float(x))
    if isinstance(x, str):
        return _parse_string(x)
    if isinstance(x, Decimal):
        return _from_decimal(x, x)
    if isinstance(x, Fraction | Rational):
        return _from_fraction(Fraction(int(x.numerator), int(x.denominator)))
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return parse_real(x[()])
    if isinstance(x, np.floating):  # longdouble: more bits than float64
        if not np.isfinite(x):
            return _from_float(float(x))
        return ExactReal(1 if np.signbit(x) else 0, abs(Fraction(*x.as_integer_ratio())))
    if isinstance(x, np.generic) and np.dtype(type(x)).name in _ml_dtypes_names():
        return _from_float(float(x))  # ml_dtypes scalars widen exactly
    if isinstance(x, np.ndarray | list | tuple):
        raise TypeError(
            f"expected a single real number, got a {type(x).__name__}; "
            "use decode_array() or round_to() for arrays"
        )
    raise TypeError(
        f"expected a real number (int, float, str, Fraction, Decimal or numpy scalar), "
        f"got {type(x).__name__}: {x!r}"
    )


def _ml_dtypes_names() -> tuple[str, ...]:
    return tuple(FORMATS)


def to_float(x: Fraction) -> float:
    """``float(x)``, correctly rounded, with +-inf instead of OverflowError."""
    try:
        return float(x)
    except OverflowError:
        return math.copysign(math.inf, x)

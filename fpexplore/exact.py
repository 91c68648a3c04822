"""Exact rounding of any real input into a format, with no intermediate rounding.

Inputs are turned into an exact :class:`fractions.Fraction` (plus sign and the
special values), then rounded once, with integer arithmetic, to a bit pattern
of the target format. This is the reference the vectorized kernels in
:mod:`fpexplore.codes` are tested against.

Examples
--------
>>> from fpexplore.exact import parse_real, round_real
>>> hex(round_real(parse_real("3.14159"), "float32"))
'0x40490fd0'

No double rounding: 1 + 2**-11 + 2**-60 lies just above the float16 tie
between 1 and 1 + 2**-10, so it rounds up; a detour through float64 would
land exactly on the tie and round down to even.

>>> s = "1.00048828125000000086736173798840354720596224069595336914062500"
>>> hex(round_real(parse_real(s), "float16"))
'0x3c01'
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

from .formats import Format, get_format

__all__ = [
    "OVERFLOW_MODES",
    "ROUNDING_MODES",
    "ExactReal",
    "check_overflow",
    "check_rounding",
    "parse_real",
    "round_real",
]

ROUNDING_MODES = ("nearest_even", "nearest_away", "toward_zero", "up", "down", "stochastic")
"""Rounding modes; ``stochastic`` exists only in the vectorized :func:`round_to`."""

OVERFLOW_MODES = (None, "saturate")

MAX_DECIMAL_EXPONENT = 100_000
"""Decimal inputs beyond 1e+-100000 are refused (far outside every format)."""


def check_rounding(rounding: Any, *, allow_stochastic: bool = True) -> str:
    """Validate a rounding-mode name and return it."""
    modes = ROUNDING_MODES if allow_stochastic else ROUNDING_MODES[:-1]
    if not isinstance(rounding, str) or rounding not in modes:
        raise ValueError(f"unknown rounding mode {rounding!r}; expected one of {', '.join(modes)}")
    return rounding


def check_overflow(overflow: Any) -> str | None:
    """Validate an overflow policy: None (the format's convention) or ``"saturate"``."""
    if overflow not in OVERFLOW_MODES:
        raise ValueError(
            f"unknown overflow policy {overflow!r}; expected None (the format's own "
            "convention) or 'saturate'"
        )
    return overflow


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
        magnitude = math.inf if self.special == "inf" else to_float(self.magnitude)
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
        return _from_fraction(Fraction(x.numerator, x.denominator))
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
    from .formats import FORMATS

    return tuple(FORMATS)


def _magnitude_mode(rounding: str, sign: int) -> str:
    """Translate a signed rounding mode into one on magnitudes."""
    if rounding == "up":
        return "toward_zero" if sign else "away"
    if rounding == "down":
        return "away" if sign else "toward_zero"
    return rounding


def ulp_exponent(magnitude: Fraction, fmt: Format) -> int:
    """log2 of the spacing of ``fmt`` in the binade of ``magnitude`` (> 0):
    ``max(floor(log2(magnitude)), emin) - mantissa_bits``, in integer arithmetic."""
    p, q = magnitude.numerator, magnitude.denominator
    e = p.bit_length() - q.bit_length()
    if (p << max(-e, 0)) < (q << max(e, 0)):
        e -= 1  # now 2**e <= magnitude < 2**(e+1)
    return max(e, fmt.emin) - fmt.mantissa_bits


def to_float(x: Fraction) -> float:
    """``float(x)``, correctly rounded, with +-inf instead of OverflowError."""
    try:
        return float(x)
    except OverflowError:
        return math.copysign(math.inf, x)


def round_magnitude(magnitude: Fraction, fmt: Format, mode: str) -> tuple[int, int, bool]:
    """Round a positive Fraction to (biased exponent field, mantissa field, overflowed).

    ``mode`` is a magnitude mode: ``nearest_even``, ``nearest_away``,
    ``toward_zero`` or ``away`` (from zero). The result is exact: integer
    arithmetic on numerator and denominator only.
    """
    m = fmt.mantissa_bits
    p, q = magnitude.numerator, magnitude.denominator
    shift = ulp_exponent(magnitude, fmt)  # the quantum (ULP) is 2**shift
    exponent = shift + m
    num, den = (p, q << shift) if shift >= 0 else (p << -shift, q)
    significand, remainder = divmod(num, den)
    if remainder:
        twice = 2 * remainder
        if mode == "away":
            significand += 1
        elif mode == "nearest_away":
            significand += twice >= den
        elif mode == "nearest_even":
            significand += twice > den or (twice == den and significand & 1)
    if significand >> (m + 1):  # carried into the next binade
        significand >>= 1
        exponent += 1
    if significand >> m:
        field, mantissa = exponent + fmt.bias, significand - (1 << m)
    else:
        field, mantissa = 0, significand  # subnormal or zero
    overflowed = field > fmt.max_exponent_field or (
        field == fmt.max_exponent_field and mantissa > fmt.max_mantissa
    )
    return field, mantissa, overflowed


def overflow_code(fmt: Format, sign: int, mode: str, overflow: str | None) -> int:
    """The code an overflowing result gets, by format convention and magnitude mode."""
    if overflow == "saturate" or mode == "toward_zero" or fmt.nan_encoding == "none":
        code = fmt.max_code
    elif fmt.has_infinity:
        code = fmt.inf_code
    else:
        code = fmt.nan_code
    return code | (fmt.sign_mask if sign else 0)


def round_real(
    x: ExactReal, fmt: Any, rounding: str = "nearest_even", overflow: str | None = None
) -> int:
    """Round an exact input once into ``fmt``; return the bit pattern (an int).

    A NaN keeps its sign, its quiet/signalling bit and as many of its top payload
    bits as the format holds (a signalling NaN left with no payload bits gets
    payload 1, so it does not turn into infinity).

    Overflow follows the format: IEEE formats give a signed infinity (or the
    largest finite value when the rounding direction points to zero);
    ``float8_e4m3fn``-style ("fn") formats give NaN, as ml_dtypes and the OCP
    FP8 non-saturating mode do; formats without inf and NaN (FP6, FP4)
    saturate to +-max. ``overflow="saturate"`` clamps to +-max in every format.
    Infinite inputs stay infinite where the format has infinities.
    """
    fmt = get_format(fmt)
    check_rounding(rounding, allow_stochastic=False)
    check_overflow(overflow)
    sign_bit = fmt.sign_mask if x.sign else 0
    if x.special == "nan":
        if fmt.nan_encoding == "none":
            raise ValueError(f"{fmt.name} has no NaN encoding; cannot represent nan")
        if fmt.nan_encoding == "fn":
            return sign_bit | fmt.nan_code
        m = fmt.mantissa_bits
        if x.payload is None:  # a NaN spelled in text: canonical pattern
            payload = 1 << (m - 1) if x.quiet or m == 1 else 1
        else:  # a float's NaN: keep the quiet bit and the top payload bits
            payload = (x.payload >> (52 - m)) or 1  # 0 would read as infinity
        return sign_bit | fmt.inf_code | payload
    if x.special == "inf":
        if fmt.has_infinity:
            return sign_bit | fmt.inf_code
        return overflow_code(fmt, x.sign, "nearest_even", overflow)
    if x.magnitude == 0:
        return sign_bit
    mode = _magnitude_mode(rounding, x.sign)
    field, mantissa, overflowed = round_magnitude(x.magnitude, fmt, mode)
    if overflowed:
        return overflow_code(fmt, x.sign, mode, overflow)
    return sign_bit | (field << fmt.mantissa_bits) | mantissa

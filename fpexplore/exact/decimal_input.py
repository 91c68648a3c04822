"""Decimal inputs of any length and exponent, held in bounded space.

A decimal string can spell a number far beyond every format
(``"1e99999999999999999999"``) or with a million digits. :func:`bounded` turns
``int(digits) * 10**exponent`` into an exact Fraction where that is cheap, and
otherwise into a small Fraction that every rounding treats as the decimal itself,
keeping the decimal in a :class:`StandIn`.

>>> bounded("1", 99999999999999999999, 0).magnitude == 10**401
True
>>> bounded("15", -1, 0).magnitude
Fraction(3, 2)
"""

from __future__ import annotations

import math
from decimal import ROUND_FLOOR, Context, Decimal, localcontext
from fractions import Fraction
from typing import NamedTuple

from .real import ExactReal

__all__ = [
    "DECIMAL_PLACES",
    "MAX_BINARY_EXPONENT",
    "MAX_DECIMAL_EXPONENT",
    "MAX_RATIO_DIGITS",
    "StandIn",
    "bounded",
    "quotient",
    "ratio",
]

MAX_DECIMAL_EXPONENT = 400
"""Decimal inputs whose magnitude is 1e+-400 or beyond stand in for themselves by
1e+-401 (see :func:`_bounded`); every format's values lie far inside."""

DECIMAL_PLACES = 2200
"""Decimal digits after the point beyond this many are summed up by a sticky
half-unit (see :func:`_bounded`); every rounding stays as for all the digits."""

MAX_BINARY_EXPONENT = 10_000
"""Hex floats with a binary exponent beyond this (``"0x1p10001"``) are refused."""

MAX_RATIO_DIGITS = 20_000
"""A ratio ``"p/q"`` with more digits than this in ``p`` or ``q`` is refused."""


class StandIn(NamedTuple):
    """A decimal input ``int(digits) * 10**exponent`` too large, too small or too
    long to hold exactly (see :func:`_bounded`); ``kind`` is ``"huge"``,
    ``"tiny"`` or ``"long"``. ``digits`` keeps at most 80 leading digits for
    ``"huge"`` and ``"tiny"``, all of them for ``"long"``."""

    digits: str
    exponent: int
    kind: str

    def exact(self) -> Fraction:
        """The exact value (may be slow and huge: for ``"long"`` only)."""
        return Fraction(int(Decimal(self.digits)) * Fraction(10) ** self.exponent)

    def log2(self) -> Decimal:
        """log2 of the value to about 60 digits, for any exponent."""
        precision = 60 + len(str(abs(self.exponent)))
        with localcontext(Context(prec=precision, Emax=10**15, Emin=-(10**15))):
            lead = Decimal(self.digits[:80])
            ln10 = Decimal(10).ln()
            return (lead.ln() + self.exponent * ln10) / Decimal(2).ln()

    def ulps(self, mantissa_bits: int) -> float:
        """``x / 2**(floor(log2 x) - mantissa_bits)``, in ``[2**m, 2**(m+1))``: the ULP
        error of storing a ``"huge"`` x as any finite value (which is negligible
        beside x), from a 60-digit logarithm."""
        log2 = self.log2()
        with localcontext(Context(prec=60)):
            fraction = log2 - log2.to_integral_value(ROUND_FLOOR)
            return float(Decimal(2) ** fraction) * 2.0**mantissa_bits

    def relative(self, stored: Fraction, stand_in: Fraction) -> float:
        """``|stored - x| / x`` for a ``"long"`` x, which lies strictly between
        ``t = stand_in - 10**-2200 / 2`` and ``t + 10**-2200``, where ``stored``
        (a value of a format) is not: the quotient is monotonic there, so where its
        floats at both ends agree that is the answer; else all the digits decide."""
        t = stand_in - Fraction(1, 2 * 10**DECIMAL_PLACES)
        ends = {ratio(stored - end, end) for end in (t, 2 * stand_in - t)}
        if len(ends) == 1:
            return ends.pop()
        exact = self.exact()
        return ratio(stored - exact, exact)


def bounded(digits: str, exponent: int, sign: int) -> ExactReal:
    """``int(digits) * 10**exponent`` as an exact Fraction or, where that would be
    huge, a Fraction that every rounding treats as the decimal itself (``given``
    keeps the decimal). The work is bounded whatever the input's length or
    exponent.

    Why the stand-ins are safe. Every finite value of every format, every
    midpoint between two of them, and the float64 grid on which the errors are
    reported are multiples of 2**-2150 below 2**1025: multiples of 10**-2150,
    below 10**309. Rounding is a step function that changes only at those
    points, so two inputs with none of them between give the same codes in every
    mode and format, and the same float ``abs_error`` and ``ulp_error``:

    - ``x >= 10**400`` stands in as 10**401, and ``0 < x < 10**-400`` as
      10**-401: both beyond every point, or between 0 and the first one.
    - digits beyond ``DECIMAL_PLACES`` (2200) places: ``x`` lies strictly between
      its truncation ``t`` and ``t + 10**-2200``, consecutive multiples of
      10**-2200 with no point between, and stands in as ``t + 10**-2200 / 2``.

    ``rel_error`` and, for ``x >= 10**400``, ``ulp_error`` are computed from
    ``given`` (see :class:`fpexplore.core.decode.FloatParts`).
    """
    digits = digits.lstrip("0")
    if not digits:
        return ExactReal(sign, Fraction(0))
    adjusted = exponent + len(digits) - 1  # 10**adjusted <= x < 10**(adjusted + 1)
    if adjusted >= MAX_DECIMAL_EXPONENT:
        stand_in = StandIn(digits[:80], exponent + len(digits) - len(digits[:80]), "huge")
        return ExactReal(sign, Fraction(10) ** (MAX_DECIMAL_EXPONENT + 1), given=stand_in)
    if adjusted < -MAX_DECIMAL_EXPONENT:
        stand_in = StandIn(digits[:80], exponent + len(digits) - len(digits[:80]), "tiny")
        return ExactReal(sign, Fraction(1, 10 ** (MAX_DECIMAL_EXPONENT + 1)), given=stand_in)
    if exponent >= -DECIMAL_PLACES:  # at most 2601 digits
        return ExactReal(sign, int(digits) * Fraction(10) ** exponent)
    keep = len(digits) - (-DECIMAL_PLACES - exponent)  # digits down to 10**-2200
    truncated = Fraction(int(digits[:keep]), 10**DECIMAL_PLACES)
    if not digits[keep:].strip("0"):
        return ExactReal(sign, truncated)
    sticky = Fraction(1, 2 * 10**DECIMAL_PLACES)
    return ExactReal(sign, truncated + sticky, given=StandIn(digits, exponent, "long"))


def quotient(num: int, den: int) -> float:
    """``num / den`` correctly rounded to a float (inf past float64's range), in
    time linear in the integers' sizes (no Fraction, so no gcd)."""
    try:
        return num / den
    except OverflowError:
        return math.inf if (num > 0) == (den > 0) else -math.inf


def ratio(a: Fraction, b: Fraction) -> float:
    """``|a / b|`` as a float, correctly rounded, without building the quotient
    Fraction (whose gcd is quadratic in the size of huge inputs)."""
    return quotient(abs(a.numerator) * b.denominator, a.denominator * abs(b.numerator))

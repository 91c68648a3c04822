"""The IEEE 754 flags of rounding one input into a format (what ``decode`` raises).

The same rules as the arithmetic (:func:`~fpexplore.exact.exact_op`): ``inexact`` when
the stored value differs from the input; ``overflow`` when the input, rounded with an
unbounded exponent range, lies above the largest finite value (whatever is stored then:
inf, NaN, or +-max when saturating); ``underflow`` when the result is inexact and tiny
after rounding (:func:`~fpexplore.exact.tiny_after_rounding`, as on x86; ARM detects
tininess before rounding unless FPCR.AH = 1).
``invalid`` where the format has no value for the input and gives its NaN: zero and
negative numbers in unsigned E8M0, an infinity in a format without one (E4M3, fnuz).
An infinity that saturates to +-max (FP6, FP4) is ``inexact``. A NaN input raises
nothing: the pattern is kept (a signalling one too), it is not an operation on it.

Examples
--------
>>> from fpexplore.exact import parse_real, round_real
>>> x = parse_real(500)
>>> sorted(conversion_flags(x, round_real(x, "float8_e4m3fn"), "float8_e4m3fn"))
['inexact', 'overflow']
"""

from __future__ import annotations

from fractions import Fraction

from ..formats import FormatLike, get_format
from .parse import ExactReal
from .rounding import magnitude_mode, round_magnitude, tiny_after_rounding
from .specials import code_to_real

__all__ = ["conversion_flags"]


def conversion_flags(
    x: ExactReal, code: int, fmt: FormatLike, rounding: str = "nearest_even"
) -> frozenset[str]:
    """The flags raised when ``x`` was rounded into ``fmt`` and stored as ``code``.

    ``rounding`` is the mode used; ``"stochastic"`` (which has no fixed direction) is
    read off the result: away from zero when the stored magnitude is larger.
    """
    fmt = get_format(fmt)
    stored = code_to_real(code, fmt)
    if x.special == "nan":
        return frozenset()
    if x.special == "inf":
        if stored.special == "inf":
            return frozenset()
        return frozenset({"invalid"} if stored.special == "nan" else {"inexact"})
    magnitude = x.magnitude
    assert magnitude is not None  # finite
    if magnitude == 0 or (x.sign and not fmt.is_signed):
        return frozenset({"invalid"} if stored.special == "nan" else ())
    if stored.special is None and stored.magnitude == magnitude and stored.sign == x.sign:
        return frozenset()
    mode = _mode(rounding, x.sign, magnitude, stored)
    flags = {"inexact"}
    if magnitude >= Fraction(fmt.smallest_normal):
        if round_magnitude(magnitude, fmt, mode)[2]:
            flags.add("overflow")
    elif tiny_after_rounding(magnitude, fmt, mode):
        flags.add("underflow")
    return frozenset(flags)


def _mode(rounding: str, sign: int, magnitude: Fraction, stored: ExactReal) -> str:
    """The magnitude mode of ``rounding`` (see :func:`round_magnitude`)."""
    if rounding != "stochastic":
        return magnitude_mode(rounding, sign)
    larger = stored.magnitude is None or stored.magnitude > magnitude
    return "away" if larger else "toward_zero"

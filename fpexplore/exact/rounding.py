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

from fractions import Fraction
from typing import Any

import numpy as np

from ..formats import Format, FormatLike, get_format
from .parse import ExactReal

__all__ = [
    "OVERFLOW_MODES",
    "ROUNDING_MODES",
    "ROUNDING_NAMES",
    "check_overflow",
    "check_rounding",
    "overflow_code",
    "round_magnitude",
    "round_real",
    "tiny_after_rounding",
    "ulp_exponent",
]

ROUNDING_MODES = ("nearest_even", "nearest_away", "toward_zero", "up", "down", "stochastic")
"""Rounding modes; ``stochastic`` exists only in the vectorized :func:`round_to`."""

ROUNDING_NAMES = {
    "nearest_even": "round to nearest, ties to even",
    "nearest_away": "round to nearest, ties away from zero",
    "toward_zero": "round toward zero",
    "up": "round up, toward +inf",
    "down": "round down, toward -inf",
}
"""How each mode (except ``stochastic``) is named in explanations."""

OVERFLOW_MODES = (None, "saturate")


def check_rounding(rounding: Any, *, allow_stochastic: bool = True) -> str:
    """Validate a rounding-mode name and return it."""
    modes = ROUNDING_MODES if allow_stochastic else ROUNDING_MODES[:-1]
    if not isinstance(rounding, str) or rounding not in modes:
        raise ValueError(f"unknown rounding mode {rounding!r}; expected one of {', '.join(modes)}")
    return rounding


def check_overflow(overflow: str | None) -> str | None:
    """Validate an overflow policy: None (the format's convention) or ``"saturate"``."""
    if overflow not in OVERFLOW_MODES:
        raise ValueError(
            f"unknown overflow policy {overflow!r}; expected None (the format's own "
            "convention) or 'saturate'"
        )
    return overflow


def check_rng(rng: Any) -> np.random.Generator:
    """A numpy Generator for stochastic rounding from ``rng``: None (fresh entropy),
    an int seed or sequence of them, a SeedSequence, a BitGenerator or a Generator
    (used as it is). Anything else raises TypeError (or ValueError for a negative
    seed) naming ``rng``."""
    if isinstance(rng, bool | np.bool_ | str | bytes | float):
        raise TypeError(f"rng must be None, an int seed or a numpy Generator, got {rng!r}")
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError) as error:
        raise type(error)(
            f"rng must be None, an int seed, a SeedSequence or a numpy Generator, got {rng!r}"
        ) from None


def magnitude_mode(rounding: str, sign: int) -> str:
    """Translate a signed rounding mode into one on magnitudes."""
    if rounding == "up":
        return "toward_zero" if sign else "away"
    if rounding == "down":
        return "away" if sign else "toward_zero"
    return rounding


def ulp_exponent(magnitude: Fraction, fmt: Format) -> int:
    """log2 of the spacing of ``fmt`` in the binade of ``magnitude`` (> 0):
    ``max(floor(log2(magnitude)), emin) - mantissa_bits``, in integer arithmetic."""
    return max(floor_log2(magnitude), fmt.emin) - fmt.mantissa_bits


def floor_log2(magnitude: Fraction) -> int:
    """``floor(log2(magnitude))`` of a positive Fraction, in integer arithmetic."""
    p, q = magnitude.numerator, magnitude.denominator
    e = p.bit_length() - q.bit_length()
    if (p << max(-e, 0)) < (q << max(e, 0)):
        e -= 1  # now 2**e <= magnitude < 2**(e+1)
    return e


def _round_quanta(magnitude: Fraction, shift: int, mode: str, parity: int | None = None) -> int:
    """``magnitude / 2**shift`` rounded to an integer by the magnitude ``mode``, in
    integer arithmetic. Ties to even look at the integer's parity, or at ``parity``
    when given (a format without mantissa bits whose codes alternate otherwise)."""
    p, q = magnitude.numerator, magnitude.denominator
    num, den = (p, q << shift) if shift >= 0 else (p << -shift, q)
    significand, remainder = divmod(num, den)
    if remainder:
        twice = 2 * remainder
        if mode == "away":
            significand += 1
        elif mode == "nearest_away":
            significand += twice >= den
        elif mode == "nearest_even":
            odd = significand & 1 if parity is None else (significand and parity)
            significand += twice > den or (twice == den and odd)
    return significand


def round_magnitude(magnitude: Fraction, fmt: Format, mode: str) -> tuple[int, int, bool]:
    """Round a positive Fraction to (biased exponent field, mantissa field, overflowed).

    ``mode`` is a magnitude mode: ``nearest_even``, ``nearest_away``,
    ``toward_zero`` or ``away`` (from zero). The result is exact: integer
    arithmetic on numerator and denominator only.
    """
    m = fmt.mantissa_bits
    shift = ulp_exponent(magnitude, fmt)  # the quantum (ULP) is 2**shift
    exponent = shift + m
    parity = None
    if m == 0 and fmt.ties_to_even_code:  # the code's parity: its exponent field's
        parity = (exponent + fmt.bias) & 1
    significand = _round_quanta(magnitude, shift, mode, parity)
    if significand >> (m + 1):  # carried into the next binade
        significand >>= 1
        exponent += 1
    if significand >> m:  # (always, in a format without subnormals: see round_real)
        field, mantissa = exponent + fmt.bias, significand - (1 << m)
    else:
        field, mantissa = 0, significand  # subnormal or zero
    overflowed = field > fmt.max_exponent_field or (
        field == fmt.max_exponent_field and mantissa > fmt.max_mantissa
    )
    return field, mantissa, overflowed


def tiny_after_rounding(magnitude: Fraction, fmt: Format, mode: str) -> bool:
    """IEEE 754 tininess after rounding (section 7.5): whether ``magnitude`` (> 0),
    rounded to the format's precision with an unbounded exponent range, lies below
    ``smallest_normal``. ``mode`` is a magnitude mode (see :func:`round_magnitude`).

    The underflow flag is raised for a tiny result that is inexact; this is also
    what x86 hardware (and numpy's float64 -> float32 cast) detects. Just below
    float32's smallest normal, 2**-126 - 2**-150 is stored as 2**-126 (a tie
    between subnormals, to even), yet is tiny: with a wider exponent it is exact.

    >>> from fpexplore.formats import get_format
    >>> f32 = get_format("float32")
    >>> tiny_after_rounding(Fraction(2) ** -126 - Fraction(2) ** -150, f32, "nearest_even")
    True
    >>> tiny_after_rounding(Fraction(2) ** -126 - Fraction(2) ** -151, f32, "nearest_even")
    False
    """
    m = fmt.mantissa_bits
    e = floor_log2(magnitude)
    if e >= fmt.emin:
        return False
    if e < fmt.emin - 1:
        return True
    significand = _round_quanta(magnitude, e - m, mode)  # unbounded exponent range
    return not significand >> (m + 1)  # no carry into 2**emin


def overflow_code(fmt: Format, sign: int, mode: str, overflow: str | None) -> int:
    """The code an overflowing result gets, by format convention and magnitude mode
    (fnuz formats: their one NaN, whatever the sign; P3109: the signed infinity)."""
    if overflow == "saturate" or mode == "toward_zero" or fmt.nan_encoding == "none":
        code = fmt.max_code
    else:
        special = fmt.inf_code if fmt.has_infinity else fmt.nan_code
        assert special is not None  # a format that does not saturate has inf or NaN
        code = special
    return code | (fmt.sign_mask if sign else 0)


def round_real(
    x: ExactReal, fmt: FormatLike, rounding: str = "nearest_even", overflow: str | None = None
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

    fnuz and P3109 formats have no -0: a negative result that rounds to zero
    is +0, and their one NaN has no sign. Where a format has no value to give,
    the result is its NaN (ml_dtypes' convention for E8M0): negative inputs to
    an unsigned format, zero to a format without zero, and rounding toward zero
    (or down) below E8M0's smallest value ``2**-127``; the other modes give that
    smallest value there.
    """
    fmt = get_format(fmt)
    check_rounding(rounding, allow_stochastic=False)
    check_overflow(overflow)
    sign_bit = fmt.sign_mask if x.sign else 0
    if x.special == "nan":
        if fmt.nan_encoding == "none":
            raise ValueError(f"{fmt.name} has no NaN encoding; cannot represent nan")
        nan_code = fmt.nan_code
        assert nan_code is not None  # the format has NaNs
        if fmt.nan_encoding != "ieee":
            return sign_bit | nan_code
        inf_code = fmt.inf_code
        assert inf_code is not None  # an IEEE format: its NaNs share the infinities' field
        m = fmt.mantissa_bits
        if x.payload is None:  # a NaN spelled in text: canonical pattern
            payload = 1 << (m - 1) if x.quiet or m == 1 else 1
        else:  # a float's NaN: keep the quiet bit and the top payload bits
            payload = (x.payload >> (52 - m)) or 1  # 0 would read as infinity
        return sign_bit | inf_code | payload
    if x.sign and not fmt.is_signed and (x.special or x.magnitude):
        return _no_value(fmt, "a negative number")
    if x.special == "inf":
        if fmt.inf_code is not None:
            return sign_bit | fmt.inf_code
        return overflow_code(fmt, x.sign, "nearest_even", overflow)
    assert x.magnitude is not None  # a finite input
    if x.magnitude == 0:
        if not fmt.has_zero:
            return _no_value(fmt, "zero")
        return sign_bit if fmt.has_negative_zero else 0
    mode = magnitude_mode(rounding, x.sign)
    if not fmt.has_subnormals and x.magnitude < Fraction(fmt.smallest_normal):
        if mode == "toward_zero":
            return _no_value(fmt, f"a value below {fmt.smallest_normal!r} rounded toward zero")
        return sign_bit  # the smallest value (code 0; formats without subnormals are unsigned)
    field, mantissa, overflowed = round_magnitude(x.magnitude, fmt, mode)
    if overflowed:
        return overflow_code(fmt, x.sign, mode, overflow)
    code = (field << fmt.mantissa_bits) | mantissa
    return sign_bit | code if code or fmt.has_negative_zero else 0


def _no_value(fmt: Format, what: str) -> int:
    """The NaN of a format that has no value for ``what``; an error without NaN."""
    if fmt.nan_code is None:
        raise ValueError(f"{fmt.name} cannot represent {what} and has no NaN to give instead")
    return fmt.nan_code

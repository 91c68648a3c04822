"""The IEEE 754 special cases of :func:`~fpexplore.exact.ops.exact_op`: NaN operands
and results, infinities, invalid operations and division by zero; reading a code
exactly (:func:`code_to_real`) and the rules of the tabulated formats (fnuz,
P3109, E8M0), where a sign bit cannot simply be flipped and a result may have no
value to take."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple

from ..formats import Format
from .parse import ExactReal
from .rounding import (
    magnitude_mode,
    overflow_code,
    round_magnitude,
    round_real,
    tiny_after_rounding,
)

__all__ = [
    "ExactResult",
    "code_to_real",
    "nan_code",
    "round_tabulated",
    "sign_op_tabulated",
    "special_case",
]


class ExactResult(NamedTuple):
    """What :func:`exact_op` returns.

    ``code`` is the stored result's bit pattern; ``exact`` the exact result (None
    for an infinite or NaN result; for ``sqrt`` of a non-square, the root to 64
    bits beyond the format's precision, with ``approximate`` True); ``special`` is
    None, ``"inf"`` or ``"nan"``; ``sign`` the exact result's sign bit.
    """

    code: int
    exact: Fraction | None
    special: str | None
    sign: int
    flags: frozenset[str]
    approximate: bool = False


def code_to_real(code: int, fmt: Format) -> ExactReal:
    """A format's bit pattern as an :class:`ExactReal` (integer arithmetic only).

    Every encoding: IEEE, ``fn``, ``none`` and the tabulated ones (fnuz and P3109,
    whose one NaN sits at the code of -0, P3109's infinities at the top codes,
    unsigned E8M0 with no zero and no subnormals).
    """
    m = fmt.mantissa_bits
    sign = code >> (fmt.bits - 1) & 1 if fmt.is_signed else 0
    field = code >> m & ((1 << fmt.exponent_bits) - 1)
    mantissa = code & ((1 << m) - 1)
    top = (1 << fmt.exponent_bits) - 1
    if fmt.nan_encoding == "ieee" and field == top:
        if mantissa == 0:
            return ExactReal(sign, None, "inf")
        quiet = bool(mantissa >> (m - 1))
        return ExactReal(sign, None, "nan", mantissa << (52 - m), quiet)
    if fmt.nan_encoding == "fn" and code & ~fmt.sign_mask == fmt.nan_code:
        return ExactReal(sign, None, "nan", 1 << 51, True)
    if fmt.nan_encoding in ("fnuz", "p3109") and code == fmt.nan_code:
        return ExactReal(0, None, "nan", 1 << 51, True)
    if fmt.nan_encoding == "p3109" and code & ~fmt.sign_mask == fmt.inf_code:
        return ExactReal(sign, None, "inf")
    normal = field > 0 or not fmt.has_subnormals
    significand = mantissa | (1 << m) if normal else mantissa
    magnitude = Fraction(significand) * Fraction(2) ** (fmt.field_exponent(field) - m)
    return ExactReal(sign, magnitude)


def nan_code(fmt: Format, source: tuple[int, ExactReal] | None, why: str) -> int:
    """The code of a NaN result: the first NaN operand, quieted, else the canonical NaN."""
    if fmt.nan_encoding == "none":
        raise ValueError(
            f"{why} is an invalid operation, and {fmt.name} has no NaN to return; "
            "its results are finite numbers only"
        )
    nan_code = fmt.nan_code
    assert nan_code is not None
    if source is None or fmt.nan_encoding != "ieee":
        sign = source[1].sign if source is not None else 0
        return nan_code | (fmt.sign_mask if sign else 0)
    return source[0] | (1 << (fmt.mantissa_bits - 1))


def _infinity(fmt: Format, sign: int, overflow: str | None) -> int:
    """An exact infinite result (x/0, inf + 1...) stored in ``fmt``."""
    if fmt.inf_code is not None:
        return fmt.inf_code | (fmt.sign_mask if sign else 0)
    return overflow_code(fmt, sign, "nearest_even", overflow)


def _zero_code(fmt: Format, sign: int) -> int:
    """The code of a zero of that sign: +0 where the format has no -0."""
    return fmt.sign_mask if sign and fmt.has_negative_zero else 0


def _code_of(x: ExactReal, fmt: Format) -> int:
    """The code of a finite value that is already one of the format's."""
    assert x.magnitude is not None
    if x.magnitude == 0:
        return _zero_code(fmt, x.sign)
    return round_real(x, fmt)


def special_case(
    op: str, xs: list[ExactReal], fmt: Format, rounding: str, overflow: str | None
) -> ExactResult | None:
    """Infinite operands, invalid operations and division by zero (no NaN operand)."""
    inf = [x.special == "inf" for x in xs]
    zero = [x.magnitude == 0 for x in xs]

    def invalid(why: str) -> ExactResult:
        return ExactResult(nan_code(fmt, None, why), None, "nan", 0, frozenset({"invalid"}))

    def infinite(sign: int, *raised: str) -> ExactResult:
        return ExactResult(_infinity(fmt, sign, overflow), None, "inf", sign, frozenset(raised))

    if op == "add" and any(inf):
        if all(inf) and xs[0].sign != xs[1].sign:
            return invalid("inf - inf")
        return infinite(xs[0].sign if inf[0] else xs[1].sign)
    if op in ("mul", "fma"):
        if (inf[0] and zero[1]) or (zero[0] and inf[1]):
            return invalid("0 x inf")
        product_sign = xs[0].sign ^ xs[1].sign
        if op == "mul" and any(inf):
            return infinite(product_sign)
        if op == "fma" and (inf[0] or inf[1]):
            if inf[2] and xs[2].sign != product_sign:
                return invalid("inf - inf")
            return infinite(product_sign)
        if op == "fma" and inf[2]:
            return infinite(xs[2].sign)
    if op == "div":
        sign = xs[0].sign ^ xs[1].sign
        if all(inf):
            return invalid("inf / inf")
        if all(zero):
            return invalid("0 / 0")
        if inf[0]:
            return infinite(sign)
        if inf[1]:
            return ExactResult(_zero_code(fmt, sign), Fraction(0), None, sign, frozenset())
        if zero[1]:
            return infinite(sign, "division_by_zero")
    if op == "remainder":
        if inf[0] or zero[1]:
            return invalid("remainder(inf, y) or remainder(x, 0)")
        if inf[1]:  # remainder(x, inf) = x
            return ExactResult(_code_of(xs[0], fmt), xs[0].value, None, xs[0].sign, frozenset())
    if op == "sqrt" and xs[0].sign and not zero[0]:
        return invalid("the square root of a negative number")
    if op == "sqrt" and inf[0]:
        return infinite(0)
    return None


def sign_op_tabulated(op: str, code: int, x: ExactReal, fmt: Format) -> ExactResult:
    """``neg`` and ``abs`` where the sign bit cannot simply be flipped: the one NaN
    of fnuz and P3109 formats sits at the code of -0, and E8M0 has no sign. A
    signed "fn" format (one NaN per sign) flips or clears the NaN's sign bit."""
    if x.special == "nan":
        if fmt.nan_encoding == "fn" and fmt.is_signed:
            code = code ^ fmt.sign_mask if op == "neg" else code & ~fmt.sign_mask
            return ExactResult(code, None, "nan", int(bool(code & fmt.sign_mask)), frozenset())
        return ExactResult(code, None, "nan", 0, frozenset())
    negate = op == "neg" and not x.sign
    if negate and not fmt.is_signed:  # -x has no value in an unsigned format
        assert fmt.nan_code is not None
        return ExactResult(fmt.nan_code, -_finite(x), None, 1, frozenset({"invalid"}))
    if negate and (x.magnitude != 0 or fmt.has_negative_zero):
        code |= fmt.sign_mask
    else:
        code &= ~fmt.sign_mask
    real = code_to_real(code, fmt)
    return ExactResult(code, real.value, real.special, real.sign, frozenset())


def _finite(x: ExactReal) -> Fraction:
    assert x.value is not None
    return x.value


def round_tabulated(
    exact: Fraction,
    zero_sign: int,
    approximate: bool,
    fmt: Format,
    rounding: str,
    overflow: str | None,
    rng: Any,
) -> ExactResult:
    """Round a finite exact result once into a tabulated format (fnuz, P3109,
    E8M0) with :func:`round_real`, and raise the flags.

    A zero result is +0 where the format has no -0 (fnuz, P3109). Where the format has no value
    for the exact result (zero or a negative number in unsigned E8M0) the result is
    its NaN and ``invalid`` is raised. An overflow gives what :func:`round_real`
    gives (NaN in fnuz, inf in P3109, +-max with ``overflow="saturate"``).
    """
    sign = int(exact < 0)
    if exact == 0 and fmt.has_zero:
        code = fmt.sign_mask if zero_sign and fmt.has_negative_zero else 0
        return ExactResult(code, exact, None, zero_sign, frozenset())
    if exact == 0 or (sign and not fmt.is_signed):
        assert fmt.nan_code is not None  # unsigned formats without zero have a NaN
        return ExactResult(fmt.nan_code, exact, None, sign, frozenset({"invalid"}), approximate)
    magnitude = abs(exact)
    real = ExactReal(sign, magnitude)
    if rounding == "stochastic":
        low = round_real(real, fmt, "toward_zero", overflow)
        high = round_real(real, fmt, "down" if sign else "up", overflow)
        top = Fraction(fmt.max) + Fraction(2) ** (
            fmt.field_exponent(fmt.max_exponent_field) - fmt.mantissa_bits
        )
        low_value = _magnitude_of(low, fmt, Fraction(0))
        gap = _magnitude_of(high, fmt, top) - low_value
        fraction = (magnitude - low_value) / gap if gap else Fraction(0)
        away = fraction > 0 and rng.random() < fraction
        code, mode = (high, "away") if away else (low, "toward_zero")
    else:
        mode = magnitude_mode(rounding, sign)
        code = round_real(real, fmt, rounding, overflow)
    flags: set[str] = set()
    if code_to_real(code, fmt).value != exact:
        flags.add("inexact")
        if magnitude >= Fraction(fmt.smallest_normal):
            if round_magnitude(magnitude, fmt, mode)[2]:
                flags.add("overflow")
        elif tiny_after_rounding(magnitude, fmt, mode):
            flags.add("underflow")
    return ExactResult(code, exact, None, sign, frozenset(flags), approximate)


def _magnitude_of(code: int, fmt: Format, otherwise: Fraction) -> Fraction:
    """The magnitude of a code's finite value; ``otherwise`` for inf and NaN."""
    value = code_to_real(code, fmt).magnitude
    return otherwise if value is None else value

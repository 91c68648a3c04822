"""The IEEE 754 special cases of :func:`~fpexplore.exact.ops.exact_op`: NaN operands
and results, infinities, invalid operations and division by zero."""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from ..formats import Format
from .parse import ExactReal
from .rounding import overflow_code, round_real

__all__ = ["ExactResult", "nan_code", "special_case"]


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

"""Exact arithmetic on values of a format: compute exactly, round once, raise IEEE flags.

:func:`exact_op` takes the bit patterns of its operands (already values of the
format), computes the result exactly (a :class:`~fractions.Fraction`; an integer
square root with a sticky bit for ``sqrt``), handles the IEEE 754 special cases,
rounds **once** with :func:`~fpexplore.exact.rounding.round_magnitude`, and reports
the five IEEE exception flags. It is the reference that the vectorized arithmetic
kernels are tested against, and their fallback for the cases they leave out.

Tininess is detected **after rounding**, as on x86 (SSE) and ARM: ``underflow`` is
raised when the result, rounded as though the exponent range were unbounded, is
nonzero and smaller than the smallest normal number, *and* the result is inexact.

Examples
--------
>>> from fpexplore.exact import exact_op, round_real, parse_real
>>> a = round_real(parse_real("0.1"), "bfloat16")
>>> b = round_real(parse_real("0.2"), "bfloat16")
>>> r = exact_op("add", (a, b), "bfloat16")
>>> hex(r.code), r.exact, sorted(r.flags)
('0x3e9a', Fraction(615, 2048), ['inexact'])
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..formats import Format, get_format
from .parse import ExactReal
from .rounding import (
    _magnitude_mode,
    check_overflow,
    check_rounding,
    overflow_code,
    round_magnitude,
    tiny_after_rounding,
)
from .specials import ExactResult, nan_code, special_case

__all__ = [
    "ARITY",
    "FLAGS",
    "ExactResult",
    "check_arithmetic_format",
    "code_to_real",
    "exact_op",
]

ARITY = {
    "add": 2,
    "sub": 2,
    "mul": 2,
    "div": 2,
    "sqrt": 1,
    "fma": 3,
    "remainder": 2,
    "neg": 1,
    "abs": 1,
}
"""The operations and how many operands each takes."""

FLAGS = ("invalid", "division_by_zero", "overflow", "underflow", "inexact")
"""The IEEE 754 exception flags, in the standard's order."""


def check_arithmetic_format(spec: Any) -> Format:
    """The format, if arithmetic supports it: every IEEE-style, ``fn`` and ``none``
    format (the catalogue's float64 ... FP4 and custom eXmY). The tabulated
    encodings (fnuz, P3109, unsigned E8M0, formats without subnormals) are refused."""
    fmt = get_format(spec)
    if fmt.tabulated:
        raise ValueError(
            f"arithmetic in {fmt.name} is not supported: its encoding "
            f"({fmt.nan_encoding}{'' if fmt.is_signed else ', unsigned'}) is read through "
            "tables; compute in an IEEE-style, 'fn' or 'none' format and round the result "
            "into it with decode() or round_to()"
        )
    return fmt


def code_to_real(code: int, fmt: Format) -> ExactReal:
    """A format's bit pattern as an :class:`ExactReal` (integer arithmetic only)."""
    m = fmt.mantissa_bits
    sign = code >> (fmt.bits - 1) & 1
    field = code >> m & ((1 << fmt.exponent_bits) - 1)
    mantissa = code & ((1 << m) - 1)
    top = (1 << fmt.exponent_bits) - 1
    if fmt.nan_encoding == "ieee" and field == top:
        if mantissa == 0:
            return ExactReal(sign, None, "inf")
        quiet = bool(mantissa >> (m - 1))
        return ExactReal(sign, None, "nan", mantissa << (52 - m), quiet)
    if fmt.nan_encoding == "fn" and field == top and mantissa == (1 << m) - 1:
        return ExactReal(sign, None, "nan", 1 << 51, True)
    significand = mantissa | (1 << m) if field else mantissa
    magnitude = Fraction(significand) * Fraction(2) ** (max(field, 1) - fmt.bias - m)
    return ExactReal(sign, magnitude)


def _sqrt(x: Fraction, fmt: Format) -> tuple[Fraction, bool]:
    """sqrt(x) exactly when x is a square, else truncated far below the format's
    ULP with a sticky half unit (so that it rounds as the true root does)."""
    p, q = x.numerator, x.denominator
    exponent = (p.bit_length() - q.bit_length()) // 2
    k = 66 + fmt.mantissa_bits - min(exponent, fmt.emin)  # bits below the binary point
    n = p * q << (2 * k)
    root = math.isqrt(n)
    if root * root == n:
        return Fraction(root, q << k), False
    return Fraction(2 * root + 1, q << (k + 1)), True


def _round(
    value: Fraction, fmt: Format, rounding: str, overflow: str | None, rng: Any
) -> tuple[int, set[str]]:
    """Round a nonzero exact value once; return its code and the flags raised."""
    sign = 1 if value < 0 else 0
    magnitude = abs(value)
    if rounding == "stochastic":
        low = round_magnitude(magnitude, fmt, "toward_zero")
        high = round_magnitude(magnitude, fmt, "away")
        low_value = _field_value(low, fmt)
        gap = _field_value(high, fmt) - low_value
        fraction = (magnitude - low_value) / gap if gap else Fraction(0)
        away = fraction > 0 and rng.random() < fraction
        field, mantissa, overflowed = high if away else low
        mode = "away" if away else "toward_zero"
    else:
        mode = _magnitude_mode(rounding, sign)
        field, mantissa, overflowed = round_magnitude(magnitude, fmt, mode)
    flags: set[str] = set()
    if overflowed:
        return overflow_code(fmt, sign, mode, overflow), {"overflow", "inexact"}
    code = (fmt.sign_mask if sign else 0) | (field << fmt.mantissa_bits) | mantissa
    if _field_value((field, mantissa, False), fmt) != magnitude:
        flags.add("inexact")
        if tiny_after_rounding(magnitude, fmt, mode):
            flags.add("underflow")
    return code, flags


def _field_value(rounded: tuple[int, int, bool], fmt: Format) -> Fraction:
    field, mantissa, _ = rounded
    significand = mantissa | (1 << fmt.mantissa_bits) if field else mantissa
    return Fraction(significand) * Fraction(2) ** (max(field, 1) - fmt.bias - fmt.mantissa_bits)


def _zero_sum_sign(x: ExactReal, y: ExactReal, rounding: str) -> int:
    """IEEE 754 6.3: an exact zero sum is +0, or -0 when rounding down; the sum of
    two zeros of the same sign keeps that sign."""
    if x.magnitude == 0 and y.magnitude == 0 and x.sign == y.sign:
        return x.sign
    return 1 if rounding == "down" else 0


def exact_op(
    op: str,
    codes: tuple[int, ...],
    fmt: Any,
    rounding: str = "nearest_even",
    overflow: str | None = None,
    rng: Any = None,
) -> ExactResult:
    """Apply ``op`` to operands given as bit patterns of ``fmt``; round the exact
    result once.

    Parameters
    ----------
    op : str
        ``add``, ``sub``, ``mul``, ``div``, ``sqrt``, ``fma`` (``a * b + c``,
        one rounding), ``remainder`` (IEEE: ``a - n * b`` with ``n`` the integer
        nearest ``a / b``, ties to even; always exact), ``neg`` or ``abs``
        (sign-bit operations: no rounding, no flags).
    codes : tuple of int
        The operands' bit patterns.
    fmt, rounding, overflow
        As :func:`round_real`; ``stochastic`` rounding draws from ``rng``
        (a numpy Generator).

    Raises
    ------
    ValueError
        For an unknown operation, the wrong number of operands, or an invalid
        operation in a format without NaN (FP6, FP4).
    """
    fmt = check_arithmetic_format(fmt)
    if op not in ARITY:
        raise ValueError(f"unknown operation {op!r}; expected one of {', '.join(ARITY)}")
    if len(codes) != ARITY[op]:
        raise ValueError(f"{op} takes {ARITY[op]} operand(s), got {len(codes)}")
    check_rounding(rounding)
    check_overflow(overflow)
    if rounding == "stochastic" and rng is None:
        raise ValueError("stochastic rounding needs rng (a numpy Generator or a seed)")
    xs = [code_to_real(c, fmt) for c in codes]
    if op in ("neg", "abs"):
        code = codes[0] ^ fmt.sign_mask if op == "neg" else codes[0] & ~fmt.sign_mask
        real = code_to_real(code, fmt)
        return ExactResult(code, real.value, real.special, real.sign, frozenset())
    signalling = any(x.special == "nan" and not x.quiet for x in xs)
    flags = frozenset({"invalid"}) if signalling else frozenset()
    nans = [(c, x) for c, x in zip(codes, xs, strict=True) if x.special == "nan"]
    if nans:
        code = nan_code(fmt, nans[0], f"{op} of a NaN")
        return ExactResult(code, None, "nan", code >> (fmt.bits - 1), flags)
    if op == "sub":
        op, xs = "add", [xs[0], xs[1]._replace(sign=1 - xs[1].sign)]
    result = special_case(op, xs, fmt, rounding, overflow)
    if result is not None:
        return result
    values = [x.value if x.value is not None else Fraction(0) for x in xs]  # all finite here
    approximate = False
    if op == "add":
        exact = values[0] + values[1]
        zero_sign = _zero_sum_sign(xs[0], xs[1], rounding)
    elif op == "mul":
        exact, zero_sign = values[0] * values[1], xs[0].sign ^ xs[1].sign
    elif op == "div":
        exact, zero_sign = values[0] / values[1], xs[0].sign ^ xs[1].sign
    elif op == "remainder":  # x - n y, n the integer nearest x / y (ties to even): exact
        exact = values[0] - round(values[0] / values[1]) * values[1]
        zero_sign = xs[0].sign
    elif op == "sqrt":
        exact, approximate = _sqrt(values[0], fmt) if values[0] else (Fraction(0), False)
        zero_sign = xs[0].sign
    else:  # fma
        product = ExactReal(xs[0].sign ^ xs[1].sign, values[0] * values[1])
        exact = values[0] * values[1] + values[2]
        zero_sign = _zero_sum_sign(product, xs[2], rounding)
    if exact == 0:
        return ExactResult(fmt.sign_mask if zero_sign else 0, exact, None, zero_sign, frozenset())
    code, raised = _round(exact, fmt, rounding, overflow, rng)
    return ExactResult(code, exact, None, int(exact < 0), frozenset(raised), approximate)

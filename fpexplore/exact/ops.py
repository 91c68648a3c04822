"""Exact arithmetic on values of a format: compute exactly, round once, raise IEEE flags.

:func:`exact_op` takes the bit patterns of its operands (already values of the
format), computes the result exactly (a :class:`~fractions.Fraction`; an integer
square root with a sticky bit for ``sqrt``), handles the IEEE 754 special cases,
rounds **once** with :func:`~fpexplore.exact.rounding.round_magnitude`, and reports
the five IEEE exception flags. It is the reference that the vectorized arithmetic
kernels are tested against, and their fallback for the cases they leave out.

Tininess is detected **after rounding**, as on x86 (SSE): ``underflow`` is raised
when the result, rounded as though the exponent range were unbounded, is nonzero
and smaller than the smallest normal number, *and* the result is inexact. (IEEE
754-2019 section 7.5 allows either; ARM detects tininess before rounding by default,
after it only with FEAT_AFP and ``FPCR.AH = 1``.)

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

from ..formats import Format, FormatLike, get_format
from .parse import ExactReal
from .rounding import (
    check_overflow,
    check_rng,
    check_rounding,
    magnitude_mode,
    overflow_code,
    round_magnitude,
    tiny_after_rounding,
)
from .specials import (
    ExactResult,
    code_to_real,
    nan_code,
    round_tabulated,
    sign_op_tabulated,
    special_case,
)

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
    """The format, if arithmetic supports it: every format of the catalogue and every
    custom one (IEEE-style, ``fn``, ``none`` and the tabulated encodings alike)."""
    return get_format(spec)


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
        mode = magnitude_mode(rounding, sign)
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


def _exact_value(
    op: str, xs: list[ExactReal], fmt: Format, rounding: str
) -> tuple[Fraction, int, bool]:
    """The exact result of ``op`` on finite operands, the sign an exact zero takes,
    and whether the result is an approximation (the root of a non-square)."""
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
    return exact, zero_sign, approximate


def exact_op(
    op: str,
    codes: tuple[int, ...],
    fmt: FormatLike,
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

    Notes
    -----
    The tabulated formats (fnuz, P3109, unsigned E8M0) read their operands
    through :func:`code_to_real` and round the exact result once with
    :func:`round_real`. Where IEEE 754 has no answer: a NaN operand gives the
    format's one NaN (unsigned, and never signalling: no flag); an invalid
    operation gives NaN and ``invalid``; ``x/0`` gives +-inf in P3109 and NaN in
    fnuz formats (their overflow result), with ``division_by_zero``; a zero result
    is +0, as no -0 exists; an overflow gives what :func:`round_real` gives (NaN
    in fnuz, +-inf in P3109, +-max with ``overflow="saturate"``) with
    ``overflow`` and ``inexact``. E8M0 has no zero and no sign: a zero or negative
    exact result (``1 - 1``, ``neg(2)``) is NaN with ``invalid``; one below
    ``2**-127`` is NaN toward zero (or down), else ``2**-127``, with ``underflow``
    and ``inexact``. ``inexact`` means the stored value differs from the exact
    one; ``underflow`` is tininess after rounding, as for every format.

    Raises
    ------
    ValueError
        For an unknown operation, the wrong number of operands, or an invalid
        operation in a format without NaN (FP6, FP4).

    Examples
    --------
    >>> hex(exact_op("div", (0x38, 0x00), "float8_e4m3fnuz").code)  # 1/0: NaN
    '0x80'
    >>> r = exact_op("sub", (0x7F, 0x7F), "float8_e8m0fnu")  # 1 - 1: no zero in E8M0
    >>> hex(r.code), sorted(r.flags)
    ('0xff', ['invalid'])
    """
    fmt = check_arithmetic_format(fmt)
    if op not in ARITY:
        raise ValueError(f"unknown operation {op!r}; expected one of {', '.join(ARITY)}")
    if len(codes) != ARITY[op]:
        raise ValueError(f"{op} takes {ARITY[op]} operand(s), got {len(codes)}")
    check_rounding(rounding)
    check_overflow(overflow)
    if rounding == "stochastic":
        if rng is None:
            raise ValueError("stochastic rounding needs rng (a numpy Generator or a seed)")
        rng = check_rng(rng)
    xs = [code_to_real(c, fmt) for c in codes]
    if op in ("neg", "abs") and fmt.tabulated:
        return sign_op_tabulated(op, codes[0], xs[0], fmt)
    if op in ("neg", "abs"):
        code = codes[0] ^ fmt.sign_mask if op == "neg" else codes[0] & ~fmt.sign_mask
        real = code_to_real(code, fmt)
        return ExactResult(code, real.value, real.special, real.sign, frozenset())
    signalling = any(x.special == "nan" and not x.quiet for x in xs)
    flags = frozenset({"invalid"}) if signalling else frozenset()
    nans = [(c, x) for c, x in zip(codes, xs, strict=True) if x.special == "nan"]
    if nans:
        code = nan_code(fmt, nans[0], f"{op} of a NaN")
        return ExactResult(code, None, "nan", code_to_real(code, fmt).sign, flags)
    if op == "sub":
        op, xs = "add", [xs[0], xs[1]._replace(sign=1 - xs[1].sign)]
    result = special_case(op, xs, fmt, rounding, overflow)
    if result is not None:
        return result
    exact, zero_sign, approximate = _exact_value(op, xs, fmt, rounding)
    if fmt.tabulated:
        return round_tabulated(exact, zero_sign, approximate, fmt, rounding, overflow, rng)
    if exact == 0:
        return ExactResult(fmt.sign_mask if zero_sign else 0, exact, None, zero_sign, frozenset())
    code, raised = _round(exact, fmt, rounding, overflow, rng)
    return ExactResult(code, exact, None, int(exact < 0), frozenset(raised), approximate)

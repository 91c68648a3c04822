"""Transcendental ufuncs in a format: evaluated in float64, rounded once, hard cases resolved.

``exp``, ``log``, ``tanh``, ``sin`` and their siblings are computed by numpy in
float64, with an error of a few float64 ULPs (``MARGIN`` is the bound assumed:
8 ULPs of float64, several times what numpy's and glibc's implementations are
documented to reach), then rounded once into the format.

**What is guaranteed.** For a format of at most 24 bits of precision, rounding
the float64 result gives the correctly rounded result unless the true value and
the float64 one lie on two sides of a rounding boundary of the target (a
midpoint between two neighbours to nearest; a value of the format in a directed
mode). That can only happen when the float64 result lies within ``MARGIN`` of a
boundary; such elements are detected (the two ends of ``y +- MARGIN`` round
differently) and re-evaluated with Python's :mod:`decimal` at 60 significant
digits or more (more for small or large arguments, so that cancellation and
range reduction keep 60), then rounded exactly from that value. For ``exp2``,
``log2``, ``log10``, ``cbrt``, ``power`` and ``hypot``, whose exact cases
(``exp2(3)``, ``log2(8)``, ``cbrt(27)``) the decimal evaluation may miss by a hair,
a result within ``10**-40`` relative of a value of the format is taken to be that
value; this assumes that no inexact value of these functions at a 24-bit input lies
so close to a 24-bit value, which is not proven here. With that, for these formats,
every element is correctly rounded in every mode. ``stochastic`` rounds the float64
result: its coin is exact to within float64's error.

For wider formats (float64, or custom ones beyond 24 bits) the result is the
float64 one rounded once: within numpy's float64 error plus one rounding (for
float64 itself, numpy's own result), not necessarily correctly rounded.

Examples
--------
>>> import numpy as np
>>> from fpexplore.formats import get_format
>>> evaluate("exp", [np.array([0.0, 1.0])], get_format("bfloat16"), "nearest_even", None, None)
array([1.     , 2.71875])
"""

from __future__ import annotations

import decimal
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from ... import codes as K
from ...exact import parse_real, round_real
from ...formats import Format

__all__ = ["MARGIN", "TRANSCENDENTAL", "evaluate", "hard_cases", "reference"]

MARGIN = 8
"""The float64 error assumed for numpy's transcendental functions, in float64 ULPs."""

TRANSCENDENTAL = {
    "exp": np.exp,
    "exp2": np.exp2,
    "expm1": np.expm1,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "arcsin": np.arcsin,
    "arccos": np.arccos,
    "arctan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "arcsinh": np.arcsinh,
    "arccosh": np.arccosh,
    "arctanh": np.arctanh,
    "cbrt": np.cbrt,
    "power": np.power,
    "hypot": np.hypot,
}
"""The ufuncs computed in float64 and rounded once, by name."""

TINY = Decimal(10) ** -200
"""Where ``tanh``'s distance to 1 stops mattering to the rounding (see ``_decimal_value``)."""

SNAPPED = {"exp2", "log2", "log10", "cbrt", "power", "hypot"}
"""Functions whose decimal evaluation may miss an exact value of the format by a hair
(``log2(8)`` as ``ln 8 / ln 2``): a result within ``10**-40`` of one is taken to be it."""

POLES = {"log", "log2", "log10", "log1p", "arctanh", "tan"}
"""Functions that reach an infinity at a finite argument (division by zero)."""


def _pi() -> Decimal:
    """pi to the current precision (the decimal module's recipe)."""
    decimal.getcontext().prec += 2
    three = Decimal(3)
    last, t, s = Decimal(0), three, Decimal(3)
    n, na, d, da = 1, 0, 0, 24
    while s != last:
        last = s
        n, na = n + na, na + 8
        d, da = d + da, da + 32
        t = (t * n) / d
        s += t
    decimal.getcontext().prec -= 2
    return +s


def _series(x: Decimal, sign: int, start: int) -> Decimal:
    """sin (start 1) or cos (start 0) by its Taylor series, ``sign`` = -1."""
    term = x if start else Decimal(1)
    total, k = term, start
    x2 = x * x
    while True:
        term = term * x2 * sign / ((k + 1) * (k + 2))
        k += 2
        if total + term == total:
            return total
        total += term


def _atan(x: Decimal) -> Decimal:
    if x < 0:
        return -_atan(-x)
    for _ in range(3):  # atan(x) = 2 atan(x / (1 + sqrt(1 + x^2))): shrink the argument
        x = x / (1 + (1 + x * x).sqrt())
    total, term, k = x, x, 1
    x2 = x * x
    while True:
        term = -term * x2
        k += 2
        if total + term / k == total:
            return 8 * total
        total += term / k


def _small(f: str, x: Decimal) -> Decimal | None:
    """expm1 and log1p near zero, where ``exp(x) - 1`` would cancel."""
    if abs(x) > Decimal("1e-3"):
        return None
    terms, k, total = x, 1, x
    while True:
        k += 1
        terms = terms * x / (k if f == "expm1" else 1)
        step = terms if f == "expm1" else terms * (-1) ** (k + 1) / k
        if total + step == total:
            return total
        total += step


def _decimal_value(f: str, x: Decimal, y: Decimal | None) -> Decimal | Fraction:
    if f in ("expm1", "log1p"):
        small = _small(f, x)
        if small is not None:
            return small
    if f in ("sin", "cos", "tan"):
        pi = _pi()
        x = x - (x / (2 * pi)).to_integral_value() * 2 * pi
        s, c = _series(x, -1, 1), _series(x, -1, 0)
        return s if f == "sin" else c if f == "cos" else s / c
    if f == "tanh":  # (1 - e^-2|x|)/(1 + e^-2|x|), kept below 1 even where e^-2|x| underflows
        # Below 10**-200 the size of e^-2|x| decides nothing for a format of 24 bits or
        # fewer (1 - 2e rounds as 1 - 2e-200 does); an exact 10**Emin would be a
        # Fraction of a million digits per element.
        em = max((-2 * x.copy_abs()).exp(), TINY)
        t = (Fraction(1) - Fraction(em)) / (Fraction(1) + Fraction(em))
        return -t if x < 0 else t
    if f in ("sinh", "cosh"):
        e, em = x.exp(), (-x).exp()
        return (e - em) / 2 if f == "sinh" else (e + em) / 2
    ln2 = Decimal(2).ln()
    table = {
        "exp": lambda: x.exp(),
        "exp2": lambda: (x * ln2).exp(),
        "expm1": lambda: x.exp() - 1,
        "log": lambda: x.ln(),
        "log2": lambda: x.ln() / ln2,
        "log10": lambda: x.log10(),
        "log1p": lambda: (1 + x).ln(),
        "arctan": lambda: _atan(x),
        "arcsin": lambda: _atan(x / (1 - x * x).sqrt()),
        "arccos": lambda: _pi() / 2 - _atan(x / (1 - x * x).sqrt()),
        "arcsinh": lambda: (x.copy_abs() + (x * x + 1).sqrt()).ln().copy_sign(x),
        "arccosh": lambda: (x + (x * x - 1).sqrt()).ln(),
        "arctanh": lambda: ((1 + x) / (1 - x)).ln() / 2,
        "cbrt": lambda: (x.copy_abs() ** (Decimal(1) / 3)).copy_sign(x),
        "power": lambda: x ** (y if y is not None else Decimal(1)),
        "hypot": lambda: (x * x + (y if y is not None else Decimal(0)) ** 2).sqrt(),
    }
    return table[f]()


def reference(
    f: str, args: tuple[float, ...], fmt: Format, rounding: str, overflow: str | None = None
) -> float:
    """``f(*args)`` from :mod:`decimal`, rounded once into ``fmt`` (its hard cases)."""
    x = Decimal(args[0])
    y = Decimal(args[1]) if len(args) > 1 else None
    scale = max(abs(x.adjusted()), abs(y.adjusted()) if y is not None else 0)
    with decimal.localcontext() as context:
        context.prec = 60 + scale
        context.Emax, context.Emin = 10**6, -(10**6)
        value = _decimal_value(f, x, y)
        exact = value if isinstance(value, Fraction) else Fraction(value)
        mode = "nearest_even" if rounding == "stochastic" else rounding
        nearest = float(K.codes_to_values(np.array([round_real(parse_real(exact), fmt)]), fmt)[0])
        close = exact != 0 and np.isfinite(nearest) and f in SNAPPED
        if close and abs(Fraction(nearest) - exact) <= abs(exact) * Fraction(1, 10**40):
            exact = Fraction(nearest)  # an exact case (exp2(3), log2(8), ...)
        code = round_real(parse_real(exact), fmt, mode, overflow)
    return float(K.codes_to_values(np.array([code], dtype=K.code_dtype(fmt)), fmt)[0])


def hard_cases(y: np.ndarray, fmt: Format, rounding: str, overflow: str | None) -> np.ndarray:
    """Where the float64 results ``y`` lie within ``MARGIN`` of a rounding boundary."""
    with np.errstate(all="ignore"):
        delta = MARGIN * np.spacing(np.abs(y))
        lo = K.round_values(y - delta, fmt, rounding, overflow=overflow)
        hi = K.round_values(y + delta, fmt, rounding, overflow=overflow)
        return np.isfinite(y) & (y != 0) & (lo != hi)


def evaluate(
    f: str,
    xs: list[np.ndarray],
    fmt: Format,
    rounding: str,
    overflow: str | None,
    rng: Any,
) -> np.ndarray:
    """``f`` applied to values of ``fmt``, rounded once into ``fmt`` (see the module)."""
    with np.errstate(all="ignore"):
        y = np.asarray(TRANSCENDENTAL[f](*xs), np.float64)
    if fmt.mantissa_bits + 1 > 24 or rounding == "stochastic":
        return np.asarray(K.round_values(y, fmt, rounding, overflow=overflow, rng=rng))
    out = np.asarray(K.round_values(y, fmt, rounding, overflow=overflow))
    hard = hard_cases(y, fmt, rounding, overflow)
    if hard.any():
        args = [np.broadcast_to(x, y.shape)[hard].tolist() for x in xs]
        out[hard] = [reference(f, a, fmt, rounding, overflow) for a in zip(*args, strict=True)]
    return out

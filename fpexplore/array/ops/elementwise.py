"""The ufunc table: which numpy ufunc becomes which operation in a format.

* ``add``, ``subtract``, ``multiply``, ``divide``, ``sqrt``, ``negative``,
  ``absolute``, ``square`` (``x * x``), ``reciprocal`` (``1 / x``): the
  arithmetic kernels of :mod:`fpexplore.arith` (computed exactly, rounded once);
  ``power`` with an integer exponent: ``x ** n`` exactly, rounded once;
* ``minimum``, ``maximum``, ``fmin``, ``fmax``, ``copysign``, ``floor``, ``ceil``,
  ``trunc``, ``rint``, ``positive``: exact (the result is a value of the format);
* the transcendental functions of :mod:`.transcendental` (and ``power`` with a
  non-integer exponent): float64, rounded once, hard cases resolved;
* comparisons, ``isnan``, ``isfinite``, ``isinf``, ``signbit``, ``sign`` and the
  logical ufuncs: exact on the values, returning plain numpy arrays.

Any other ufunc raises ``TypeError``.

>>> import numpy as np
>>> kind_of(np.add), kind_of(np.exp), kind_of(np.less)
('basic', 'transcendental', 'plain')
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ... import codes as K
from ...exact import parse_real, round_real
from ...formats import Format
from .transcendental import TRANSCENDENTAL, evaluate

__all__ = ["BASIC", "EXACT", "PLAIN", "compute", "integer_power", "kind_of"]

BASIC = {
    np.add: "add",
    np.subtract: "sub",
    np.multiply: "mul",
    np.divide: "div",
    np.sqrt: "sqrt",
    np.negative: "neg",
    np.absolute: "abs",
    np.fabs: "abs",
}
"""ufuncs computed by the arithmetic kernels, with the kernel's operation name."""

EXACT = {
    np.minimum,
    np.maximum,
    np.fmin,
    np.fmax,
    np.copysign,
    np.floor,
    np.ceil,
    np.trunc,
    np.rint,
    np.positive,
}
"""ufuncs whose result is always a value of the format: computed as numpy does."""

PLAIN = {
    np.equal,
    np.not_equal,
    np.less,
    np.less_equal,
    np.greater,
    np.greater_equal,
    np.isnan,
    np.isfinite,
    np.isinf,
    np.signbit,
    np.sign,
    np.logical_and,
    np.logical_or,
    np.logical_xor,
    np.logical_not,
}
"""ufuncs that return plain numpy arrays (exact on the values)."""


def kind_of(ufunc: Any) -> str | None:
    """``basic``, ``exact``, ``plain``, ``square``, ``reciprocal``, ``power``,
    ``transcendental`` or None (not emulated)."""
    if ufunc in BASIC:
        return "basic"
    if ufunc in EXACT:
        return "exact"
    if ufunc in PLAIN:
        return "plain"
    if ufunc is np.square:
        return "square"
    if ufunc is np.reciprocal:
        return "reciprocal"
    if ufunc in (np.power, np.float_power):
        return "power"
    if ufunc.__name__ in TRANSCENDENTAL:
        return "transcendental"
    return None


def _round_exact(
    exact: Fraction | None, x: float, fmt: Format, rounding: str, overflow: Any
) -> float:
    if exact is None:
        return x
    code = round_real(parse_real(exact), fmt, rounding, overflow)
    return float(K.codes_to_values(np.array([code], dtype=K.code_dtype(fmt)), fmt)[0])


def integer_power(
    x: np.ndarray, n: int, fmt: Format, rounding: str, overflow: Any, rng: Any
) -> tuple[np.ndarray, np.ndarray | None]:
    """``x ** n`` computed exactly and rounded once; also the exact float64 values
    where they are exact (for the flags), else None (then computed element by element)."""
    mode = "nearest_even" if rounding == "stochastic" else rounding
    with np.errstate(all="ignore"):
        y = np.power(x, float(n))
        fits = (
            n >= 0
            and n * (fmt.mantissa_bits + 1) <= 53
            and bool(np.all(~np.isfinite(y) | (y == 0) | (np.abs(y) >= 2.0**-1022)))
            and bool(np.all(np.isfinite(y) | ~np.isfinite(x)))
        )
    if fits:  # exact in float64
        return K.round_values(y, fmt, rounding, overflow=overflow, rng=rng), y
    out = np.empty(x.shape, np.float64)
    flat, target = x.reshape(-1), out.reshape(-1)
    for i, v in enumerate(flat.tolist()):
        if not np.isfinite(v) or (v == 0 and n < 0):
            with np.errstate(all="ignore"):
                target[i] = float(K.round_values(np.array([v**n if v else np.inf]), fmt, mode)[0])
                if v == 0:
                    target[i] = np.copysign(np.inf, v) if n % 2 else np.inf
            continue
        exact = Fraction(v) ** n
        target[i] = _round_exact(exact, v, fmt, mode, overflow)
    return out, None


def compute(
    kind: str,
    name: str,
    xs: list[np.ndarray],
    fmt: Format,
    rounding: str,
    overflow: Any,
    rng: Any,
) -> np.ndarray:
    """The values of ``name`` (a kernel operation or a transcendental ufunc name)."""
    if kind == "basic":
        return K.arith_values(name, tuple(xs), fmt, rounding, overflow=overflow, rng=rng)
    if kind == "transcendental":
        return evaluate(name, xs, fmt, rounding, overflow, rng)
    raise ValueError(f"not a computed kind: {kind!r}")

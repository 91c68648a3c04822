"""Independent oracles for arithmetic in a format.

``oracle_op`` computes one operation with exact Fractions and rounds it with the
brute-force value list of :mod:`tests.oracle` (no fpexplore rounding code).
``table_round`` is the same rounding vectorized for small formats: the exact
result of + - x of two values of an 8-bit format is a float64 (few bits, small
exponents), and a quotient is bracketed by exact float64 comparisons
``a <=> v * b``. Results are float64 values (signed zeros, inf, NaN), so whole
tables compare bit for bit.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from fpexplore import Format
from tests.oracle import finite_values, oracle_round

MAGNITUDE = {"up": {1: "away", -1: "zero"}, "down": {1: "zero", -1: "away"}}


def _as_float(r: Fraction | str, sign_if_zero: int) -> float:
    if isinstance(r, str):
        return {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}[r]
    if r == 0:
        return -0.0 if sign_if_zero else 0.0
    return float(r)


def _zero_sum_sign(x: Fraction, x_sign: int, y: Fraction, y_sign: int, mode: str) -> int:
    if x == 0 and y == 0 and x_sign == y_sign:
        return x_sign
    return 1 if mode == "down" else 0


def _sign(v: float) -> int:
    return int(math.copysign(1, v) < 0)


def oracle_sqrt(x: Fraction, fmt: Format, mode: str) -> Fraction | str:
    """Round sqrt(x) (x > 0) by comparing squares of the format's values exactly."""
    values = finite_values(fmt.name)
    below = [v for v in values if v * v <= x]
    lo = below[-1]
    if lo * lo == x:
        return lo
    hi = values[len(below)]
    magnitude_mode = {"up": "away", "down": "zero"}.get(mode, mode)
    if magnitude_mode in ("zero", "toward_zero"):
        return lo
    if magnitude_mode == "away":
        return hi
    mid = (lo + hi) / 2
    if mid * mid != x:
        return lo if x < mid * mid else hi
    raise AssertionError("a square root is never a midpoint")


def oracle_op(op: str, values: tuple[float, ...], fmt: Format, mode: str) -> float:
    """One operation on finite values of ``fmt`` (floats), by exact Fractions."""
    xs = [Fraction(v) for v in values]
    signs = [_sign(v) for v in values]
    if op == "sqrt":
        if xs[0] == 0:
            return values[0]
        if xs[0] < 0:
            return math.nan
        return float(oracle_sqrt(xs[0], fmt, mode))
    if op == "add":
        exact, zero = xs[0] + xs[1], _zero_sum_sign(xs[0], signs[0], xs[1], signs[1], mode)
    elif op == "sub":
        exact = xs[0] - xs[1]
        zero = _zero_sum_sign(xs[0], signs[0], -xs[1], 1 - signs[1], mode)
    elif op == "mul":
        exact, zero = xs[0] * xs[1], signs[0] ^ signs[1]
    elif op == "div":
        if xs[1] == 0:
            if xs[0] == 0:
                return math.nan
            return math.copysign(math.inf, 1.0 if signs[0] == signs[1] else -1.0)
        exact, zero = xs[0] / xs[1], signs[0] ^ signs[1]
    else:  # fma
        product = xs[0] * xs[1]
        exact = product + xs[2]
        zero = _zero_sum_sign(product, signs[0] ^ signs[1], xs[2], signs[2], mode)
    if exact == 0:
        return -0.0 if zero else 0.0
    return _as_float(oracle_round(exact, fmt, mode), int(exact < 0))


def table_round(exact: np.ndarray, fmt: Format, mode: str, *, den: np.ndarray | None = None):
    """Round exact results (``exact``, or ``exact / den`` when ``den`` is given,
    bracketed by exact comparisons) into ``fmt`` by searching its value list.

    Returns float64 values; zeros carry the sign of the exact result (callers fix
    exact zero sums).
    """
    values = np.array([float(v) for v in finite_values(fmt.name)])
    top = values[-1]
    step = 2.0 ** (fmt.emax - fmt.mantissa_bits)
    grid = np.append(values, top + step)  # the first value above max, unbounded
    if den is None:
        num, den = np.abs(exact), np.ones_like(exact)
        negative = np.signbit(exact)
    else:
        num, negative = np.abs(exact), np.signbit(exact) ^ np.signbit(den)
        den = np.abs(den)
    with np.errstate(all="ignore"):
        guess = num / den
    i = np.clip(np.searchsorted(grid, guess, "right") - 1, 0, grid.size - 2)
    for _ in range(2):  # exact adjustments: grid[i] * den <= num < grid[i+1] * den
        i = np.where(grid[i] * den > num, i - 1, i)
        i = np.where(grid[i + 1] * den <= num, i + 1, i)
        i = np.clip(i, 0, grid.size - 2)
    lo, hi = grid[i], grid[i + 1]
    beyond = num >= grid[-1] * den
    lo = np.where(beyond, top, lo)
    hi = np.where(beyond, grid[-1], hi)
    exact_hit = lo * den == num
    mid = (lo + hi) / 2 * den
    mode_away = {
        "up": ~negative,
        "down": negative,
        "toward_zero": np.zeros_like(negative),
    }
    if mode in mode_away:
        away = mode_away[mode]
    else:
        away = (num > mid) | (num == mid) & (
            True if mode == "nearest_away" else _odd(lo, fmt, values)
        )
    pick = np.where(exact_hit, lo, np.where(away, hi, lo))
    over = pick > top
    if fmt.nan_encoding == "none":
        pick = np.where(over, top, pick)
    elif fmt.nan_encoding == "fn":
        pick = np.where(over, np.nan, pick)
    else:
        pick = np.where(over, np.inf, pick)
    return np.where(negative, -pick, pick)


def _odd(lo: np.ndarray, fmt: Format, values: np.ndarray) -> np.ndarray:
    """Whether each grid value has an odd last significand bit (its index is odd)."""
    index = np.searchsorted(values, lo)
    return (index % 2 == 1) & (lo <= values[-1])

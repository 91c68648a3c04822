"""Integer arrays beyond float64's exact range, rounded once.

An int64 or uint64 above 2**53 in magnitude has no exact float64. Converting it
to float64 first and rounding that into a format would round twice
(``2**53 + 1`` rounded ``up`` in float64 would give ``2**53``, below its
input). :func:`round_integers` rounds such integers with integer arithmetic to
the format's precision, with an unbounded exponent range; the result is a
float64 that lies on the format's grid (or past its largest value), so the
ordinary float64 kernels then store it without rounding again, overflow
included. :func:`exact_float64` applies it to the elements that need it.

Examples
--------
>>> from fpexplore.formats import get_format
>>> x = np.array([2**53 + 1, -(2**53) - 1, 3])
>>> exact_float64(x, get_format("float64"), "up") - np.array([2.0**53, -(2.0**53), 3])
array([2., 0., 0.])
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ..exact import check_rng
from ..formats import Format, get_format
from .dtypes import widen_into

EXACT_LIMIT = 2**53
"""Integers of at most this magnitude are exact float64 values."""

_ONE = np.uint64(1)
_FLOAT64 = get_format("float64")


def wide_integers(x: np.ndarray) -> np.ndarray | None:
    """The mask of elements of an int64/uint64 array whose magnitude exceeds
    2**53, or None when the dtype holds no such value (narrower integers, floats)."""
    if x.dtype.kind not in "iu" or x.dtype.itemsize < 8:
        return None
    if x.dtype.kind == "u":
        return x > np.uint64(EXACT_LIMIT)
    return (x > EXACT_LIMIT) | (x < -EXACT_LIMIT)


def magnitudes(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(negative, |x|)`` of an integer array, the magnitudes as uint64 (exact,
    -2**63 included)."""
    negative = x < 0
    magnitude = x.astype(np.uint64)
    np.negative(magnitude, out=magnitude, where=negative)  # two's complement, modulo 2**64
    return negative, magnitude


def floor_log2(magnitude: np.ndarray) -> np.ndarray:
    """``floor(log2(m))`` of positive uint64 magnitudes, exactly, as int64."""
    with np.errstate(over="ignore"):
        top = np.frexp(magnitude.astype(np.float64))[1].astype(np.int64) - 1
    np.minimum(top, 63, out=top)  # the float may have rounded up to 2**64
    low = (magnitude >> top.astype(np.uint64)) == 0  # ... or to the next power of two
    return top - low


def round_integers(
    x: np.ndarray, fmt: Format, rounding: str, rng: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """Round integers (int64/uint64) to ``fmt``'s precision with an unbounded exponent
    range: ``(float64 values, inexact mask)``. Modes as in :func:`round_codes`;
    ``stochastic`` draws from ``rng``."""
    negative, magnitude = magnitudes(x)
    top = np.where(magnitude == 0, fmt.emin, floor_log2(np.maximum(magnitude, _ONE)))
    shift = np.maximum(top, fmt.emin) - fmt.mantissa_bits  # log2 of the quantum
    shift = np.maximum(shift, 0)  # quanta below 1: every integer is on the grid
    s = np.minimum(shift, 64).astype(np.uint64)
    kept = np.where(s < 64, magnitude >> np.minimum(s, 63), 0).astype(np.uint64)
    remainder = magnitude - np.where(s < 64, kept << np.minimum(s, 63), 0).astype(np.uint64)
    half = np.where(s > 0, _ONE << np.maximum(s, 1) - _ONE, 0).astype(np.uint64)
    half[shift > 64] = np.iinfo(np.uint64).max  # remainder is below half the quantum
    mode = rounding
    if mode in ("up", "down"):
        away = negative if mode == "down" else ~negative
        increment = away & (remainder != 0)
    elif mode == "nearest_even":
        tie = (remainder == half) & (shift <= 64) & (remainder != 0)
        increment = (remainder > half) & (shift <= 64) | tie & ((kept & _ONE) == 1)
    elif mode == "nearest_away":
        increment = (remainder >= half) & (shift <= 64) & (remainder != 0)
    elif mode == "odd":  # round to odd: truncate, and mark an inexact result odd
        kept |= (remainder != 0).astype(np.uint64)
        increment = np.zeros(x.shape, bool)
    elif mode == "stochastic":
        fraction = np.ldexp(remainder.astype(np.float64), -shift.astype(np.int32))
        increment = check_rng(rng).random(x.shape) < fraction
    else:  # toward_zero
        increment = np.zeros(x.shape, bool)
    significand = (kept + increment).astype(np.float64)  # at most 2**53: exact
    values = np.ldexp(significand, shift.astype(np.int32))
    np.negative(values, out=values, where=negative)
    return values, remainder != 0


def exact_float64(values: np.ndarray, fmt: Format, rounding: str, rng: Any = None) -> np.ndarray:
    """A float64 array whose rounding into ``fmt`` by ``rounding`` is the rounding
    of the exact ``values`` (native byte order; floats widened to float64 exactly,
    integers beyond 2**53 rounded first to ``fmt``'s own grid, or to odd at 53 bits for
    the tabulated formats, so that their second rounding is exact)."""
    if values.dtype == np.float64:  # native float64: nothing to widen or pre-round
        return values
    out = np.empty(values.shape, np.float64)
    widen_into(out, values)
    wide = wide_integers(values)
    if wide is not None and wide.any():
        out[wide] = pre_round(values[wide], fmt, rounding, rng)
    return out


def pre_round(x: np.ndarray, fmt: Format, rounding: str, rng: Any = None) -> np.ndarray:
    """Integers beyond 2**53 as float64 values that round into ``fmt`` as they do:
    rounded to ``fmt``'s own grid (:func:`round_integers`), or, for the tabulated
    formats (fnuz, P3109, E8M0: at most 16 bits, rounded through tables), rounded to
    odd at float64's 53 bits, which a second rounding to at most 51 bits
    undoes exactly in every mode."""
    if fmt.tabulated:
        return round_integers(x, _FLOAT64, "odd")[0]
    return round_integers(x, fmt, rounding, rng)[0]


def integer_errors(
    n: np.ndarray, rounded: np.ndarray, fmt: Format
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(abs_error, rel_error, ulp_error)`` of storing integers ``n`` (nonzero) as
    ``rounded`` (float64), with the absolute error exact before its one rounding to
    float64 (the two are subtracted as integers, modulo 2**64)."""
    _, magnitude = magnitudes(n)
    stored = np.abs(rounded)
    integral = np.isfinite(stored) & (stored <= 2.0**64)
    with np.errstate(invalid="ignore"):
        integral &= np.floor(stored) == stored
    top = integral & (stored == 2.0**64)  # 2**64 itself wraps to 0 as a uint64
    stored_int = np.where(integral & ~top, stored, 0).astype(np.uint64)
    difference = np.where(stored_int >= magnitude, stored_int - magnitude, magnitude - stored_int)
    difference[top] = -magnitude[top]  # 2**64 - magnitude, modulo 2**64
    abs_error = difference.astype(np.float64)  # the one rounding
    abs_error[np.isinf(stored)] = np.inf
    abs_error[np.isnan(stored)] = np.nan
    for i in np.flatnonzero(np.isfinite(stored) & ~integral):  # fractional stored values
        exact = int(n[i]) - Fraction(float(rounded[i]))
        abs_error[i] = float(abs(exact))
    shift = np.maximum(floor_log2(magnitude), fmt.emin) - fmt.mantissa_bits
    with np.errstate(invalid="ignore"):
        rel_error = abs_error / magnitude.astype(np.float64)
        ulp_error = np.ldexp(abs_error, -shift.astype(np.int32))
    return abs_error, rel_error, ulp_error

"""The float32 path of FormatArray: bfloat16, float16 and tf32 at float32's speed.

A format whose values are all float32s (every format of at most 24 bits of
precision inside float32's range) is stored as float32, half the memory
traffic of float64. For bfloat16, float16 and tf32 (``p <= 11``) rounded to
nearest even, ``+ - x /`` and ``sqrt`` are computed in float32 and rounded once
more: since ``24 >= 2p + 2``, float32's correctly rounded result rounds into
the format as the exact one does (Figueroa 1995), as in
:func:`fpexplore.codes.add_in_float32`. float32's own subnormal range is not
wider than bfloat16's and tf32's, so the elements whose float32 result lies below
``2**-126`` (where float32 has fewer bits) are computed again by the float64
kernel. float16's range lies inside float32's normal range.

Transcendental functions are evaluated in float32 first (numpy's float32
functions err by less than :data:`MARGIN32` float32 ULPs); an element whose
float32 value lies within that of a midpoint of the target, or below float32's
normal range, is evaluated again on the float64 path of
:mod:`.transcendental` (which resolves its own hard cases). A bfloat16 or float16 array
of 65,536 values or more looks a one-argument function up in a table of the function at
every value of its format, built once per function and mode by that float64 path.

>>> import numpy as np
>>> from fpexplore.formats import get_format
>>> basic("div", [np.float32([1.0]), np.float32([3.0])], get_format("bfloat16"))
array([0.33398438], dtype=float32)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ... import codes as K
from ..._kernels.arith import round_float32_nearest_even
from ...arith.pairwise import float32_like
from ...formats import Format, get_format
from .transcendental import TRANSCENDENTAL, evaluate

__all__ = ["MARGIN32", "basic", "storage", "table", "transcendental"]

MARGIN32 = 8
"""The float32 error assumed for numpy's float32 transcendental functions, in ULPs."""

_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


def storage(fmt: Format) -> Any:
    """float32 for a format whose every value is a float32, else float64."""
    fits = (
        not fmt.tabulated
        and fmt.mantissa_bits <= 23
        and fmt.emax <= 127
        and fmt.emin - fmt.mantissa_bits >= -149
    )
    return np.float32 if fits else np.float64


def _kind(fmt: Format) -> str | None:
    if fmt.name == "float16" and fmt == get_format("float16"):
        return "float16"
    if float32_like(fmt):
        return "float32_like"
    return None


def _round32(r: np.ndarray, fmt: Format, kind: str) -> np.ndarray:
    """float32 values rounded in place to nearest even into ``fmt`` (float16: by the
    bits, as numpy's cast gives, which is slower: 10 bits in float16's normal range;
    its subnormals on the grid of 2**-24, by adding and taking away 0.5; beyond
    65504 an infinity)."""
    if kind != "float16":
        return round_float32_nearest_even(r, fmt.mantissa_bits)
    magnitude = r.view(np.uint32) & np.uint32(0x7FFFFFFF)
    small = magnitude < np.float32(2.0**-14).view(np.uint32)
    subnormal = r[small] if small.any() else None
    round_float32_nearest_even(r, 10)
    if subnormal is not None:
        r[small] = np.copysign((np.abs(subnormal) + np.float32(0.5)) - np.float32(0.5), subnormal)
    big = (magnitude > np.float32(65504.0).view(np.uint32)) & (magnitude < np.uint32(0x7F800000))
    if big.any():  # above max after rounding (65536 and beyond): overflow to inf
        big = (r.view(np.uint32) & np.uint32(0x7FFFFFFF)) > np.float32(65504.0).view(np.uint32)
        big &= ~np.isnan(r)
        r[big] = np.copysign(np.float32(np.inf), r[big])
    return r


def basic(op: str, xs: list[np.ndarray], fmt: Format) -> np.ndarray | None:
    """``op`` on float32 values of ``fmt`` to nearest even, or None where this
    path does not apply (another format, dtype or operation)."""
    kind = _kind(fmt)
    if kind is None or op not in (*_OPS, "sqrt") or any(x.dtype != np.float32 for x in xs):
        return None
    with np.errstate(all="ignore"):
        r = np.sqrt(xs[0]) if op == "sqrt" else _OPS[op](xs[0], xs[1])
        r = np.asarray(r)
        if r.ndim == 0:  # a 0-d result: round it as a 1-element array
            return basic(op, [np.reshape(x, 1) for x in xs], fmt).reshape(())  # type: ignore[union-attr]
        fix = None
        if kind == "float32_like":
            tiny = (r.view(np.uint32) & np.uint32(0x7FFFFFFF)) < np.uint32(0x00800000)
            if tiny.any():  # below float32's normal range: exact zeros aside, again in float64
                shape = r.shape
                index = np.flatnonzero(tiny)
                xs_at = [np.broadcast_to(x, shape).reshape(-1)[index] for x in xs]
                exact_zero = r.reshape(-1)[index] == 0
                if op == "mul":
                    exact_zero &= (xs_at[0] == 0) | (xs_at[1] == 0)
                elif op in ("div", "sqrt"):
                    exact_zero &= xs_at[0] == 0
                fix = index[~exact_zero]
        r = _round32(r, fmt, kind)
    if fix is not None and fix.size:
        shape = r.shape
        wide = [K.as_float64(np.broadcast_to(x, shape).reshape(-1)[fix]) for x in xs]
        r.reshape(-1)[fix] = K.arith_values(op, tuple(wide), fmt)
    return r


def transcendental(f: str, xs: list[np.ndarray], fmt: Format) -> np.ndarray | None:
    """``f`` on float32 values of ``fmt`` to nearest even (see the module), or None."""
    kind = _kind(fmt)
    if kind is None or any(x.dtype != np.float32 for x in xs):
        return None
    if np.broadcast_shapes(*(np.shape(x) for x in xs)) == ():
        result = transcendental(f, [np.reshape(x, 1) for x in xs], fmt)
        return None if result is None else result.reshape(())
    with np.errstate(all="ignore"):
        y = np.asarray(TRANSCENDENTAL[f](*xs), np.float32)
        drop = 13 if kind == "float16" else 23 - fmt.mantissa_bits
        bits = y.view(np.uint32)
        low = bits & np.uint32((1 << drop) - 1)
        low -= np.uint32((1 << (drop - 1)) - MARGIN32)  # wraps below the window
        hard = low <= np.uint32(2 * MARGIN32)  # within MARGIN32 of a midpoint
        magnitude = bits & np.uint32(0x7FFFFFFF)
        normal = np.float32(2.0**-14 if kind == "float16" else 2.0**-126).view(np.uint32)
        hard |= magnitude < normal
        hard &= magnitude < np.uint32(0x7F800000)  # finite
        if hard.any():
            hard &= ~((y == 0) & (np.broadcast_to(xs[0], y.shape) == 0))
        r = _round32(y.copy(), fmt, kind)
    if hard.any():
        index = np.flatnonzero(hard)
        wide = [K.as_float64(np.broadcast_to(x, y.shape).reshape(-1)[index]) for x in xs]
        r.reshape(-1)[index] = evaluate(f, wide, fmt, "nearest_even", None, None)
    return r


_SHIFT = {"bfloat16": 16, "float16": 13}
"""How far a float32-stored value's bits shift right to index its table: bfloat16's 16
bits are float32's top 16; every float16 value is a float32 whose low 13 bits are zero."""


def _exactly(fmt: Format) -> str | None:
    """``fmt``'s name if it is bfloat16 or float16 itself (not a custom look-alike)."""
    return fmt.name if fmt.name in _SHIFT and fmt == get_format(fmt.name) else None


@lru_cache(maxsize=64)
def _table(f: str, fmt: Format, rounding: str, overflow: str | None) -> np.ndarray:
    """``f`` at every value of ``fmt`` (bfloat16 or float16), rounded by
    :func:`.transcendental.evaluate`, indexed by the value's float32 bits shifted right
    (NaN at the indices of no value: a NaN's bits land there)."""
    shift = _SHIFT[fmt.name]
    if fmt.name == "bfloat16":
        values32 = (np.arange(1 << 16, dtype=np.uint32) << np.uint32(16)).view(np.float32)
    else:
        values32 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
        values32 = values32.astype(np.float32)
    result = evaluate(f, [K.as_float64(values32)], fmt, rounding, overflow, None)
    table = np.full(1 << (32 - shift), np.nan, np.float32)
    table[values32.view(np.uint32) >> np.uint32(shift)] = np.asarray(result, np.float32)
    table.setflags(write=False)
    return table


def table(f: str, xs: list[np.ndarray], fmt: Format, rounding: str, overflow: Any) -> Any:
    """A one-argument function of float32-stored bfloat16 or float16 values by looking
    each value up in the function's table of all 65,536 (built once, by the float64 path
    with its hard cases resolved, so equal to it), or None where this does not apply."""
    if len(xs) != 1 or xs[0].dtype != np.float32 or rounding == "stochastic":
        return None
    name = _exactly(fmt)
    if name is None or xs[0].size < 1 << 16:
        return None
    index = (xs[0].view(np.uint32) >> np.uint32(_SHIFT[name])).view(np.int32)
    return np.take(_table(f, fmt, rounding, overflow), index)  # int32 indices: the fastest

"""Rounding arrays of real values into a format: :func:`round_codes` and
:func:`round_values`, the dispatcher of every array rounding.

A value takes one of five routes, chosen once per call from the input's dtype, the
format, the rounding mode and the overflow policy, in this order:

1. **float32 codes** (:mod:`~fpexplore._kernels.round.f32`): a float32 input, rounded
   neither stochastically nor into a tabulated format, into a format whose exponents
   and subnormals lie inside float32's (``m <= 23``, ``-126 <= emin``, ``emax <= 127``,
   ``emin - m >= -149``: bfloat16, float16, TF32, FP8, FP6, FP4; ``rounder32`` says
   which). Integer work on the input's own 32-bit codes, no float64 copy; a block that
   holds inf or NaN goes through route 3 instead, which keeps NaN payloads.
2. **tabulated formats** (:mod:`~fpexplore._kernels.tables`): ``Format.tabulated``
   (fnuz, P3109, unsigned E8M0: encodings the bit-level kernels do not model), in
   every mode. Every code is taken apart once into tables; rounding is a binary search
   of the magnitudes against the midpoints.
3. **blocked float64** (:mod:`~fpexplore._kernels.round.blocked`): every other
   deterministic mode into a format whose normals lie inside float64's
   (``emin >= -1022``; ``blocked_rounder`` returns its constants, else None). Branch-free
   integer and float64 work on the bits, block by block: numpy's own cast for float16,
   float32 and float64 under ``nearest_even`` without an overflow policy; otherwise an
   addition of a power of two (``nearest_even``, ``m <= 51``) or the bits' own
   arithmetic. Inputs of other dtypes (float16, integers, ml_dtypes, either byte
   order) are widened into float64 one block at a time.
4. **general** (:mod:`~fpexplore._kernels.round.general`): what route 3 cannot take,
   stochastic rounding (drawn from ``rng``) and formats whose normals lie below
   float64's, with ``frexp`` and ``ldexp``.
5. **wide integers** (:mod:`~fpexplore._kernels.integers`): integer elements beyond
   2**53, which float64 cannot hold, on routes 2 to 4. They are rounded first with
   integer arithmetic onto the format's own grid (onto float64's, to odd, for the
   tabulated formats), so that the route's own rounding of that float64 is exact.

:func:`round_values` writes float64 (or float32) values straight from routes 1 and 3;
on routes 2 and 4 it rounds to codes and reads their values. Every route matches
:func:`fpexplore.exact.round_real` bit for bit, NaN payloads included. The tensor
report rounds magnitudes by its own kernels (``round_nearest``, ``round_magnitudes``),
not through this module.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exact import check_overflow, check_rng, check_rounding
from ..formats import Format, FormatLike, get_format
from .blocks import BLOCK, Scratch, run_blocks
from .dtypes import code_dtype, narrowed, real_array, widen_into
from .fields import codes_to_values
from .integers import exact_float64, pre_round, wide_integers
from .round.blocked import blocked_rounder, round_into
from .round.f32 import Scratch32, round_block32, rounder32
from .round.general import round_block_float
from .tables import round_table


def _round_array(
    values: Any, fmt: Format, rounding: str, overflow: str | None, dtype: np.dtype
) -> np.ndarray:
    """Round an array block by block into a new array of codes or float64 values."""
    x = real_array(values)
    out = np.empty(x.shape, dtype)
    flat, dst = x.reshape(-1), out.reshape(-1)
    r32 = rounder32(fmt, rounding, overflow) if x.dtype == np.float32 else None
    if r32 is not None:  # float32 inputs: integer work on their own bits, no widening
        narrow = dtype.kind == "u" or dtype == np.float32

        def work32(block: slice, scratch: Scratch32) -> None:
            if narrow:
                round_block32(flat[block], r32, dst[block], scratch)
            else:
                result = scratch.out32[: block.stop - block.start]
                round_block32(flat[block], r32, result, scratch)
                widen_into(dst[block], result)  # NaN bits kept

        run_blocks(flat.size, BLOCK, work32, Scratch32)
        return out
    r = blocked_rounder(fmt, rounding, overflow)
    assert r is not None
    if dtype == np.float32:  # values of a format inside float32: exact narrowing
        return narrowed(_round_array(x, fmt, rounding, overflow, np.dtype(np.float64)), np.float32)
    convert = flat.dtype != np.float64

    def work(block: slice, scratch: Scratch) -> None:
        xb = _converted(flat[block], scratch, r.fmt, rounding) if convert else flat[block]
        round_into(xb, r, dst[block], scratch)

    run_blocks(flat.size, BLOCK, work, Scratch)
    return out


def _converted(x: np.ndarray, scratch: Scratch, fmt: Format, rounding: str) -> np.ndarray:
    """A float64 copy of a block of another real dtype, in scratch, that rounds into
    ``fmt`` as the block's exact values do (integers beyond 2**53 pre-rounded)."""
    converted = scratch.floats("input")[: x.size]
    widen_into(converted, x)
    wide = wide_integers(x)
    if wide is not None and wide.any():
        converted[wide] = pre_round(x[wide], fmt, rounding)
    return converted


def round_codes(
    values: Any,
    fmt: FormatLike,
    rounding: str = "nearest_even",
    *,
    overflow: str | None = None,
    rng: Any = None,
) -> np.ndarray:
    """Round an array of real values into ``fmt`` and return their codes.

    Each value is rounded once, from its exact value (floats of any width and
    byte order, ml_dtypes arrays, integers: those beyond 2**53 with integer
    arithmetic, see :func:`exact_float64`); results match
    :func:`fpexplore.exact.round_real` bit for bit (NaN payloads included).
    The work is done in cache-sized blocks with integer arithmetic on the
    float64 bits (numpy's own casts for float16/32/64 under nearest_even).
    """
    fmt = get_format(fmt)
    check_rounding(rounding)
    check_overflow(overflow)
    if blocked_rounder(fmt, rounding, overflow) is not None:
        return _round_array(values, fmt, rounding, overflow, code_dtype(fmt))
    if rounding == "stochastic":
        rng = check_rng(rng)
    x = exact_float64(real_array(values), fmt, rounding, rng)
    flat = x.reshape(-1)
    out = np.empty(flat.shape, dtype=code_dtype(fmt))
    for start in range(0, flat.size, BLOCK):
        block = slice(start, start + BLOCK)
        if fmt.tabulated:
            out[block] = round_table(flat[block], fmt, rounding, overflow, rng)
            continue
        with np.errstate(invalid="ignore", over="ignore"):
            out[block] = round_block_float(flat[block], fmt, rounding, overflow, rng)
    return out.reshape(x.shape)


def round_values(
    values: Any,
    fmt: FormatLike,
    rounding: str = "nearest_even",
    *,
    overflow: str | None = None,
    rng: Any = None,
    dtype: Any = np.float64,
) -> np.ndarray:
    """Round an array of real values into ``fmt``; return the rounded values as float64
    (or float32 with ``dtype=np.float32``, for a format whose values all are float32s).

    Blocked like :func:`round_codes`, writing float64 values directly (no codes
    in between); bit for bit the values of those codes. float32 inputs are
    rounded on their own 32-bit codes.
    """
    fmt = get_format(fmt)
    check_rounding(rounding)
    check_overflow(overflow)
    dtype = np.dtype(dtype)
    if dtype not in (np.float64, np.float32):
        raise ValueError(f"dtype must be float64 or float32, got {dtype}")
    if blocked_rounder(fmt, rounding, overflow) is not None:
        return _round_array(values, fmt, rounding, overflow, dtype)
    values64 = codes_to_values(round_codes(values, fmt, rounding, overflow=overflow, rng=rng), fmt)
    return narrowed(values64, dtype)

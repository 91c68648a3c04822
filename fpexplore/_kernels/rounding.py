"""Rounding arrays of real values into a format: :func:`round_codes` and
:func:`round_values`, blocked where :mod:`fpexplore._kernels.round_blocked` applies,
else by :mod:`fpexplore._kernels.round_general`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exact import check_overflow, check_rng, check_rounding
from ..formats import Format, FormatLike, get_format
from .blocks import BLOCK, _run_blocks, _Scratch
from .dtypes import _real_array, code_dtype, narrowed, widen_into
from .fields import codes_to_values
from .integers import exact_float64, pre_round, wide_integers
from .round_blocked import _round_into, _rounder
from .round_f32 import _rounder32, _Scratch32, round_block32
from .round_general import _round_block_float
from .tables import round_table


def _round_array(
    values: Any, fmt: Format, rounding: str, overflow: str | None, dtype: np.dtype
) -> np.ndarray:
    """Round an array block by block into a new array of codes or float64 values."""
    x = _real_array(values)
    out = np.empty(x.shape, dtype)
    flat, dst = x.reshape(-1), out.reshape(-1)
    r32 = _rounder32(fmt, rounding, overflow) if x.dtype == np.float32 else None
    if r32 is not None:  # float32 inputs: integer work on their own bits, no widening
        narrow = dtype.kind == "u" or dtype == np.float32

        def work32(block: slice, scratch: _Scratch32) -> None:
            if narrow:
                round_block32(flat[block], r32, dst[block], scratch)
            else:
                result = scratch.out32[: block.stop - block.start]
                round_block32(flat[block], r32, result, scratch)
                widen_into(dst[block], result)  # NaN bits kept

        _run_blocks(flat.size, BLOCK, work32, _Scratch32)
        return out
    r = _rounder(fmt, rounding, overflow)
    assert r is not None
    if dtype == np.float32:  # values of a format inside float32: exact narrowing
        return narrowed(_round_array(x, fmt, rounding, overflow, np.dtype(np.float64)), np.float32)
    convert = flat.dtype != np.float64

    def work(block: slice, scratch: _Scratch) -> None:
        xb = _converted(flat[block], scratch, r.fmt, rounding) if convert else flat[block]
        _round_into(xb, r, dst[block], scratch)

    _run_blocks(flat.size, BLOCK, work, _Scratch)
    return out


def _converted(x: np.ndarray, scratch: _Scratch, fmt: Format, rounding: str) -> np.ndarray:
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
    if _rounder(fmt, rounding, overflow) is not None:
        return _round_array(values, fmt, rounding, overflow, code_dtype(fmt))
    if rounding == "stochastic":
        rng = check_rng(rng)
    x = exact_float64(_real_array(values), fmt, rounding, rng)
    flat = x.reshape(-1)
    out = np.empty(flat.shape, dtype=code_dtype(fmt))
    for start in range(0, flat.size, BLOCK):
        block = slice(start, start + BLOCK)
        if fmt.tabulated:
            out[block] = round_table(flat[block], fmt, rounding, overflow, rng)
            continue
        with np.errstate(invalid="ignore", over="ignore"):
            out[block] = _round_block_float(flat[block], fmt, rounding, overflow, rng)
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
    if _rounder(fmt, rounding, overflow) is not None:
        return _round_array(values, fmt, rounding, overflow, dtype)
    values64 = codes_to_values(round_codes(values, fmt, rounding, overflow=overflow, rng=rng), fmt)
    return narrowed(values64, dtype)

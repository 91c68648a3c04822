"""Codes taken apart: sign, exponent, mantissa and :class:`Kind` of each code
(:func:`split_codes`, :func:`fields`, :func:`classify`), and the float64 value
of each code (:func:`codes_to_values`)."""

from __future__ import annotations

from enum import Enum
from functools import lru_cache
from typing import Any, Literal, overload

import numpy as np

from ..formats import Format, FormatLike, get_format
from .blocks import BLOCK, Scratch, blend, mask_where, run_blocks
from .dtypes import (
    INF_BITS,
    NAN_BITS,
    check_codes,
    code_dtype,
    field_dtype,
    native_type,
    widen_into,
)
from .tables import tables


class Kind(str, Enum):
    """The class of a floating-point datum."""

    ZERO = "zero"
    SUBNORMAL = "subnormal"
    NORMAL = "normal"
    INF = "inf"
    NAN = "nan"

    def __str__(self) -> str:
        return self.value


KIND_CODES = {kind: i for i, kind in enumerate(Kind)}
"""Kind -> the small integer stored in vectorized ``kind`` arrays."""


@lru_cache(maxsize=64)
def _kind_steps(fmt: Format) -> tuple[tuple[int, int], ...]:
    """(magnitude code, step) pairs: the :class:`Kind` code of a code is the sum of
    the steps at or below its magnitude (sign bit cleared), because magnitudes
    are ordered zero < subnormals < normals < inf < NaNs, as the kind codes are."""
    steps = {1: 1}  # the first subnormal
    steps[1 << fmt.mantissa_bits] = steps.get(1 << fmt.mantissa_bits, 0) + 1  # first normal
    if fmt.inf_code is not None:  # "ieee"
        steps[fmt.inf_code] = 1
        steps[fmt.inf_code + 1] = 1
    elif fmt.nan_code is not None:  # "fn": the NaN pattern follows +max: skip INF
        steps[fmt.nan_code] = steps.get(fmt.nan_code, 0) + 2
    return tuple(sorted(steps.items()))


def _classify_into(magnitude: np.ndarray, kind: np.ndarray, flag: np.ndarray, fmt: Format) -> None:
    """kind[:] = Kind code of each magnitude; only the steps that split the block
    cost a pass (a block of normal numbers is one fill)."""
    low, high = int(magnitude.min()), int(magnitude.max())
    steps = _kind_steps(fmt)
    kind.fill(sum(step for at, step in steps if at <= low))
    flag8 = flag.view(np.uint8)
    for at, step in steps:
        if low < at <= high:
            np.greater_equal(magnitude, at, out=flag)
            if step != 1:
                np.multiply(flag8, step, out=flag8)
            np.add(kind, flag8, out=kind)


@overload
def split_codes(
    codes: Any,
    fmt: FormatLike,
    *,
    kinds: Literal[True] = ...,
    parts: Literal[True] = ...,
    out: None = ...,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]: ...
@overload
def split_codes(
    codes: Any,
    fmt: FormatLike,
    *,
    kinds: Literal[False],
    parts: Literal[True] = ...,
    out: None = ...,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, None]: ...
@overload
def split_codes(
    codes: Any,
    fmt: FormatLike,
    *,
    kinds: Literal[True] = ...,
    parts: Literal[False],
    out: None = ...,
) -> tuple[None, None, None, np.ndarray]: ...
@overload
def split_codes(
    codes: Any,
    fmt: FormatLike,
    *,
    kinds: bool = ...,
    parts: bool = ...,
    out: tuple[np.ndarray | None, ...] | None = ...,
) -> tuple[np.ndarray | None, ...]: ...
def split_codes(
    codes: Any,
    fmt: FormatLike,
    *,
    kinds: bool = True,
    parts: bool = True,
    out: tuple[np.ndarray | None, ...] | None = None,
) -> tuple[np.ndarray | None, ...]:
    """Sign, exponent, mantissa and :class:`Kind` code of each code, in one pass.

    The work is done in cache-sized blocks written straight into the outputs,
    so memory traffic is one read of the codes and one write of each result.
    ``parts=False`` skips sign/exponent/mantissa, ``kinds=False`` the kinds
    (those entries are None). ``out``: four preallocated arrays of the codes'
    shape and the result dtypes (None where not wanted), written in place.

    Examples
    --------
    >>> split_codes(np.array([0x3C00, 0xFC00], dtype=np.uint16), "float16")
    (array([0, 1], dtype=uint8), array([15, 31], dtype=uint8), array([0, 0], dtype=uint16), \
array([2, 3], dtype=uint8))
    """
    fmt = get_format(fmt)
    c = check_codes(codes, fmt)
    m, e = fmt.mantissa_bits, fmt.exponent_bits
    dtypes = (np.dtype(np.uint8), field_dtype(e), field_dtype(max(m, 1)), np.dtype(np.uint8))
    if out is None:
        wanted = (parts, parts, parts, kinds)
        out = tuple(
            np.empty(c.shape, d) if w else None for d, w in zip(dtypes, wanted, strict=True)
        )
    elif len(out) != 4 or any(
        a is not None and (a.shape != c.shape or a.dtype != d or not a.flags.c_contiguous)
        for a, d in zip(out, dtypes, strict=True)
    ):
        raise ValueError(
            "out must hold four contiguous arrays (or None) of the codes' shape with dtypes "
            f"{', '.join(d.name for d in dtypes)}"
        )
    if fmt.tabulated:
        t = tables(fmt)
        for table, result in zip((t.sign, t.exponent, t.mantissa, t.kind), out, strict=True):
            if result is not None:
                np.take(table, c, out=result)
        return out
    sign, exponent, mantissa, kind = (None if a is None else a.reshape(-1) for a in out)
    flat = c.reshape(-1)
    exponent_mask, mantissa_mask = (1 << e) - 1, (1 << m) - 1
    cast_drops_sign = dtypes[1].itemsize * 8 == e  # narrowing keeps the low e bits

    def work(block: slice, buffers: tuple[np.ndarray, np.ndarray]) -> None:
        cb = flat[block]
        t, flag = buffers[0][: cb.size], buffers[1][: cb.size]
        if sign is not None:
            np.greater_equal(cb, fmt.sign_mask, out=sign[block].view(bool))
        if mantissa is not None:
            if dtypes[2] == c.dtype:
                np.bitwise_and(cb, mantissa_mask, out=mantissa[block])
            else:
                np.bitwise_and(cb, mantissa_mask, out=t)
                np.copyto(mantissa[block], t, casting="unsafe")
        if exponent is not None:
            if dtypes[1] == c.dtype:
                np.right_shift(cb, m, out=exponent[block])
                np.bitwise_and(exponent[block], exponent_mask, out=exponent[block])
            else:
                np.right_shift(cb, m, out=t)
                if not cast_drops_sign:
                    np.bitwise_and(t, exponent_mask, out=t)
                np.copyto(exponent[block], t, casting="unsafe")
        if kind is not None:
            np.bitwise_and(cb, fmt.sign_mask - 1, out=t)
            _classify_into(t, kind[block], flag, fmt)

    run_blocks(flat.size, BLOCK, work, lambda size: (np.empty(size, c.dtype), np.empty(size, bool)))
    return out


def fields(codes: Any, fmt: FormatLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split codes into (sign, biased exponent, mantissa) arrays, each the
    smallest unsigned dtype that holds it.

    Examples
    --------
    >>> fields(np.array([0x40490FDB], dtype=np.uint32), "float32")
    (array([0], dtype=uint8), array([128], dtype=uint8), array([4788187], dtype=uint32))
    """
    sign, exponent, mantissa, _ = split_codes(codes, fmt, kinds=False)
    return sign, exponent, mantissa


def classify(codes: Any, fmt: FormatLike) -> np.ndarray:
    """The :class:`Kind` of each code, as the small integers of ``KIND_CODES``.

    Examples
    --------
    >>> classify(np.array([0x0000, 0x0001, 0x3C00, 0x7C00, 0x7E00], dtype=np.uint16), "half")
    array([0, 1, 2, 3, 4], dtype=uint8)
    """
    return split_codes(codes, fmt, parts=False)[3]


def codes_to_values(codes: Any, fmt: FormatLike) -> np.ndarray:
    """The float64 value of each code (exact: every value fits in float64).

    Examples
    --------
    >>> codes_to_values(np.array([0x38, 0xB8, 0x7F, 0x01], dtype=np.uint8), "e4m3")
    array([ 1.        , -1.        ,         nan,  0.00195312])
    """
    fmt = get_format(fmt)
    c = check_codes(codes, fmt)
    if fmt.tabulated:
        return tables(fmt).values[c]
    out = np.empty(c.shape, np.float64)
    flat, dst = c.reshape(-1), out.reshape(-1)
    native = native_type(fmt)
    if native is not None:  # widened exactly, NaN bits kept (a signalling NaN stays one)
        run_blocks(
            flat.size, BLOCK, lambda block, _: widen_into(dst[block], flat[block].view(native)), int
        )
        return out
    if fmt.emin < -1022:  # normal values below float64's normal range: rare custom formats
        return _codes_to_values_float(c, fmt)
    m, first_normal = fmt.mantissa_bits, 1 << fmt.mantissa_bits
    offset = ((1023 - fmt.bias) << 52) % (1 << 64)  # exponent rebias, modulo 2**64
    specials = {"ieee": fmt.inf_code, "fn": fmt.nan_code, "none": None}[fmt.nan_encoding]

    def work(block: slice, scratch: Scratch) -> None:
        k = block.stop - block.start
        cb, mag, b = flat[block], scratch.magnitude[:k], scratch.rounded[:k]
        np.copyto(mag, cb)
        np.bitwise_and(mag, fmt.sign_mask - 1, out=mag)
        np.left_shift(mag, 52 - m, out=b)
        np.add(b, offset, out=b)  # normal codes: field and mantissa slide into place
        low, high = int(mag.min()), int(mag.max())
        if low < first_normal:  # zero and subnormals: a count of the smallest subnormal
            small = scratch.floats()[:k]
            np.multiply(mag, fmt.smallest_subnormal, out=small)
            mask = mask_where(mag, first_normal, scratch.mask[:k], below=True)
            blend(b, small.view(np.uint64), mask, scratch.work[:k])
        if specials is not None and high >= specials:
            b[mag == specials] = NAN_BITS if fmt.nan_encoding == "fn" else INF_BITS
            nan = mag > specials  # IEEE NaNs: quiet bit and payload kept
            b[nan] = INF_BITS | ((mag[nan] & np.uint64(first_normal - 1)) << np.uint64(52 - m))
        np.copyto(mag, cb)
        np.right_shift(mag, fmt.bits - 1, out=mag)
        np.left_shift(mag, 63, out=mag)
        np.bitwise_or(b, mag, out=dst[block].view(np.uint64))

    run_blocks(flat.size, BLOCK, work, Scratch)
    return out


def _codes_to_values_float(c: np.ndarray, fmt: Format) -> np.ndarray:
    """codes_to_values with ldexp, for formats whose normals are float64 subnormals."""
    sign, exponent, mantissa = fields(c, fmt)
    m = fmt.mantissa_bits
    significand = mantissa.astype(np.float64) + np.where(exponent > 0, 2.0**m, 0.0)
    scale = np.maximum(exponent.astype(np.int64), 1) - fmt.bias - m
    values = np.ldexp(significand, scale.astype(np.int32))
    kind = classify(c, fmt)
    values[kind == KIND_CODES[Kind.INF]] = np.inf
    values[kind == KIND_CODES[Kind.NAN]] = np.nan
    return np.where(sign.astype(bool), -values, values)


def split_code(code: int, fmt: Format) -> tuple[int, int, int, int]:
    """(sign, exponent, mantissa, kind index) of one code, by integer arithmetic: the
    scalar twin of :func:`split_codes`, which the tests hold it to on every code of
    the small formats (an array call costs ~100 µs; an explanation reads dozens).
    Tabulated formats (fnuz, P3109, unsigned) go through :func:`split_codes`."""
    m = fmt.mantissa_bits
    if fmt.tabulated:
        arrays = split_codes(np.array([code], code_dtype(fmt)), fmt)
        return int(arrays[0][0]), int(arrays[1][0]), int(arrays[2][0]), int(arrays[3][0])
    exponent: int = (code >> m) & ((1 << fmt.exponent_bits) - 1)
    mantissa: int = code & ((1 << m) - 1)
    top = (1 << fmt.exponent_bits) - 1
    kind: Kind
    if fmt.nan_encoding == "ieee" and exponent == top:
        kind = Kind.NAN if mantissa else Kind.INF
    elif fmt.nan_encoding == "fn" and exponent == top and mantissa == (1 << m) - 1:
        kind = Kind.NAN
    elif exponent:
        kind = Kind.NORMAL
    else:
        kind = Kind.SUBNORMAL if mantissa else Kind.ZERO
    return code >> (fmt.bits - 1), exponent, mantissa, list(Kind).index(kind)

"""Kernels for the tabulated formats: small formats whose encodings the
bit-level kernels do not model (fnuz, P3109, unsigned E8M0, no mantissa bits;
``Format.tabulated``). Every code of such a format (at most 2**16) is taken
apart once into tables; decoding is then a lookup, and rounding a binary search
of the magnitudes with exact float64 comparisons against the midpoints.

Results match :func:`fpexplore.exact.round_real` bit for bit.

Examples
--------
>>> from fpexplore.formats import get_format
>>> fmt = get_format("float8_e4m3fnuz")
>>> [hex(c) for c in round_table(np.array([1.0, -1e-9, np.inf, 300.0]), fmt, "nearest_even")]
['0x40', '0x0', '0x80', '0x80']
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from ..exact import check_rng
from ..formats import Format
from .dtypes import code_dtype

_ZERO, _SUBNORMAL, _NORMAL, _INF, _NAN = range(5)  # the order of fields.Kind


class _Tables(NamedTuple):
    """Every code of one format, taken apart."""

    values: np.ndarray  # float64 value of each code
    sign: np.ndarray  # uint8 sign field (0 in unsigned formats)
    exponent: np.ndarray  # biased exponent field
    mantissa: np.ndarray  # mantissa field
    kind: np.ndarray  # uint8 Kind code
    magnitudes: np.ndarray  # the non-negative finite values, ascending
    magnitude_codes: np.ndarray  # their codes
    midpoints: np.ndarray  # between each magnitude and the next (max: the next above max)
    tie_up: np.ndarray  # nearest_even: does a tie at that midpoint go up?
    spacings: np.ndarray  # from each magnitude to the next
    next_up: np.ndarray  # code of the next value above each code
    next_down: np.ndarray  # code of the next value below each code


@lru_cache(maxsize=64)
def tables(fmt: Format) -> _Tables:
    """The tables of a (tabulated) format, computed once."""
    m, e = fmt.mantissa_bits, fmt.exponent_bits
    codes = np.arange(fmt.n_codes, dtype=np.int64)
    magnitude_code = codes & ((1 << (e + m)) - 1)
    sign = (codes >> (e + m)) if fmt.is_signed else np.zeros_like(codes)
    field, mantissa = magnitude_code >> m, codes & ((1 << m) - 1)
    normal = (field > 0) | (not fmt.has_subnormals)
    significand = mantissa + np.where(normal, 1 << m, 0)
    exponent = np.where(normal, field, 1) if fmt.has_subnormals else field
    magnitude = np.ldexp(significand.astype(np.float64), (exponent - fmt.bias - m).astype(np.int32))
    kind = np.where(normal, _NORMAL, np.where(mantissa > 0, _SUBNORMAL, _ZERO))
    if fmt.nan_encoding in ("fnuz", "p3109"):
        kind[codes == fmt.nan_code] = _NAN
    if fmt.nan_encoding == "fn":
        kind[magnitude_code == fmt.nan_code] = _NAN
    if fmt.nan_encoding == "p3109":
        kind[magnitude_code == fmt.inf_code] = _INF
        magnitude[magnitude_code == fmt.inf_code] = np.inf
    magnitude[kind == _NAN] = np.nan
    values = np.where(sign == 1, -magnitude, magnitude)
    order = codes[(sign == 0) & (kind != _NAN) & (kind != _INF)]  # ascending already
    magnitudes = values[order]
    top = fmt.field_exponent(fmt.max_exponent_field) - m  # the spacing at max
    upper = np.append(magnitudes[1:], magnitudes[-1] + np.ldexp(1.0, top))
    lead = significand[order]  # ties to even: the neighbour whose significand is even
    return _Tables(
        values=values,
        sign=sign.astype(np.uint8),
        exponent=field.astype(np.uint16 if e > 8 else np.uint8),
        mantissa=mantissa.astype(np.uint64 if m > 16 else np.uint16 if m > 8 else np.uint8),
        kind=kind.astype(np.uint8),
        magnitudes=magnitudes,
        magnitude_codes=order.astype(np.uint64),
        midpoints=(magnitudes + upper) / 2,  # exact: Format keeps them above 2**-1074
        tie_up=(order if fmt.ties_to_even_code else lead) % 2 == 1,  # odd: up, to even
        spacings=upper - magnitudes,
        next_up=_neighbours(values, kind, fmt, up=True),
        next_down=_neighbours(values, kind, fmt, up=False),
    )


def _neighbours(values: np.ndarray, kind: np.ndarray, fmt: Format, *, up: bool) -> np.ndarray:
    """Code of the next value above (below) each code's value. NaN and the
    infinity in the direction stay; past the last finite value: the format's
    overflow result (NaN, or the same value in a format without NaN)."""
    ordered = np.flatnonzero(kind != _NAN)
    ordered = ordered[np.argsort(values[ordered], kind="stable")]
    distinct = np.concatenate(([True], np.diff(values[ordered]) > 0))
    sorted_values, canonical = values[ordered][distinct], ordered[distinct]
    if fmt.has_negative_zero:  # +0 is the zero neighbours land on
        canonical[sorted_values == 0] = 0
    result = np.arange(values.size, dtype=np.int64)
    finite = (kind != _NAN) & (kind != _INF)
    index = np.searchsorted(sorted_values, values, side="right" if up else "left") - (not up)
    inside = (index >= 0) & (index < sorted_values.size)
    move = (kind != _NAN) & inside
    result[move] = canonical[index[move]]
    past = finite & ~inside
    if fmt.nan_code is not None:
        result[past] = fmt.nan_code
    return result.astype(code_dtype(fmt))


def round_table(
    x: np.ndarray, fmt: Format, rounding: str, overflow: str | None = None, rng: Any = None
) -> np.ndarray:
    """Round float64 values into a tabulated format; return codes (uint64).

    See :func:`fpexplore.exact.round_real` for the conventions; ``stochastic``
    rounds up with probability (distance to the value below) / (spacing).
    """
    t = tables(fmt)
    x = np.asarray(x, dtype=np.float64)
    negative = np.signbit(x)
    nan = np.isnan(x)
    a = np.abs(x)
    n = t.magnitudes.size
    below = np.searchsorted(t.magnitudes, a, side="right") - 1  # -1: under the smallest
    at = np.maximum(below, 0)
    exact = t.magnitudes[at] == a
    away_side = ~negative if rounding == "up" else negative
    if rounding in ("toward_zero", "up", "down"):
        step = ~exact & (away_side if rounding != "toward_zero" else False)
    elif rounding == "nearest_away":
        step = a >= t.midpoints[at]
    elif rounding == "nearest_even":
        mid = t.midpoints[at]
        step = (a > mid) | ((a == mid) & t.tie_up[at])
    elif rounding == "stochastic":
        with np.errstate(invalid="ignore"):
            fraction = (a - t.magnitudes[at]) / t.spacings[at]
        step = check_rng(rng).random(a.shape) < fraction
    else:  # pragma: no cover - checked by the callers
        raise ValueError(f"unknown rounding mode {rounding!r}")
    toward_zero = rounding == "toward_zero" or (
        rounding in ("up", "down") and np.asarray(~away_side)
    )
    index = np.where(below < 0, 0, below + step)  # under the smallest: the smallest
    index = np.broadcast_to(index, a.shape)
    codes = t.magnitude_codes[np.minimum(index, n - 1)]
    big = _big_code(fmt, overflow)
    codes = np.where(index >= n, np.uint64(big), codes)
    infinite = np.isinf(a)
    if infinite.any():
        codes[infinite] = fmt.inf_code if fmt.has_infinity else big
    sign_bit = np.uint64(fmt.sign_mask)  # 0 in unsigned formats
    signed = negative & ((codes != 0) | fmt.has_negative_zero)  # fnuz, P3109: +0
    codes = np.where(signed, codes | sign_bit, codes)
    if fmt.nan_code is not None:
        no_value = nan | (below < 0) & np.broadcast_to(toward_zero, a.shape)
        if not fmt.has_zero:
            no_value |= a == 0
        if not fmt.is_signed:
            no_value |= negative & (a != 0)
        codes[no_value] = fmt.nan_code
        if fmt.nan_encoding == "fn":  # a signed 'fn' NaN keeps its sign
            codes[nan & negative] |= sign_bit
    elif nan.any():
        raise ValueError(f"{fmt.name} has no NaN encoding; cannot represent nan")
    return codes


def _big_code(fmt: Format, overflow: str | None) -> int:
    """Magnitude code of a result that overflows away from zero."""
    if overflow == "saturate" or not fmt.has_nan:
        return fmt.max_code
    if fmt.has_infinity:
        return fmt.inf_code  # type: ignore[return-value]
    return fmt.nan_code  # type: ignore[return-value]

"""Vectorized bit-level kernels on integer code arrays.

Codes are unsigned integers laid out sign | exponent | mantissa. Every kernel
here works on whole numpy arrays, in blocks so that temporaries stay small,
and is tested bit for bit against the exact reference in :mod:`fpexplore.exact`.

Examples
--------
>>> import numpy as np
>>> from fpexplore.codes import round_codes, codes_to_values
>>> codes = round_codes(np.array([1.0, 0.1, 70000.0]), "float16")
>>> [hex(c) for c in codes]
['0x3c00', '0x2e66', '0x7c00']
>>> codes_to_values(codes, "float16")
array([1.        , 0.09997559,        inf])
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import numpy as np

from .exact import check_overflow, check_rounding
from .formats import Format, get_format

__all__ = [
    "BLOCK",
    "KIND_CODES",
    "Kind",
    "classify",
    "code_dtype",
    "codes_to_values",
    "fields",
    "next_down_codes",
    "next_up_codes",
    "round_codes",
    "round_values",
]

BLOCK = 1 << 16
"""Elements per block: large enough to amortize numpy call overhead, small
enough that a block's temporaries stay in cache."""


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

_NATIVE = {"float16": np.float16, "float32": np.float32, "float64": np.float64}
_UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def code_dtype(fmt: Format) -> np.dtype:
    """The smallest unsigned integer dtype that holds a code of ``fmt``."""
    for width, dtype in _UINT.items():
        if fmt.bits <= width:
            return np.dtype(dtype)
    raise AssertionError("formats are at most 64 bits wide")  # pragma: no cover


def _field_dtype(width: int) -> np.dtype:
    for bits, dtype in _UINT.items():
        if width <= bits:
            return np.dtype(dtype)
    raise AssertionError("fields are at most 64 bits wide")  # pragma: no cover


def check_codes(codes: Any, fmt: Format) -> np.ndarray:
    """Validate an array of codes (non-negative integers below ``2**bits``)."""
    arr = np.asarray(codes)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"codes must be integers, got an array of dtype {arr.dtype}")
    if arr.size:
        low, high = int(arr.min()), int(arr.max())
        if low < 0 or high >= fmt.n_codes:
            bad = low if low < 0 else high
            raise ValueError(
                f"code {bad} is out of range for {fmt.name}; expected 0 <= code < 2**{fmt.bits}"
            )
    return arr.astype(code_dtype(fmt), copy=False)


def fields(codes: Any, fmt: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split codes into (sign, biased exponent, mantissa) arrays, each the
    smallest unsigned dtype that holds it.

    Examples
    --------
    >>> fields(np.array([0x40490FDB], dtype=np.uint32), "float32")
    (array([0], dtype=uint8), array([128], dtype=uint8), array([4788187], dtype=uint32))
    """
    fmt = get_format(fmt)
    c = check_codes(codes, fmt)
    m, e = fmt.mantissa_bits, fmt.exponent_bits
    sign = (c >> (fmt.bits - 1)).astype(np.uint8)
    exponent = ((c >> m) & ((1 << e) - 1)).astype(_field_dtype(e))
    mantissa = (c & ((1 << m) - 1)).astype(_field_dtype(max(m, 1)))
    return sign, exponent, mantissa


def classify(codes: Any, fmt: Any) -> np.ndarray:
    """The :class:`Kind` of each code, as the small integers of ``KIND_CODES``."""
    fmt = get_format(fmt)
    _, exponent, mantissa = fields(codes, fmt)
    top = (1 << fmt.exponent_bits) - 1
    kind = np.full(exponent.shape, KIND_CODES[Kind.NORMAL], dtype=np.uint8)
    kind[exponent == 0] = KIND_CODES[Kind.SUBNORMAL]
    kind[(exponent == 0) & (mantissa == 0)] = KIND_CODES[Kind.ZERO]
    if fmt.nan_encoding == "ieee":
        kind[(exponent == top) & (mantissa == 0)] = KIND_CODES[Kind.INF]
        kind[(exponent == top) & (mantissa != 0)] = KIND_CODES[Kind.NAN]
    elif fmt.nan_encoding == "fn":
        kind[(exponent == top) & (mantissa == (1 << fmt.mantissa_bits) - 1)] = KIND_CODES[Kind.NAN]
    return kind


def codes_to_values(codes: Any, fmt: Any) -> np.ndarray:
    """The float64 value of each code (exact: every value fits in float64)."""
    fmt = get_format(fmt)
    c = check_codes(codes, fmt)
    if fmt.name in _NATIVE and fmt == get_format(fmt.name):
        with np.errstate(invalid="ignore"):  # widening a signalling NaN
            return c.view(_NATIVE[fmt.name]).astype(np.float64)
    if c.ndim == 0:
        return codes_to_values(c.reshape(1), fmt).reshape(())
    sign, exponent, mantissa = fields(c, fmt)
    m = fmt.mantissa_bits
    significand = mantissa.astype(np.float64) + np.where(exponent > 0, 2.0**m, 0.0)
    scale = np.maximum(exponent.astype(np.int64), 1) - fmt.bias - m
    values = np.ldexp(significand, scale.astype(np.int32))
    kind = classify(c, fmt)
    values[kind == KIND_CODES[Kind.INF]] = np.inf
    values[kind == KIND_CODES[Kind.NAN]] = np.nan
    return np.where(sign.astype(bool), -values, values)


def _as_float64(values: Any) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind not in "fiub" or arr.dtype.kind == "b":
        raise TypeError(
            f"expected an array of real numbers, got dtype {arr.dtype}; "
            "use decode() for strings and exact inputs"
        )
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8:
        raise TypeError("long double arrays would be rounded twice; pass them to decode()")
    return arr.astype(np.float64, copy=False)


def round_codes(
    values: Any,
    fmt: Any,
    rounding: str = "nearest_even",
    *,
    overflow: str | None = None,
    rng: Any = None,
) -> np.ndarray:
    """Round float64 values into ``fmt`` and return their codes.

    Each value is rounded once, from its exact binary64 value; results match
    :func:`fpexplore.exact.round_real` bit for bit (NaN payloads included).
    """
    fmt = get_format(fmt)
    check_rounding(rounding)
    check_overflow(overflow)
    x = _as_float64(values)
    if rounding == "stochastic":
        rng = np.random.default_rng(rng)
    flat = x.reshape(-1)
    out = np.empty(flat.shape, dtype=code_dtype(fmt))
    for start in range(0, flat.size, BLOCK):
        block = slice(start, start + BLOCK)
        with np.errstate(invalid="ignore", over="ignore"):
            out[block] = _round_block(flat[block], fmt, rounding, overflow, rng)
    return out.reshape(x.shape)


def next_up_codes(codes: Any, fmt: Any) -> np.ndarray:
    """The code of the next value above each code's value (IEEE nextUp).

    +-0 go to the smallest subnormal, -smallest subnormal to -0, +inf and NaN
    stay, -inf goes to -max. Above +max: +inf in IEEE formats, NaN in 'fn'
    formats (what overflow gives there), +max again in formats with neither.
    """
    fmt = get_format(fmt)
    c = check_codes(codes, fmt).astype(np.uint64)
    sign_mask = np.uint64(fmt.sign_mask)
    negative = (c & sign_mask) != 0
    magnitude = c & ~sign_mask
    kind = classify(c, fmt)
    nan = kind == KIND_CODES[Kind.NAN]
    inf = kind == KIND_CODES[Kind.INF]
    result = np.where(negative, c - np.uint64(1), c + np.uint64(1))
    result[magnitude == 0] = 1  # both zeros
    top = (magnitude == np.uint64(fmt.max_code)) & ~negative
    if fmt.has_infinity:
        result[top] = fmt.inf_code
    elif fmt.has_nan:
        result[top] = fmt.nan_code
    else:
        result[top] = fmt.max_code
    result[inf & ~negative] = c[inf & ~negative]
    result[inf & negative] = sign_mask | np.uint64(fmt.max_code)
    result[nan] = c[nan]
    return result.astype(code_dtype(fmt))


def next_down_codes(codes: Any, fmt: Any) -> np.ndarray:
    """The code of the next value below each code's value: ``-next_up(-x)``."""
    fmt = get_format(fmt)
    flip = code_dtype(fmt).type(fmt.sign_mask)
    return next_up_codes(check_codes(codes, fmt) ^ flip, fmt) ^ flip


def _round_block(
    x: np.ndarray, fmt: Format, rounding: str, overflow: str | None, rng: Any
) -> np.ndarray:
    m = fmt.mantissa_bits
    bits64 = x.view(np.uint64)
    negative = (bits64 >> np.uint64(63)).astype(bool)
    a = np.abs(x)
    exponent = np.frexp(a)[1].astype(np.int64) - 1  # 2**exponent <= a < 2**(exponent+1)
    np.maximum(exponent, fmt.emin, out=exponent)
    scaled = np.ldexp(a, (m - exponent).astype(np.int32))  # exact; the quantum is now 1
    significand = _round_integer(scaled, negative, rounding, rng)
    carry = significand >= 2.0 ** (m + 1)
    significand[carry] *= 0.5
    exponent += carry
    sig = significand.astype(np.uint64)
    normal = sig >= np.uint64(1 << m)
    field = np.where(normal, exponent + fmt.bias, 0).astype(np.uint64)
    mantissa = np.where(normal, sig - np.uint64(1 << m), sig)
    overflowed = (field > np.uint64(fmt.max_exponent_field)) | (
        (field == np.uint64(fmt.max_exponent_field)) & (mantissa > np.uint64(fmt.max_mantissa))
    )
    code = (field << np.uint64(m)) | mantissa
    finite = np.isfinite(a)
    if overflowed.any() or not finite.all():
        code = _special_codes(code, bits64, overflowed, finite, negative, fmt, rounding, overflow)
    code |= negative.astype(np.uint64) << np.uint64(fmt.bits - 1)
    return code


def _round_integer(scaled: np.ndarray, negative: np.ndarray, rounding: str, rng: Any) -> np.ndarray:
    """Round non-negative floats to integers (as floats), by a signed rounding mode."""
    if rounding == "nearest_even":
        return np.rint(scaled)
    floor = np.floor(scaled)
    if rounding == "toward_zero":
        return floor
    if rounding == "nearest_away":
        return floor + (scaled - floor >= 0.5)
    if rounding == "stochastic":
        return floor + (rng.random(scaled.shape) < scaled - floor)
    ceil = np.ceil(scaled)
    away = negative if rounding == "down" else ~negative
    return np.where(away, ceil, floor)


def _special_codes(
    code: np.ndarray,
    bits64: np.ndarray,
    overflowed: np.ndarray,
    finite: np.ndarray,
    negative: np.ndarray,
    fmt: Format,
    rounding: str,
    overflow: str | None,
) -> np.ndarray:
    """Overwrite codes of overflowed, infinite and NaN inputs."""
    toward_zero = rounding == "toward_zero" or (
        (rounding == "up") & negative | (rounding == "down") & ~negative
    )
    if fmt.has_infinity:
        big = fmt.inf_code
    elif fmt.has_nan:
        big = fmt.nan_code
    else:
        big = fmt.max_code
    if overflow == "saturate":
        big = fmt.max_code
    replacement = np.where(toward_zero, np.uint64(fmt.max_code), np.uint64(big))
    code = np.where(overflowed & finite, replacement, code).astype(np.uint64)
    nan = np.isnan(bits64.view(np.float64))
    infinite = ~finite & ~nan
    if fmt.has_infinity:
        code[infinite] = fmt.inf_code
    else:
        code[infinite] = fmt.max_code if overflow == "saturate" or not fmt.has_nan else big
    if nan.any():
        if not fmt.has_nan:
            raise ValueError(f"{fmt.name} has no NaN encoding; cannot represent nan")
        if fmt.nan_encoding == "fn":
            code[nan] = fmt.nan_code
        else:
            m = fmt.mantissa_bits
            payload = (bits64[nan] & np.uint64((1 << 52) - 1)) >> np.uint64(52 - m)
            if m < 52:
                payload |= np.uint64(1 << (m - 1))
            code[nan] = np.uint64(fmt.inf_code) | payload
    return code


def round_values(
    values: Any,
    fmt: Any,
    rounding: str = "nearest_even",
    *,
    overflow: str | None = None,
    rng: Any = None,
) -> np.ndarray:
    """Round float64 values into ``fmt``; return the rounded values as float64."""
    fmt = get_format(fmt)
    check_rounding(rounding)
    check_overflow(overflow)
    x = _as_float64(values)
    native = _NATIVE.get(fmt.name)
    if (
        native is not None
        and fmt == get_format(fmt.name)
        and rounding == "nearest_even"
        and overflow is None
    ):
        with np.errstate(over="ignore"):
            return x.astype(native).astype(np.float64)  # numpy's casts round correctly
    return codes_to_values(round_codes(x, fmt, rounding, overflow=overflow, rng=rng), fmt)

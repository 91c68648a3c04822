"""Rounding with frexp and ldexp, for what the blocked kernels do not cover:
stochastic rounding, and formats whose normals lie below float64's."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...formats import Format
from .blocked import nan_codes


def round_block_float(
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
    if fmt.inf_code is not None:  # has_infinity
        big = fmt.inf_code
    elif fmt.nan_code is not None:  # has_nan
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
        code[nan] = nan_codes(bits64[nan], fmt) & ~np.uint64(fmt.sign_mask)
    return code

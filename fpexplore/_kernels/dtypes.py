"""Arrays the kernels take and the bit layouts they share.

Code arrays are validated into the smallest unsigned dtype that holds a code
(:func:`check_codes`); arrays of real values are checked and widened to float64
(:func:`as_float64`). The float64 masks below name the fields of a float64's
bits, and :func:`native_type` the numpy type whose casts round as a catalogue
format does.

Examples
--------
>>> from fpexplore.formats import get_format
>>> code_dtype(get_format("bfloat16"))
dtype('uint16')
>>> check_codes([0, 255], get_format("e4m3"))
array([  0, 255], dtype=uint8)
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..formats import Format, get_format

_NATIVE = {"float16": np.float16, "float32": np.float32, "float64": np.float64}
_UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}

MAGNITUDE = 0x7FFF_FFFF_FFFF_FFFF  # float64 bits without the sign
SIGN = 1 << 63
INF_BITS = 0x7FF0_0000_0000_0000
NAN_BITS = 0x7FF8_0000_0000_0000  # the canonical quiet NaN
FRACTION = (1 << 52) - 1


def code_dtype(fmt: Format) -> np.dtype:
    """The smallest unsigned integer dtype that holds a code of ``fmt``."""
    for width, dtype in _UINT.items():
        if fmt.bits <= width:
            return np.dtype(dtype)
    raise AssertionError("formats are at most 64 bits wide")  # pragma: no cover


def field_dtype(width: int) -> np.dtype:
    for bits, dtype in _UINT.items():
        if width <= bits:
            return np.dtype(dtype)
    raise AssertionError("fields are at most 64 bits wide")  # pragma: no cover


def check_codes(codes: Any, fmt: Format) -> np.ndarray:
    """Validate an array of codes (non-negative integers below ``2**bits``), in
    native byte order and the format's code dtype."""
    arr = _native_order(np.asarray(codes))
    if arr.dtype.kind not in "iu":
        raise TypeError(f"codes must be integers, got an array of dtype {arr.dtype}")
    every_pattern_valid = arr.dtype.kind == "u" and arr.dtype.itemsize * 8 <= fmt.bits
    if arr.size and not every_pattern_valid:
        low, high = int(arr.min()), int(arr.max())
        if low < 0 or high >= fmt.n_codes:
            bad = low if low < 0 else high
            raise ValueError(
                f"code {bad} is out of range for {fmt.name}; expected 0 <= code < 2**{fmt.bits}"
            )
    return arr.astype(code_dtype(fmt), copy=False)


def native_type(fmt: Format) -> Any:
    """The numpy type of a catalogue float16/32/64, else None."""
    native = _NATIVE.get(fmt.name)
    return native if native is not None and fmt == get_format(fmt.name) else None


def float_bits(x: float) -> int:
    return int(np.float64(x).view(np.uint64))


def _native_order(arr: np.ndarray) -> np.ndarray:
    """``arr`` in the machine's byte order (``'>f4'`` read as the numbers it holds)."""
    return arr if arr.dtype.isnative else arr.astype(arr.dtype.newbyteorder("="))


def real_array(values: Any) -> np.ndarray:
    """Check an array of real numbers; returned in native byte order.

    Refused with TypeError: bool, complex, str, bytes, datetime, timedelta,
    void and object arrays, and long doubles (more bits than float64)."""
    arr = _native_order(np.asarray(values))
    if arr.dtype.kind == "V" and _is_float_format(arr.dtype):
        return arr  # ml_dtypes arrays (bfloat16, FP8...): widened exactly by widen_into
    integer = _ml_integer(arr.dtype)
    if integer is not None:
        return arr.astype(integer)  # ml_dtypes' int4, uint2...: exact in a byte
    if arr.dtype.kind not in "fiu":
        raise TypeError(
            f"expected an array of real numbers, got dtype {arr.dtype}; "
            "use decode() for strings and exact inputs"
        )
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8:
        raise TypeError("long double arrays would be rounded twice; pass them to decode()")
    return arr


def _ml_integer(dtype: np.dtype) -> Any:
    """int8 or uint8 for an ml_dtypes integer type (int4, uint4, int2...), else None."""
    if dtype.kind != "V" or dtype.names is not None or "ml_dtypes" not in sys.modules:
        return None
    try:
        info = sys.modules["ml_dtypes"].iinfo(dtype)
    except (TypeError, ValueError):
        return None
    return np.int8 if info.min < 0 else np.uint8


def _is_float_format(dtype: np.dtype) -> bool:
    try:
        get_format(dtype)
    except (TypeError, ValueError):
        return False
    return True


def widen_into(out: np.ndarray, x: np.ndarray) -> None:
    """``out[...] = x`` as float64, exactly; NaNs keep their sign, quiet bit and
    payload (the hardware's float32 -> float64 conversion, and ml_dtypes', quiet
    a signalling NaN: here its bits are moved as they are, aligned to float64's
    52 fraction bits). Integers beyond 2**53 are rounded to nearest here: callers
    that need them exact use :mod:`fpexplore._kernels.integers` first."""
    with np.errstate(invalid="ignore"):
        np.copyto(out, x, casting="unsafe")
    narrow = x.dtype.kind == "V" or (x.dtype.kind == "f" and x.dtype.itemsize < 8)
    if narrow and x.size and np.isnan(out.max()):
        nan = np.isnan(out)
        out[nan] = nan_bits_to_float64(x[nan], get_format(x.dtype)).view(np.float64)


_IEEE_FIELDS = {2: (5, 10), 4: (8, 23), 8: (11, 52)}  # itemsize: exponent, fraction bits


def narrowed(values: np.ndarray, dtype: Any) -> np.ndarray:
    """float ``values`` as float16 or float32 (``dtype``), values the target holds
    exactly; NaNs keep their sign, quiet bit and top payload bits (the hardware's
    float64 -> float32 conversion quiets a signalling NaN: here its bits are moved,
    and a signalling NaN left with no payload bits gets payload 1)."""
    target = np.dtype(dtype)
    if target == values.dtype or target.type not in (np.float16, np.float32, np.float64):
        return values.astype(target)
    if values.dtype != np.float64:  # float16/32 in: widened exactly first
        wide = np.empty(values.shape, np.float64)
        widen_into(wide, values)
        values = wide
    with np.errstate(invalid="ignore", over="ignore"):
        out = values.astype(target)
    if target == np.float64 or not out.size:
        return out
    nan = np.isnan(values)
    if nan.any():
        exponent_bits, fraction_bits = _IEEE_FIELDS[target.itemsize]
        bits = values[nan].view(np.uint64)
        sign = bits >> np.uint64(63)
        kept = (bits & np.uint64(FRACTION)) >> np.uint64(52 - fraction_bits)
        kept[kept == 0] = 1  # would read as infinity
        code = (sign << np.uint64(exponent_bits + fraction_bits)) | kept
        code |= np.uint64(((1 << exponent_bits) - 1) << fraction_bits)
        out.view(_UINT[target.itemsize * 8])[nan] = code
    return out


def nan_bits_to_float64(x: np.ndarray, fmt: Format) -> np.ndarray:
    """The float64 bits of the NaNs of a narrower format: sign, then the stored
    mantissa (quiet bit and payload) moved to the top of float64's fraction; an
    'fn' NaN (which has no quiet bit) becomes the canonical quiet NaN."""
    return nan_code_bits(np.ascontiguousarray(x).view(code_dtype(fmt)), fmt)


def nan_code_bits(codes: np.ndarray, fmt: Format) -> np.ndarray:
    """The float64 bits of NaN codes of ``fmt`` (as :func:`nan_bits_to_float64`);
    an unsigned format's NaN (E8M0's 0xFF: its top bit is an exponent bit) is +NaN."""
    codes = np.asarray(codes).astype(np.uint64)
    sign = (codes >> np.uint64(fmt.bits - 1)) << np.uint64(63)
    if not fmt.is_signed:
        sign[...] = 0
    if fmt.nan_encoding != "ieee":
        return sign | np.uint64(NAN_BITS)
    fraction = codes & np.uint64((1 << fmt.mantissa_bits) - 1)
    return sign | np.uint64(INF_BITS) | (fraction << np.uint64(52 - fmt.mantissa_bits))


def as_float64(values: Any) -> np.ndarray:
    """Real values as a float64 array (see :func:`widen_into`)."""
    arr = real_array(values)
    if arr.dtype == np.float64:
        return arr
    out = np.empty(arr.shape, np.float64)
    widen_into(out, arr)
    return out

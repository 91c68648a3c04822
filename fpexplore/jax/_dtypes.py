"""The input dtypes (float32, bfloat16, float16): which formats each can hold, and
exact conversions of their bits to and from float32 bits, with integers only (a
float conversion on the CPU may flush subnormals).

Examples
--------
>>> import numpy as np
>>> from fpexplore.formats import get_format
>>> h = np.array([2**-24, -65504.0, np.inf], np.float16)
>>> bits = to_float32_bits(h)
>>> np.asarray(bits).view(np.float32).tolist()
[5.960464477539063e-08, -65504.0, inf]
>>> np.array_equal(np.asarray(from_float32_bits(bits, np.dtype(np.float16))), h)
True
>>> check_fits(get_format("bfloat16"), np.dtype(np.float16))
Traceback (most recent call last):
...
ValueError: bfloat16 has values that float16 inputs cannot hold (8 significant bits and \
exponents -133 to 127, where float16 holds 11 and -24 to 15): round float32 inputs \
instead (x.astype(jnp.float32))
"""

from __future__ import annotations

import numbers
from decimal import Decimal
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..formats import Format, get_format
from ._bits import INF, MAGNITUDE, SIGN, compose, decompose, i32, shift_right, u32

DTYPES = ("float32", "bfloat16", "float16")


def input_dtype(x: Any) -> np.dtype[Any]:
    """The dtype of an input array, which must be float32, bfloat16 or float16."""
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        raise TypeError(
            f"expected a JAX or numpy array of float32, bfloat16 or float16, got "
            f"{type(x).__name__} (make one with jnp.asarray(x, jnp.float32))"
        )
    dtype = np.dtype(dtype)
    if dtype.name not in DTYPES:
        raise TypeError(
            f"expected an array of float32, bfloat16 or float16, got dtype {dtype.name} "
            "(float64 would be rounded to float32 first: convert it explicitly)"
        )
    return dtype


def as_array(x: Any) -> Any:
    """``x`` (checked by :func:`input_dtype`) as a JAX array; a numpy array of the
    other byte order (``">f4"``) is read by its values, which JAX cannot take."""
    if isinstance(x, np.ndarray) and not x.dtype.isnative:
        x = x.astype(x.dtype.newbyteorder("="))
    return jnp.asarray(x)


def is_number(value: Any) -> bool:
    """A number the numpy functions take exactly and check (Python, Decimal, numpy
    scalar, 0-d numpy array), where a JAX value, maybe traced, cannot be checked."""
    return isinstance(value, numbers.Number | Decimal | np.generic) or (
        isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "fiu"
    )


def _smallest_exponent(fmt: Format) -> int:
    return fmt.emin - fmt.mantissa_bits if fmt.has_subnormals else fmt.emin


def check_fits(fmt: Format, dtype: np.dtype[Any]) -> None:
    """Raise ValueError unless every value of ``fmt`` is a value of ``dtype``: at most
    its mantissa bits, its largest exponent and down to its smallest subnormal."""
    holder = get_format(dtype.name)
    low, holder_low = _smallest_exponent(fmt), _smallest_exponent(holder)
    if fmt.mantissa_bits <= holder.mantissa_bits and fmt.emax <= holder.emax and low >= holder_low:
        return
    where = "float32" if dtype.name == "float32" else f"{dtype.name} inputs"
    advice = (
        "round float32 inputs instead (x.astype(jnp.float32))"
        if dtype.name != "float32"
        else "use fpexplore.round_to on a numpy array instead"
    )
    raise ValueError(
        f"{fmt.name} has values that {where} cannot hold ({fmt.mantissa_bits + 1} "
        f"significant bits and exponents {low} to {fmt.emax}, where {dtype.name} holds "
        f"{holder.mantissa_bits + 1} and {holder_low} to {holder.emax}): {advice}"
    )


def to_float32_bits(x: Any) -> Any:
    """The float32 bits (uint32) of the values of a float32, bfloat16 or float16 array,
    exactly, NaN payloads kept."""
    dtype = np.dtype(x.dtype)
    if dtype == np.float32:
        return lax.bitcast_convert_type(x, jnp.uint32)
    h = u32(lax.bitcast_convert_type(x, jnp.uint16))
    if dtype.name == "bfloat16":
        return lax.shift_left(h, u32(16))
    sign = lax.shift_left(h & u32(0x8000), u32(16))
    field = lax.shift_right_logical(h & u32(0x7C00), u32(10))
    fraction = h & u32(0x3FF)
    special = u32(INF) | lax.shift_left(fraction, u32(13))  # inf, NaN (payload kept)
    finite = compose(jnp.where(field > 0, fraction | u32(0x400), fraction),
                     jnp.maximum(i32(field), 1) - 25)  # fmt: skip
    return sign | jnp.where(field == 31, special, finite)


def from_float32_bits(bits: Any, dtype: np.dtype[Any]) -> Any:
    """An array of ``dtype`` from float32 bits whose values ``dtype`` holds exactly
    (the rounded results); a NaN keeps the top bits of its payload."""
    if dtype == np.float32:
        return lax.bitcast_convert_type(bits, jnp.float32)
    if dtype.name == "bfloat16":
        h = lax.shift_right_logical(bits, u32(16))
    else:
        a = bits & u32(MAGNITUDE)
        sig, e = decompose(jnp.minimum(a, u32(INF - 1)))
        # value = sig * 2**(e - 30): float16's quantum there is 2**(max(e, -14) - 10)
        count = shift_right(sig, jnp.maximum(e, -14) - 10 - e + 30)
        normal = lax.shift_left(u32(jnp.clip(e + 14, 0, 31)), u32(10)) + count
        finite = jnp.where(e >= -14, normal, count)  # normal: the leading bit carries in
        finite = jnp.where(a == 0, u32(0), finite)
        special = u32(0x7C00) | lax.shift_right_logical(a & u32(0x7F_FFFF), u32(13))
        h = jnp.where(a >= u32(INF), special, finite)
        h = h | lax.shift_right_logical(bits & u32(SIGN), u32(16))
    return lax.bitcast_convert_type(h.astype(jnp.uint16), dtype)

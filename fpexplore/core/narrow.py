"""The dtype of an array function's result: float64 by default, or a narrower
float dtype that holds every value of the format exactly (``dtype="narrow"``).

>>> from fpexplore.formats import get_format
>>> result_dtype(get_format("bfloat16"), "narrow"), result_dtype(get_format("e4m3"), "narrow")
(dtype('float32'), dtype('float16'))
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import codes as K
from .._kernels.dtypes import narrowed
from ..formats import Format, get_format

__all__ = ["result_dtype", "round_narrow"]


def _holds(wide: Format, fmt: Format) -> bool:
    """Whether every value of ``fmt`` (inf and NaN included) is one of ``wide``'s."""
    return (
        wide.mantissa_bits >= fmt.mantissa_bits
        and wide.emax >= fmt.emax
        and wide.emin - wide.mantissa_bits <= fmt.emin - fmt.mantissa_bits
        and (wide.has_infinity or not fmt.has_infinity)
        and (wide.has_nan or not fmt.has_nan)
    )


def result_dtype(fmt: Format, dtype: Any) -> np.dtype:
    """The dtype of :func:`round_to`'s result for its ``dtype`` argument."""
    if dtype is None:
        return np.dtype(np.float64)
    if isinstance(dtype, str) and dtype == "narrow":
        for name in ("float16", "float32"):
            if _holds(get_format(name), fmt):
                return np.dtype(name)
        return np.dtype(np.float64)
    try:
        target: np.dtype[Any] = np.dtype(dtype)
    except TypeError as error:
        raise TypeError(
            f"dtype must be None, 'narrow', a numpy float dtype or an ml_dtypes type, got {dtype!r}"
        ) from error
    if target.kind == "f" and target.itemsize <= 8:
        if not _holds(get_format(target), fmt):
            raise ValueError(f"dtype {target} cannot hold every {fmt.name} value exactly")
        return target
    if target.kind == "V" and target.itemsize * 8 >= fmt.bits:  # 4/6-bit types: one per byte
        try:
            same = get_format(target) == fmt
        except (TypeError, ValueError):
            same = False
        if same:
            return target
    raise ValueError(
        f"dtype {target} is not a float dtype that holds {fmt.name} values; expected None, "
        "'narrow', float16/float32/float64 or the format's own ml_dtypes type"
    )


@lru_cache(maxsize=64)
def _value_table(fmt: Format, dtype: np.dtype[Any]) -> NDArray[Any]:
    """The value of every code of a format of at most 8 bits, in ``dtype`` (exact)."""
    every_code = np.arange(1 << fmt.bits, dtype=K.code_dtype(fmt))
    table: NDArray[Any] = narrowed(K.codes_to_values(every_code, fmt), dtype)
    return table


def _narrow_shaped(result: NDArray[Any], values: Any) -> Any:
    """A scalar of the result's dtype for scalar input, the array otherwise."""
    return result[()] if np.ndim(values) == 0 else result


def _own_type(target: np.dtype[Any], fmt: Format) -> bool:
    """Whether ``target`` stores ``fmt`` itself (ml_dtypes' types, numpy's float16/32)."""
    if target.kind == "V":
        return True
    try:
        return target.itemsize == K.code_dtype(fmt).itemsize and get_format(target) == fmt
    except (TypeError, ValueError):
        return False


def round_narrow(
    values: Any, fmt: Format, rounding: str, overflow: str | None, rng: Any, target: np.dtype[Any]
) -> Any:
    """:func:`fpexplore.round_to`'s result in ``target``, a dtype other than float64
    (in either byte order: computed in the native one, then its bytes swapped)."""
    if not target.isnative:
        native = round_narrow(values, fmt, rounding, overflow, rng, target.newbyteorder("="))
        if np.ndim(values) == 0:
            return native  # a numpy scalar: native order, as numpy's own
        return native.byteswap().view(target)
    if _own_type(target, fmt):  # the format's own dtype: its codes, viewed (NaN bits kept)
        codes = K.round_codes(values, fmt, rounding, overflow=overflow, rng=rng)
        return _narrow_shaped(codes.view(target), values)
    if fmt.bits <= 8 and target.itemsize <= 4:  # a table of every code's value, indexed
        codes = K.round_codes(values, fmt, rounding, overflow=overflow, rng=rng)
        return _narrow_shaped(_value_table(fmt, target)[codes], values)
    wide = np.float32 if target.itemsize <= 4 and _holds(get_format("float32"), fmt) else None
    result = K.round_values(values, fmt, rounding, overflow=overflow, rng=rng, dtype=wide or "f8")
    return _narrow_shaped(narrowed(result, target), values)

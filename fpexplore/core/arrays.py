"""decode_array(): the fields of many values or codes at once, as numpy arrays.

>>> import numpy as np
>>> d = decode_array(np.array([1.0, -2.5]), "float16")
>>> [hex(c) for c in d.code]
['0x3c00', '0xc100']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .. import codes as K
from ..codes import KIND_CODES, Kind
from ..formats import FORMATS, Format, FormatLike, get_format
from ..lazy import is_dask, map_elementwise

__all__ = ["ArrayParts", "KindArray", "decode_array"]


class KindArray(np.ndarray):
    """A uint8 array of :class:`Kind` codes that compares equal to kind names.

    >>> k = decode_array(np.array([0.0, 1.0, np.inf]), "float16").kind
    >>> k == "normal"
    array([False,  True, False])
    >>> k.names()
    array(['zero', 'normal', 'inf'], dtype='<U9')
    """

    def _other(self, other: Any) -> Any:
        if isinstance(other, str):
            return KIND_CODES[Kind(other)]
        return other

    def __eq__(self, other: Any) -> Any:
        return np.equal(self.view(np.ndarray), self._other(other))

    def __ne__(self, other: Any) -> Any:
        return np.not_equal(self.view(np.ndarray), self._other(other))

    __hash__ = None

    def names(self) -> np.ndarray:
        """The kind names as a str array."""
        return np.array([k.value for k in Kind])[self.view(np.ndarray)]


@dataclass(frozen=True, eq=False)
class ArrayParts:
    """The fields of many values of one format, as numpy arrays."""

    code: np.ndarray
    sign: np.ndarray
    exponent: np.ndarray
    mantissa: np.ndarray
    kind: KindArray
    format: Format

    @cached_property
    def value(self) -> np.ndarray:
        """Stored values as float64."""
        if is_dask(self.code):
            lazy: np.ndarray = map_elementwise(K.codes_to_values, self.code, "f8", self.format)
            return lazy
        return K.codes_to_values(self.code, self.format)

    def __len__(self) -> int:
        return len(self.code)

    def __str__(self) -> str:
        """How many values of each kind, and the fields of the first and last ones."""
        from ..render.summary import arrays_table  # the documented upward import

        return str(arrays_table(self))

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        from ..render.summary import arrays_table

        return arrays_table(self)._repr_html_()


def decode_array(
    values_or_codes: Any, fmt: FormatLike = "float64", *, codes: bool | None = None
) -> ArrayParts:
    """Decode many values (float arrays, rounded to ``fmt`` to nearest-even) or
    codes (integer arrays) at once.

    Parameters
    ----------
    values_or_codes : array_like
        Floats are values; unsigned/signed integers are bit patterns, unless
        ``codes=False`` says they are values. A dask array gives an
        :class:`ArrayParts` of dask arrays (``kind`` a plain uint8 array of
        :data:`fpexplore.codes.KIND_CODES`), computed chunk by chunk.
    fmt : format spec, default "float64"
        Anything :func:`fpexplore.get_format` reads.
    codes : bool, optional
        ``True``: the integers are bit patterns; ``False``: they are values. By
        default integer arrays are bit patterns and the others values.

    Examples
    --------
    >>> d = decode_array(np.array([3.14159], dtype=np.float32), "float32")
    >>> d.sign, d.exponent, d.mantissa
    (array([0], dtype=uint8), array([128], dtype=uint8), array([4788176], dtype=uint32))
    """
    fmt = get_format(fmt)
    if is_dask(values_or_codes):
        return _lazy_parts(values_or_codes, fmt, codes)
    arr = np.asarray(values_or_codes)
    as_codes = arr.dtype.kind in "iu" if codes is None else codes
    if as_codes:
        code = K.check_codes(arr, fmt)
    elif arr.dtype.isnative and arr.dtype.name == fmt.name and fmt == FORMATS.get(fmt.name):
        code = arr.view(K.code_dtype(fmt))
    else:
        code = K.round_codes(arr, fmt)
    sign, exponent, mantissa, kind = K.split_codes(code, fmt)  # one blocked pass
    return ArrayParts(code, sign, exponent, mantissa, kind.view(KindArray), fmt)


def _field(code: np.ndarray, fmt: Format, index: int) -> np.ndarray:
    return np.asarray(K.split_codes(code, fmt)[index])


def _codes_of(chunk: np.ndarray, fmt: Format, codes: bool | None) -> np.ndarray:
    return decode_array(chunk, fmt, codes=codes).code


def _lazy_parts(x: Any, fmt: Format, codes: bool | None) -> ArrayParts:
    """decode_array of a dask array: codes, then each field, chunk by chunk."""
    code = map_elementwise(_codes_of, x, K.code_dtype(fmt), fmt, codes)
    empty = K.split_codes(np.empty(0, K.code_dtype(fmt)), fmt)
    fields = [map_elementwise(_field, code, empty[i].dtype, fmt, i) for i in range(4)]
    sign, exponent, mantissa, kind = fields
    return ArrayParts(code, sign, exponent, mantissa, kind, fmt)

"""FormatArray: an array on a format's grid that unchanged numpy code computes with.

Values travel as float64 (every value of every format is a float64): rounded
into the format once on the way in, then each ufunc call goes through
:meth:`FormatArray.__array_ufunc__` to the arithmetic kernels and comes back
rounded once, with a :class:`~fpexplore.array.ops.records.Record` of its flags.
Reductions and products go through :mod:`.ops.reduce` and :mod:`.ops.products`; other
numpy functions through :mod:`.functions` (``__array_function__``).

Two FormatArrays of different formats are refused with a ``TypeError`` that
names both: round one into the other's format first (``FormatArray(y, x.format)``),
so that every conversion is written down. Python numbers and plain arrays
are rounded into the format (``rounding``; to nearest for ``stochastic``),
flagged ``inexact`` (or ``overflow``) where they move.

>>> import numpy as np
>>> x = FormatArray([1.0, 2.0, 3.0], "bfloat16")
>>> y = x / 3
>>> y
FormatArray([0.333984375, 0.66796875, 1.0], bfloat16)
>>> sorted(y.flags), y.flag_counts["inexact"]
(['inexact'], 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from .. import codes as K
from .base import ArrayBase, check_same, conversion_record, round_in
from .calls import call, ufunc_method
from .functions import dispatch
from .html import format_array_html
from .ops.flags import count_mask
from .ops.records import Record

__all__ = ["FormatArray"]


class FormatArray(ArrayBase, NDArrayOperatorsMixin):
    """An array of values of ``fmt`` whose every numpy operation is rounded into it.

    Parameters
    ----------
    values : array_like, FormatArray, or anything :func:`fpexplore.round_to` takes
        Rounded once into ``fmt`` (exactly, with ``rounding``); strings and
        Fractions are taken exactly, as :func:`fpexplore.decode` takes them.
    fmt : str, Format or dtype
    rounding : str
        The mode of every operation: ``nearest_even`` (default), ``nearest_away``,
        ``toward_zero``, ``up``, ``down`` or ``stochastic`` (with ``rng``).
    overflow : None or "saturate"
        None follows the format's convention; ``"saturate"`` clamps to +-max.
    accumulate : str, Format or None
        The accumulator's format of sums, means, products and ``@``/``dot``/
        ``einsum`` (default: ``fmt``); each addition is rounded into it, and the
        result rounded once into ``fmt``.
    order : None, "sequential", "pairwise", "kahan" or "numpy"
        The order of the additions of a sum or dot product, as :func:`fpexplore.sum`
        (None: ``sequential``; ``numpy``: numpy's own pairwise order, so that
        ``np.sum`` of float32 data in ``FormatArray(x, "float32", order="numpy")``
        is numpy's float32 sum bit for bit). ``cumsum`` is always sequential.
    rng : numpy Generator or seed, optional
        Randomness for ``stochastic``; one Generator shared by the results, so a
        computation is reproducible given the seed.

    Attributes
    ----------
    format : Format
    flags : frozenset of str
        The flags the operation that made this array raised (any element).
    flag_counts : dict of str to int
        For each flag, how many of that operation's elementary roundings raised it.

    Notes
    -----
    ``np.asarray(x)`` gives the float64 values. Elementwise operations equal
    ``fpx.add``, ``fpx.mul``... on the same arrays element for element; ``sum``
    and ``dot`` equal :func:`fpexplore.sum` and :func:`fpexplore.dot` (rounded into
    ``fmt`` when ``accumulate`` is another format). Functions that cannot be
    computed operation by operation (``np.linalg``, FFTs) raise ``TypeError``.

    Examples
    --------
    >>> import numpy as np
    >>> x = FormatArray(np.arange(4.0), "float16")
    >>> sorted(np.exp(x * 4).flags)
    ['inexact', 'overflow']
    >>> float(FormatArray(np.ones(4096), "float16").sum())  # stalls at 2048
    2048.0
    """

    __array_priority__ = 100

    @property
    def T(self) -> FormatArray:
        return self._new(self._values.T, None)

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Any:
        return (self[i] for i in range(len(self)))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        wide = K.as_float64(self._values)  # float64, NaN bits kept
        values = wide if dtype is None else wide.astype(dtype)
        return values.copy() if copy and values is self._values else values

    def __float__(self) -> float:
        return float(self._values)

    def __int__(self) -> int:
        return int(self._values)

    def __bool__(self) -> bool:
        return bool(self._values)

    def tolist(self) -> Any:
        return self._values.tolist()

    def item(self, *args: Any) -> float:
        return float(self._values.item(*args))

    def copy(self) -> FormatArray:
        return self._new(self._values.copy(), self._record)

    def reshape(self, *shape: Any, **kwargs: Any) -> FormatArray:
        return self._new(self._values.reshape(*shape, **kwargs), None)

    def ravel(self) -> FormatArray:
        return self._new(self._values.ravel(), None)

    flatten = ravel

    def transpose(self, *axes: Any) -> FormatArray:
        return self._new(self._values.transpose(*axes), None)

    def astype(self, dtype: Any) -> np.ndarray:
        """The values as a plain numpy array of ``dtype`` (leaving the format)."""
        return self._values.astype(dtype)

    # --- indexing -----------------------------------------------------------------
    def __getitem__(self, key: Any) -> FormatArray:
        key = _plain_key(key)
        values = self._values[key]
        record = None
        if self._record is not None:
            parent, index = self._record, np.arange(self.size).reshape(self.shape)[key]
            record = Record(
                parent.label,
                np.shape(values),
                lambda: _sliced(parent, key),
                lambda i: parent.explain(int(np.asarray(index).reshape(-1)[i])),
            )
        return self._new(np.asarray(values), record)

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(value, FormatArray):
            check_same(self, value)
            new, mask = value._values, 0
        else:
            new, mask = round_in(value, self._format, self._rounding, self._overflow, self._rng)
        self._values[_plain_key(key)] = new
        self._record = conversion_record(mask, np.shape(new), "assignment")

    # --- numpy protocols ----------------------------------------------------------
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method == "__call__":
            return call(self, ufunc, inputs, kwargs)
        return ufunc_method(self, ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return dispatch(self, func, args, kwargs)

    def sum(self, axis: Any = None, **kwargs: Any) -> Any:
        return np.sum(self, axis=axis, **kwargs)

    def mean(self, axis: Any = None, **kwargs: Any) -> Any:
        return np.mean(self, axis=axis, **kwargs)

    def cumsum(self, axis: Any = None, **kwargs: Any) -> Any:
        return np.cumsum(self, axis=axis, **kwargs)

    def prod(self, axis: Any = None, **kwargs: Any) -> Any:
        return np.prod(self, axis=axis, **kwargs)

    def var(self, axis: Any = None, **kwargs: Any) -> Any:
        return np.var(self, axis=axis, **kwargs)

    def std(self, axis: Any = None, **kwargs: Any) -> Any:
        return np.std(self, axis=axis, **kwargs)

    def max(self, axis: Any = None, **kwargs: Any) -> Any:
        return np.max(self, axis=axis, **kwargs)

    def min(self, axis: Any = None, **kwargs: Any) -> Any:
        return np.min(self, axis=axis, **kwargs)

    def argmax(self, axis: Any = None) -> Any:
        return np.argmax(self._values, axis=axis)

    def argmin(self, axis: Any = None) -> Any:
        return np.argmin(self._values, axis=axis)

    def dot(self, other: Any) -> Any:
        return np.dot(self, other)

    # --- display --------------------------------------------------------------------
    def __repr__(self) -> str:
        values = self._values.tolist()
        return f"FormatArray({values!r}, {self._format.name})"

    def __str__(self) -> str:
        return f"{np.asarray(self)} ({self._format.name})"

    def _repr_html_(self) -> str:
        return format_array_html(self)


def _plain_key(key: Any) -> Any:
    if isinstance(key, FormatArray):
        return key._values
    if isinstance(key, tuple):
        return tuple(k._values if isinstance(k, FormatArray) else k for k in key)
    return key


def _sliced(parent: Record, key: Any) -> tuple[np.ndarray, dict[str, int]]:
    mask = np.broadcast_to(parent.result()[0], parent.shape)[key]
    return np.asarray(mask), count_mask(np.asarray(mask))

"""numpy functions on FormatArrays (``__array_function__``): which are emulated, and how.

* reductions and products: ``sum``, ``mean``, ``cumsum``, ``prod``, ``var``,
  ``std`` (two passes: the mean, then the sum of the squared deviations divided by
  ``n - ddof``, each operation rounded), ``dot``, ``matmul``, ``inner``, ``vdot``, ``einsum``,
  ``tensordot``, ``median`` (sorted, then the two middle values' mean rounded);
* exact selections and rearrangements (the values stay on the grid): ``max``,
  ``min``, ``sort``, ``where``, ``clip``, ``concatenate``, ``stack``,
  ``reshape``, ``transpose`` and the others of :data:`STRUCTURAL`, with plain
  arrays among the arguments rounded in; ``argmax`` and friends give plain arrays;
* anything else (``np.linalg.*``, ``np.fft.*``, ``np.percentile``,
  ``np.convolve``...) raises ``TypeError`` naming the function: convert with
  ``np.asarray(x)`` to compute in float64 and round the result back, or write the
  computation with FormatArray operations.

>>> import numpy as np
>>> from fpexplore.array.core import FormatArray
>>> try:
...     np.linalg.inv(FormatArray(np.eye(2), "float16"))
... except TypeError as error:
...     print(str(error)[:55])
np.linalg.inv cannot be emulated operation by operation
"""

from __future__ import annotations

import inspect
import numbers
from typing import Any

import numpy as np

from .base import ArrayBase, operands
from .ops.einsum import einsum, tensordot_subscripts
from .ops.products import matmul
from .ops.reduce import reduction

__all__ = ["PLAIN_RESULT", "STRUCTURAL", "dispatch"]

STRUCTURAL = {
    np.reshape, np.transpose, np.swapaxes, np.moveaxis, np.concatenate, np.stack,
    np.vstack, np.hstack, np.column_stack, np.squeeze, np.expand_dims, np.broadcast_to,
    np.ravel, np.flip, np.roll, np.tile, np.repeat, np.diag, np.diagonal, np.tril,
    np.triu, np.take, np.take_along_axis, np.sort, np.where, np.copy, np.atleast_1d,
    np.atleast_2d, np.max, np.amax, np.min, np.amin, np.nanmax, np.nanmin, np.clip,
    np.zeros_like, np.ones_like, np.full_like, np.empty_like, np.split, np.array_split,
    np.fliplr, np.flipud, np.rot90, np.append, np.delete, np.insert, np.select,
}  # fmt: skip
"""Functions whose results are values of the inputs (or rounded-in constants)."""

PLAIN_RESULT = {
    np.argmax, np.argmin, np.argsort, np.nonzero, np.count_nonzero, np.any, np.all,
    np.isclose, np.allclose, np.array_equal, np.shape, np.ndim, np.size, np.argwhere,
    np.flatnonzero, np.searchsorted, np.unique,
}  # fmt: skip
"""Functions that give plain numpy results (indices, booleans, shapes)."""


def _unwrap(x: Any, like: Any) -> Any:
    if isinstance(x, ArrayBase):
        return operands(like, (x,))[0][0]
    if isinstance(x, list | tuple):
        return type(x)(_unwrap(v, like) for v in x)
    return x


def _rounded(x: Any, like: Any) -> Any:
    """Arrays among the arguments as values of ``like``'s format."""
    if isinstance(x, ArrayBase) or (isinstance(x, np.ndarray) and x.dtype.kind in "fiu"):
        return operands(like, (x,))[0][0]
    if isinstance(x, list | tuple) and x and isinstance(x[0], ArrayBase | np.ndarray):
        return type(x)(_rounded(v, like) for v in x)
    return x


def _wrap(result: Any, like: Any) -> Any:
    from .. import codes as K

    if isinstance(result, list | tuple):
        return type(result)(_wrap(r, like) for r in result)
    values = np.asarray(K.round_values(np.asarray(result, np.float64), like.format))
    return like._new(values, None)


def _as_array(like: Any, x: Any) -> Any:
    """``x`` as a FormatArray of ``like``'s format (a plain array rounded in)."""
    return x if isinstance(x, ArrayBase) else like._new(operands(like, (x,))[0][0], None)


def _two(like: Any, a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    xs, _ = operands(like, (a, b))
    return xs[0], xs[1]


def _mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """The sum divided by the count, both in the format: ``x.sum() / n``."""
    count = int(np.prod([x.shape[a] for a in _axes_of(x.ndim, axis)]))
    return reduction(x, "sum", axis, keepdims) / count


def _axes_of(ndim: int, axis: Any) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    return tuple(int(a) % max(ndim, 1) for a in (axis if isinstance(axis, tuple) else (axis,)))


def _var(like: Any, x: Any, axis: Any = None, ddof: Any = 0, keepdims: bool = False) -> Any:
    """Two passes, each operation rounded: the mean, then the sum of the squared
    deviations divided by ``n - ddof`` (numpy's divisor, zero when ``ddof >= n``)."""
    if isinstance(ddof, bool) or not isinstance(ddof, numbers.Real):
        raise TypeError(f"np.var/np.std: ddof must be a real number, got {ddof!r}")
    x = _as_array(like, x)
    count = int(np.prod([x.shape[a] for a in _axes_of(x.ndim, axis)]))
    deviation = x - _mean(x, axis, keepdims=True)
    divisor = max(count - float(ddof), 0.0)
    return reduction(deviation * deviation, "sum", axis, keepdims) / divisor


def _var_arguments(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """``np.var``/``np.std``'s arguments by name (positional ones too); the ones that
    cannot be emulated refused by name."""
    bound = inspect.signature(func).bind(*args, **kwargs).arguments
    if "correction" in bound:  # the Array API's name of ddof (numpy 2)
        if bound.get("ddof", 0) != 0:
            raise ValueError(f"np.{func.__name__}: give ddof or correction, not both")
        bound["ddof"] = bound.pop("correction")
    refused = [k for k in ("dtype", "out", "where", "mean") if bound.get(k) is not None]
    if "where" in refused and bound["where"] is True:
        refused.remove("where")
    if refused:
        raise TypeError(
            f"np.{func.__name__} on a FormatArray takes axis=, ddof= and keepdims= only, "
            f"not {', '.join(k + '=' for k in refused)}"
        )
    return bound


def _median(like: Any, x: Any, axis: Any = None) -> Any:
    values = np.sort(
        x._values.reshape(-1) if axis is None else x._values, axis=-1 if axis is None else axis
    )
    ax = 0 if axis is None else axis
    n = values.shape[ax]
    lo, hi = np.take(values, (n - 1) // 2, axis=ax), np.take(values, n // 2, axis=ax)
    two = like._new(np.asarray(lo), None), like._new(np.asarray(hi), None)
    return (two[0] + two[1]) / 2


def dispatch(like: Any, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The FormatArray version of ``func(*args, **kwargs)`` (see the module)."""
    first = next((a for a in _flat(args) if isinstance(a, ArrayBase)), like)
    simple = {np.sum: "sum", np.mean: "mean", np.cumsum: "cumsum", np.prod: "prod"}
    if func in simple:
        unsupported = {
            k for k, v in kwargs.items() if k not in ("axis", "keepdims") and v is not None
        }
        if (
            unsupported - {"dtype", "out"}
            or kwargs.get("dtype") is not None
            or kwargs.get("out") is not None
        ):
            raise TypeError(f"np.{func.__name__} on a FormatArray takes axis= and keepdims= only")
        x = _as_array(first, args[0])
        axis = kwargs.get("axis", args[1] if len(args) > 1 else None)
        if simple[func] == "cumsum":
            return reduction(x, "cumsum", axis)
        if simple[func] == "mean":
            return _mean(x, axis, bool(kwargs.get("keepdims", False)))
        return reduction(x, simple[func], axis, bool(kwargs.get("keepdims", False)))
    if func in (np.var, np.std):
        named = _var_arguments(func, args, kwargs)
        v = _var(first, named["a"], named.get("axis"), named.get("ddof", 0),
                 bool(named.get("keepdims", False)))  # fmt: skip
        return np.sqrt(v) if func is np.std else v
    if func is np.median:
        return _median(first, args[0], kwargs.get("axis"))
    if func in (np.dot, np.matmul, np.inner, np.vdot):
        a, b = _two(first, args[0], args[1])
        if func is np.vdot:
            a, b = a.reshape(-1), b.reshape(-1)
        if func in (np.inner, np.vdot) or (a.ndim <= 2 and b.ndim <= 2) or func is np.matmul:
            if func is np.inner and b.ndim >= 2:
                b = np.swapaxes(b, -1, -2)
            if a.ndim == 0 or b.ndim == 0:
                return first._new(a, None) * first._new(b, None)
            return matmul(first, a, b)
        return einsum(first, tensordot_subscripts(a.ndim, b.ndim, ([-1], [-2])), [a, b])
    if func is np.einsum:
        arrays = [_two(first, a, a)[0] for a in args[1:]]
        return einsum(first, args[0], arrays)
    if func is np.tensordot:
        a, b = _two(first, args[0], args[1])
        axes = kwargs.get("axes", args[2] if len(args) > 2 else 2)
        return einsum(first, tensordot_subscripts(a.ndim, b.ndim, axes), [a, b])
    if func in PLAIN_RESULT:
        return func(*_unwrap(args, first), **kwargs)
    if func in STRUCTURAL:
        rounded = tuple(_rounded(a, first) for a in args)
        if func is np.where and len(rounded) == 3:
            rounded = (_unwrap(args[0], first), *rounded[1:])
        return _wrap(func(*rounded, **{k: _rounded(v, first) for k, v in kwargs.items()}), first)
    module = getattr(func, "__module__", "numpy") or "numpy"
    where = module.replace("numpy.linalg", "np.linalg").replace("numpy.fft", "np.fft")
    name = f"{where}.{func.__name__}" if where.startswith("np.") else f"np.{func.__name__}"
    raise TypeError(
        f"{name} cannot be emulated operation by operation in {first.format.name}: "
        "convert with np.asarray(x) to compute it in float64 (and round the result with "
        "fpx.FormatArray(result, fmt), one rounding), or write it with FormatArray "
        "operations (+ - * /, sqrt, sum, @) so that every step is rounded"
    )


def _flat(args: Any) -> Any:
    for a in args:
        if isinstance(a, list | tuple):
            yield from _flat(a)
        else:
            yield a

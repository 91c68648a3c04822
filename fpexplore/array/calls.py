"""One ufunc call on FormatArrays: inputs into the format, the kernels, ``where=`` and ``out=``.

A ufunc's methods (``np.add.reduce``, ``np.add.accumulate``...) go to the reductions
(:func:`ufunc_method`).

``out=`` must be a FormatArray of the same format and of the result's shape,
checked before anything is computed or written; with ``where=``, only the
selected elements are computed (and flagged), the others keep ``out``'s values
(or are 0 without ``out``).

>>> import numpy as np
>>> from fpexplore.array.core import FormatArray
>>> x = FormatArray([1.0, 2.0], "float16")
>>> np.add(x, 1, where=np.array([True, False])).tolist()
[2.0, 0.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import codes as K
from .base import ArrayBase, operands
from .ops import fast
from .ops.elementwise import BASIC, compute, integer_power, kind_of
from .ops.records import ElementRecord, Record
from .ops.reduce import reduction

__all__ = ["call", "ufunc_method"]


def _out_target(like: ArrayBase, kwargs: dict[str, Any], shape: tuple[int, ...]) -> Any:
    out = kwargs.pop("out", None)
    if out is None:
        return None
    if isinstance(out, tuple):
        if len(out) != 1:
            raise TypeError(f"out= takes one array here, got {len(out)}")
        out = out[0]
    if out is None:
        return None
    if not isinstance(out, ArrayBase):
        raise TypeError(
            f"out= must be a FormatArray of {like.format.name}, got {type(out).__name__}"
        )
    if out.format != like.format:
        raise TypeError(
            f"out= is a FormatArray of {out.format.name}; expected {like.format.name} "
            "(nothing was written)"
        )
    if out.shape != shape:
        raise ValueError(f"out= has shape {out.shape}; expected {shape} (nothing was written)")
    return out


def call(like: ArrayBase, ufunc: Any, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if ufunc is np.matmul:
        from .functions import dispatch

        if set(kwargs) - {"out"} or kwargs.get("out") is not None:
            raise TypeError("np.matmul on FormatArrays: no out=, axes= or dtype=")
        return dispatch(like, np.matmul, inputs, {})
    kind = kind_of(ufunc)
    if kind is None:
        raise TypeError(
            f"np.{ufunc.__name__} is not emulated in {like.format.name}: convert with "
            "np.asarray(x) to compute it in float64, then round back with "
            "fpx.FormatArray(result, fmt)"
        )
    kwargs = dict(kwargs)
    where = kwargs.pop("where", True)
    for key in ("casting", "order", "subok"):
        kwargs.pop(key, None)
    if kwargs.get("dtype") is not None:
        raise TypeError(f"np.{ufunc.__name__}: dtype= is not supported on a FormatArray")
    kwargs.pop("dtype", None)
    out_given = kwargs.pop("out", None)
    fmt, rounding, overflow, rng = like.format, like.rounding, like._overflow, like._rng
    if kind == "power":
        exponent = inputs[1]
        integral = (
            not isinstance(exponent, ArrayBase)
            and np.ndim(exponent) == 0
            and float(exponent) == int(float(exponent))
        )
        if integral:
            xs, conv = operands(like, inputs[:1])
            inputs, n = inputs[:1], int(float(exponent))
        else:
            kind = "transcendental"
    if kind != "power":
        xs, conv = operands(like, inputs)
    if kwargs:
        raise TypeError(f"np.{ufunc.__name__}: unsupported keyword(s) {', '.join(kwargs)}")
    shape = np.broadcast_shapes(*(x.shape for x in xs))
    if kind == "plain":
        if out_given is not None:
            return ufunc(*xs, out=out_given, where=where)
        return ufunc(*xs, where=where) if where is not True else ufunc(*xs)
    out = _out_target(like, {"out": out_given}, shape)
    select = None if where is True else np.broadcast_to(np.asarray(where, bool), shape)
    if select is not None:
        xs = [np.broadcast_to(x, shape)[select] for x in xs]
        conv = [c if isinstance(c, int) else _selected(c, shape, select) for c in conv]
    exact_values = None
    name = ufunc.__name__
    nearest = rounding == "nearest_even" and overflow is None
    if kind == "square":
        kind, xs, conv = "basic", xs + xs, conv + conv
        name = "mul"
    elif kind == "reciprocal":
        kind, xs, conv = "basic", [np.ones_like(xs[0]), xs[0]], [0, *conv]
        name = "div"
    elif kind == "basic":
        name = BASIC[ufunc]
    if kind == "basic":
        values = fast.basic(name, xs, fmt) if nearest else None
        if values is None:
            values = compute("basic", name, _wide(xs), fmt, rounding, overflow, rng)
    elif kind == "power":
        values, exact_values = integer_power(_wide(xs)[0], n, fmt, rounding, overflow, rng)
        kind, name = "rounded", f"power(x, {n})"
        if exact_values is None:
            kind = "exact"
    elif kind == "transcendental":
        values = fast.table(name, xs, fmt, rounding, overflow)
        if values is None and nearest:
            values = fast.transcendental(name, xs, fmt)
        if values is None:
            values = compute("transcendental", name, _wide(xs), fmt, rounding, overflow, rng)
    else:  # exact
        with np.errstate(all="ignore"):
            values = K.round_values(np.asarray(ufunc(*xs), np.float64), fmt)
    values = np.asarray(values, like._values.dtype)
    if out is not None:  # the record keeps its operands: not the buffer written into
        xs = [x.copy() if np.may_share_memory(x, out._values) else x for x in xs]
    record: Record = ElementRecord(
        ufunc.__name__, name, kind, xs, conv, values, fmt, rounding, overflow, exact_values
    )
    if select is not None:
        full = np.zeros(shape, values.dtype) if out is None else out._values.copy()
        full[select] = values
        values = full
        record = _where_record(record, select, shape)
    if out is None:
        return like._new(values.reshape(shape), record)
    out._values[...] = values
    out._record = record
    return out


def _wide(xs: list[np.ndarray]) -> list[np.ndarray]:
    return [K.as_float64(x) for x in xs]  # NaN bits kept


def _selected(mask: Any, shape: tuple[int, ...], select: np.ndarray) -> Any:
    def compute() -> np.ndarray:
        m = mask() if callable(mask) else mask
        return np.broadcast_to(np.asarray(m, np.uint8), shape)[select]

    return compute


def _where_record(inner: Record, select: np.ndarray, shape: tuple[int, ...]) -> Record:
    def compute_mask() -> tuple[np.ndarray, dict[str, int]]:
        mask, counts = inner.result()
        full = np.zeros(shape, np.uint8)
        full[select] = mask
        return full, counts

    positions = np.flatnonzero(select.reshape(-1))
    return Record(
        inner.label,
        shape,
        compute_mask,
        lambda i: inner.explain(int(np.searchsorted(positions, i))),
    )


def ufunc_method(
    x: Any, ufunc: Any, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """``np.add.reduce``, ``np.add.accumulate``, ``np.multiply.reduce``,
    ``np.maximum.reduce``/``np.minimum.reduce``; other ufunc methods raise TypeError."""
    target = inputs[0]
    if not isinstance(target, ArrayBase):
        raise TypeError(f"np.{ufunc.__name__}.{method}: expected a FormatArray to reduce")
    axis = kwargs.get("axis", 0)
    keepdims = bool(kwargs.get("keepdims", False))
    if method == "reduce" and ufunc is np.add:
        return reduction(target, "sum", axis, keepdims)
    if method == "reduce" and ufunc is np.multiply:
        return reduction(target, "prod", axis, keepdims)
    if method == "accumulate" and ufunc is np.add:
        return reduction(target, "cumsum", axis if axis is not None else 0)
    if method == "reduce" and ufunc in (np.maximum, np.minimum, np.fmax, np.fmin):
        return target._new(
            np.asarray(ufunc.reduce(target._values, axis=axis, keepdims=keepdims)), None
        )
    raise TypeError(
        f"np.{ufunc.__name__}.{method} is not emulated on a FormatArray: use np.asarray(x) "
        "to compute it in float64"
    )

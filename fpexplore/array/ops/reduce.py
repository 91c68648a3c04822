"""Reductions of a FormatArray: sum, mean, cumsum and prod (``np.add.reduce`` too).

``sum`` rounds each term into the accumulator's format (``accumulate``; the
array's format by default), adds in the array's ``order`` with every addition
rounded (in the array's rounding mode), then rounds the sum once into the
array's format: to nearest even this is ``fpx.sum(values, fmt,
accumulate=acc, order=order).value`` rounded into ``fmt``. ``mean`` is that sum
divided by the count in the format, as ``x.sum() / n`` computes it (so it equals
``fpx.div(fpx.sum(...).value, n, fmt)``).
``cumsum`` is sequential, each partial sum rounded into the accumulator's format
(and each output into the array's). ``prod`` multiplies in sequence, each product
rounded into the accumulator's format. The flags count every addition (or
product) and the final roundings; they are computed when first read, by running
the reduction again with flags on (the same values: a stochastic run replays a
copy of its generator).

>>> import numpy as np
>>> from fpexplore.array.core import FormatArray
>>> x = FormatArray(np.full(10000, 0.1), "bfloat16")
>>> float(x.sum()), float(FormatArray(x, "bfloat16", accumulate="float32").sum())
(32.0, 1000.0)
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import codes as K
from ...exact import FLAGS
from ...formats import Format
from .accumulate import accumulate_axis, adder
from .flags import conversion_mask, count_mask
from .records import Record

__all__ = ["reduction"]


def _axes(ndim: int, axis: Any) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(int(a) % max(ndim, 1) for a in axes))


def _to_front(values: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, tuple[int, ...]]:
    """``values`` with the reduced axes flattened into axis 0 (C order) and the shape kept."""
    rest = [a for a in range(values.ndim) if a not in axes]
    moved = np.transpose(values, list(axes) + rest)
    kept = tuple(values.shape[a] for a in rest)
    return moved.reshape((-1, *kept)), kept


def _keep(result: np.ndarray, shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> Any:
    if not keepdims:
        return result
    return result.reshape(tuple(1 if a in axes else n for a, n in enumerate(shape)))


def into(
    values: np.ndarray,
    target: Format,
    source: Format,
    rounding: str,
    overflow: Any,
    rng: Any,
    flags: bool = True,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Values of ``source`` rounded into ``target`` and the mask of doing so (None when
    ``target`` is ``source``)."""
    if target == source:
        return values, None
    mode = "nearest_even" if rounding == "stochastic" and rng is None else rounding
    stored = K.round_values(values, target, mode, overflow=overflow, rng=rng)
    if not flags:
        return stored, None
    mask = np.asarray(conversion_mask(values, stored, target, mode), np.uint8)
    return stored, np.broadcast_to(mask, np.shape(values))


def reduction(x: Any, kind: str, axis: Any = None, keepdims: bool = False) -> Any:
    """``sum``, ``cumsum`` or ``prod`` of a FormatArray along ``axis``."""
    fmt, acc, order = x.format, x.accumulate, x.order
    rounding, overflow = x.rounding, x._overflow
    values = x._values
    axes: tuple[int, ...]
    if kind == "cumsum" and axis is None:
        values, axes = values.reshape(-1), (0,)
    else:
        axes = _axes(values.ndim, axis)
    if kind == "cumsum":
        moved = np.moveaxis(values, axes[0], 0)
        kept = moved.shape[1:]
    else:
        moved, kept = _to_front(values, axes)
    n = moved.shape[0]
    state = copy.deepcopy(x._rng) if rounding == "stochastic" else None

    def run(flags: bool, rng: Any) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
        terms, conv = into(moved, acc, fmt, rounding, overflow, rng, flags)
        counts = dict.fromkeys(FLAGS, 0)
        if flags and conv is not None:
            _add_counts(counts, count_mask(conv))
        if kind in ("cumsum", "prod"):
            out, m, c = _cumulative(terms, acc, rounding, overflow, rng, flags, kind)
            if flags and conv is not None:
                m = m | conv
            if kind == "prod":
                out = out[-1] if n else np.ones(kept)
                m = np.bitwise_or.reduce(m, axis=0) if n else np.zeros(kept, np.uint8)
        else:
            out, m, c = accumulate_axis(terms, acc, order, rounding, overflow, rng, flags)
            if flags and conv is not None and n:
                m = m | np.bitwise_or.reduce(conv, axis=0)
        _add_counts(counts, c)
        final, last = into(out, fmt, acc, rounding, overflow, rng, flags)
        if flags and last is not None:
            m = m | last
            _add_counts(counts, count_mask(last))
        return np.asarray(final, np.float64), np.asarray(m, np.uint8), counts

    result, _, _ = run(False, x._rng)
    if kind == "cumsum":
        result = np.moveaxis(result, 0, axes[0])
        if axis is None:
            result = result.reshape(-1)
    else:
        result = _keep(result, values.shape, axes, keepdims)
    shape = np.shape(result)

    def flags_of() -> tuple[np.ndarray, dict[str, int]]:
        _, mask, counts = run(True, copy.deepcopy(state))
        if kind == "cumsum":
            mask = np.moveaxis(mask, 0, axes[0])
        return mask.reshape(shape), counts

    explain: Callable[[int], Any] | None = None
    if kind == "sum":
        explain = lambda i: _explain_sum(moved, kept, i, fmt, acc, order)  # noqa: E731
    record = Record(f"np.{kind}", shape, flags_of, explain)
    return x._new(np.asarray(result, np.float64), record)


def _add_counts(counts: dict[str, int], more: dict[str, int]) -> None:
    for k, v in more.items():
        counts[k] += v


def _cumulative(
    terms: np.ndarray, acc: Format, rounding: str, overflow: Any, rng: Any, flags: bool, kind: str
) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Running sums (or products) along axis 0, each rounded into ``acc``; the mask of
    each step's operation."""
    op = "mul" if kind == "prod" else "add"
    shape = terms.shape
    terms = terms.reshape(shape[0], int(np.prod(shape[1:])))
    add = adder(acc, rounding, overflow, rng, flags, terms.shape[1:])
    work = add.work if add.fast is not None else np.float64
    out = np.empty(terms.shape, work)
    masks = np.zeros(terms.shape, np.uint8)
    if terms.shape[0]:
        out[0] = terms[0]
        for k in range(1, terms.shape[0]):
            add.mask[...] = 0
            out[k] = add(out[k - 1], terms[k].astype(work, copy=False), op)
            masks[k] = add.mask
    return out.astype(np.float64, copy=False).reshape(shape), masks.reshape(shape), add.counts


def _explain_sum(
    moved: np.ndarray, kept: tuple[int, ...], i: int, fmt: Format, acc: Format, order: str
) -> Any:
    from ...arith.accumulate import sum as fpx_sum

    column = moved.reshape(moved.shape[0], -1)[:, i] if kept else moved.reshape(-1)
    return fpx_sum(column, fmt, accumulate=acc, order=order)

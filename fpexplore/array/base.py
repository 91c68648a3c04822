"""The data of a FormatArray: values on the format's grid, its modes, the record of its flags.

:class:`ArrayBase` holds what every operation reads (the float64 values, the
format, rounding, overflow, accumulator, order and generator) and the flags
and explanation of the operation that made it; :func:`round_in` rounds plain
inputs into the format (with the flags of doing so) and :func:`operands` turns
the inputs of an operation into values of one format, refusing two formats.

>>> import numpy as np
>>> from fpexplore.formats import get_format
>>> bf16 = get_format("bfloat16")
>>> values, mask = round_in(np.array([0.1, 0.5]), bf16, "nearest_even", None, None)
>>> values.tolist(), mask().tolist()
([0.10009765625, 0.5], [16, 0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import codes as K
from ..exact import FLAGS, check_overflow, check_rng, check_rounding
from ..formats import Format, FormatLike, get_format
from .ops.fast import storage
from .ops.flags import conversion_mask, count_mask, mask_names
from .ops.records import Explanation, Record

__all__ = ["ArrayBase", "check_same", "operands", "round_in"]


class ArrayBase:
    """Values of a format with the record of the operation that made them (see
    :class:`~fpexplore.array.FormatArray`, which adds numpy's protocols)."""

    def __init__(
        self,
        values: Any,
        fmt: FormatLike,
        rounding: str = "nearest_even",
        *,
        overflow: str | None = None,
        accumulate: FormatLike | None = None,
        order: str | None = None,
        rng: Any = None,
    ) -> None:
        fmt = get_format(fmt)
        check_rounding(rounding)
        check_overflow(overflow)
        from ..arith.accumulate import ORDERS

        if order is not None and order not in ORDERS:
            raise ValueError(
                f"unknown order {order!r}; expected None or one of {', '.join(ORDERS)}"
            )
        self._format = fmt
        self._rounding, self._overflow = rounding, overflow
        self._accumulate = fmt if accumulate is None else get_format(accumulate)
        self._order = order or "sequential"
        self._rng = check_rng(rng) if rounding == "stochastic" else rng
        if isinstance(values, ArrayBase):
            if values.format == fmt:
                self._values: np.ndarray = values._values.copy()
                self._record = None
                return
            values = values._values
        self._values, mask = round_in(values, fmt, rounding, overflow, self._rng)
        self._record = conversion_record(mask, self._values.shape)

    # --- construction of results -------------------------------------------------
    def _new(self, values: np.ndarray, record: Record | None) -> Any:
        out = object.__new__(type(self))
        out.__dict__.update(self.__dict__)
        out._values = np.asarray(values, self._values.dtype)  # exact: values of the format
        out._record = record
        return out

    @property
    def format(self) -> Format:
        """The format of the values."""
        return self._format

    @property
    def rounding(self) -> str:
        """The rounding mode of every operation."""
        return self._rounding

    @property
    def accumulate(self) -> Format:
        """The accumulator's format of sums and products."""
        return self._accumulate

    @property
    def order(self) -> str:
        """The order of the additions of sums and products."""
        return self._order

    @property
    def shape(self) -> tuple[int, ...]:
        return self._values.shape

    @property
    def ndim(self) -> int:
        return self._values.ndim

    @property
    def size(self) -> int:
        return self._values.size

    @property
    def dtype(self) -> np.dtype:
        """float64: the dtype of ``np.asarray(x)`` (the values are the format's)."""
        return self._values.dtype

    # --- flags and explanations -----------------------------------------------------
    @property
    def flag_mask(self) -> np.ndarray:
        """One byte per element: bit ``i`` set when flag ``FLAGS[i]`` was raised there."""
        if self._record is None:
            return np.zeros(self.shape, np.uint8)
        return np.broadcast_to(self._record.result()[0], self.shape)

    @property
    def flag_counts(self) -> dict[str, int]:
        """For each flag, how many elementary roundings of the last operation raised it."""
        if self._record is None:
            return dict.fromkeys(FLAGS, 0)
        return dict(self._record.result()[1])

    @property
    def flags(self) -> frozenset[str]:
        """The flags raised by the operation that made this array (in any element)."""
        return frozenset(k for k, v in self.flag_counts.items() if v)

    def element_flags(self, index: Any) -> frozenset[str]:
        """The flags raised at one element."""
        return frozenset(mask_names(self.flag_mask[index]))

    def explain(self, index: Any = 0) -> Any:
        """The last operation of one element, step by step (``print()`` it): the
        scalar :class:`~fpexplore.Operation` of ``+ - x /`` and ``sqrt``, the
        :class:`~fpexplore.Accumulation` of a sum or dot product, or a text."""
        flat = int(np.ravel_multi_index(np.atleast_1d(index), self.shape)) if self.ndim else 0
        if self._record is None:
            return Explanation(
                f"{float(self._values.reshape(-1)[flat])!r}: rounded in, no operation"
            )
        return self._record.explain(flat)


def round_in(
    values: Any, fmt: Format, rounding: str, overflow: str | None, rng: Any
) -> tuple[np.ndarray, Any]:
    """Values rounded into ``fmt`` (float32 where they all are float32s) and the flags
    of doing so: 0 for none, or a function computing their mask when called."""
    from ..core.error import round_to

    mode = "nearest_even" if rounding == "stochastic" else rounding
    arr = values if isinstance(values, np.ndarray) else None
    if arr is None:
        try:
            arr = np.asarray(values)
        except (TypeError, ValueError):
            arr = np.asarray(values, dtype=object)
    if arr.dtype.kind in "OUS":
        stored = np.asarray(round_to(np.asarray(values, dtype=object), fmt, mode))
        return stored.reshape(arr.shape).astype(storage(fmt)), 0
    if arr.dtype.name == fmt.name and get_format(arr.dtype) == fmt:
        return K.as_float64(arr).astype(storage(fmt)), 0
    if arr.dtype.kind == "b":
        arr = arr.astype(np.float64)
    if not fmt.is_signed and arr.dtype.kind in "fiu" and bool(np.any(arr < 0)):
        first = np.flatnonzero(np.asarray(arr).reshape(-1) < 0)[0]
        raise ValueError(
            f"{fmt.name} has no sign: value {arr.reshape(-1)[first]!r} (index {int(first)}) is "
            "negative; expected values >= 0 (or a signed format)"
        )
    stored = np.asarray(K.round_values(arr, fmt, mode, overflow=overflow, dtype=storage(fmt)))
    return stored, lambda: conversion_mask(arr, stored, fmt, mode)  # computed when read


def conversion_record(
    mask: Any, shape: tuple[int, ...], label: str = "conversion"
) -> Record | None:
    if isinstance(mask, int) and mask == 0:
        return None

    def compute() -> tuple[np.ndarray, dict[str, int]]:
        m = np.broadcast_to(np.asarray(mask() if callable(mask) else mask, np.uint8), shape)
        return m, count_mask(m)

    return Record(label, shape, compute)


def check_same(a: ArrayBase, b: ArrayBase) -> None:
    if a.format != b.format:
        raise TypeError(
            f"FormatArrays of two formats, {a.format.name} and {b.format.name}: round one "
            f"into the other's first, e.g. FormatArray(y, {a.format.name!r})"
        )


def operands(
    like: ArrayBase, inputs: tuple[Any, ...], stochastic_inputs: bool = False
) -> tuple[list[np.ndarray], list[Any]]:
    """The inputs as float64 values of ``like``'s format, and their conversion flags."""
    values, conversions = [], []
    for x in inputs:
        if isinstance(x, ArrayBase):
            check_same(like, x)
            values.append(x._values)
            conversions.append(0)
        else:
            v, mask = round_in(x, like.format, like.rounding, like._overflow, None)
            values.append(v)
            conversions.append(mask)
    return values, conversions

"""What a FormatArray remembers of the operation that made it: its flags and explanations.

A record computes the per-element flag mask only when first asked (or at once
when a :func:`~fpexplore.array.flag_counter` is open), and explains one element:
an elementwise operation by the scalar operation of :mod:`fpexplore.arith`
(whose ``str`` shows the steps), a reduction by :func:`fpexplore.sum` or
:func:`fpexplore.dot` on that element's terms.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import codes as K
from ...arith import arithmetic as A
from ...formats import Format
from .flags import active_counters, count_mask, op_flags
from .transcendental import POLES

__all__ = ["ElementRecord", "Explanation", "Record", "transcendental_mask"]


class Explanation:
    """A short text explanation (for steps the scalar API has no object for)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text


class Record:
    """Flags and explanations of one operation; ``compute()`` gives (mask, counts)."""

    def __init__(
        self,
        label: str,
        shape: tuple[int, ...],
        compute: Callable[[], tuple[np.ndarray, dict[str, int]]] | None,
        explain: Callable[[int], Any] | None = None,
    ) -> None:
        self.label, self.shape = label, shape
        self._compute, self._explain = compute, explain
        self._cache: tuple[np.ndarray, dict[str, int]] | None = None
        counters = active_counters()
        if counters:
            mask, counts = self.result()
            for counter in counters:
                counter.record(label, mask, counts)

    def result(self) -> tuple[np.ndarray, dict[str, int]]:
        if self._cache is None:
            self._cache = self._computed()
        return self._cache

    def _computed(self) -> tuple[np.ndarray, dict[str, int]]:
        assert self._compute is not None
        return self._compute()

    def explain(self, flat_index: int) -> Any:
        if self._explain is None:
            return Explanation(f"element {flat_index}: made by {self.label} (no single operation)")
        return self._explain(flat_index)


def transcendental_mask(
    f: str, xs: list[np.ndarray], result: np.ndarray, fmt: Format
) -> np.ndarray:
    """Flags of a function rounded from float64: ``inexact`` where the result is not
    the function's exact value (every finite argument but the exact points: a
    result equal to the float64 value, with the argument 0, 1 or an integer
    power), ``overflow``, ``underflow``, ``invalid`` (NaN from non-NaN) and
    ``division_by_zero`` (an infinity at a pole)."""
    from .transcendental import TRANSCENDENTAL

    xs = [K.as_float64(x) for x in xs]
    with np.errstate(all="ignore"):
        y = np.asarray(TRANSCENDENTAL[f](*xs), np.float64)
        args = [np.broadcast_to(x, y.shape) for x in xs]
        finite_in = np.logical_and.reduce([np.isfinite(x) for x in args])
        nan_in = np.logical_or.reduce([np.isnan(x) for x in args])
        r = np.broadcast_to(result, y.shape)
        x0 = args[0]
        simple = (x0 == 0) | (x0 == 1) | (np.rint(x0) == x0)
        exact = finite_in & (r == y) & simple
        mask = np.zeros(y.shape, np.uint8)
        inexact = finite_in & ~exact & ~np.isnan(y) & ~(np.isinf(y) & (f in POLES))
        mask[inexact] |= np.uint8(16)
        pole = finite_in & np.isinf(y) & (f in POLES)
        mask[pole] |= np.uint8(2)
        mask[np.isnan(r) & ~nan_in] |= np.uint8(1)
        big = inexact & (np.abs(y) > fmt.max) & ((np.abs(r) >= fmt.max) | np.isnan(r))
        mask[big] |= np.uint8(4)
        tiny = inexact & (np.abs(y) < fmt.smallest_normal)
        mask[tiny] |= np.uint8(8)
    return mask


class ElementRecord(Record):
    """An elementwise operation: ``kind`` ``basic`` (the arithmetic kernels),
    ``transcendental``, ``exact`` (selection: only conversion flags) or ``rounded``
    (flags of rounding exact float64 values: integer powers)."""

    def __init__(
        self,
        label: str,
        op: str,
        kind: str,
        operands: list[np.ndarray],
        conversions: list[Any],
        result: np.ndarray,
        fmt: Format,
        rounding: str,
        overflow: str | None,
        exact_values: np.ndarray | None = None,
    ) -> None:
        self.op, self.kind, self.operands, self.conversions = op, kind, operands, conversions
        self.values, self.fmt, self.rounding, self.overflow = result, fmt, rounding, overflow
        self.exact_values = exact_values
        # methods, not bound methods handed to Record: those would make a reference
        # cycle that keeps every result's arrays alive until the garbage collector runs
        super().__init__(label, result.shape, None, None)

    def _computed(self) -> tuple[np.ndarray, dict[str, int]]:
        return self._flags()

    def explain(self, flat_index: int) -> Any:
        return self._element(flat_index)

    def _flags(self) -> tuple[np.ndarray, dict[str, int]]:
        from .flags import conversion_mask

        if self.kind == "basic":
            mask = op_flags(
                self.op, self.operands, self.values, self.fmt, self.rounding, self.overflow
            )
        elif self.kind == "transcendental":
            mask = transcendental_mask(self.op, self.operands, self.values, self.fmt)
        elif self.kind == "rounded" and self.exact_values is not None:
            mask = np.asarray(
                conversion_mask(self.exact_values, self.values, self.fmt, self.rounding)
            )
            mask = np.broadcast_to(mask, self.values.shape).astype(np.uint8)
        else:
            mask = np.zeros(self.values.shape, np.uint8)
        for c in self.conversions:
            if callable(c):
                c = c()
            if not (isinstance(c, int) and c == 0):
                mask = mask | np.broadcast_to(np.asarray(c, np.uint8), mask.shape)
        mask = np.broadcast_to(mask, self.values.shape)
        return mask, count_mask(mask)

    def _element(self, flat_index: int) -> Any:
        index = np.unravel_index(flat_index, self.values.shape)
        args = [float(np.broadcast_to(x, self.values.shape)[index]) for x in self.operands]
        if self.kind == "basic":
            rng = 0 if self.rounding == "stochastic" else None
            function = getattr(A, "abs" if self.op == "abs" else self.op)
            kwargs: dict[str, Any] = {"overflow": self.overflow}
            if self.op not in ("neg", "abs"):
                kwargs["rng"] = rng
            return function(*args, self.fmt, self.rounding, **kwargs)
        value = float(self.values[index])
        shown = ", ".join(repr(a) for a in args)
        return Explanation(
            f"{self.label}({shown}) in {self.fmt.name}, {self.rounding}: {value!r}"
            + (
                f"\n  computed in float64, rounded once into {self.fmt.name}"
                if self.kind == "transcendental"
                else "\n  computed exactly, rounded once"
            )
        )

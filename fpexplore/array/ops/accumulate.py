"""Sums along an axis with every addition rounded into the accumulator's format.

The terms (values of the accumulator's format) lie along axis 0; each order of
:func:`fpexplore.sum` is computed for every other position at once:

``sequential``
    ``s = t[0]``, then ``s = s + t[k]`` for ``k = 1, 2, ...``: one vectorized
    addition per term, as ``fpx.sum`` adds them one at a time.
``pairwise``
    level by level, ``L[i] + L[i + n//2]`` (an odd one out moves up), as
    :func:`fpexplore.arith.pairwise.pairwise_sum`.
``kahan``
    sequential with a compensation term, as ``fpx.sum(..., order="kahan")``.
``numpy``
    numpy's own pairwise order (:mod:`fpexplore.arith.numpy_order`), as ``np.sum``
    adds a contiguous run.

To nearest even without flags, additions use the adders of
:mod:`fpexplore.arith.pairwise` (float32 sums rounded once more for float16,
bfloat16 and tf32 accumulators); otherwise :func:`fpexplore.codes.arith_values`
in any mode, and :func:`~fpexplore.array.ops.flags.op_flags` for the flags.

>>> import numpy as np
>>> from fpexplore.formats import get_format
>>> value, mask, counts = accumulate_axis(np.ones((4096, 1)), get_format("float16"),
...                                       "sequential", "nearest_even", None, None, False)
>>> float(value[0]), counts["inexact"]
(2048.0, 0)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import codes as K
from ...arith.numpy_order import numpy_sum
from ...arith.pairwise import float32_like, pairwise_adder
from ...exact import FLAGS
from ...formats import Format, get_format
from .flags import count_mask, op_flags

__all__ = ["Adder", "accumulate_axis", "adder"]


class Adder:
    """``s + x`` rounded into ``acc``; with ``flags`` it also collects their mask
    (one byte per output position) and counts (one per addition)."""

    def __init__(
        self,
        acc: Format,
        rounding: str,
        overflow: str | None,
        rng: Any,
        flags: bool,
        shape: tuple[int, ...],
    ) -> None:
        self.acc, self.rounding, self.overflow, self.rng = acc, rounding, overflow, rng
        self.flags = flags
        self.mask = np.zeros(shape, np.uint8)
        self.counts = dict.fromkeys(FLAGS, 0)
        self.work: Any = np.float64
        self.fast: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
        if rounding == "nearest_even" and overflow is None and not flags:
            dtype = {"float16": np.float32, "float32": np.float32, "float64": np.float64}
            native = acc.name in dtype and acc == get_format(acc.name)
            if native or float32_like(acc):
                self.work = dtype.get(acc.name, np.float32)
            self.fast = pairwise_adder(acc, native)

    def __call__(self, s: np.ndarray, x: np.ndarray, op: str = "add") -> np.ndarray:
        if self.fast is not None and op == "add":
            with np.errstate(all="ignore"):
                return self.fast(s, x)
        r = K.arith_values(
            op, (s, x), self.acc, self.rounding, overflow=self.overflow, rng=self.rng
        )
        if self.flags:
            self.note(op_flags(op, [s, x], r, self.acc, self.rounding, self.overflow))
        return r

    def note(self, bits: np.ndarray) -> None:
        """Add one elementary operation's flags at every position (``bits`` may hold
        several additions per position along leading axes: a pairwise level)."""
        bits = np.asarray(bits, np.uint8)
        for name, n in count_mask(bits).items():
            self.counts[name] += n
        if bits.ndim > self.mask.ndim:
            bits = np.bitwise_or.reduce(bits.reshape(-1, *self.mask.shape), axis=0)
        self.mask |= np.broadcast_to(bits, self.mask.shape)


def adder(
    acc: Format, rounding: str, overflow: str | None, rng: Any, flags: bool, shape: Any
) -> Adder:
    return Adder(acc, rounding, overflow, rng, flags, tuple(shape))


def accumulate_axis(
    terms: np.ndarray,
    acc: Format,
    order: str,
    rounding: str,
    overflow: str | None,
    rng: Any,
    flags: bool,
) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Sum ``terms`` along axis 0 in ``order``; return (sums as float64, mask, counts)."""
    kept = terms.shape[1:]
    if terms.shape[0] == 0:  # an empty sum is +0
        return np.zeros(kept), np.zeros(kept, np.uint8), dict.fromkeys(FLAGS, 0)
    s, mask, counts = _accumulate(terms.reshape(terms.shape[0], -1), acc, order, rounding,
                                  overflow, rng, flags)  # fmt: skip
    return s.reshape(kept), mask.reshape(kept), counts


def _accumulate(
    terms: np.ndarray,
    acc: Format,
    order: str,
    rounding: str,
    overflow: str | None,
    rng: Any,
    flags: bool,
) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    add = adder(acc, rounding, overflow, rng, flags, terms.shape[1:])
    t = terms.astype(add.work, copy=False) if add.fast is not None else terms
    if order == "pairwise":
        level = t
        while level.shape[0] > 1:
            n, half = level.shape[0], level.shape[0] // 2
            pair = add(level[:half], level[half : 2 * half])
            level = np.concatenate([pair, level[-1:]]) if n % 2 else pair
        s = level[0]
    elif order == "numpy":
        s = numpy_sum(t, add)
    elif order == "kahan":
        s, c = t[0].copy(), np.zeros_like(t[0])
        for k in range(1, t.shape[0]):
            y = add(t[k], -c)
            u = add(s, y)
            c = add(add(u, -s), -y)
            s = u
    else:
        s = t[0].copy()
        for k in range(1, t.shape[0]):
            s = add(s, t[k])
    return np.asarray(s, np.float64), add.mask, add.counts

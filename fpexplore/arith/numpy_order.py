"""numpy's own summation order: the pairwise algorithm of ``np.add.reduce``.

numpy sums a contiguous run of values (``np.sum`` of a 1-D array, or along the
last axis of a C-ordered one) as ``+0 + P(x)`` (its identity, then the run), where
``P`` of ``n`` values is

- for ``n < 8``: ``((-0 + x[0]) + x[1]) + ...``, sequentially from minus zero;
- for ``8 <= n <= 128``: eight running sums ``r[j] = x[j] + x[j + 8] + x[j + 16] + ...``
  over the largest multiple of 8, combined as ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) +
  (r6 + r7))``, then the last ``n % 8`` values added one at a time;
- for ``n > 128``: ``P(x[:m]) + P(x[m:])`` with ``m`` half of ``n`` rounded down to a
  multiple of 8.

(``_pairwise_sum`` in numpy's ``loops_utils.h.src``.) numpy before 2.3 did this for
each buffer of :data:`BUFFER` values and added the buffers' sums in sequence; the order
here follows the numpy installed. For float16 numpy 2.3 and later accumulate in float32
and round the sum once: ``accumulate="float32"`` gives the same (before 2.3 numpy
rounded the running sum to float16 after each buffer). Along an axis whose values are
not contiguous numpy adds whole rows in sequence instead.

Every addition here is one vectorized call on all the other positions at once; the
leaves of the recursion that have the same length are summed together, and the tree
above them is added level by level (by height), so a sum of ``n`` values takes a few
dozen numpy calls, not ``n``.

>>> import numpy as np
>>> x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
>>> float(numpy_sum(x[:, None], np.add)[0]) == float(np.sum(x))
True
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..formats import Format
from .pairwise import working_terms

__all__ = ["BLOCK", "BUFFER", "numpy_order_sum", "numpy_sum"]

BLOCK = 128
"""numpy's ``PW_BLOCKSIZE``: runs of at most this many values are summed unrolled by 8."""

BUFFER = None if tuple(int(p) for p in np.__version__.split(".")[:2]) >= (2, 3) else 8192
"""numpy before 2.3 reduced a long run one buffer of 8192 values at a time (each buffer's
``P`` added to the running sum); 2.3 and later take the whole run at once."""

Add = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _tree(n: int) -> tuple[list[tuple[int, int]], list[tuple[int, int, int]]]:
    """The recursion over ``x[0:n]``: its leaves ``(start, length)`` and its inner nodes
    ``(left, right, height)`` (a child is an inner node's number, or ``-1 - k`` for leaf
    ``k``)."""
    leaves: list[tuple[int, int]] = []
    inner: list[tuple[int, int, int]] = []

    def height(k: int) -> int:
        return 0 if k < 0 else inner[k][2]

    def node(lo: int, m: int) -> int:
        if m <= BLOCK:
            leaves.append((lo, m))
            return -len(leaves)  # a leaf: numbered -1, -2, ...
        half = m // 2
        half -= half % 8
        left, right = node(lo, half), node(lo + half, m - half)
        inner.append((left, right, 1 + max(height(left), height(right))))
        return len(inner) - 1  # the root comes last

    node(0, n)
    return leaves, inner


def _leaf(t: np.ndarray, add: Add) -> np.ndarray:
    """``P`` of each leaf: ``t`` holds ``m`` values along axis 0 for every leaf (axis 1)
    and position (the axes after)."""
    m = t.shape[0]
    res: np.ndarray
    if m < 8:
        res = np.full_like(t[0], -0.0)  # a sum of minus zeros stays minus zero
        for i in range(m):
            res = add(res, t[i])
        return res
    r = t[:8].copy()
    stop = m - m % 8
    for i in range(8, stop, 8):
        r = add(r, t[i : i + 8])
    res = add(add(add(r[0], r[1]), add(r[2], r[3])), add(add(r[4], r[5]), add(r[6], r[7])))
    for i in range(stop, m):
        res = add(res, t[i])
    return res


def numpy_sum(t: np.ndarray, add: Add) -> np.ndarray:
    """The sums along axis 0 of ``t`` in numpy's order, each addition by ``add`` (an
    elementwise ``a + b`` rounded as the caller wants); ``t`` has at least one row."""
    total: np.ndarray = np.zeros_like(t[0])
    step = BUFFER or t.shape[0]
    for lo in range(0, t.shape[0], step):
        total = add(total, _pairwise(t[lo : lo + step], add))
    return total


def _pairwise(t: np.ndarray, add: Add) -> np.ndarray:
    """``P`` of the run along axis 0 of ``t``, for every other position at once."""
    leaves, inner = _tree(t.shape[0])
    rest = t.shape[1:]
    values = np.empty((len(leaves), *rest), t.dtype)
    by_length: dict[int, list[int]] = {}
    for k, (_, m) in enumerate(leaves):
        by_length.setdefault(m, []).append(k)
    for m, ks in by_length.items():
        starts = np.array([leaves[k][0] for k in ks])
        gathered = t[starts[None, :] + np.arange(m)[:, None]]  # (m, leaves, *rest)
        values[ks] = _leaf(gathered, add)
    if not inner:
        first: np.ndarray = values[0]
        return first
    sums = np.empty((len(inner), *rest), t.dtype)

    def pick(ids: np.ndarray) -> np.ndarray:
        leaf = ids < 0
        out = np.empty((ids.size, *rest), t.dtype)
        out[leaf] = values[-ids[leaf] - 1]
        out[~leaf] = sums[ids[~leaf]]
        return out

    table = np.array(inner, dtype=np.int64)
    for h in range(1, int(table[:, 2].max()) + 1):
        at = np.flatnonzero(table[:, 2] == h)
        sums[at] = add(pick(table[at, 0]), pick(table[at, 1]))
    root: np.ndarray = sums[-1]
    return root


def numpy_order_sum(x: np.ndarray, acc: Format) -> float:
    """The sum of ``x`` (values of ``acc`` or of a narrower format) in numpy's order,
    each addition rounded into ``acc`` (the adders of :mod:`.pairwise`)."""
    if x.size == 0:
        return 0.0
    terms, add = working_terms(x, acc)
    with np.errstate(all="ignore"):
        return float(numpy_sum(terms.reshape(-1, 1), add)[0])

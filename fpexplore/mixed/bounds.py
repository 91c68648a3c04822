"""Error bounds of summation, next to the errors that sums really make.

A sum of ``n`` values rounded at every addition, with unit roundoff ``u`` (half the
format's eps), errs by at most (Higham, *Accuracy and Stability of Numerical
Algorithms*, 2nd ed., sections 4.2 and 4.3; Goldberg 1991, theorem 8)::

    sequential (a running sum)    (n - 1) u  * sum |x_i|
    pairwise (sums of halves)     ceil(log2 n) u  * sum |x_i|
    Kahan (compensated)           (2u + O(n u**2))  * sum |x_i|

to first order in ``u``. These are worst cases: random rounding errors partly cancel,
and a measured error is usually far smaller. :func:`summation_errors` measures the
error of :func:`fpexplore.sum` on random positive values (for which ``sum |x_i|`` is
the sum itself, so the bound is a bound on the relative error) against the exact sum
of the stored values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import fpexplore

__all__ = ["SumErrors", "sum_error_bound", "summation_errors"]

ORDERS = ("sequential", "pairwise", "kahan")
SIZES = tuple(2**k for k in range(1, 15))  # 2 to 16384 values


def sum_error_bound(n: int | np.ndarray, order: str, u: float) -> np.ndarray:
    """The first-order bound on ``|computed - exact| / sum |x_i|`` of a sum of ``n``
    values in ``order`` with unit roundoff ``u``.

    Examples
    --------
    >>> u = 2.0**-11  # float16
    >>> [float(sum_error_bound(1024, order, u) / u) for order in ORDERS]
    [1023.0, 10.0, 2.0]
    """
    n = np.asarray(n, dtype=np.float64)
    if order == "sequential":
        return (n - 1) * u
    if order == "pairwise":
        return np.ceil(np.log2(np.maximum(n, 1))) * u
    if order == "kahan":
        return np.full_like(n, 2 * u)
    raise ValueError(f"order must be one of {ORDERS}, got {order!r}")


@dataclass(frozen=True, eq=False)
class SumErrors:
    """Measured relative errors of sums (one row per size, one column per trial) and
    their bounds, per order."""

    fmt: str
    unit_roundoff: float
    n: np.ndarray
    errors: dict[str, np.ndarray]
    bound: dict[str, np.ndarray]

    def worst(self, order: str) -> np.ndarray:
        """The largest error measured at each size."""
        return self.errors[order].max(axis=1)


def summation_errors(
    sizes: Sequence[int] = SIZES,
    fmt: str = "float16",
    trials: int = 10,
    seed: int = 0,
    orders: Sequence[str] = ORDERS,
) -> SumErrors:
    """Sum ``trials`` vectors of each size, drawn uniformly from [0, 1) and stored in
    ``fmt``, in each order with a ``fmt`` accumulator; the relative error of each
    sum against the exact sum of its stored values.

    Examples
    --------
    >>> r = summation_errors(sizes=(16, 256), trials=3)
    >>> all(bool((r.worst(o) <= r.bound[o]).all()) for o in r.errors)
    True
    """
    rng = np.random.default_rng(seed)
    n = np.asarray(sizes)
    errors = {order: np.empty((len(n), trials)) for order in orders}
    for i, size in enumerate(n):
        for t in range(trials):
            x = rng.random(int(size))
            for order in orders:
                s = fpexplore.sum(x, fmt, order=order)
                exact = s.stored_exact
                errors[order][i, t] = float(abs(s.value - exact) / exact) if exact else 0.0
    u = fpexplore.get_format(fmt).eps / 2
    bound = {order: sum_error_bound(n, order, u) for order in orders}
    return SumErrors(fmt=fmt, unit_roundoff=u, n=n, errors=errors, bound=bound)

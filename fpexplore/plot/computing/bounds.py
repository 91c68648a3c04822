"""Error bounds drawn with the errors they bound: sums (running, pairwise, Kahan) and
the cancellation of (1 + d) - 1."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes

from fpexplore.formats import FormatLike, get_format
from fpexplore.mixed.bounds import SumErrors
from fpexplore.mixed.loss_scaling import round_values

from .._style import TEXT_SIZE, format_color, label_axes, new_axes

__all__ = ["plot_cancellation", "plot_sum_errors"]

_NAMES = {
    "sequential": "running sum, bound (n - 1)u",
    "pairwise": "pairwise, bound ceil(log2 n)u",
    "kahan": "Kahan, bound 2u",
}


def plot_sum_errors(errors: SumErrors, ax: Axes | None = None) -> Axes:
    """Each sum's measured relative error (points, the orders side by side) against n,
    with each order's bound (dashed, same colour), log-log; sums that came out exact
    are triangles on the bottom edge.

    Examples
    --------
    >>> from fpexplore.mixed import summation_errors
    >>> ax = plot_sum_errors(summation_errors(sizes=(4, 64), trials=2))
    >>> sorted(line.get_gid() for line in ax.get_lines() if "bound" in str(line.get_gid()))
    ['kahan bound', 'pairwise bound', 'sequential bound']
    """
    ax = new_axes(ax, figsize=(10, 5.5))
    u = errors.unit_roundoff
    every = np.concatenate([e.ravel() for e in errors.errors.values()])
    floor = float(every[every > 0].min(initial=u)) / 4
    shifts = np.linspace(-0.2, 0.2, len(errors.errors))  # the orders side by side at each n
    for i, (order, err) in enumerate(errors.errors.items()):
        color = format_color(i)
        n = np.repeat(errors.n * 2.0 ** shifts[i], err.shape[1])
        values = err.ravel()
        exact = values == 0
        ax.plot(n[~exact], values[~exact], "o", ms=4, alpha=0.5, color=color, gid=order,
                label=f"{order}: measured, {err.shape[1]} sums of each size")  # fmt: skip
        if exact.any():
            ax.plot(n[exact], np.full(exact.sum(), floor), "v", ms=7, color=color,
                    gid=f"{order} exact")  # fmt: skip
        ax.plot(errors.n, errors.bound[order], "--", lw=2, color=color, gid=f"{order} bound",
                label=_NAMES.get(order, f"{order} bound"))  # fmt: skip
    if (every == 0).any():
        ax.plot([], [], "v", ms=7, color="0.4", label="a sum that came out exact (error 0)")
    ax.axhline(u, color="0.4", lw=1, ls=":", gid="u", label=f"u = eps/2 = {u:.3g}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_ylim(floor / 2, 8 * float(max(b.max() for b in errors.bound.values())))
    label_axes(ax, f"Sums of n values in [0, 1) in {errors.fmt}: measured errors and bounds",
               "n, the number of values", "relative error of the sum")  # fmt: skip
    ax.legend(fontsize=TEXT_SIZE - 1, loc="upper center", bbox_to_anchor=(0.5, -0.14),
              ncols=2, frameon=False)  # fmt: skip
    return ax


def plot_cancellation(fmt: FormatLike = "float16", d: Any = None, ax: Axes | None = None) -> Axes:
    """The relative error of ``(1 + d) - 1`` computed in ``fmt`` against ``d``, with the
    bound ``eps / (2d)``: the subtraction is exact (Sterbenz), and the whole error is the
    rounding of ``1 + d``, at most eps/2 in absolute terms.

    Examples
    --------
    >>> ax = plot_cancellation("float16")
    >>> [line.get_gid() for line in ax.get_lines()]
    ['relative error', 'bound', 'eps/2']
    """
    fmt = get_format(fmt)
    d = np.logspace(-4, 0, 401) if d is None else np.asarray(d, dtype=np.float64)
    computed = round_values(1 + d, fmt.name) - 1  # exact: Sterbenz's lemma
    rel_error = np.abs(computed - d) / d
    ax = new_axes(ax, figsize=(9, 4.8))
    half = fmt.eps / 2
    ax.loglog(d, rel_error, color=format_color(0), lw=1.8, gid="relative error",
              label=f"relative error of (1 + d) - 1 in {fmt.name}")  # fmt: skip
    ax.loglog(d, np.minimum(half / d, 1.0), color="0.2", ls="--", lw=1.8, gid="bound",
              label="bound eps/(2d), at most 1")  # fmt: skip
    ax.axvline(half, color=format_color(1), ls=":", lw=2, gid="eps/2",
               label=f"d = eps/2 = {half:.3g}: 1 + d rounds to 1")  # fmt: skip
    label_axes(ax, f"Cancellation: (1 + d) - 1 in {fmt.name}", "d", "relative error")
    ax.legend(fontsize=TEXT_SIZE, loc="lower left")
    return ax

"""The figure of FP8 papers: a tensor's histogram of log2|x| with each format's
subnormal, normal and overflow ranges drawn over it."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.transforms import blended_transform_factory

from ._style import TEXT_SIZE, format_color, label_axes, new_axes

__all__ = ["plot_report"]

_ROW = 0.075  # height of a format's row, as a fraction of the Axes


def plot_report(report: Any, ax: Axes | None = None) -> Axes:
    """Histogram of log2|x| of a :class:`fpexplore.core.report.TensorReport`, and per
    plain format a row of its ranges: subnormal (light), normal (solid), overflow
    (hatched, from log2(max) on); a dashed line below shows the normal range that
    the per-tensor scale moves onto the tensor (``x`` such that ``x * scale`` is
    normal).

    Returns
    -------
    matplotlib.axes.Axes
        The bars have gid ``"log2 histogram"``; each range (a collection) has gid
        ``"<format> subnormal"``, ``"<format> normal"`` or ``"<format> overflow"``.

    Examples
    --------
    >>> from fpexplore.core.report import tensor_report
    >>> r = tensor_report(np.random.default_rng(0).standard_normal(1000), ["float8_e4m3fn"])
    >>> ax = plot_report(r)
    >>> sorted(c.get_gid() for c in ax.collections if "e4m3" in str(c.get_gid()))
    ['float8_e4m3fn normal', 'float8_e4m3fn overflow', 'float8_e4m3fn subnormal']
    """
    ax = new_axes(ax, figsize=(10, 5.5))
    edges, counts = report.log2_edges(), report.log2_hist
    nonzero = np.flatnonzero(counts)
    plain = [f for f in report.formats if hasattr(f, "smallest_subnormal")]
    if nonzero.size:
        lo, hi = edges[nonzero[0]] - 2, edges[nonzero[-1] + 1] + 2
    else:
        lo, hi = -10.0, 10.0
    for fmt in plain:
        lo = min(lo, math.log2(fmt.smallest_subnormal) - 1)
        hi = max(hi, math.log2(fmt.max) + 3)
    if nonzero.size:
        shown = slice(nonzero[0], nonzero[-1] + 1)
        ax.bar(edges[:-1][shown], counts[shown], width=np.diff(edges)[shown], align="edge",
               color="0.55", gid="log2 histogram", label="tensor values")  # fmt: skip
    ax.set_xlim(lo, hi)
    top = max(int(counts.max(initial=0)), 1)
    ax.set_ylim(0, top / max(0.2, 1 - _ROW * (len(plain) + 0.5)))
    blend = blended_transform_factory(ax.transData, ax.transAxes)
    scales = {r["format"]: r["scale"] for r in report.to_records() if r["scaling"] == "per_tensor"}
    for i, fmt in enumerate(plain):
        y, color = 1 - _ROW * (i + 1), format_color(i)
        sub, normal, big = (math.log2(v) for v in (fmt.smallest_subnormal,
                                                   fmt.smallest_normal, fmt.max))  # fmt: skip
        h = _ROW * 0.55
        ax.broken_barh([(sub, normal - sub)], (y, h), transform=blend, color=color, alpha=0.35,
                       gid=f"{fmt.name} subnormal")  # fmt: skip
        ax.broken_barh([(normal, big - normal)], (y, h), transform=blend, color=color,
                       gid=f"{fmt.name} normal")  # fmt: skip
        ax.broken_barh([(big, hi - big)], (y, h), transform=blend, facecolor="none",
                       edgecolor="#D55E00", hatch="///", gid=f"{fmt.name} overflow")  # fmt: skip
        ax.text(lo + 0.3, y + h / 2, fmt.name, transform=blend, va="center", fontsize=TEXT_SIZE,
                color=color)  # fmt: skip
        scale = scales.get(fmt.name)
        if scale:
            shift = math.log2(scale)
            ax.plot([normal - shift, big - shift], [y - 0.012] * 2, transform=blend, ls="--",
                    color=color, lw=1.5, gid=f"{fmt.name} per-tensor normal range")  # fmt: skip
    label_axes(ax, f"log2|x| of {report.size} values, and each format's ranges",
               "log2 |x|", "count")  # fmt: skip
    return ax

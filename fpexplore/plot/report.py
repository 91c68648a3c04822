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
_REACH = 24  # octaves beyond the data that the x axis stretches to show a format's range


def plot_report(report: Any, ax: Axes | None = None) -> Axes:
    """Histogram of log2|x| of a :class:`fpexplore.scaling.report.TensorReport` (heights per
    quarter octave; the bins are quarters of each binade's significands), and per
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
    >>> from fpexplore.scaling.report import tensor_report
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
        lo, hi = edges[nonzero[0]] - 3, edges[nonzero[-1] + 1] + 3
    else:
        lo, hi = -10.0, 10.0
    for fmt in plain:  # show a format's whole range when it is not far from the data
        sub, top = math.log2(fmt.smallest_subnormal), math.log2(fmt.max)
        lo = min(lo, sub - 1) if sub > lo - _REACH else lo
        hi = max(hi, top + 3) if top < hi + _REACH else hi
    widths = np.diff(edges)
    heights = counts / (widths * (1 << 2))  # per quarter octave: bins are not equally wide
    if nonzero.size:
        shown = slice(nonzero[0], nonzero[-1] + 1)
        ax.bar(edges[:-1][shown], heights[shown], width=widths[shown], align="edge",
               color="0.55", gid="log2 histogram", label="tensor values")  # fmt: skip
    ax.set_xlim(lo, hi)
    top_count = max(float(heights.max(initial=0)), 1.0)
    ax.set_ylim(0, top_count / max(0.2, 1 - _ROW * (len(plain) + 0.5)))
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
        ax.broken_barh([(big, max(hi, big + 1) - big)], (y, h), transform=blend,
                       facecolor="none", edgecolor="#D55E00", hatch="///",
                       gid=f"{fmt.name} overflow")  # fmt: skip
        box = {"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 1}
        ax.text(0.005, y + h / 2, fmt.name, transform=ax.transAxes, va="center",
                fontsize=TEXT_SIZE, color=color, zorder=5, bbox=box)  # fmt: skip
        scale = scales.get(fmt.name)
        if scale:
            shift = math.log2(scale)
            ax.plot([normal - shift, big - shift], [y - 0.012] * 2, transform=blend, ls="--",
                    color=color, lw=1.5, gid=f"{fmt.name} per-tensor normal range")  # fmt: skip
    label_axes(ax, f"log2|x| of {report.size} values, and each format's ranges",
               "log2 |x|", "values per 1/4 octave")  # fmt: skip
    return ax

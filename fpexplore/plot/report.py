"""The figure of FP8 papers: a tensor's histogram of log2|x| with each format's
subnormal, normal and overflow ranges drawn over it."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.transforms import blended_transform_factory

from ._style import TEXT_SIZE, format_color, label_axes, new_axes

__all__ = ["plot_report"]

_ROW = 0.075  # height of a format's row, as a fraction of the Axes
_REACH = 24  # binades beyond the data that the x axis stretches to show a format's range
_OVERFLOW = "#D55E00"


def plot_report(report: Any, ax: Axes | None = None, *, log: bool = False) -> Axes:
    """Histogram of log2|x| of a :class:`fpexplore.report.tensor.TensorReport` (heights per
    quarter binade; the bins are quarters of each binade's significands), and per
    format a row of its ranges, explained by the legend under the Axes.

    A plain format's row shows its subnormal range (light), normal range (solid) and
    overflow (hatched, from log2(max) on); a dashed line under it shows the normal
    range that the per-tensor scale moves onto the tensor (``x`` such that
    ``x * scale`` is normal). A block format's row (``mxfp4``, ``nvfp4``...) shows the
    element format's subnormal and normal ranges as the block holding the tensor's
    largest magnitude scales them; every other block moves the same window down to
    its own largest magnitude, as far as the dotted line shows (an E8M0 scale reaches
    far beyond the figure; NVFP4's E4M3 block scale 17.8 binades).

    Parameters
    ----------
    report : TensorReport
    ax : matplotlib Axes, optional
    log : bool
        A logarithmic count axis, so that a few outlying values show next to
        the bulk of the tensor.

    Returns
    -------
    matplotlib.axes.Axes
        The bars have gid ``"log2 histogram"``; each range (a collection) has gid
        ``"<format> subnormal"``, ``"<format> normal"`` or ``"<format> overflow"``,
        the per-tensor line ``"<format> per-tensor normal range"``, a block format's
        reach ``"<format> reach"``; the legend names each kind of mark.

    Examples
    --------
    >>> from fpexplore.report.tensor import tensor_report
    >>> r = tensor_report(np.random.default_rng(0).standard_normal(1000), ["float8_e4m3fn"])
    >>> ax = plot_report(r)
    >>> sorted(c.get_gid() for c in ax.collections if "e4m3" in str(c.get_gid()))
    ['float8_e4m3fn normal', 'float8_e4m3fn overflow', 'float8_e4m3fn subnormal']
    >>> [t.get_text() for t in ax.get_legend().get_texts()][:2]
    ['tensor values', 'subnormal range (light)']
    """
    ax = new_axes(ax, figsize=(10, 6))
    edges, counts = report.log2_edges(), report.log2_hist
    nonzero = np.flatnonzero(counts)
    rows = [r for f in report.formats if (r := _ranges(f, report.amax)) is not None]
    if nonzero.size:
        lo, hi = edges[nonzero[0]] - 3, edges[nonzero[-1] + 1] + 3
    else:
        lo, hi = -10.0, 10.0
    for row in rows:  # show a format's whole range when it is not far from the data
        sub, top = row["sub"], row["max"]
        lo = min(lo, sub - 1) if sub > lo - _REACH else lo
        hi = max(hi, top + 3) if top < hi + _REACH else hi
    widths = np.diff(edges)
    heights = counts / (widths * (1 << 2))  # per quarter binade: bins are not equally wide
    if nonzero.size:
        shown = slice(nonzero[0], nonzero[-1] + 1)
        ax.bar(edges[:-1][shown], heights[shown], width=widths[shown], align="edge",
               color="0.55", gid="log2 histogram", label="tensor values")  # fmt: skip
    ax.set_xlim(lo, hi)
    _set_count_axis(ax, float(heights.max(initial=0)), len(rows), log)
    blend = blended_transform_factory(ax.transData, ax.transAxes)
    scales = {r["format"]: r["scale"] for r in report.to_records() if r["scaling"] == "per_tensor"}
    for i, row in enumerate(rows):
        y, color, h = 1 - _ROW * (i + 1), format_color(i), _ROW * 0.55
        name, sub, normal, big = row["name"], row["sub"], row["normal"], row["max"]
        ax.broken_barh([(sub, normal - sub)], (y, h), transform=blend, color=color, alpha=0.35,
                       gid=f"{name} subnormal")  # fmt: skip
        ax.broken_barh([(normal, big - normal)], (y, h), transform=blend, color=color,
                       gid=f"{name} normal")  # fmt: skip
        if row["block"]:
            ax.plot([max(lo, sub - row["reach"]), sub], [y + h / 2] * 2, transform=blend,
                    ls=":", color=color, lw=1.5, gid=f"{name} reach")  # fmt: skip
        else:
            ax.broken_barh([(big, max(hi, big + 1) - big)], (y, h), transform=blend,
                           facecolor="none", edgecolor=_OVERFLOW, hatch="///",
                           gid=f"{name} overflow")  # fmt: skip
        box = {"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 1}
        ax.text(0.005, y + h / 2, row["label"], transform=ax.transAxes, va="center",
                fontsize=TEXT_SIZE, color=color, zorder=5, bbox=box)  # fmt: skip
        scale = scales.get(name)
        if scale:
            shift = math.log2(scale)
            ax.plot([normal - shift, big - shift], [y - 0.012] * 2, transform=blend, ls="--",
                    color=color, lw=1.5, gid=f"{name} per-tensor normal range")  # fmt: skip
    label_axes(ax, f"log2|x| of {report.size} values, and each format's ranges",
               "log2 |x|", "values per 1/4 binade" + (" (log scale)" if log else ""))  # fmt: skip
    _legend(ax, rows)
    return ax


def _ranges(fmt: Any, amax: float) -> dict[str, Any] | None:
    """log2 of a row's smallest subnormal, smallest normal and max; None for a format
    with nothing to draw (MXINT8 on a tensor of zeros)."""
    if hasattr(fmt, "smallest_subnormal"):  # a plain format
        return {"name": fmt.name, "label": fmt.name, "block": False, "reach": 0.0,
                "sub": math.log2(fmt.smallest_subnormal),
                "normal": math.log2(fmt.smallest_normal), "max": math.log2(fmt.max)}  # fmt: skip
    if not amax > 0 or not math.isfinite(amax):
        return None
    element = fmt.element_format
    if fmt.scale == "e4m3":  # NVFP4: the amax block's scale s * g is amax / max_elem
        shift = math.log2(amax / element.max)
        reach = math.log2(448 / 2**-9)  # E4M3 block scales from 2**-9 to 448
    else:  # MX: X = 2**(floor(log2 amax) - emax_elem), an E8M0 power of two
        shift = math.floor(math.log2(amax)) - fmt.emax_elem
        reach = math.inf
    if element is None:  # MXINT8: k/64 for k in -128..127, no subnormals
        sub = normal = shift - 6
        top = shift + math.log2(127 / 64)
    else:
        sub = shift + math.log2(element.smallest_subnormal)
        normal = shift + math.log2(element.smallest_normal)
        top = shift + math.log2(element.max)
    return {"name": fmt.name, "label": f"{fmt.name} (block of the amax)", "block": True,
            "reach": reach, "sub": sub, "normal": normal, "max": top}  # fmt: skip


def _set_count_axis(ax: Axes, top_count: float, n_rows: int, log: bool) -> None:
    """Counts below the format rows at the top of the Axes, on a linear or log scale."""
    room = max(0.2, 1 - _ROW * (n_rows + 0.5))  # the fraction of the height left to the bars
    top_count = max(top_count, 1.0)
    if log:
        ax.set_yscale("log")
        bottom = 0.5
        ax.set_ylim(bottom, bottom * (top_count / bottom) ** (1 / room))
    else:
        ax.set_ylim(0, top_count / room)


def _legend(ax: Axes, rows: list[dict[str, Any]]) -> None:
    """One entry per kind of mark, in grey: the colours name the formats."""
    handles: list[Any] = [
        Patch(color="0.55", label="tensor values"),
        Patch(color="0.3", alpha=0.35, label="subnormal range (light)"),
        Patch(color="0.3", label="normal range (solid)"),
    ]
    if any(not r["block"] for r in rows):
        handles += [
            Patch(facecolor="none", edgecolor=_OVERFLOW, hatch="///",
                  label="overflow: beyond max (hatched)"),
            Line2D([], [], color="0.3", ls="--", lw=1.5,
                   label="normal range after the per-tensor scale (dashed)"),
        ]  # fmt: skip
    if any(r["block"] for r in rows):
        handles.append(Line2D([], [], color="0.3", ls=":", lw=1.5,
                              label="block formats: how far down a block's own scale "
                                    "moves the window (dotted)"))  # fmt: skip
    ax.legend(handles=handles, fontsize=TEXT_SIZE - 1, loc="upper center",
              bbox_to_anchor=(0.5, -0.13), ncols=2, frameon=False)  # fmt: skip

"""Binade by binade: the spacing staircase and the density of values (claim 7).

Both figures are drawn in log2 coordinates on linear axes (x = log2 |x|,
y = log2 of the quantity) with ticks labelled ``2^k``. They look exactly like
log-log plots, but also work for float64, whose whole range is beyond
matplotlib's log axes (their margins and tick locators overflow past
``2**1024``) and whose subnormal density, ``2**1074`` values per unit, is
beyond float64 itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter, MaxNLocator

from fpexplore.core.density import binade_table
from fpexplore.formats import FormatLike, get_format

from .._style import (
    LABEL_SIZE,
    TEXT_SIZE,
    as_formats,
    format_color,
    label_axes,
    new_axes,
    staircase,
)

__all__ = ["density", "spacing"]

_NOTE_BOX = {"boxstyle": "round", "facecolor": "white", "edgecolor": "0.7", "alpha": 0.9}


def _power_of_two_ticks(axis: Any) -> None:
    """Integer log2 coordinates shown as 2^k."""
    axis.set_major_locator(MaxNLocator(nbins=9, integer=True))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"$2^{{{v:g}}}$"))


def _log2(values: Any) -> np.ndarray:
    return np.array([math.log2(v) for v in values])


def spacing(
    formats: FormatLike | Iterable[FormatLike],
    lo: float | None = None,
    hi: float | None = None,
    ax: Axes | None = None,
) -> Axes:
    """The gap between neighbouring values (one ULP) against magnitude, on log2 scales.

    A staircase per format: constant across the subnormals, then doubling at
    every power of two (claim 7 seen from the other side: the same count per
    binade means a gap proportional to the binade's width). The staircase
    ends at the format's ``max``; a window reaching below the smallest
    subnormal shows the gap between 0 and it there.

    Parameters
    ----------
    formats : format spec or list of them
    lo, hi : float, optional
        Magnitude window (> 0); default each format's whole positive range.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        One step line per format (``where="post"``), labelled with its name and
        with the name as gid; its data are ``log2`` of magnitude and spacing.
        Narrower ranges are drawn on top, so that no format hides under another.

    Examples
    --------
    >>> ax = spacing(["float16"], lo=1, hi=8)
    >>> ax.get_lines()[0].get_xdata().tolist(), ax.get_lines()[0].get_ydata().tolist()
    ([0.0, 1.0, 2.0, 3.0], [-10.0, -9.0, -8.0, -8.0])
    """
    fmts = as_formats(formats)
    ax = new_axes(ax)
    # A format with a narrower range is drawn above a wider one: over a whole range,
    # float16's steps lie only 3 binades under bfloat16's and would hide beneath them.
    widest = sorted(fmts, key=lambda f: -math.log2(f.max / f.smallest_subnormal))
    for i, fmt in enumerate(fmts):
        edges, rows = staircase(binade_table(fmt), fmt, lo, hi)
        if not rows:
            continue
        gaps = _log2([b.spacing for b in rows])
        ax.step(
            _log2(edges),
            [*gaps, gaps[-1]],
            where="post",
            lw=2.5,
            color=format_color(i),
            zorder=2 + widest.index(fmt) / len(fmts),
            gid=fmt.name,
            label=f"{fmt.name} ({fmt.mantissa_bits} mantissa bits)",
        )
    _point_out_close_lines(ax, [line for line in ax.get_lines() if line.get_gid()])
    _power_of_two_ticks(ax.xaxis)
    _power_of_two_ticks(ax.yaxis)
    label_axes(
        ax,
        "Spacing between neighbouring values doubles at each power of two",
        "magnitude |x| (log scale)",
        "spacing, one ULP (log scale)",
    )
    ax.legend(fontsize=TEXT_SIZE)
    return ax


def _point_out_close_lines(ax: Axes, lines: list[Any]) -> None:
    """Name, with an arrow, a line that runs within 4 binades of a wider one over
    most of its length (float16 under bfloat16): on axes hundreds of binades tall, the two
    are a few pixels apart. The text has gid ``"<name> pointer"``."""
    ys = [np.asarray(line.get_ydata()) for line in lines]
    if not ys or max(y.max() for y in ys) - min(y.min() for y in ys) < 40:
        return  # axes a few dozen binades tall keep such lines apart
    for line in lines:
        x, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
        for other in lines:
            ox, oy = np.asarray(other.get_xdata()), np.asarray(other.get_ydata())
            if other is line or ox[0] > x[0] or ox[-1] < x[-1]:
                continue
            under = np.interp(x, ox, oy)
            if np.median(np.abs(under - y)) <= 4:
                middle = len(x) // 2
                ax.annotate(
                    f"{line.get_gid()}, {abs(float(np.median(under - y))):g} binades"
                    f" under {other.get_gid()}",
                    (x[middle], y[middle]),
                    xytext=(40, -45),
                    textcoords="offset points",
                    fontsize=TEXT_SIZE,
                    color=line.get_color(),
                    arrowprops={"arrowstyle": "->", "color": line.get_color()},
                    bbox=_NOTE_BOX,
                    gid=f"{line.get_gid()} pointer",
                )
                break


def density(fmt: FormatLike, ax: Axes | None = None) -> Axes:
    """Values per unit length against magnitude, and values per binade (claim 7).

    Values per unit length is one over the gap between neighbours there.
    Every binade ``[2**k, 2**(k+1))`` of the normal range holds the same
    number of values, ``2**mantissa_bits``, so the density halves from one
    binade to the next. The annotations show where that stops: the
    subnormals hold 1, 2, 4... values per binade, the top binade ends at
    ``max`` (and holds one value fewer in ``fn`` formats, whose last pattern
    is NaN), and above ``max`` there is nothing.

    Returns
    -------
    matplotlib.axes.Axes
        The density staircase is on ``ax`` (gid ``"density"``); the count per
        binade is a step line with gid ``"count per binade"`` on a twin Axes
        sharing its x-axis. All data are log2 values.

    Examples
    --------
    >>> ax = density("float8_e4m3fn")
    >>> ax.get_lines()[0].get_gid()
    'density'
    """
    fmt = get_format(fmt)
    rows = binade_table(fmt)
    ax = new_axes(ax, figsize=(10, 5.5))
    edges = _log2([b.lo for b in rows] + [fmt.max])
    per_length = -_log2([b.spacing for b in rows])  # log2(1 / the gap between neighbours)
    counts = _log2([b.count for b in rows])
    ax.step(
        edges,
        [*per_length, per_length[-1]],
        where="post",
        color="#0072B2",
        lw=2.5,
        gid="density",
        label="values per unit length (left axis)",
    )
    twin = ax.twinx()
    twin.step(
        edges,
        [*counts, counts[-1]],
        where="post",
        color="#009E73",
        lw=2.5,
        ls="--",
        gid="count per binade",
        label="values per binade (right axis)",
    )
    for axis in (ax.xaxis, ax.yaxis, twin.yaxis):
        _power_of_two_ticks(axis)
    twin.set_ylim(-1, counts.max() + 1)
    twin.set_ylabel("values per binade [2$^k$, 2$^{k+1}$)", fontsize=LABEL_SIZE, color="#009E73")
    twin.tick_params(labelsize=LABEL_SIZE - 1, colors="#009E73")
    full = 2**fmt.mantissa_bits
    if rows[0].kind == "subnormal":
        ax.axvspan(edges[0], fmt.emin, color="#D55E00", alpha=0.12)
        twin.annotate(
            "subnormals:\n1, 2, 4, ... values per binade",
            xy=(edges[0], 0),
            xytext=(0.3, 0.06),  # the empty corner below the density staircase
            textcoords="axes fraction",
            fontsize=TEXT_SIZE,
            color="#D55E00",
            arrowprops={"arrowstyle": "->", "color": "#D55E00"},
            bbox=_NOTE_BOX,
        )
    top = rows[-1]
    top_note = f"max = {fmt.max:g}: nothing above it"
    if top.count < full:
        top_note += f"\ntop binade: {top.count} values, not {full}\n(its last pattern is NaN)"
    ax.axvline(edges[-1], color="0.3", ls=":", lw=1.5)
    twin.annotate(
        top_note,
        xy=(edges[-1], counts[-1]),
        xytext=(0.93, 0.6),  # between the count line above and the density line below
        textcoords="axes fraction",
        ha="right",
        va="center",
        fontsize=TEXT_SIZE,
        arrowprops={"arrowstyle": "->", "color": "0.3"},
        bbox=_NOTE_BOX,
    )
    label_axes(
        ax,
        f"{fmt.name}: {full} values in every binade of the normal range",
        "magnitude |x| (log scale)",
        "values per unit length (log scale)",
    )
    handles = ax.get_legend_handles_labels()[0] + twin.get_legend_handles_labels()[0]
    ax.legend(
        handles=handles,
        fontsize=TEXT_SIZE,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.15),
        ncols=2,
        frameon=False,
    )
    return ax

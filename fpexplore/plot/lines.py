"""Where the values are: the number line, the spacing staircase and the density per binade."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection

from fpexplore.decode import decode, decode_array
from fpexplore.density import binade_table, count_between, values_between
from fpexplore.exact import parse_real
from fpexplore.formats import Format, get_format

from ._style import (
    KIND_COLORS,
    LABEL_SIZE,
    TEXT_SIZE,
    as_formats,
    format_color,
    label_axes,
    new_axes,
    staircase,
)

__all__ = ["density", "number_line", "spacing"]

_NOTE_BOX = {"boxstyle": "round", "facecolor": "white", "edgecolor": "0.7", "alpha": 0.9}


def _to_float(x: Any) -> float:
    """The float nearest to an exact input (a plotting coordinate)."""
    exact = parse_real(x)
    if exact.special == "nan":
        raise ValueError(f"a window bound must be a number, got {x!r}")
    magnitude = math.inf if exact.special == "inf" else float(exact.magnitude)
    return -magnitude if exact.sign else magnitude


def _is_representable(x: Any, fmt: Format) -> bool:
    parts = decode(x, fmt)
    return parts.is_finite and parts.error == 0


def number_line(
    fmt: Any, lo: Any = None, hi: Any = None, ax: Axes | None = None, max_ticks: int = 5000
) -> Axes:
    """Every representable value in ``[lo, hi]`` as a tick on a number line (claim 5).

    Normal values, subnormals and zero get different colours; dashed grey lines
    mark the binade boundaries (powers of two). With no window the whole finite
    range ``[-max, max]`` is drawn, which suits FP8, FP6, FP4 and small custom
    formats; wider formats need a window such as ``lo=3, hi=4``.

    Parameters
    ----------
    fmt : format spec
    lo, hi : number or str, optional
        The window, both ends included, taken exactly (``"0.1"`` is one tenth).
        Default ``-max`` and ``max``.
    ax : matplotlib Axes, optional
    max_ticks : int
        Refuse (ValueError) to draw more ticks than this.

    Returns
    -------
    matplotlib.axes.Axes
        The ticks are LineCollections with gid ``"normal"``, ``"subnormal"``
        and ``"zero"``, one segment per value.

    Examples
    --------
    >>> ax = number_line("float4_e2m1fn")
    >>> sum(len(c.get_segments()) for c in ax.collections)  # -6 ... 6: 15 values
    15
    """
    fmt = get_format(fmt)
    if lo is None and hi is None and fmt.n_finite > max_ticks:
        raise ValueError(
            f"{fmt.name} has {fmt.n_finite} finite values, more than max_ticks={max_ticks}; "
            f"pass a window, e.g. number_line({fmt.name!r}, lo=3, hi=4)"
        )
    lo = -fmt.max if lo is None else lo
    hi = fmt.max if hi is None else hi
    closed_end = _is_representable(hi, fmt)
    count = count_between(lo, hi, fmt) + closed_end
    if count > max_ticks:
        raise ValueError(
            f"[{lo}, {hi}] holds {count} values of {fmt.name}, more than "
            f"max_ticks={max_ticks}; pass a narrower window or a larger max_ticks"
        )
    values = values_between(lo, hi, fmt, limit=max_ticks)
    if closed_end:
        values = np.append(values, float(decode(hi, fmt).value))
    values = values[np.isfinite(values)]
    ax = new_axes(ax, figsize=(12, 3.6))
    kinds = decode_array(values, fmt).kind.names() if values.size else np.array([], str)
    heights = {"normal": 1.0, "subnormal": 0.8, "zero": 1.25}
    for kind, height in heights.items():
        chosen = values[kinds == kind]
        if not chosen.size:
            continue
        segments = np.stack(
            [
                np.column_stack([chosen, np.zeros_like(chosen)]),
                np.column_stack([chosen, np.full_like(chosen, height)]),
            ],
            axis=1,
        )
        name = {"normal": "normal values", "subnormal": "subnormal values", "zero": "zero"}[kind]
        ax.add_collection(
            LineCollection(
                segments,
                colors=KIND_COLORS[kind],
                linewidths=1.2,
                gid=kind,
                label=f"{name} ({chosen.size})" if kind != "zero" else name,
            )
        )
    lo_f = max(_to_float(lo), -fmt.max)
    hi_f = min(_to_float(hi), fmt.max)
    _binade_lines(ax, fmt, lo_f, hi_f)
    pad = 0.02 * (hi_f - lo_f) or 1.0
    ax.set_xlim(lo_f - pad, hi_f + pad)
    ax.set_ylim(-0.05, 1.55)
    ax.set_yticks([])
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    label_axes(ax, f"All {count} values of {fmt.name} in [{lo}, {hi}]", "value", "")
    ax.grid(False)
    ax.legend(
        fontsize=TEXT_SIZE, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncols=4, frameon=False
    )
    return ax


def _binade_lines(ax: Axes, fmt: Format, lo: float, hi: float) -> None:
    """Dashed lines at the powers of two in [lo, hi] that are in the format's range."""
    exponents = range(fmt.emin - fmt.mantissa_bits, fmt.emax + 1)
    powers = [math.ldexp(s, e) for e in exponents for s in (-1.0, 1.0)]
    powers = sorted(p for p in powers if lo <= p <= hi)
    min_gap = 0.06 * (hi - lo)
    last_label = -math.inf
    for i, p in enumerate(powers):
        ax.axvline(
            p,
            ymin=0.0,
            ymax=0.86,
            color="0.55",
            ls="--",
            lw=0.8,
            zorder=0,
            gid="binade",
            label="binade boundary (power of two)" if i == 0 else None,
        )
        if p - last_label >= min_gap:
            e = int(math.log2(abs(p)))
            ax.text(
                p, 1.32, f"{'-' if p < 0 else ''}2$^{{{e}}}$", ha="center", fontsize=TEXT_SIZE - 1
            )
            last_label = p


def spacing(
    formats: Any, lo: float | None = None, hi: float | None = None, ax: Axes | None = None
) -> Axes:
    """The gap between neighbouring values (one ULP) against magnitude, log-log.

    A staircase per format: constant across the subnormals, then doubling at
    every power of two (claim 7 seen from the other side: the same count per
    binade means a gap proportional to the binade's width).

    Parameters
    ----------
    formats : format spec or list of them
    lo, hi : float, optional
        Magnitude window (> 0); default each format's whole positive range.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        One step line per format (``where="post"``), labelled with its name.

    Examples
    --------
    >>> ax = spacing(["float16"], lo=1, hi=8)
    >>> ax.get_lines()[0].get_xdata().tolist()
    [1.0, 2.0, 4.0, 8.0]
    """
    fmts = as_formats(formats)
    ax = new_axes(ax)
    for i, fmt in enumerate(fmts):
        edges, rows = staircase(binade_table(fmt), fmt, lo, hi)
        if not rows:
            continue
        gaps = [b.spacing for b in rows]
        ax.step(
            edges,
            [*gaps, gaps[-1]],
            where="post",
            lw=2.5,
            color=format_color(i),
            label=f"{fmt.name} ({fmt.mantissa_bits} mantissa bits)",
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    label_axes(
        ax,
        "Spacing between neighbouring values doubles at each power of two",
        "magnitude |x| (log scale)",
        "spacing, one ULP (log scale)",
    )
    ax.legend(fontsize=TEXT_SIZE)
    return ax


def density(fmt: Any, ax: Axes | None = None) -> Axes:
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
        sharing its x-axis.

    Examples
    --------
    >>> ax = density("float8_e4m3fn")
    >>> ax.get_lines()[0].get_gid()
    'density'
    """
    fmt = get_format(fmt)
    rows = binade_table(fmt)
    ax = new_axes(ax, figsize=(10, 5.5))
    edges = np.array([b.lo for b in rows] + [fmt.max])
    per_length = np.array([1 / b.spacing for b in rows])  # 1 / the gap between neighbours
    counts = np.array([b.count for b in rows], dtype=float)
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
    for a in (ax, twin):
        a.set_xscale("log", base=2)
        a.set_yscale("log", base=2)
    twin.set_ylim(0.5, 2 * counts.max())
    twin.set_ylabel("values per binade [2$^k$, 2$^{k+1}$)", fontsize=LABEL_SIZE, color="#009E73")
    twin.tick_params(labelsize=LABEL_SIZE - 1, colors="#009E73")
    full = 2**fmt.mantissa_bits
    if fmt.mantissa_bits and rows[0].kind == "subnormal":
        ax.axvspan(fmt.smallest_subnormal, fmt.smallest_normal, color="#D55E00", alpha=0.12)
        twin.annotate(
            "subnormals:\n1, 2, 4, ... values per binade",
            xy=(rows[0].lo, 1),
            xytext=(0.02, 0.55),
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
    ax.axvline(fmt.max, color="0.3", ls=":", lw=1.5)
    twin.annotate(
        top_note,
        xy=(fmt.max, top.count),
        xytext=(0.98, 0.35),
        textcoords="axes fraction",
        ha="right",
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

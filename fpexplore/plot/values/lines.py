"""Every representable value of a window as a tick on the number line (claim 5)."""

from __future__ import annotations

import math
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.patches import ConnectionPatch, Rectangle

from fpexplore.core.arrays import decode_array
from fpexplore.core.decode import decode
from fpexplore.core.density import count_between, values_between
from fpexplore.exact import parse_real
from fpexplore.formats import Format, FormatLike, get_format

from .._style import (
    KIND_COLORS,
    TEXT_SIZE,
    TICK_SIZE,
    drop_overlapping,
    label_axes,
    laid_out,
    new_axes,
)

__all__ = ["default_window", "number_line"]


def _to_float(x: Any) -> float:
    """The float nearest to an exact input (a plotting coordinate)."""
    exact = parse_real(x)
    if exact.special == "nan":
        raise ValueError(f"a window bound must be a number, got {x!r}")
    return exact.to_float()


def _is_representable(x: Any, fmt: Format) -> bool:
    parts = decode(x, fmt)
    return parts.is_finite and parts.error == 0


def default_window(fmt: FormatLike, max_ticks: int = 5000) -> tuple[float, float]:
    """A window of a wide format that shows its grain: ``[1, 2]`` when that binade
    has at most ``max_ticks`` values, else ``[1, 1 + 256 eps]``.

    >>> default_window("float16"), default_window("float32")
    ((1.0, 2.0), (1.0, 1.000030517578125))
    """
    fmt = get_format(fmt)
    if 2**fmt.mantissa_bits + 1 <= max_ticks:
        return 1.0, 2.0
    return 1.0, 1.0 + min(256, max_ticks - 1) * fmt.eps


def number_line(
    fmt: FormatLike,
    lo: Any = None,
    hi: Any = None,
    ax: Axes | None = None,
    max_ticks: int = 5000,
    zoom: tuple[Any, Any] | None = None,
) -> Axes:
    """Every representable value in ``[lo, hi]`` as a tick on a number line (claim 5).

    Normal values, subnormals and zero get different colours; dashed grey lines
    mark the binade boundaries (powers of two), labelled where a label fits
    (labels never overlap: the larger powers are labelled first). With no window
    the whole finite range ``[-max, max]`` is drawn, which suits FP8, FP6, FP4 and
    small custom formats; for wider ones the default is a window starting at 1
    (the binade [1, 2] when it fits in ``max_ticks``, else its first 256 values: see
    :func:`default_window`); zoom with ``lo`` and ``hi``, e.g. ``lo=3, hi=4``.

    Parameters
    ----------
    fmt : format spec
    lo, hi : number or str, optional
        The window, both ends included, taken exactly (``"0.1"`` is one tenth).
        Default ``-max`` and ``max``, or :func:`default_window` for wide formats.
    ax : matplotlib Axes, optional
    max_ticks : int
        Refuse (ValueError) to draw more ticks than this.
    zoom : (lo, hi), optional
        A second window drawn enlarged in a panel under the first and marked on
        it, e.g. ``(0, 2**-4)`` for the zero and subnormals of ``float8_e4m3fn``,
        which crowd together at the left end of ``[0, 16]``.

    Returns
    -------
    matplotlib.axes.Axes
        The ticks are LineCollections with gid ``"normal"``, ``"subnormal"``
        and ``"zero"``, one segment per value. The zoomed panel, when asked
        for, is the Axes with gid ``"zoom"`` in ``ax.figure.axes`` (a second row of a
        new figure) or in ``ax.child_axes`` (an inset under a given ``ax``).

    Examples
    --------
    >>> ax = number_line("float4_e2m1fn")
    >>> sum(len(c.get_segments()) for c in ax.collections)  # -6 ... 6: 15 values
    15
    >>> ax = number_line("float8_e4m3fn", 0, 16, zoom=(0, 2**-4))
    >>> zoomed = [a for a in ax.figure.axes if a.get_gid() == "zoom"][0]
    >>> [c.get_gid() for c in zoomed.collections]
    ['normal', 'subnormal', 'zero']
    """
    fmt = get_format(fmt)
    if lo is None and hi is None and fmt.n_finite > max_ticks:
        lo, hi = default_window(fmt, max_ticks)
    lo = -fmt.max if lo is None else lo
    hi = fmt.max if hi is None else hi
    below = None
    if zoom is not None and ax is None:
        _, (ax, below) = plt.subplots(2, 1, figsize=(12, 6.4), layout="constrained")
    ax = new_axes(ax, figsize=(12, 3.6))
    count = _draw_window(ax, fmt, lo, hi, max_ticks)
    label_axes(ax, f"All {count} values of {fmt.name} in [{lo}, {hi}]", "value", "")
    ax.grid(False)
    if zoom is None:
        below = ax
    else:
        if below is None:  # a panel of the caller's figure: its layout is the caller's
            below = ax.inset_axes((0.0, -1.5, 1.0, 0.9))
        below.set_gid("zoom")
        below.tick_params(labelsize=TICK_SIZE)
        zcount = _draw_window(below, fmt, zoom[0], zoom[1], max_ticks)
        below.set_title(
            f"enlarged: the {zcount} values in [{zoom[0]}, {zoom[1]}]", fontsize=TEXT_SIZE
        )
        _mark_zoom(ax, below)
    below.legend(
        *ax.get_legend_handles_labels(),
        fontsize=TEXT_SIZE,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.28 if zoom is None else -0.3),
        ncols=4,
        frameon=False,
    )
    _label_powers(ax)
    return ax


def _mark_zoom(ax: Axes, below: Axes) -> None:
    """A box round the enlarged window on ``ax`` and two lines down to its panel."""
    lo, hi = below.get_xlim()
    ax.add_patch(
        Rectangle((lo, -0.05), hi - lo, 1.45, fill=False, edgecolor="0.3", lw=1.2, gid="zoom box")
    )
    for x, corner in ((lo, 0.0), (hi, 1.0)):
        line = ConnectionPatch(
            (x, -0.05), (corner, 1.0), coordsA=ax.transData, coordsB=below.transAxes,
            color="0.6", lw=0.8, ls=":",
        )  # fmt: skip
        line.set_in_layout(False)
        ax.figure.add_artist(line)


def _draw_window(ax: Axes, fmt: Format, lo: Any, hi: Any, max_ticks: int) -> int:
    """The ticks of ``[lo, hi]`` and the binade lines on ``ax``; the number of values."""
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
                list(segments),
                colors=KIND_COLORS[kind],
                linewidths=1.2 if kind != "zero" else 2.4,
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
    return count


def _binade_lines(ax: Axes, fmt: Format, lo: float, hi: float) -> None:
    """Dashed lines at the powers of two in [lo, hi] that are in the format's range,
    each with a label (gid ``"power of two"``) that :func:`_label_powers` thins out."""
    exponents = range(fmt.emin - fmt.mantissa_bits, fmt.emax + 1)
    powers = [math.ldexp(s, e) for e in exponents for s in (-1.0, 1.0)]
    powers = sorted(p for p in powers if lo <= p <= hi)
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
        e = int(math.log2(abs(p)))
        ax.text(
            p,
            1.32,
            f"{'-' if p < 0 else ''}2$^{{{e}}}$",
            ha="center",
            fontsize=TEXT_SIZE - 1,
            gid="power of two",
        )


def _label_powers(ax: Axes) -> None:
    """Keep the labels of the powers of two that fit, the largest first, on ``ax`` and
    its zoomed panel: measured in pixels once the figure is laid out."""
    renderer = laid_out(ax)
    zoomed = [a for a in ax.figure.axes + ax.child_axes if a.get_gid() == "zoom"]
    for axes in (ax, *zoomed):
        labels = [t for t in axes.texts if t.get_gid() == "power of two"]
        labels.sort(key=lambda t: -abs(t.get_position()[0]))
        drop_overlapping(labels, renderer)

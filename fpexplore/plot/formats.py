"""Range against precision: why bfloat16 trades significand bits for exponent bits."""

from __future__ import annotations

import math
from collections.abc import Iterable

from matplotlib.axes import Axes

from fpexplore.formats import FORMATS, FormatLike

from ._style import TEXT_SIZE, as_formats, format_color, label_axes, new_axes

__all__ = ["format_map"]

_LEFT_LABELS = {"bfloat16"}  # labelled on the left, clear of tf32


def format_map(
    formats: FormatLike | Iterable[FormatLike] | None = None, ax: Axes | None = None
) -> Axes:
    """Each format as a point: dynamic range (decades) against significand bits.

    The filled marker is the whole positive range, ``log10(max /
    smallest_subnormal)``; the open marker below it the normal range only,
    ``log10(max / smallest_normal)``; the line between them is what the
    subnormals add. bfloat16 sits next to float32 in range with a third of
    its significand bits; float16 has more precision than bfloat16 and a
    fraction of its range.

    Parameters
    ----------
    formats : list of format specs, optional
        Default: the whole catalogue, float64 down to float4_e2m1fn.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Per format, a filled point with the format's name as gid, an open one
        with gid ``"<name> normal range"``, and a text with its name.

    Examples
    --------
    >>> ax = format_map(["float32", "bfloat16", "float16"])
    >>> sorted(t.get_text() for t in ax.texts)[:3]
    ['bfloat16', 'float16', 'float32']
    """
    fmts = as_formats(FORMATS.values() if formats is None else formats)
    ax = new_axes(ax, figsize=(10, 6))
    for i, fmt in enumerate(fmts):
        bits = fmt.mantissa_bits + 1
        whole = math.log10(fmt.max) - math.log10(fmt.smallest_subnormal)  # no overflow
        normal = math.log10(fmt.max) - math.log10(fmt.smallest_normal)
        color = format_color(i)
        ax.plot([bits, bits], [normal, whole], color=color, lw=2, alpha=0.6)
        ax.plot(
            [bits],
            [whole],
            "o",
            ms=11,
            color=color,
            gid=fmt.name,
            label="whole range (with subnormals)" if i == 0 else None,
        )
        ax.plot(
            [bits],
            [normal],
            "o",
            ms=9,
            mfc="white",
            mec=color,
            mew=2,
            gid=f"{fmt.name} normal range",
            label="normal range only" if i == 0 else None,
        )
        left = fmt.name in _LEFT_LABELS
        ax.annotate(
            fmt.name,
            (bits, whole),
            xytext=(-10 if left else 10, 4),
            textcoords="offset points",
            ha="right" if left else "left",
            fontsize=TEXT_SIZE + 1,
            color=color,
            fontweight="bold",
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ticks = sorted({f.mantissa_bits + 1 for f in fmts})
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.minorticks_off()
    ax.set_xlim(min(ticks) / 1.3, max(ticks) * 2.2)
    names = {f.name for f in fmts}
    title = "Range against precision of floating-point formats"
    if {"bfloat16", "float32"} <= names:
        title = "Range against precision: bfloat16 keeps float32's range with 8 significand bits"
    label_axes(
        ax,
        title,
        "significand bits (mantissa bits + 1): precision",
        "dynamic range, decades: log10(max / smallest)",
    )
    ax.legend(fontsize=TEXT_SIZE, loc="lower right")
    return ax

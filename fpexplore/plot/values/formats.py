"""Range against precision: why bfloat16 trades significand bits for exponent bits."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from matplotlib.axes import Axes
from matplotlib.transforms import Bbox

from fpexplore.formats import FORMATS, FormatLike

from .._style import TEXT_SIZE, as_formats, format_color, label_axes, laid_out, new_axes, text_box

__all__ = ["format_map"]


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
        with gid ``"<name> normal range"``, and a text with its name (gid
        ``"<name> name"``), placed where it overlaps no other name, no marker and
        not the legend (measured in pixels once the figure is laid out; a name
        set apart from its marker gets a thin line back to it).

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
    low, high = ax.get_ylim()
    ax.set_ylim(low / 2.5, high * 2)  # room for the names above and below the markers
    legend = ax.legend(
        fontsize=TEXT_SIZE, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncols=2, frameon=False
    )
    _name_points(ax, fmts, legend)
    return ax


# Where a name may go, in points from its filled marker, in order of preference: beside
# it, then on rings further out (those get a thin line back to the marker).
_OFFSETS = [(10.0, 4.0), (-10.0, 4.0), (10.0, -14.0), (-10.0, -14.0), (0.0, 13.0), (0.0, -20.0)] + [
    (r * math.cos(math.radians(a)), r * math.sin(math.radians(a)))
    for r in (22, 34, 48, 64, 82, 104)
    for a in (0, 180, 30, 150, -30, -150, 60, 120, -60, -120, 90, -90, 15, 165, -15, -165)
]


def _name_points(ax: Axes, fmts: list[Any], legend: Any) -> None:
    """Write each format's name next to its marker where it overlaps no other name, no
    marker and not the legend, measured in pixels once the figure is laid out. The
    most crowded markers choose first."""
    renderer = laid_out(ax)
    dpi = ax.figure.dpi
    axes_box = ax.get_window_extent(renderer)
    radius = 6 * dpi / 72  # the larger marker's radius, in pixels
    taken = [legend.get_window_extent(renderer).padded(2)]
    centres = []
    for line in ax.get_lines():
        if line.get_marker() == "o":
            for x, y in ax.transData.transform(line.get_xydata()):
                taken.append(Bbox.from_extents(x - radius, y - radius, x + radius, y + radius))
                centres.append((x, y))
    # Two logarithms: max / smallest_subnormal overflows in float64
    points = [
        (fmt.mantissa_bits + 1, math.log10(fmt.max) - math.log10(fmt.smallest_subnormal))
        for fmt in fmts
    ]
    pixels = ax.transData.transform(points)
    crowd = [sum(math.dist(p, c) < 80 for c in centres) for p in pixels]
    chosen: dict[int, tuple[float, float]] = {}
    names: list[Bbox] = []
    for i in sorted(range(len(fmts)), key=lambda i: -crowd[i]):
        best: tuple[float, int] = (math.inf, 0)  # least overlap, if no place is free
        for k, offset in enumerate([*_OFFSETS, None]):
            # when no place was free: the place of least overlap
            chosen[i] = offset if offset is not None else _OFFSETS[best[1]]
            label = _name(ax, fmts[i].name, points[i], chosen[i], format_color(i))
            box = text_box(label, renderer)
            label.remove()
            # a name on a name is worst; on a marker, the legend or the frame less bad
            overlap = 1000 * sum(_area(box, b) for b in names) + (
                sum(_area(box, b) for b in taken) + box.width * box.height - _area(box, axes_box)
            )
            if overlap == 0 or k == len(_OFFSETS):
                names.append(box)
                break
            best = min(best, (overlap, k))
    for i, fmt in enumerate(fmts):  # the names in the order of the formats
        _name(ax, fmt.name, points[i], chosen[i], format_color(i))


def _name(ax: Axes, name: str, point: Any, offset: tuple[float, float], color: str) -> Any:
    """A format's name at ``offset`` points from its marker, with a line back to the
    marker when it is set apart."""
    dx, dy = offset
    label = ax.annotate(
        name,
        point,
        xytext=(dx, dy),
        textcoords="offset points",
        ha="left" if dx > 5 else "right" if dx < -5 else "center",
        va="bottom" if dy > 15 else "top" if dy < -15 else "center",
        fontsize=TEXT_SIZE + 1,
        color=color,
        fontweight="bold",
        gid=f"{name} name",
        arrowprops={"arrowstyle": "-", "color": color, "lw": 0.8, "shrinkA": 1, "shrinkB": 7}
        if math.hypot(dx, dy) > 20
        else None,
    )
    label.set_in_layout(False)
    return label


def _area(a: Bbox, b: Bbox) -> float:
    """The area (pixels) where two boxes overlap."""
    return max(0.0, min(a.x1, b.x1) - max(a.x0, b.x0)) * max(0.0, min(a.y1, b.y1) - max(a.y0, b.y0))

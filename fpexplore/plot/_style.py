"""Shared look of the fpexplore figures: projector-sized fonts, colour-blind-safe colours.

Nothing here changes matplotlib's global state: sizes are passed to each call.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.text import Annotation, Text

from fpexplore.core.density import Binade
from fpexplore.formats import Format, FormatLike, get_format
from fpexplore.render.text import FIELD_COLORS

__all__ = [
    "FIELD_COLORS",
    "FORMAT_COLORS",
    "KIND_COLORS",
    "LABEL_SIZE",
    "TEXT_SIZE",
    "TICK_SIZE",
    "TITLE_SIZE",
    "as_formats",
    "drop_overlapping",
    "format_color",
    "label_axes",
    "laid_out",
    "new_axes",
    "renderer_of",
    "staircase",
    "text_box",
]

TITLE_SIZE = 15
LABEL_SIZE = 13
TICK_SIZE = 12
TEXT_SIZE = 12

KIND_COLORS = {"normal": "#0072B2", "subnormal": "#D55E00", "zero": "#000000"}
"""Okabe-Ito colours for the kinds of value on a number line."""

FORMAT_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
"""Okabe-Ito colours, one per format in multi-format figures (yellow left out: it
fades on white)."""


def format_color(i: int) -> str:
    """The colour of the i-th format in a figure."""
    return FORMAT_COLORS[i % len(FORMAT_COLORS)]


def new_axes(ax: Axes | None, figsize: tuple[float, float] = (9, 5)) -> Axes:
    """``ax``, or the Axes of a new constrained-layout figure when it is None."""
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    ax.tick_params(labelsize=TICK_SIZE)
    return ax


def label_axes(ax: Axes, title: str, xlabel: str, ylabel: str, **grid: Any) -> None:
    """Title and axis labels at projector size, and a light grid."""
    ax.set_title(title, fontsize=TITLE_SIZE)
    ax.set_xlabel(xlabel, fontsize=LABEL_SIZE)
    ax.set_ylabel(ylabel, fontsize=LABEL_SIZE)
    ax.grid(True, alpha=0.3, **grid)


def as_formats(formats: FormatLike | Iterable[FormatLike]) -> list[Format]:
    """One format spec or an iterable of them, as a list of Formats."""
    if isinstance(formats, str | Format) or not isinstance(formats, Iterable):
        return [get_format(formats)]
    return [get_format(f) for f in formats]


def staircase(
    rows: list[Binade], fmt: Format, lo: float | None = None, hi: float | None = None
) -> tuple[np.ndarray, list[Binade]]:
    """Binade edges clipped to [lo, hi] (the last edge is ``max``) and the binades between.

    A ``lo`` below the smallest subnormal extends the first step down to it.

    Feed ``edges`` and ``[*values, values[-1]]`` to ``ax.step(..., where="post")``.
    """
    edges = [b.lo for b in rows] + [fmt.max]
    left, right = 0, len(rows)
    if lo is not None:
        while left < right and edges[left + 1] <= lo:
            left += 1
    if hi is not None:
        while right > left and edges[right - 1] >= hi:
            right -= 1
    cut = edges[left : right + 1]
    if lo is not None:  # below the smallest subnormal the spacing is still the first one
        cut[0] = lo
    if hi is not None:
        cut[-1] = min(cut[-1], hi)
    return np.array(cut), rows[left:right]


def laid_out(ax: Axes) -> Any:
    """Lay out the figure of ``ax`` (its root figure, for an Axes of a subfigure) as a
    draw would, and return the renderer that measures its text."""
    fig: Any = ax.figure
    while not isinstance(fig, Figure):  # a SubFigure: its parents lead to the root
        fig = fig.figure
    fig.draw_without_rendering()
    return renderer_of(fig)


def renderer_of(fig: Any) -> Any:
    """The renderer that measures text in ``fig`` (Agg's, or the figure's own)."""
    get = getattr(fig.canvas, "get_renderer", None)
    return get() if get is not None else fig._get_renderer()


def text_box(text: Any, renderer: Any, pad: float = 2.0) -> Any:
    """The window extent of a text artist in pixels, grown by ``pad`` on every side:
    of its text alone (an annotation's own extent includes its arrow)."""
    if isinstance(text, Annotation):
        text.update_positions(renderer)
    return Text.get_window_extent(text, renderer).padded(pad)


def drop_overlapping(texts: Iterable[Any], renderer: Any, keep: Iterable[Any] = ()) -> list[Any]:
    """Remove each text (taken in order: first come, first kept) whose extent
    overlaps a text kept before it or a box of ``keep``; return the texts kept."""
    kept, boxes = [], list(keep)
    for text in texts:
        box = text_box(text, renderer)
        if any(box.overlaps(b) for b in boxes):
            text.remove()
        else:
            kept.append(text)
            boxes.append(box)
    return kept

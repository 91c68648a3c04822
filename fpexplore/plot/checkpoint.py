"""A checkpoint report's heatmap: tensors down, (format, scaling) across, coloured
by SNR, so the layers that fail a format stand out."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap

from ._style import TEXT_SIZE, label_axes, new_axes

__all__ = ["plot_checkpoint"]

SCALINGS = ("none", "per_tensor", "block")
SNR_RANGE = (0.0, 60.0)  # dB: the colour scale (values beyond take its ends)
_ANNOTATE = 30  # cells get their numbers when at most this many tensors are shown


TOP = 40
"""Tensors a heatmap shows at most: the worst ones, by their lowest SNR."""


def plot_checkpoint(
    report: Any, ax: Axes | None = None, *, scaling: str | None = None, top: int | None = TOP
) -> Axes:
    """SNR of each tensor (rows, in checkpoint order) in each (format, scaling)
    (columns), on a colour scale from 0 to 60 dB (viridis: dark is bad). A cell
    whose SNR is -inf (values became inf or NaN) is red and marked ``inf/NaN``; an
    exact one (SNR inf) takes the top colour; a tensor of NaN or inf values only
    (nothing to measure) is grey and marked ``no finite values``. ``scaling`` keeps
    one scaling's columns (``"none"``, ``"per_tensor"`` or ``"block"``; a
    ``ValueError`` if the report has none of its rows). ``top``: a report of more
    tensors shows the ``top`` worst (lowest SNR in any column), in checkpoint
    order, and its title says how many more there are (None: every tensor). A
    report without rows gives a titled, empty panel.

    Returns
    -------
    matplotlib.axes.Axes
        The image has gid ``"snr heatmap"``; its array is the SNR grid, masked where
        a tensor has no such row, -inf shown as 1 dB below the scale, inf 1 dB above.

    Examples
    --------
    >>> import numpy as np
    >>> from fpexplore.report.checkpoint import checkpoint_report
    >>> r = checkpoint_report({"a": np.ones(64), "b": np.arange(64.0)}, ["e4m3"], progress=False)
    >>> ax = plot_checkpoint(r)
    >>> ax.images[0].get_array().shape
    (2, 3)
    """
    every = report.to_records()
    if scaling is not None and scaling not in SCALINGS:
        raise ValueError(f"unknown scaling {scaling!r}; expected one of {', '.join(SCALINGS)}")
    records = [r for r in every if scaling is None or r["scaling"] == scaling]
    if every and not records:
        raise ValueError(f"the report has no rows of scaling {scaling!r}")
    if not records:  # no floating-point tensors: a titled, empty panel
        ax = new_axes(ax, figsize=(4.0, 2.0))
        label_axes(ax, f"SNR per tensor: {report.source}: no floating-point tensors", "", "")
        ax.set_xticks([])
        ax.set_yticks([])
        return ax
    tensors = list(dict.fromkeys(r["tensor"] for r in records))
    hidden = 0
    if top is not None:
        if isinstance(top, bool) or not isinstance(top, int) or top < 1:
            raise ValueError(f"top must be a positive int or None, got {top!r}")
        if len(tensors) > top:
            worst: dict[str, float] = {}
            for r in records:
                snr = r["snr_db"] if not math.isnan(r["snr_db"]) else math.inf
                worst[r["tensor"]] = min(worst.get(r["tensor"], math.inf), snr)
            keep = set(sorted(tensors, key=lambda t: worst[t])[:top])
            hidden = len(tensors) - top
            tensors = [t for t in tensors if t in keep]
            records = [r for r in records if r["tensor"] in keep]
    columns = list(dict.fromkeys((r["format"], r["scaling"]) for r in records))
    grid = np.full((len(tensors), len(columns)), np.nan)
    row_of = {t: i for i, t in enumerate(tensors)}
    col_of = {c: j for j, c in enumerate(columns)}
    filled = np.zeros(grid.shape, bool)  # cells with a record (its SNR may be NaN)
    for r in records:
        grid[row_of[r["tensor"]], col_of[r["format"], r["scaling"]]] = r["snr_db"]
        filled[row_of[r["tensor"]], col_of[r["format"], r["scaling"]]] = True
    nonfinite = getattr(report, "nonfinite", {})
    empty = [i for i, t in enumerate(tensors)  # NaN or inf only: nothing was measured
             if t in nonfinite and nonfinite[t] >= max(_size(records, t), 1)]  # fmt: skip
    grid[empty, :] = np.nan
    ax = new_axes(ax, figsize=(2.2 + 1.3 * max(len(columns), 1),
                               1.8 + 0.32 * min(max(len(tensors), 1), 60)))  # fmt: skip
    cmap = ListedColormap(_viridis()).with_extremes(bad="0.85", under="#D55E00", over="#FDE725")
    shown = np.where(grid == np.inf, SNR_RANGE[1] + 1, grid)
    shown = np.where(grid == -np.inf, SNR_RANGE[0] - 1, shown)
    image = ax.imshow(np.ma.masked_invalid(shown), cmap=cmap, vmin=SNR_RANGE[0],
                      vmax=SNR_RANGE[1], aspect="auto", interpolation="nearest")  # fmt: skip
    image.set_gid("snr heatmap")
    bar = ax.figure.colorbar(image, ax=ax, extend="both")
    bar.set_label("SNR (dB)", fontsize=TEXT_SIZE)
    ax.set_xticks(range(len(columns)),
                  [f"{f}\n{s}" for f, s in columns], fontsize=TEXT_SIZE - 2)  # fmt: skip
    ax.set_yticks(range(len(tensors)), tensors, fontsize=TEXT_SIZE - 2)
    if len(tensors) <= _ANNOTATE:
        for (i, j), value in np.ndenumerate(grid):
            if i in empty and filled[i, j]:
                ax.text(j, i, "no finite values", ha="center", va="center",
                        fontsize=TEXT_SIZE - 3, color="black")  # fmt: skip
            if math.isnan(value):
                continue
            text = "inf/NaN" if value == -math.inf else ("exact" if value == math.inf
                                                         else f"{value:.0f}")  # fmt: skip
            light = value != -math.inf and (value == math.inf or value > 35)
            ax.text(j, i, text, ha="center", va="center", fontsize=TEXT_SIZE - 3,
                    color="black" if light else "white")  # fmt: skip
    title = f"SNR per tensor: {report.source}"
    if hidden:
        title += f"\nthe {len(tensors)} worst tensors; {hidden} more not shown (top=None: all)"
    label_axes(ax, title, "format, scaling", "tensor")
    ax.grid(False)
    return ax


def _size(records: list[dict[str, Any]], tensor: str) -> int:
    return int(next(r["size"] for r in records if r["tensor"] == tensor))


def _viridis() -> Any:
    import matplotlib

    return matplotlib.colormaps["viridis"](np.linspace(0, 1, 256))

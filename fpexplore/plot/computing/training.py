"""Figures of training in a format (notebook 08, :mod:`fpexplore.keras`).

Every function takes ``ax=None`` (a new figure when None) and returns the Axes it drew
on. They draw measured results (Keras histories, weights and their updates), so the
gallery leaves them out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes

from fpexplore import round_to, ulp
from fpexplore.plot._style import TEXT_SIZE, format_color, label_axes, new_axes

__all__ = ["plot_learning_curves", "plot_update_sizes", "update_ratios"]

LOST = "#D55E00"  # vermillion: updates that rounding to nearest loses
STYLES = ("-", "--", "-.", ":")


def plot_learning_curves(
    histories: Mapping[str, Mapping[str, Sequence[float]]],
    metric: str = "val_accuracy",
    *,
    title: str | None = None,
    ax: Axes | None = None,
) -> Axes:
    """One line per run: ``metric`` after each epoch.

    Parameters
    ----------
    histories : mapping of run name to a Keras ``History.history`` dict
        (``{"loss": [...], "val_accuracy": [...]}``).
    metric : the key to draw.
    title : str, optional
        Default ``"<metric> after each epoch"``.
    ax : matplotlib Axes, optional
        Where to draw; a new figure's Axes by default. Returned.

    Examples
    --------
    >>> runs = {"float32": {"val_accuracy": [0.5, 0.9]}, "fp8": {"val_accuracy": [0.4, 0.8]}}
    >>> ax = plot_learning_curves(runs)
    >>> ax.get_title(), [line.get_label() for line in ax.get_lines()]
    ('val_accuracy after each epoch', ['float32', 'fp8'])
    """
    ax = new_axes(ax)
    for index, (name, history) in enumerate(histories.items()):
        if metric not in history:
            raise ValueError(f"run {name!r} has no {metric!r}; it has {sorted(history)}")
        values = np.asarray(history[metric], dtype=float)
        epochs = np.arange(1, values.size + 1)
        style = STYLES[(index // 8) % len(STYLES)]
        ax.plot(
            epochs, values, style, color=format_color(index), lw=2, marker="o", ms=3, label=name
        )
    label_axes(ax, title or f"{metric} after each epoch", "epoch", metric)
    ax.legend(fontsize=TEXT_SIZE - 2, ncol=2 if len(histories) > 4 else 1)
    return ax


def update_ratios(weights: Any, updates: Any, fmt: str) -> np.ndarray:
    """``|update| / (half the spacing of fmt at the weight)`` for each nonzero update."""
    w = np.asarray(weights, dtype=np.float64).ravel()
    u = np.asarray(updates, dtype=np.float64).ravel()
    keep = u != 0
    return np.abs(u[keep]) / (ulp(w[keep], fmt) / 2)


def plot_update_sizes(
    weights: Any, updates: Any, fmt: str = "bfloat16", *, ax: Axes | None = None
) -> Axes:
    """Histogram of log2(|update| / half a spacing of ``fmt`` at the weight).

    Left of 0 an update is smaller than half the gap to the weight's neighbour: stored in
    ``fmt`` with rounding to nearest, the weight does not move (at a power of two, moving
    toward zero, the gap below is half as wide). The title counts the updates that
    rounding to nearest actually loses, ``round(w + u) == w``.

    Examples
    --------
    Near 1, bfloat16's values are 2**-7 apart above and 2**-8 apart below:

    >>> w = np.array([1.0, 1.0, 1.0, 1.0, 0.5])
    >>> ax = plot_update_sizes(w, np.array([1e-4, 1e-2, -2e-3, 3e-3, 0.0]), "bfloat16")
    >>> ax.get_title()  # 1e-4 and 3e-3 vanish, 1e-2 up and 2e-3 down do not
    '2 of 4 updates vanish in bfloat16'
    """
    ax = new_axes(ax)
    w = np.asarray(weights, dtype=np.float32).ravel()
    u = np.asarray(updates, dtype=np.float32).ravel()
    moving = u != 0
    stored = round_to(w[moving] + u[moving], fmt)  # w + u: the float32 sum an optimizer makes
    vanished = int(np.count_nonzero(stored == w[moving]))
    logs = np.log2(update_ratios(w, u, fmt))
    lo, hi = (np.floor(logs.min()), np.ceil(logs.max())) if logs.size else (-1.0, 1.0)
    bins = np.arange(lo, max(hi, lo + 1) + 0.5, 0.5).tolist()
    lost = "below half a spacing: lost to nearest"
    ax.hist(logs[logs < 0], bins=bins, color=LOST, alpha=0.8, label=lost)
    ax.hist(logs[logs >= 0], bins=bins, color=format_color(0), alpha=0.8, label="half or more")
    ax.axvline(0, color="0.2", ls="--", lw=1.5)
    label_axes(
        ax,
        f"{vanished} of {int(moving.sum())} updates vanish in {fmt}",
        f"log2(|update| / (half a {fmt} spacing at the weight))",
        "weights",
    )
    ax.legend(fontsize=TEXT_SIZE - 2)
    return ax

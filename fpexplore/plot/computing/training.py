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
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


History = Mapping[str, Sequence[float]]


def plot_learning_curves(
    histories: Mapping[str, History | Sequence[History]],
    metric: str = "val_accuracy",
    *,
    title: str | None = None,
    ax: Axes | None = None,
    ylabel: str | None = None,
    order: Sequence[str] | None = None,
) -> Axes:
    """One line per run: ``metric`` after each epoch.

    Runs that end on the same curve stay visible: each has its own line style and
    marker, and each line is drawn thinner than the one before it, over it. A run
    repeated from several seeds is drawn as the mean over its seeds, in a band from
    their lowest to their highest value at each epoch.

    Parameters
    ----------
    histories : mapping of run name to a Keras ``History.history`` dict
        (``{"loss": [...], "val_accuracy": [...]}``), or to a sequence of them, one per
        seed, each with the same number of epochs.
    metric : the key to draw.
    title : str, optional
        Default ``"<ylabel> after each epoch"``.
    ax : matplotlib Axes, optional
        Where to draw; a new figure's Axes by default. Returned.
    ylabel : str, optional
        The value axis's label; default ``metric`` (say ``"test accuracy"`` when the
        validation data is the test set).
    order : sequence of str, optional
        Every run name a set of figures shows, in order: a run's colour and style follow
        its place here, so that it keeps them from one figure to the next. Default: the
        order of ``histories``.

    Raises
    ------
    ValueError
        When a run has no ``metric``, or is missing from ``order``, or its seeds have
        different numbers of epochs.

    Examples
    --------
    >>> runs = {"float32": {"val_accuracy": [0.5, 0.9]}, "fp8": {"val_accuracy": [0.4, 0.8]}}
    >>> ax = plot_learning_curves(runs)
    >>> ax.get_title(), [line.get_label() for line in ax.get_lines()]
    ('val_accuracy after each epoch', ['float32', 'fp8'])
    >>> ax = plot_learning_curves({"fp8": runs["fp8"]}, order=["float32", "fp8"])
    >>> ax.get_lines()[0].get_color() == format_color(1)
    True

    Three seeds of one run: the line is their mean, the band their range.

    >>> seeds = [{"val_accuracy": v} for v in ([0.4, 0.8], [0.6, 0.9], [0.5, 0.7])]
    >>> ax = plot_learning_curves({"fp8": seeds})
    >>> ax.get_lines()[0].get_ydata().round(3).tolist(), len(ax.collections)
    ([0.5, 0.8], 1)
    """
    names = list(histories) if order is None else list(order)
    unknown = [name for name in histories if name not in names]
    if unknown:
        raise ValueError(f"runs {unknown} are not in order={names}; expected every run there")
    ylabel = ylabel or metric
    ax = new_axes(ax)
    for drawn, (name, history) in enumerate(histories.items()):
        seeds = _seed_values(name, history, metric)
        values = seeds.mean(axis=0)
        epochs = np.arange(1, values.size + 1)
        index = names.index(name)
        color = format_color(index)
        if len(seeds) > 1:
            ax.fill_between(epochs, seeds.min(axis=0), seeds.max(axis=0), color=color, alpha=0.15)
        ax.plot(
            epochs,
            values,
            STYLES[index % len(STYLES)],
            color=color,
            lw=max(1.2, 3.4 - 0.5 * drawn),
            marker=MARKERS[index % len(MARKERS)],
            ms=max(3.0, 7.0 - drawn),
            label=name,
        )
    label_axes(ax, title or f"{ylabel} after each epoch", "epoch", ylabel)
    ax.legend(fontsize=TEXT_SIZE, ncol=2 if len(histories) > 4 else 1)
    return ax


def _seed_values(name: str, history: Any, metric: str) -> np.ndarray:
    """A run's ``metric`` as an array of (seeds, epochs): one row for a single history."""
    runs = [history] if isinstance(history, Mapping) else list(history)
    if not runs:
        raise ValueError(f"run {name!r} has no seeds; expected a history or a list of them")
    for run in runs:
        if not isinstance(run, Mapping):
            raise TypeError(f"run {name!r}: expected a Keras history dict, got {run!r}")
        if metric not in run:
            raise ValueError(f"run {name!r} has no {metric!r}; it has {sorted(run)}")
    lengths = sorted({len(run[metric]) for run in runs})
    if len(lengths) > 1:
        raise ValueError(f"run {name!r}: its seeds have {lengths} epochs; expected the same number")
    return np.asarray([run[metric] for run in runs], dtype=float)


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

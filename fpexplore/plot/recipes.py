"""Figures of the tricks in today's training recipes (notebook 09, :mod:`fpexplore.keras`).

Every function takes ``ax=None`` (a new figure when None) and returns the Axes it drew
on: the accumulation error of a tensor core's limited accumulator against K, with and
without promotion (:func:`plot_accumulation_error`, DeepSeek-V3's figure), and one block
quantized with and without a Hadamard transform (:func:`plot_hadamard_block`). They draw
measured results, so the gallery leaves them out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.axes import Axes

from fpexplore import AccumulationError, hadamard, quantize_blocks
from fpexplore.plot._style import TEXT_SIZE, format_color, label_axes, new_axes

__all__ = ["plot_accumulation_error", "plot_hadamard_block"]

MARKERS = ("o", "s", "^", "D", "v")
LABELS = {
    "float32": "float32 accumulation",
    "h100_fp8": "FP8 tensor core, 14 bits, no promotion",
    "h100_fp8_promoted": "promoted to float32 every 128",
}


def plot_accumulation_error(
    results: AccumulationError | Mapping[str, AccumulationError],
    *,
    reference: tuple[float, float] | None = None,
    reference_label: str = "reported",
    title: str | None = None,
    ax: Axes | None = None,
) -> Axes:
    """The relative error of each accumulator against K, log-log: one line per
    accumulator (and per input distribution, for a mapping of results).

    Parameters
    ----------
    results : an :class:`~fpexplore.AccumulationError`, or a mapping of a label (the
        inputs, say ``"uniform inputs"``) to one; each line is labelled by its
        accumulator and, for a mapping, that label.
    reference : (K, relative error), optional
        A published point to mark, e.g. DeepSeek-V3's ``(4096, 0.02)``.
    reference_label : the legend's text for ``reference``.
    title : str, optional
    ax : matplotlib Axes, optional

    Examples
    --------
    >>> from fpexplore import accumulation_error
    >>> r = accumulation_error(ks=(256, 1024), rows=2, cols=2)
    >>> ax = plot_accumulation_error(r, reference=(1024, 0.02))
    >>> [line.get_label() for line in ax.get_lines()]
    ['FP8 tensor core, 14 bits, no promotion', 'promoted to float32 every 128', 'reported']
    >>> ax.get_xscale(), ax.get_yscale()
    ('log', 'log')
    """
    runs = {"": results} if isinstance(results, AccumulationError) else dict(results)
    if not runs:
        raise ValueError("no results to draw; expected an AccumulationError or a mapping of them")
    ax = new_axes(ax)
    names = list(dict.fromkeys(name for r in runs.values() for name in r.errors))
    for style, (label, result) in zip(("-", "--", ":", "-."), runs.items(), strict=False):
        for name, errors in result.errors.items():
            index = names.index(name)
            text = LABELS.get(name, name) + (f", {label}" if label else "")
            ax.loglog(result.k, errors, style, color=format_color(index), lw=2,
                      marker=MARKERS[index % len(MARKERS)], ms=7, label=text)  # fmt: skip
    if reference is not None:
        ax.plot(*reference, "*", color="0.15", ms=16, label=reference_label)
    label_axes(
        ax,
        title or "Accumulation error of a GEMM against its inner dimension K",
        "K (products summed per output)",
        "relative error, sum |C - C_exact| / sum |C_exact|",
    )
    ax.legend(fontsize=TEXT_SIZE - 1)
    return ax


def plot_hadamard_block(
    block: Any,
    fmt: str = "nvfp4",
    *,
    seed: int = 0,
    rounding: str = "nearest_even",
    title: str | None = None,
    ax: Axes | None = None,
) -> Axes:
    """One block quantized directly and through a Hadamard transform, element by element.

    Three bars per element: the block's values, their quantized values, and the values
    that come back from quantizing the transformed block ``H x`` and transforming back
    (``Hᵀ Q(H x)``). The legend counts the nonzero elements each way rounds to zero.

    Parameters
    ----------
    block : 1-d array_like whose length (a power of two) is the transform's size and
        the block's (one block of ``fmt`` with ``block_size`` that length).
    fmt : a block format name (``"nvfp4"``, ``"mxfp4"``...).
    seed : the transform's sign vector (:func:`fpexplore.hadamard`).
    rounding : the elements' rounding.
    title : str, optional
    ax : matplotlib Axes, optional

    Examples
    --------
    >>> block = np.r_[12.0, np.linspace(-1, 1, 15)]
    >>> ax = plot_hadamard_block(block)
    >>> [t.get_text() for t in ax.get_legend().get_texts()]  # doctest: +NORMALIZE_WHITESPACE
    ['values', 'quantized: 6 of 15 nonzero values become 0',
     'through the transform: 0 of 15 nonzero values become 0']
    """
    x = np.asarray(block, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"expected one block (a 1-d array), got shape {x.shape}")
    size = x.size

    def quantized(v: np.ndarray) -> np.ndarray:
        return quantize_blocks(v, fmt, rounding, block_size=size).values

    direct = quantized(x)
    through = hadamard(quantized(hadamard(x, size, seed=seed)), size, seed=seed, inverse=True)
    nonzero = x != 0
    ax = new_axes(ax, figsize=(11, 5))
    index = np.arange(size)
    width = 0.28
    bars = (
        (x, "values"),
        (direct, f"quantized: {_zeroed(direct, nonzero)} nonzero values become 0"),
        (through, f"through the transform: {_zeroed(through, nonzero)} nonzero values become 0"),
    )
    for i, (values, label) in enumerate(bars):
        ax.bar(index + (i - 1) * width, values, width, color=format_color(i), label=label)
    ax.axhline(0, color="0.3", lw=0.8)
    ax.set_xticks(index)
    label_axes(ax, title or f"One block of {size} in {fmt}, with and without the transform",
               "element of the block", "value")  # fmt: skip
    ax.legend(fontsize=TEXT_SIZE - 1)
    return ax


def _zeroed(values: np.ndarray, nonzero: np.ndarray) -> str:
    return f"{int(np.count_nonzero(values[nonzero] == 0))} of {int(nonzero.sum())}"

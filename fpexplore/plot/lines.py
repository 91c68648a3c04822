"""Every representable value of a window as a tick on the number line (claim 5)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection

from fpexplore.core.arrays import decode_array
from fpexplore.core.decode import decode
from fpexplore.core.density import count_between, values_between
from fpexplore.exact import parse_real
from fpexplore.formats import Format, FormatLike, get_format

from ._style import KIND_COLORS, TEXT_SIZE, label_axes, new_axes

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
    fmt: FormatLike, lo: Any = None, hi: Any = None, ax: Axes | None = None, max_ticks: int = 5000
) -> Axes:
    """Every representable value in ``[lo, hi]`` as a tick on a number line (claim 5).

    Normal values, subnormals and zero get different colours; dashed grey lines
    mark the binade boundaries (powers of two). With no window the whole finite
    range ``[-max, max]`` is drawn, which suits FP8, FP6, FP4 and small custom
    formats; for wider ones the default is a window starting at 1 (the binade
    [1, 2] when it fits in ``max_ticks``, else its first 256 values: see
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
        lo, hi = default_window(fmt, max_ticks)
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
                list(segments),
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

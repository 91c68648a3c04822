"""How much rounding loses: the relative-error sawtooth, absolute-error staircase, histograms."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from fpexplore.core.density import binade_table
from fpexplore.core.error import representation_error, ulp
from fpexplore.formats import Format, FormatLike, get_format

from .._style import TEXT_SIZE, as_formats, format_color, label_axes, new_axes, staircase

__all__ = ["absolute_error", "error_histogram", "relative_error"]

_POINTS = "#0072B2"
_BOUND = "#D55E00"


def _sample(lo: float, hi: float, n: int, log: bool) -> np.ndarray:
    """``n`` sorted values drawn uniformly (in log2 when ``log``) from [lo, hi], seeded.

    Random rather than evenly spaced points: a regular grid beats against the
    format's own grid and draws moire patterns that are not about rounding.
    """
    rng = np.random.default_rng(0)
    if log:
        return np.sort(np.exp2(rng.uniform(np.log2(lo), np.log2(hi), n)))
    return np.sort(rng.uniform(lo, hi, n))


def _powers_of_two(lo: float, hi: float, fmt: Format) -> np.ndarray:
    """The powers of two of the format's range with lo <= p <= hi, both signs."""
    top = max(abs(lo), abs(hi))
    if top == 0:
        return np.empty(0)
    first = fmt.emin - fmt.mantissa_bits
    exponents = np.arange(first, max(first, int(np.ceil(np.log2(top)))) + 1)
    powers = np.ldexp(1.0, exponents)
    both = np.concatenate([-powers, powers])
    return both[(both >= lo) & (both <= hi)]


def _shade_outside(ax: Axes, fmt: Format, lo: float, hi: float) -> None:
    """Mark the subnormal range and the overflow range where they meet [lo, hi]."""
    tiny, top = fmt.smallest_normal, fmt.max
    if lo < tiny and hi > -tiny:
        ax.axvspan(max(lo, -tiny), min(hi, tiny), color=_BOUND, alpha=0.1, label="subnormal range")
    if hi > top:
        ax.axvspan(max(lo, top), hi, color="0.5", alpha=0.15, label=f"beyond max = {top:g}")
    if lo < -top:
        ax.axvspan(lo, min(hi, -top), color="0.5", alpha=0.15)


def relative_error(
    fmt: FormatLike, lo: float, hi: float, ax: Axes | None = None, n: int = 2000
) -> Axes:
    """The relative error of rounding ``n`` values in ``[lo, hi]`` into ``fmt`` (claim 10).

    Points: ``|round(x) - x| / |x|`` for ``n`` values drawn uniformly from
    ``[lo, hi]`` with a fixed seed (uniformly in log2 ``x``, on a log axis,
    when ``hi/lo > 64``). Solid line: the largest possible value,
    ``(ulp/2)/|x|``, a sawtooth that jumps back up at each power of two, and
    never above 1, the error of rounding to zero (which is what happens below
    half the smallest subnormal). Dashed line: its maximum, ``eps/2``, the bound
    that holds everywhere in the normal range; in the subnormal range (shaded)
    the relative error can exceed it. A window that reaches below the smallest
    normal number gets a log y axis, so that eps/2 and the bound, which grows to
    1 there, both stay in view, and a title of its own.

    Returns
    -------
    matplotlib.axes.Axes
        Points have gid ``"relative error"``, the sawtooth ``"bound"``, the
        eps/2 line ``"eps/2"``.

    Examples
    --------
    >>> ax = relative_error("float8_e4m3fn", 1, 16)
    >>> [line.get_gid() for line in ax.get_lines()]
    ['relative error', 'bound', 'eps/2']
    >>> relative_error("float16", 1e-8, 1e-2).get_yscale()
    'log'
    """
    fmt = get_format(fmt)
    lo, hi = float(lo), float(hi)
    if not lo < hi:
        raise ValueError(f"expected lo < hi, got lo={lo}, hi={hi}")
    log_x = lo > 0 and hi / lo > 64
    x = _sample(lo, hi, n, log_x)
    rel = representation_error(x, fmt).rel_error
    shown = np.isfinite(rel) & (x != 0)
    ax = new_axes(ax)
    ax.plot(
        x[shown],
        rel[shown],
        ".",
        ms=3,
        color=_POINTS,
        gid="relative error",
        label=f"relative error of {shown.sum()} values",
    )
    powers = _powers_of_two(lo, hi, fmt)
    half_tiny = fmt.smallest_subnormal / 2  # below it everything rounds to 0: an error of 1
    powers = np.concatenate([powers, [-half_tiny, half_tiny]])
    grid = np.union1d(np.union1d(x, powers), np.nextafter(powers, 0))
    grid = grid[(grid != 0) & (grid >= lo) & (grid <= hi) & (np.abs(grid) <= fmt.max)]
    # Rounding to nearest never errs by more than the value itself (rounding to 0)
    bound = np.minimum(np.asarray(ulp(grid, fmt)) / 2 / np.abs(grid), 1.0)
    ax.plot(
        grid,
        bound,
        color=_BOUND,
        lw=1.8,
        gid="bound",
        label="largest possible: (ulp/2) / |x|, at most 1",
    )
    half_eps = fmt.eps / 2
    ax.axhline(
        half_eps,
        color="black",
        ls="--",
        lw=1.5,
        gid="eps/2",
        label=f"eps/2 = 2$^{{-{fmt.mantissa_bits + 1}}}$ = {half_eps:.3g}",
    )
    _shade_outside(ax, fmt, lo, hi)
    if log_x:
        ax.set_xscale("log", base=2)
    ax.set_xlim(lo, hi)
    title = f"Relative error of rounding to {fmt.name}: below eps/2 in the normal range"
    if 0 < lo < fmt.smallest_normal:  # subnormals: the error climbs far above eps/2
        ax.set_yscale("log")
        positive = rel[shown][rel[shown] > 0]
        top = max(half_eps, float(np.max(bound, initial=0)), float(np.max(positive, initial=0)))
        ax.set_ylim(min(half_eps, float(np.min(positive, initial=half_eps))) / 2, 2 * top)
        title = f"Relative error in {fmt.name} near zero: subnormals exceed eps/2"
    else:
        ax.set_ylim(0, max(1.25 * half_eps, 1.05 * float(np.max(rel[shown], initial=0))))
    label_axes(ax, title, "x (the value rounded)", "relative error |round(x) − x| / |x|")
    # Below the axes: inside, the legend would cover the sawtooth's teeth.
    ax.legend(
        fontsize=TEXT_SIZE, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncols=2, frameon=False
    )
    return ax


def absolute_error(
    fmt: FormatLike, lo: float, hi: float, ax: Axes | None = None, n: int = 2000
) -> Axes:
    """The absolute error of rounding into ``fmt`` grows with magnitude (claim 10), log-log.

    Points: ``|round(x) - x|`` for ``n`` values drawn uniformly in log2 ``x``
    from ``[lo, hi]`` with a fixed seed (values stored exactly have no error
    and cannot be drawn on a log axis; the legend counts them). Staircase:
    the largest possible error, half the spacing, ``ulp/2``, doubling at each
    power of two.

    Returns
    -------
    matplotlib.axes.Axes
        Points have gid ``"absolute error"``, the staircase ``"ulp/2"``.

    Examples
    --------
    >>> ax = absolute_error("bfloat16", 1, 1024)
    >>> ax.get_xscale(), ax.get_yscale()
    ('log', 'log')
    """
    fmt = get_format(fmt)
    lo, hi = float(lo), float(hi)
    if not 0 < lo < hi:
        raise ValueError(f"expected 0 < lo < hi for log axes, got lo={lo}, hi={hi}")
    x = _sample(lo, hi, n, log=True)
    err = representation_error(x, fmt).abs_error
    shown = np.isfinite(err) & (err > 0)
    exact = int(np.sum(err == 0))
    ax = new_axes(ax)
    ax.plot(
        x[shown],
        err[shown],
        ".",
        ms=3,
        color=_POINTS,
        gid="absolute error",
        label=f"absolute error of {n} values"
        + (f" ({exact} stored exactly, not shown)" if exact else ""),
    )
    edges, rows = staircase(binade_table(fmt), fmt, lo, hi)
    if rows:
        half = [b.spacing / 2 for b in rows]
        ax.step(
            edges,
            [*half, half[-1]],
            where="post",
            color=_BOUND,
            lw=2,
            gid="ulp/2",
            label="largest possible: ulp/2, doubling at each power of two",
        )
    _shade_outside(ax, fmt, lo, hi)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    label_axes(
        ax,
        f"Absolute error of rounding to {fmt.name} grows with magnitude",
        "x (log scale)",
        "absolute error |round(x) − x| (log scale)",
    )
    ax.legend(fontsize=TEXT_SIZE, loc="upper left", framealpha=0.9)
    return ax


_KIND_NAMES = {"rel": "relative", "abs": "absolute", "ulp": "ULP"}


def error_histogram(
    values: Any,
    formats: FormatLike | Iterable[FormatLike],
    ax: Axes | None = None,
    kind: str = "rel",
) -> Axes:
    """Histogram of the error of an array of values rounded to each format.

    One outlined step histogram per format (outlines stay readable where several
    overlap), with its eps/2 bound as a dashed line of the same colour.

    Parameters
    ----------
    values : array_like of float
        E.g. weights, ``np.random.default_rng(0).normal(0, 0.05, 10_000)``.
    formats : format spec or list of them
    ax : matplotlib Axes, optional
    kind : {"rel", "abs", "ulp"}
        Relative and absolute errors are binned on a log axis, so values
        stored exactly (error 0) and values that overflow are not in the bars;
        the legend counts both. The axis starts near the data, at the 0.2nd
        percentile of all the positive errors; the legend also counts the few
        smaller ones, left of the axis. ULP errors (0 to 0.5) are binned linearly,
        zeros included.

    Returns
    -------
    matplotlib.axes.Axes
        One ``StepPatch`` per format in ``ax.patches``, with gid the format's name
        and data ``(counts, bin edges)``; for ``"rel"`` a dashed line at each
        format's eps/2 bound.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.random.default_rng(0).normal(0, 0.05, 1000)
    >>> ax = error_histogram(w, ["float16", "bfloat16"])
    >>> [p.get_gid() for p in ax.patches if p.get_gid()]
    ['float16', 'bfloat16']
    """
    if kind not in _KIND_NAMES:
        raise ValueError(f"kind must be one of {', '.join(_KIND_NAMES)}, got {kind!r}")
    fmts = as_formats(formats)
    x = np.asarray(values, dtype=np.float64).ravel()
    results = [representation_error(x, f) for f in fmts]
    errors = [getattr(r, f"{kind}_error") for r in results]
    ax = new_axes(ax)
    if kind == "ulp":
        finite = np.concatenate([e[np.isfinite(e)] for e in errors])
        bins = np.linspace(0, max(0.5, float(finite.max(initial=0))), 51)
    else:
        positive = np.concatenate([e[np.isfinite(e) & (e > 0)] for e in errors])
        low, high = (np.quantile(positive, 0.002), positive.max()) if positive.size else (1e-8, 1)
        bins = np.geomspace(low / 1.2, high * 1.2, 61)
    tallest = 1
    for i, (fmt, result, err) in enumerate(zip(fmts, results, errors, strict=True)):
        finite = np.isfinite(err)
        kept = finite if kind == "ulp" else finite & (err > 0)
        notes = []
        if kind != "ulp" and (exact := int(np.sum(err == 0))):
            notes.append(f"{exact} exact")
        if zeroed := int(np.sum((result.rounded == 0) & (x != 0))):
            notes.append(f"{zeroed} became 0")
        if overflow := int(np.sum(~finite)):
            notes.append(f"{overflow} overflowed")
        if below := int(np.sum(kept & (err < bins[0]))):
            notes.append(f"{below} left of axis")
        note = f" ({', '.join(notes)})" if notes else ""
        counts, _ = np.histogram(err[kept], bins=bins)
        tallest = max(tallest, int(counts.max(initial=1)))
        color = format_color(i)
        ax.stairs(counts, bins, fill=True, color=color, alpha=0.12)
        ax.stairs(counts, bins, color=color, lw=2.2, gid=fmt.name, label=f"{fmt.name}{note}")
        if kind == "rel":
            ax.axvline(fmt.eps / 2, color=color, ls="--", lw=1.5)
    handles, _ = ax.get_legend_handles_labels()
    if kind == "rel":
        handles.append(Line2D([], [], color="0.3", ls="--", lw=1.5, label="eps/2 of each format"))
    if kind != "ulp":
        ax.set_xscale("log")
        ax.set_xlim(bins[0], bins[-1])
    name = _KIND_NAMES[kind]
    label_axes(
        ax,
        f"{name.capitalize()} error of {x.size} values rounded to each format",
        f"{name} error" + (" (log scale)" if kind != "ulp" else " (ULPs)"),
        "number of values",
    )
    # Headroom above the tallest bar keeps the legend off the data.
    ax.set_ylim(0, 1.4 * tallest)
    ax.legend(handles=handles, fontsize=TEXT_SIZE - 1, loc="upper center", ncols=2, framealpha=0.9)
    return ax

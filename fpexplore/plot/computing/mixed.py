"""Figures for the mixed-precision simulations of :mod:`fpexplore.mixed`.

Every function takes ``ax=None`` (a new figure is made when it is None) and returns the
Axes it drew on; none calls ``plt.show()``. Font sizes are chosen to be legible on a
projector. Longer than 300 lines because it holds one figure per simulation of
:mod:`fpexplore.mixed` (one job: draw them), each a short function.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes

from fpexplore.formats import get_format
from fpexplore.mixed import (
    AccumulationDemo,
    DotAccumulation,
    LossScaleLog,
    LossScaleSweep,
    MatmulError,
    SoftmaxDemo,
    format_limits,
    round_values,
)
from fpexplore.plot._style import TEXT_SIZE, TICK_SIZE, format_color, label_axes, new_axes

__all__ = [
    "plot_dot_accumulation",
    "plot_dynamic_loss_scale",
    "plot_exp_overflow",
    "plot_gradient_histogram",
    "plot_loss_scale_sweep",
    "plot_matmul_error",
    "plot_policy_comparison",
    "plot_running_sums",
    "plot_softmax_demo",
]

BAD = "#D55E00"  # vermillion: lost to underflow, NaN, skipped
GOOD = "#009E73"  # bluish green: recovered, grown
OVERFLOW = "#E69F00"  # orange: overflow zone
LEGEND_SIZE = TEXT_SIZE - 1


def plot_exp_overflow(fmt: str = "float16", x_max: float = 14.0, ax: Axes | None = None) -> Axes:
    """exp(x) exactly and rounded to ``fmt``, with the largest finite ``fmt`` value.

    Examples
    --------
    >>> plot_exp_overflow("float16").get_title()
    'exp(x) overflows float16 beyond x = 11.09'
    """
    ax = new_axes(ax)
    x = np.linspace(0.0, x_max, 561)
    with np.errstate(over="ignore"):
        stored = round_values(np.exp(x), fmt)
    largest = format_limits(fmt)["max"]
    ax.semilogy(x, np.exp(x), color="0.3", lw=2, label="exp(x), exact")
    finite = np.isfinite(stored)
    ax.semilogy(
        x[finite], stored[finite], color=format_color(0), lw=4, alpha=0.6, label=f"exp(x) in {fmt}"
    )
    ax.axhline(largest, color=BAD, ls="--", label=f"largest {fmt} = {largest:g}")
    ax.axvline(
        np.log(largest), color=BAD, ls=":", label=f"x = log({largest:g}) = {np.log(largest):.2f}"
    )
    ax.axvspan(np.log(largest), x_max, color=BAD, alpha=0.1)
    ax.text(np.log(largest) + 0.1, largest / 30, f"inf in {fmt}", color=BAD, fontsize=TEXT_SIZE)
    label_axes(
        ax, f"exp(x) overflows {fmt} beyond x = {np.log(largest):.2f}", "x (logit)", "exp(x)"
    )
    ax.legend(fontsize=LEGEND_SIZE, loc="upper left")
    return ax


def plot_softmax_demo(demo: SoftmaxDemo, ax: Axes | None = None) -> Axes:
    """Grouped bars of the class probabilities computed each way; NaN and 0 are labelled.

    Examples
    --------
    >>> from fpexplore.mixed import softmax_overflow_demo
    >>> ax = plot_softmax_demo(softmax_overflow_demo((12.0, 1.0, 0.0)))
    >>> [t.get_text() for t in ax.texts]
    ['NaN', '0', '0']
    """
    ax = new_axes(ax)
    rows = {
        f"naive {demo.fmt}": (demo.probs_naive, demo.loss_naive),
        f"max-subtracted {demo.fmt}": (demo.probs_stable, demo.loss_stable),
        "float32 (Keras dtype='float32')": (demo.probs_float32, demo.loss_float32),
        "exact": (demo.probs_exact, demo.loss_exact),
    }
    n_classes, width, floor = demo.logits.size, 0.2, 1e-8
    x = np.arange(n_classes)
    for i, (name, (probs, loss)) in enumerate(rows.items()):
        pos = x + (i - 1.5) * width
        heights = np.where(np.isfinite(probs) & (probs > 0), probs, floor)
        ax.bar(
            pos, heights, width, bottom=0, color=format_color(i), label=f"{name}: loss {loss:.3g}"
        )
        for p, v in zip(pos, probs, strict=True):
            if not np.isfinite(v) or v == 0:
                ax.text(p, floor * 2, "NaN" if np.isnan(v) else "0", ha="center", fontsize=10)
    ax.set_yscale("log")
    ax.set_ylim(floor, 3)
    ax.set_xticks(x, [f"class {k}\nlogit {z:g}" for k, z in enumerate(demo.logits)])
    label_axes(ax, f"Softmax of logits {demo.logits.tolist()}", "", "probability (log scale)")
    ax.legend(fontsize=LEGEND_SIZE - 1, loc="upper right")
    return ax


def plot_gradient_histogram(
    gradients: np.ndarray, scale: float = 2.0**15, fmt: str = "float16", ax: Axes | None = None
) -> Axes:
    """Histograms of log2 |gradient| before and after scaling, against ``fmt``'s range.

    Examples
    --------
    >>> from fpexplore.mixed import sample_gradients
    >>> plot_gradient_histogram(sample_gradients(1000), scale=2.0**15).get_xlabel()
    'log2 |gradient|'
    """
    ax = new_axes(ax)
    limits = format_limits(fmt)
    log_g = np.log2(np.abs(np.asarray(gradients, dtype=np.float64)))
    shift = np.log2(scale)
    bins = np.arange(np.floor(log_g.min()), np.ceil(log_g.max() + shift) + 1)
    ax.hist(log_g, bins=bins.tolist(), color=format_color(0), alpha=0.6, label="gradients")
    ax.hist(
        log_g + shift, bins=bins.tolist(), color=GOOD, alpha=0.6, label=f"gradients x 2**{shift:g}"
    )
    zero_edge = np.log2(limits["smallest_subnormal"] / 2)
    top_edge = np.log2(limits["max"])
    ax.axvspan(bins[0], zero_edge, color=BAD, alpha=0.12, label=f"rounds to 0 in {fmt}")
    ax.axvspan(top_edge, bins[-1], color=OVERFLOW, alpha=0.12, label=f"overflows {fmt}")
    ax.axvline(np.log2(limits["smallest_normal"]), color="0.4", ls=":", label="smallest normal")
    label_axes(ax, f"Loss scaling moves gradients into {fmt}'s range", "log2 |gradient|", "count")
    ax.legend(fontsize=LEGEND_SIZE - 1, loc="upper left")
    return ax


def plot_loss_scale_sweep(
    sweep: LossScaleSweep, tolerance: float = 1e-3, ax: Axes | None = None
) -> Axes:
    """Percent of gradients zeroed, subnormal and overflowed against log2 of the scale.

    The percentages are on a log axis, so the small overflow fractions that close the
    window are visible; a fraction of exactly 0 has no place on it and leaves a gap. The
    usable window (:meth:`LossScaleSweep.window`: nothing overflows, at most
    ``tolerance`` zeroed) is shaded.

    Examples
    --------
    >>> from fpexplore.mixed import loss_scale_sweep, sample_gradients
    >>> ax = plot_loss_scale_sweep(loss_scale_sweep(sample_gradients(1000)))
    >>> [line.get_label() for line in ax.get_lines()][0], ax.get_yscale()
    ('became 0 (underflow)', 'log')
    """
    ax = new_axes(ax)
    log_scale = np.log2(sweep.scale)
    series = (
        (sweep.fraction_zero, "o-", BAD, "became 0 (underflow)"),
        (sweep.fraction_subnormal, "s-", format_color(0), "became subnormal"),
        (sweep.fraction_overflow, "^-", OVERFLOW, "became inf (overflow)"),
    )
    for fraction, style, color, label in series:
        percent = np.where(fraction > 0, 100 * fraction, np.nan)  # 0: a gap on a log axis
        ax.plot(log_scale, percent, style, color=color, lw=2, label=label)
    ax.set_yscale("log")
    window = sweep.window(tolerance)
    if window is not None:
        lo, hi = np.log2(window)
        ax.axvspan(
            lo - 0.5,
            hi + 0.5,
            color=GOOD,
            alpha=0.18,
            gid="usable window",
            label=f"usable: none overflow, <= {100 * tolerance:g}% zeroed (2**{lo:g} to 2**{hi:g})",
        )
    ax.axhline(
        100 * tolerance,
        color="0.4",
        ls=":",
        lw=1.5,
        label=f"tolerance: {100 * tolerance:g}% zeroed",
    )
    label_axes(
        ax,
        f"Which loss scale keeps gradients in {sweep.fmt}?",
        "log2(loss scale)",
        "% of gradients (log scale)",
    )
    ax.legend(fontsize=LEGEND_SIZE, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncols=2)
    return ax


def plot_dynamic_loss_scale(log: LossScaleLog, ax: Axes | None = None) -> Axes:
    """The loss scale per step, with skipped steps and doublings marked.

    Examples
    --------
    >>> from fpexplore.mixed import dynamic_loss_scaling
    >>> ax = plot_dynamic_loss_scale(dynamic_loss_scaling([1.0, 4.0, 1.0], growth_steps=2))
    >>> ax.get_lines()[1].get_xdata().tolist()  # the skipped step
    [1]
    """
    ax = new_axes(ax)
    log2_scale = np.log2(log.scale)
    ax.step(
        log.step, log2_scale, where="post", color=format_color(0), lw=2, label="loss scale used"
    )
    skipped = ~log.applied
    ax.plot(
        log.step[skipped],
        log2_scale[skipped],
        "x",
        color=BAD,
        ms=12,
        mew=3,
        label="not finite: step skipped, scale halved",
    )
    grown = log.applied & (log.next_scale > log.scale)
    ax.plot(
        log.step[grown],
        log2_scale[grown],
        "^",
        color=GOOD,
        ms=10,
        label=f"{log.growth_steps} good steps: scale doubled",
    )
    ticks = np.arange(np.floor(log2_scale.min()), np.ceil(log2_scale.max()) + 1)
    ax.set_yticks(ticks, [f"2**{t:g}" for t in ticks])
    ax.set_ylim(ticks[0] - 0.5, ticks[-1] + 0.5)
    label_axes(ax, "Dynamic loss scaling, step by step", "training step", "loss scale (log scale)")
    ax.legend(fontsize=LEGEND_SIZE)
    return ax


def plot_running_sums(demo: AccumulationDemo, ax: Axes | None = None) -> Axes:
    """Running sums of a repeated increment per accumulator format, with stall points.

    The exact sum is drawn last, thin and dashed, so that it shows on top of an
    accumulator that is still exact.

    Examples
    --------
    >>> from fpexplore.mixed import accumulation_demo
    >>> ax = plot_running_sums(accumulation_demo(1.0, 2100, formats=("float16",)))
    >>> [line.get_label() for line in ax.get_lines()]
    ['float16 accumulator (stalls at 2048)', 'exact']
    """
    ax = new_axes(ax)
    for i, (name, sums) in enumerate(demo.sums.items()):
        stall = demo.stall[name]
        note = f"stalls at {stall:g}" if np.isfinite(stall) else f"no stall in {demo.n_terms[-1]}"
        ax.plot(
            demo.n_terms, sums, color=format_color(i), lw=4, label=f"{name} accumulator ({note})"
        )
    # Drawn last, thin and dashed, so that it stays visible where a sum is still exact.
    ax.plot(
        demo.n_terms, demo.exact, color="black", ls=(0, (4, 3)), lw=1.5, zorder=5, label="exact"
    )
    label_axes(
        ax, f"Adding {demo.increment:g} again and again", "number of terms added", "running sum"
    )
    ax.legend(fontsize=LEGEND_SIZE, loc="upper left")
    return ax


def plot_dot_accumulation(
    acc: DotAccumulation, ax: Axes | None = None, *, bounds: bool = False
) -> Axes:
    """Relative error of a dot product's partial sums per accumulator, log-log; with
    ``bounds``, each accumulator's error bound as a dashed line of its colour: ``n u``
    for float16 (each product rounded once, then n - 1 additions), ``(n - 1) u`` for
    exact products summed in float32 (Higham 2002, section 3.1).

    Examples
    --------
    >>> from fpexplore.mixed import dot_product_accumulation
    >>> plot_dot_accumulation(dot_product_accumulation(256)).get_yscale()
    'log'
    >>> ax = plot_dot_accumulation(dot_product_accumulation(256), bounds=True)
    >>> [line.get_gid() for line in ax.get_lines() if line.get_gid()]
    ['float16 bound', 'float32 bound']
    """
    ax = new_axes(ax)
    labels = {
        "float16": "float16 products, float16 sum",
        "float32": "exact products, float32 sum (tensor cores)",
    }
    positive = np.concatenate([err[err > 0] for err in acc.rel_error.values()])
    floor = float(positive.min(initial=1.0)) / 4  # where an error of exactly 0 is marked
    for i, (name, err) in enumerate(acc.rel_error.items()):
        ax.loglog(
            acc.n_terms,
            np.where(err > 0, err, np.nan),  # an exact partial sum has no place on a log axis
            color=format_color(i),
            lw=2,
            label=labels.get(name, name),
        )
        if (exact := err == 0).any():
            shown = ", ".join(str(n) for n in acc.n_terms[exact][:3])
            ax.plot(
                acc.n_terms[exact],
                np.full(exact.sum(), floor),
                "v",
                color=format_color(i),
                ms=9,
                label=f"{name} sum exact (error 0) at n = {shown}"
                + (", ..." if exact.sum() > 3 else ""),
            )
    if bounds:  # products of float16 values are exact in float32, rounded once in float16
        for i, name in enumerate(acc.rel_error):
            u, roundings = get_format(name).eps / 2, acc.n_terms - (name != "float16")
            count = "n" if name == "float16" else "(n - 1)"
            bound = np.where(roundings > 0, roundings * u, np.nan)  # 0 has no place on a log axis
            ax.loglog(acc.n_terms, bound, ls="--", lw=1.8, color=format_color(i),
                      gid=f"{name} bound",
                      label=f"{name} bound: {count} u, u = {u:.2g}")  # fmt: skip
    label_axes(ax, "Dot product of float16 vectors", "number of terms", "relative error")
    if bounds:  # six entries: under the Axes, clear of the curves
        ax.legend(fontsize=LEGEND_SIZE, loc="upper center", bbox_to_anchor=(0.5, -0.15),
                  ncols=2, frameon=False)  # fmt: skip
    else:
        ax.legend(fontsize=LEGEND_SIZE)
    return ax


def plot_matmul_error(err: MatmulError, ax: Axes | None = None) -> Axes:
    """Max and mean relative error of float16 matrix products against the inner size.

    Examples
    --------
    >>> from fpexplore.mixed import matmul_error
    >>> len(plot_matmul_error(matmul_error((16, 64), size=8)).get_lines())
    4
    """
    ax = new_axes(ax)
    for i, name in enumerate(err.max_rel_error):
        ax.loglog(
            err.inner_size,
            err.max_rel_error[name],
            "o-",
            color=format_color(i),
            lw=2,
            label=f"{name} accumulation, max",
        )
        ax.loglog(
            err.inner_size,
            err.mean_rel_error[name],
            "s--",
            color=format_color(i),
            lw=2,
            label=f"{name} accumulation, mean",
        )
    label_axes(ax, "float16 matrix product error vs float64", "inner dimension k", "relative error")
    ax.legend(fontsize=LEGEND_SIZE)
    return ax


def plot_policy_comparison(
    results: Mapping[str, Mapping[str, float]],
    ax: Sequence[Axes] | None = None,
    metrics: Sequence[tuple[str, str]] = (
        ("accuracy", "test accuracy"),
        ("loss", "test loss"),
        ("ms_per_step", "time per step (ms)"),
    ),
) -> tuple[Axes, ...]:
    """One bar panel per metric, one bar per dtype policy; returns the panels' Axes.

    ``results`` maps a policy name to a mapping with a value for every metric key, e.g.
    ``{"float32": {"accuracy": 0.97, "loss": 0.1, "ms_per_step": 2.0}, ...}``.

    Examples
    --------
    >>> run = {"accuracy": 0.97, "loss": 0.1, "ms_per_step": 2.0}
    >>> axes = plot_policy_comparison({"float32": run})
    >>> [ax.get_title() for ax in axes]
    ['test accuracy', 'test loss', 'time per step (ms)']
    """
    if ax is None:
        _, ax = plt.subplots(1, len(metrics), figsize=(4.2 * len(metrics), 4), layout="constrained")
    axes = tuple(np.atleast_1d(np.asarray(ax, dtype=object)))
    names = list(results)
    for panel, (key, label) in zip(axes, metrics, strict=True):
        values = [results[name][key] for name in names]
        bars = panel.bar(names, values, color=[format_color(i) for i in range(len(names))])
        panel.bar_label(bars, labels=[f"{v:.3g}" for v in values], fontsize=LEGEND_SIZE)
        panel.tick_params(labelsize=TICK_SIZE)
        panel.tick_params(axis="x", labelrotation=20)
        panel.set_ylim(0, 1.18 * max(values))
        label_axes(panel, label, "dtype policy", label)
    return axes

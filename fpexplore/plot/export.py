"""Write every figure of :mod:`fpexplore.plot` to PNG files (the gallery).

``plot_policy_comparison`` is left out: it draws measured training results,
which only the Keras notebook and ``benchmarks/mixed_precision.py`` produce.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from fpexplore import mixed as sim
from fpexplore.core.decode import from_bits

from .computing import mixed as mixed_plots
from .computing.bounds import plot_cancellation, plot_sum_errors
from .values.anatomy import bits
from .values.binades import density, spacing
from .values.errors import absolute_error, error_histogram, relative_error
from .values.formats import format_map
from .values.lines import number_line

__all__ = ["FIGURES", "gallery"]

_WEIGHTS = np.random.default_rng(0).normal(0.0, 0.05, 10_000)


def _one(draw: Callable[..., object]) -> Callable[[Figure], None]:
    """A recipe drawing on one Axes of the figure."""

    def recipe(fig: Figure) -> None:
        draw(ax=fig.add_subplot())

    return recipe


FIGURES: dict[str, tuple[tuple[float, float], Callable[[Figure], None]]] = {
    "bits_pi_float32": ((12, 3.4), _one(lambda ax: bits(from_bits(0x40490FDB, "float32"), ax=ax))),
    "bits_0.1_float64": ((16, 3.4), _one(lambda ax: bits("0.1", "float64", ax=ax))),
    "bits_1e-6_float16": ((8, 3.4), _one(lambda ax: bits("1e-6", "float16", ax=ax))),
    "number_line_float8_e4m3fn": ((12, 3.6), _one(lambda ax: number_line("float8_e4m3fn", ax=ax))),
    "number_line_float8_e4m3fn_near_0": (
        (12, 3.6),
        _one(lambda ax: number_line("float8_e4m3fn", 0, 0.0625, ax=ax)),
    ),
    "number_line_float4_e2m1fn": ((12, 3.6), _one(lambda ax: number_line("float4_e2m1fn", ax=ax))),
    "number_line_bfloat16_3_to_4": (
        (12, 3.6),
        _one(lambda ax: number_line("bfloat16", 3, 4, ax=ax)),
    ),
    "spacing": (
        (10, 6),
        _one(
            lambda ax: spacing(
                ["float32", "bfloat16", "float16", "float8_e4m3fn"], 2.0**-20, 2.0**17, ax=ax
            )
        ),
    ),
    "relative_error_float16": ((10, 5), _one(lambda ax: relative_error("float16", 1, 8, ax=ax))),
    "relative_error_float8_e4m3fn": (
        (10, 5),
        _one(lambda ax: relative_error("float8_e4m3fn", 2**-9, 448, ax=ax)),
    ),
    "absolute_error_float16": (
        (10, 5),
        _one(lambda ax: absolute_error("float16", 2.0**-26, 2.0**17, ax=ax)),
    ),
    "density_float16": ((10, 5.5), _one(lambda ax: density("float16", ax=ax))),
    "density_float8_e4m3fn": ((10, 5.5), _one(lambda ax: density("float8_e4m3fn", ax=ax))),
    "format_map": ((10, 6), _one(lambda ax: format_map(ax=ax))),
    "error_histogram_weights": (
        (10, 5),
        _one(lambda ax: error_histogram(_WEIGHTS, ["float16", "bfloat16", "float8_e4m3fn"], ax=ax)),
    ),
    "mixed_exp_overflow": ((9, 4.5), _one(lambda ax: mixed_plots.plot_exp_overflow(ax=ax))),
    "mixed_softmax_demo": (
        (10, 5),
        _one(lambda ax: mixed_plots.plot_softmax_demo(sim.softmax_overflow_demo(), ax=ax)),
    ),
    "mixed_gradient_histogram": (
        (9, 4.5),
        _one(lambda ax: mixed_plots.plot_gradient_histogram(sim.sample_gradients(20_000), ax=ax)),
    ),
    "mixed_loss_scale_sweep": (
        (9, 4.5),
        _one(
            lambda ax: mixed_plots.plot_loss_scale_sweep(
                sim.loss_scale_sweep(sim.sample_gradients(20_000)), ax=ax
            )
        ),
    ),
    "mixed_dynamic_loss_scale": (
        (9, 4.5),
        _one(
            lambda ax: mixed_plots.plot_dynamic_loss_scale(
                sim.dynamic_loss_scaling([0.5] * 6 + [4.0] + [0.5] * 8, growth_steps=4), ax=ax
            )
        ),
    ),
    "mixed_running_sums": (
        (9, 4.5),
        _one(lambda ax: mixed_plots.plot_running_sums(sim.accumulation_demo(), ax=ax)),
    ),
    "mixed_dot_accumulation": (
        (9, 4.5),
        _one(lambda ax: mixed_plots.plot_dot_accumulation(sim.dot_product_accumulation(), ax=ax)),
    ),
    "sum_errors_float16": (
        (10, 5.5),
        _one(lambda ax: plot_sum_errors(sim.summation_errors(trials=4), ax=ax)),
    ),
    "cancellation_float16": ((9, 4.8), _one(lambda ax: plot_cancellation("float16", ax=ax))),
    "mixed_matmul_error": (
        (9, 4.5),
        _one(
            lambda ax: mixed_plots.plot_matmul_error(sim.matmul_error((16, 64, 256, 1024)), ax=ax)
        ),
    ),
}
"""Gallery name -> (figure size in inches, recipe drawing on a Figure)."""


def gallery(directory: str | Path, *, dpi: int = 100) -> list[Path]:
    """Draw every figure and write it to ``directory/<name>.png``.

    Figures are made with :class:`matplotlib.figure.Figure` directly, so
    nothing is registered with pyplot, no window opens whatever the backend,
    and PNGs are rendered by Agg.

    Returns
    -------
    list of pathlib.Path
        The files written, in :data:`FIGURES` order.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:  # doctest: +SKIP
    ...     paths = gallery(tmp)
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (size, draw) in FIGURES.items():
        fig = Figure(figsize=size, layout="constrained")
        draw(fig)
        path = out / f"{name}.png"
        fig.savefig(path, dpi=dpi)
        written.append(path)
    return written

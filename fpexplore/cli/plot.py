"""``fpexplore --plot NAME --output FILE``: draw a figure of :mod:`fpexplore.plot` to a file.

matplotlib is imported only here, and only when a plot is asked for; without
it the command stops with one line naming the extra to install. The figure is
drawn on a :class:`matplotlib.figure.Figure` of its own (no pyplot state) and
saved with the Agg renderer.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from ..exact import parse_real
from ..formats import Format, get_format
from .expression import number_value
from .output import DEFAULT_FORMAT, UsageError

__all__ = ["MIXED_PLOT_NAMES", "PLOT_NAMES", "save_plot"]

PLOT_NAMES = (
    "bits",
    "number_line",
    "spacing",
    "relative_error",
    "absolute_error",
    "density",
    "format_map",
    "error_histogram",
)
"""The figures ``--plot`` can draw; each is the function of that name in :mod:`fpexplore.plot`."""

MIXED_PLOT_NAMES = (
    "exp_overflow",
    "softmax_demo",
    "gradient_histogram",
    "loss_scale_sweep",
    "dynamic_loss_scale",
    "running_sums",
    "dot_accumulation",
    "matmul_error",
)
"""The float16 failure figures of :mod:`fpexplore.plot.computing.mixed` (``plot_<name>``), drawn
from the same simulations as in the gallery; they take no VALUE, -f or --range."""

SUFFIXES = (".png", ".svg", ".pdf")
DPI = 150

SPACING_FORMATS = ("float32", "bfloat16", "float16", "float8_e4m3fn")
HISTOGRAM_FORMATS = ("float16", "bfloat16", "float8_e4m3fn")
"""Formats drawn by ``spacing`` and ``error_histogram`` without ``-f``."""

RELATIVE_ERROR_SPAN = ("1", "8")
"""x range of ``relative_error`` without ``--range``: three binades, three sawtooth teeth."""

FIGURE_SIZES = {
    "bits": (12, 3.4),
    "number_line": (12, 3.6),
    "spacing": (10, 6),
    "format_map": (10, 6),
    "density": (10, 5.5),
}
"""Figure sizes in inches (others: 10 x 5); ``bits`` widens for 64-bit formats."""

HISTOGRAM_SAMPLES = 10_000


def _number(text: str) -> float:
    """A --range bound as a float (read exactly, then rounded once)."""
    exact = parse_real(number_value(text, "--range bound"))
    if exact.special == "nan":
        raise UsageError(f"--range bound {text!r} is NaN; expected a number")
    return exact.to_float()


def _span(span: tuple[str, str] | None, default: tuple[str, str]) -> tuple[float, float]:
    lo, hi = (_number(bound) for bound in (span or default))
    if not lo < hi:
        raise UsageError(f"--range {lo:g} {hi:g}: expected LO < HI")
    return lo, hi


def _single(formats: list[Format] | None, name: str) -> Format:
    if formats is None:
        return get_format(DEFAULT_FORMAT)
    if len(formats) != 1:
        raise UsageError(f"--plot {name} draws one format; expected a single -f")
    return formats[0]


def _several(formats: list[Format] | None, default: tuple[str, ...]) -> list[Format]:
    return [get_format(name) for name in default] if formats is None else formats


def _draw(
    name: str,
    plot: Any,
    ax: Any,
    value: str | None,
    formats: list[Format] | None,
    span: tuple[str, str] | None,
) -> None:
    """Call ``plot.<name>`` with arguments taken from the command line."""
    lo: Any  # a window: exact values for number_line (text or a power), floats for the others
    hi: Any
    if value is not None and name != "bits":
        raise UsageError(f"--plot {name} takes no VALUE (only --plot bits does)")
    if name == "bits":
        if value is None:
            raise UsageError(
                "--plot bits needs a VALUE, e.g. fpexplore 3.14159 --plot bits -o pi.png"
            )
        x = number_value(value)  # a power: its exact value, titled as typed
        plot.bits(x, _single(formats, name), ax=ax, label=None if x is value else value)
    elif name == "number_line":
        fmt = _single(formats, name)
        lo, hi = (None, None) if span is None else (number_value(b, "--range bound") for b in span)
        if span is not None:
            _span(span, span)  # check the bounds; number_line reads them exactly
        try:
            plot.number_line(fmt, lo, hi, ax=ax)
        except ValueError as err:
            if span is not None:
                raise
            raise UsageError(
                f"--plot number_line: {fmt.name} has {fmt.n_finite} finite values, too many to "
                "draw them all; pass a window with --range LO HI, e.g. --range 3 4"
            ) from err
    elif name in ("relative_error", "absolute_error"):
        fmt = _single(formats, name)
        whole = (str(fmt.smallest_subnormal), str(fmt.max))
        lo, hi = _span(span, RELATIVE_ERROR_SPAN if name == "relative_error" else whole)
        getattr(plot, name)(fmt, lo, hi, ax=ax)
    elif name == "density":
        plot.density(_single(formats, name), ax=ax)
    elif name == "spacing":
        lo, hi = (None, None) if span is None else _span(span, span)
        plot.spacing(_several(formats, SPACING_FORMATS), lo, hi, ax=ax)
    elif name == "format_map":
        plot.format_map(formats, ax=ax)
    else:  # error_histogram: weight-like values, or uniform ones in --range
        rng = np.random.default_rng(0)
        if span is None:
            values = rng.normal(0.0, 0.05, HISTOGRAM_SAMPLES)
        else:
            values = rng.uniform(*_span(span, span), HISTOGRAM_SAMPLES)
        plot.error_histogram(values, _several(formats, HISTOGRAM_FORMATS), ax=ax)


def _check_output(output: str | None, force: bool) -> Path:
    if not output:
        raise UsageError("--plot needs --output FILE (.png, .svg or .pdf) to write the figure to")
    path = Path(output.strip())
    if path.suffix.lower() not in SUFFIXES:
        raise UsageError(f"--output {output}: expected a file name ending in {', '.join(SUFFIXES)}")
    if path.is_dir():
        raise UsageError(f"--output {output} is a folder; expected a file name")
    if path.exists() and not force:
        raise UsageError(f"{output} exists; pass --force to overwrite it")
    if not path.parent.is_dir():
        raise UsageError(f"--output {output}: folder {path.parent} does not exist")
    return path


def save_plot(
    name: str,
    value: str | None,
    formats: list[Format] | None,
    output: str | None,
    *,
    span: tuple[str, str] | None = None,
    force: bool = False,
) -> Path:
    """Draw ``fpexplore.plot.<name>`` and save it to ``output``; return the path.

    Parameters
    ----------
    name : str
        One of :data:`PLOT_NAMES` or :data:`MIXED_PLOT_NAMES`.
    value : str or None
        The number for ``bits`` (and for it only).
    formats : list of Format, optional
        What ``-f`` asked for; None when it was not given, which means
        float32 for the one-format figures (``bits``, ``number_line``,
        ``relative_error``, ``absolute_error``, ``density``),
        :data:`SPACING_FORMATS` or :data:`HISTOGRAM_FORMATS` for ``spacing``
        and ``error_histogram``, and the whole catalogue for ``format_map``.
    output : str
        Target file; its suffix (.png, .svg, .pdf) picks the image type. An
        existing file is overwritten only with ``force``.
    span : (str, str), optional
        ``--range``: the window of ``number_line`` (default: the whole
        format), ``relative_error`` (default 1 to 8), ``absolute_error``
        (default: smallest subnormal to max) and ``spacing``; for
        ``error_histogram``, values drawn uniformly from it instead of the
        default normal(0, 0.05) "weights".

    Raises
    ------
    UsageError
        For a missing, existing (without ``force``) or badly named output
        file, arguments the figure cannot use, or a missing matplotlib.
    """
    path = _check_output(output, force)
    try:
        import matplotlib
    except ImportError:
        raise UsageError(
            "plotting needs matplotlib; install it from a clone of fpexplore (not on PyPI yet): "
            'pip install -e ".[plot]"'
        ) from None
    if "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")  # files only: never open a window
    from matplotlib.figure import Figure

    plot = importlib.import_module("fpexplore.plot")
    if name in MIXED_PLOT_NAMES:
        if value is not None or formats is not None or span is not None:
            raise UsageError(f"--plot {name} takes no VALUE, -f or --range")
        from ..plot.export import FIGURES

        size, recipe = FIGURES[f"mixed_{name}"]
        figure = Figure(figsize=size, layout="constrained")
        _quietly(name, path, lambda: recipe(figure), lambda: figure.savefig(path, dpi=DPI))
        return path
    width, height = FIGURE_SIZES.get(name, (10, 5))
    if name == "bits" and formats is not None and formats[0].bits > 32:
        width = 16
    figure = Figure(figsize=(width, height), layout="constrained")
    _quietly(
        name,
        path,
        lambda: _draw(name, plot, figure.subplots(), value, formats, span),
        lambda: figure.savefig(path, dpi=DPI),
    )
    return path


def _quietly(name: str, path: Path, draw: Any, save: Any) -> None:
    """Draw and save with numpy's and matplotlib's warnings held back (nothing on
    stderr on success); a figure that cannot be drawn over the asked range is one
    UsageError, and leaves no file behind."""
    existed = path.exists()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            draw()
            save()
        except UsageError:
            raise
        except (ValueError, OverflowError, ArithmeticError, RuntimeError) as err:
            if not existed:
                path.unlink(missing_ok=True)
            first = (str(err).splitlines() or [type(err).__name__])[0]
            raise UsageError(
                f"--plot {name} cannot be drawn with these arguments ({first}); "
                "try a narrower --range or another format"
            ) from None

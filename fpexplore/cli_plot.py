"""``fpexplore --plot NAME --output FILE``: draw a figure of :mod:`fpexplore.plot` to a file.

matplotlib is imported only here, and only when a plot is asked for; without
it the command stops with one line naming the extra to install.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .cli_output import UsageError

if TYPE_CHECKING:
    from .formats import Format

__all__ = ["PLOT_NAMES", "save_plot"]

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

SUFFIXES = (".png", ".svg", ".pdf")
DEFAULT_SPAN = {"number_line": ("1", "4"), "relative_error": ("1", "1024")}
"""x ranges used without ``--range``; the others default to ``relative_error``'s."""

HISTOGRAM_SAMPLES = 100_000


def _span(name: str, span: tuple[str, str] | None) -> tuple[float, float]:
    lo, hi = span if span is not None else DEFAULT_SPAN.get(name, DEFAULT_SPAN["relative_error"])
    try:
        low, high = float(lo), float(hi)
    except ValueError:
        raise UsageError(f"--range {lo} {hi}: expected two numbers such as --range 1 4") from None
    if not low < high:
        raise UsageError(f"--range {lo} {hi}: expected LO < HI")
    return low, high


def _single(formats: list[Format] | None, name: str) -> Format:
    if formats is None or len(formats) != 1:
        raise UsageError(f"--plot {name} draws one format; expected a single -f")
    return formats[0]


def _call(
    name: str,
    function: Any,
    ax: Any,
    value: str | None,
    formats: list[Format] | None,
    span: tuple[str, str] | None,
) -> None:
    names = None if formats is None else [f.name for f in formats]
    if name == "bits":
        if value is None:
            raise UsageError(
                "--plot bits needs a VALUE, e.g. fpexplore 3.14159 --plot bits -o x.png"
            )
        function(value, _single(formats, name), ax=ax)
    elif name in ("number_line", "relative_error", "absolute_error"):
        lo, hi = _span(name, span)
        function(_single(formats, name), lo, hi, ax=ax)
    elif name == "density":
        function(_single(formats, name), ax=ax)
    elif name in ("spacing", "format_map"):
        function(names, ax=ax)
    else:  # error_histogram
        lo, hi = _span(name, span)
        values = np.random.default_rng(0).uniform(lo, hi, HISTOGRAM_SAMPLES)
        function(values, names, ax=ax)


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
        One of :data:`PLOT_NAMES`.
    value : str or None
        The number for ``bits``.
    formats : list of Format, or None for all
        One format for ``bits``, ``number_line``, ``relative_error``,
        ``absolute_error`` and ``density``; any number for the others.
    output : str
        Target file; its suffix picks the image type. Never overwritten
        unless ``force``.
    span : (str, str), optional
        x range of ``number_line``, ``relative_error`` and ``absolute_error``,
        and the range of the uniform random sample of ``error_histogram``.
    """
    path = _check_output(output, force)
    try:
        import matplotlib
    except ImportError:
        raise UsageError(
            'plotting needs matplotlib; install it with: pip install "fpexplore[plot]"'
        ) from None
    if "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")  # files only: never open a window
    from matplotlib.figure import Figure

    plot = importlib.import_module("fpexplore.plot")
    function = getattr(plot, name)
    figure = Figure(figsize=(10, 5), layout="constrained")
    ax = figure.subplots()
    _call(name, function, ax, value, formats, span)
    figure.savefig(path, dpi=150)
    return path

"""DensityExplorer: one binade's values on a number line beside the spacing staircase."""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Iterable
from typing import Any

import ipywidgets as W  # the package's __init__ has already checked it is there

from ..core.density import count_between
from ..formats import FormatLike, get_format
from ._common import Panel

__all__ = ["DensityExplorer"]


class DensityExplorer(Panel):
    """Zoom along the magnitudes: one binade's values on a number line, and the spacing
    staircase with that window marked (claims 5 and 7). Needs matplotlib.

    Parameters
    ----------
    fmt : str or Format
        The format on the number line.
    compare : sequence of format specs
        More formats for the spacing figure.

    Attributes
    ----------
    format : Format
    compare : tuple of Format
    binade, zoom : int
        The number line shows ``window``: ``[2**binade, 2**binade * (1 + 2**-zoom))``;
        zoom 0 is the whole binade, each step halves it. ``count`` is the number of
        values in that half-open window, as :func:`fpexplore.count_between` counts.
    figure : matplotlib.figure.Figure
        The figure last drawn, shown in ``output`` (an ``Output`` widget) as a PNG.
    message, is_error, widget
        ``format_dropdown``, ``binade_slider`` and ``zoom_slider`` are the controls.

    Examples
    --------
    >>> dx = DensityExplorer("float8_e4m3fn")
    >>> dx.set_binade(2)  # [4, 8): one value per mantissa pattern
    >>> dx.window, dx.count
    ((4.0, 8.0), 8)
    >>> dx.set_binade(8)  # [256, 512): the top binade, one pattern is NaN
    >>> dx.count
    7
    """

    _state = ("format", "binade", "zoom")

    def __init__(
        self, fmt: FormatLike = "float16", compare: Iterable[FormatLike] = ("bfloat16",)
    ) -> None:
        import fpexplore.plot  # noqa: F401 - without matplotlib: an error naming the extra

        self.format = get_format(fmt)
        self.compare = tuple(get_format(f) for f in compare)
        self.binade, self.zoom = 0, self._default_zoom()
        self.figure: Any = None
        self._setup(self.format)
        self.binade_slider = W.IntSlider(description="binade 2^k", continuous_update=False)
        self.zoom_slider = W.IntSlider(description="zoom", continuous_update=False)
        self._on(self.binade_slider, self.set_binade)
        self._on(self.zoom_slider, self.set_zoom)
        self.output = W.Output()
        controls = W.HBox([self.format_dropdown, self.binade_slider, self.zoom_slider])
        self.widget = W.VBox([controls, self.message_label, self.output])
        self.widget.add_class("fpx-density-explorer")
        self._draw()

    def _default_zoom(self) -> int:
        return max(0, self.format.mantissa_bits - 5)  # 32 values to start with

    @property
    def window(self) -> tuple[float, float]:
        """The ends of the number line."""
        lo = math.ldexp(1.0, self.binade)
        return lo, lo + math.ldexp(1.0, self.binade - self.zoom)

    @property
    def count(self) -> int:
        """How many values of the format lie in :attr:`window`, the half-open binade
        ``[lo, hi)``: the same count as ``count_between(lo, hi, format)``."""
        lo, hi = self.window
        return count_between(lo, hi, self.format)

    def set_format(self, fmt: FormatLike) -> None:
        """Show another format (the binade is kept where the format has it)."""
        self.format = get_format(fmt)
        self.zoom = self._default_zoom()
        self._draw()

    def set_binade(self, k: int) -> None:
        """Show the binade ``[2**k, 2**(k+1)]`` (or its first part, per :attr:`zoom`)."""
        self.binade = int(k)
        self._draw()

    def set_zoom(self, zoom: int) -> None:
        """Show the first ``2**-zoom`` part of the binade."""
        self.zoom = int(zoom)
        self._draw()

    def _max_zoom(self) -> int:
        low = self.format.emin - self.format.mantissa_bits
        return min(self.format.mantissa_bits, self.binade - low)

    def _refresh(self) -> None:
        """Put the controls in line with the state."""
        fmt = self.format
        low, high = fmt.emin - fmt.mantissa_bits, fmt.emax
        with self._quiet():
            self._sync_dropdown()
            slider = self.binade_slider
            slider.min, slider.max = min(low, slider.max), max(high, slider.min)
            slider.min, slider.max, slider.value = low, high, self.binade
            self.zoom_slider.max, self.zoom_slider.value = self._max_zoom(), self.zoom

    def _draw(self) -> None:
        from matplotlib.figure import Figure

        import fpexplore.plot as fpplot

        fmt = self.format
        low, high = fmt.emin - fmt.mantissa_bits, fmt.emax
        self.binade = min(max(self.binade, low), high)
        # a subnormal binade 2**k holds 2**(k - low) values: zoom no further than one
        self.zoom = min(max(self.zoom, 0), self._max_zoom())
        self._refresh()
        lo, hi = self.window
        figure = Figure(figsize=(10, 7), layout="constrained")
        line_ax, spacing_ax = figure.subplots(2, 1, height_ratios=(1, 1.4))
        others = [f for f in self.compare if f != fmt]
        fpplot.spacing([fmt, *others], fmt.smallest_subnormal, fmt.max, ax=spacing_ax)
        window = math.log2(lo), math.log2(hi)  # spacing() draws log2 of the magnitudes
        spacing_ax.axvspan(*window, color="#E69F00", alpha=0.4)
        spacing_ax.axvline(window[0], color="#E69F00", lw=2, label="the number line's window")
        spacing_ax.legend(fontsize=11)
        try:
            fpplot.number_line(fmt, lo, hi, ax=line_ax)
        except (ValueError, OverflowError) as exc:  # e.g. too many values: zoom in
            line_ax.set_axis_off()
            self._say(f"no number line for [{lo!r}, {hi!r}]: {exc}", error=True)
        else:
            count = self.count
            noun = "value" if count == 1 else "values"
            self._say(f"{count} {noun} of {fmt.name} in [{lo!r}, {hi!r})")
        png = io.BytesIO()
        try:
            figure.savefig(png, format="png", dpi=72)
        except (ValueError, OverflowError) as exc:  # matplotlib at float64's extremes
            self._say(f"cannot draw [{lo!r}, {hi!r}]: {exc}", error=True)
            return
        self.figure = figure
        data = {"image/png": base64.b64encode(png.getvalue()).decode(), "text/plain": repr(figure)}
        self.output.outputs = ({"output_type": "display_data", "data": data, "metadata": {}},)

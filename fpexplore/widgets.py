"""Interactive panels for Jupyter: flip bits, step by one ULP, watch rounding and spacing.

Built from core ipywidgets 8 controls only (no custom JavaScript), so they work in
JupyterLab, VS Code and Colab. Each panel is a plain object: its state is in attributes,
every control calls a public method, and a bare panel at the end of a cell displays it
(``panel.widget`` is the container).

Examples
--------
>>> ex = FloatExplorer(1.0, "float16")
>>> ex.toggle_bit(0)  # the sign bit
>>> ex.value
-1.0
>>> ex.step(+1)  # one ULP up
>>> ex.value
-0.99951171875
>>> ex.set_text("abc")
>>> ex.value, ex.is_error
(-0.99951171875, True)
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

try:
    import ipywidgets as W
except ImportError as err:  # pragma: no cover - exercised without ipywidgets only
    raise ImportError(
        'fpexplore.widgets needs ipywidgets; install it with: pip install "fpexplore[notebooks]"'
    ) from err

from .decode import FloatParts, decode, from_bits
from .density import count_between
from .display import FIELD_COLORS, ROUNDING_NAMES
from .formats import FORMATS, Format, get_format
from .html import contrast_text_color
from .rounding_explain import MODES, explain_rounding

__all__ = ["SPECIALS", "DensityExplorer", "FloatExplorer", "RoundingExplorer", "special_value"]

_CSS = "".join(  # a set bit is filled with its field's colour, a clear one only outlined
    f".fpx-bit-button.fpx-{f}{{color:{c};font-weight:bold}}.fpx-bit-button.fpx-{f}.mod-active"
    f"{{background:{c}!important;color:{contrast_text_color(c)}!important}}"
    for f, c in FIELD_COLORS.items()
)
_BUTTONS = {  # key -> label; the CSS class is derived: "+inf" -> "fpx-plus-inf"
    **{"next_down": "−1 ULP", "next_up": "+1 ULP", "+0": "+0", "-0": "−0", "+inf": "+inf"},
    **{"-inf": "−inf", "nan": "NaN", "max": "max", "smallest_normal": "smallest normal"},
    "smallest_subnormal": "smallest subnormal",
}
SPECIALS = tuple(_BUTTONS)[2:]
"""The names :meth:`FloatExplorer.set_special` and :func:`special_value` accept."""
_KINDS = dict(zip(SPECIALS, "zero zero inf inf nan normal normal subnormal".split(), strict=True))


def special_value(name: str, fmt: Any) -> FloatParts | None:
    """The special value ``name`` (one of :data:`SPECIALS`) of ``fmt``, or None when the
    format has none (float8_e4m3fn has no infinities, FP4 neither infinities nor NaN).

    >>> special_value("smallest_subnormal", "float16").value
    5.960464477539063e-08
    >>> special_value("+inf", "float8_e4m3fn") is None
    True
    """
    fmt = get_format(fmt)
    codes = {"+0": 0, "-0": fmt.sign_mask, "max": fmt.max_code, "smallest_subnormal": 1}
    codes["smallest_normal"] = 1 << fmt.mantissa_bits
    try:
        parts = from_bits(codes[name], fmt) if name in codes else decode(name, fmt)
    except ValueError:  # NaN in a format without NaN
        return None
    return parts if parts.kind.value == _KINDS[name] else None


class _Panel:
    """Shared plumbing: display, the message line, the format dropdown, safe callbacks."""

    widget: W.VBox
    format: Format
    message: str = ""
    is_error: bool = False
    _syncing: bool = False
    _refresh: Callable[[], None]

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def _setup(self, fmt: Format) -> None:
        self.message_label = W.HTML().add_class("fpx-message")
        self._formats = dict(FORMATS)
        key = self._format_key(fmt)
        self.format_dropdown = W.Dropdown(options=list(self._formats), value=key)
        self.format_dropdown.description = "format"
        self._on(self.format_dropdown, lambda key: self.set_format(self._formats[key]))

    def _format_key(self, fmt: Format) -> str:
        """The dropdown entry of ``fmt``; a custom format gets a new one."""
        key = next((k for k, known in self._formats.items() if known == fmt), None)
        if key is None:
            key = fmt.name if fmt.name not in self._formats else f"{fmt.name} (custom)"
            self._formats[key] = fmt
        return key

    def _sync_dropdown(self) -> None:
        key = self._format_key(self.format)
        if list(self.format_dropdown.options) != list(self._formats):
            self.format_dropdown.options = list(self._formats)
        self.format_dropdown.value = key

    def _say(self, message: str, error: bool = False) -> None:
        self.message, self.is_error = message, error
        text = message.replace("&", "&amp;").replace("<", "&lt;")
        colour = "#D55E00" if error else "inherit"
        self.message_label.value = f'<span style="color:{colour}">{text}</span>' if text else ""

    def _on(self, control: W.ValueWidget, action: Callable[[Any], None]) -> None:
        """Call ``action(new value)`` when the user changes ``control``; whatever it
        raises becomes the message (nothing may raise into the notebook)."""

        def handler(change: dict[str, Any]) -> None:
            if self._syncing:
                return
            try:
                action(change["new"])
            except Exception as exc:
                self._say(f"{type(exc).__name__}: {exc}", error=True)
                self._refresh()  # put the control back in line with the state

        control.observe(handler, "value")

    @contextmanager
    def _quiet(self) -> Iterator[None]:
        """Update the controls without their observers acting on it."""
        self._syncing = True
        try:
            yield
        finally:
            self._syncing = False


class FloatExplorer(_Panel):
    """One value of a format, bit by bit: toggle bits, type a value, step one ULP.

    Parameters
    ----------
    value : str, int, float, Fraction or Decimal
        Taken exactly (pass decimals as strings to see their rounding error).
    fmt : str or Format
        A catalogue name, alias or :class:`fpexplore.Format`; custom formats are
        added to the dropdown.

    Attributes
    ----------
    parts : FloatParts
        What is shown; ``value``, ``code`` and ``bits`` are its fields.
    format : Format
    message, is_error : str, bool
        The line under the buttons: why typed text was refused (the value is
        kept), or the rounding error after a change of format.
    widget : ipywidgets.VBox
    bit_buttons : list of ToggleButton
        One per bit, sign bit first; ``buttons`` (a dict keyed ``"next_down"``,
        ``"next_up"`` and :data:`SPECIALS`), ``text_box``, ``format_dropdown``
        and ``breakdown`` (the HTML card) are the other controls.

    Notes
    -----
    Changing the format re-rounds the exact value last typed or, after bit
    edits and button presses, the exact value shown; the message and the card
    then show the new rounding error.
    """

    def __init__(self, value: Any = 1.0, fmt: Any = "float32") -> None:
        self.format = get_format(fmt)
        self.parts = decode(value, self.format)
        self._source: Any = value  # what a change of format re-rounds
        self._setup(self.format)
        self.text_box = W.Text(value if isinstance(value, str) else repr(value))
        self.text_box.description, self.text_box.continuous_update = "value", False
        self._on(self.text_box, self.set_text)
        self.buttons: dict[str, W.Button] = {}
        for key, label in _BUTTONS.items():
            css = {"+": "plus-", "-": "minus-"}.get(key[0], "") + key.lstrip("+-")
            button = W.Button(description=label, layout=W.Layout(width="auto"))
            button.add_class("fpx-" + css.replace("_", "-"))
            button.on_click(lambda _button, key=key: self._press(key))
            self.buttons[key] = button
        self.bit_buttons: list[W.ToggleButton] = []
        self._bits_row = W.HBox(layout=W.Layout(flex_flow="row wrap")).add_class("fpx-bits")
        self.value_label = W.HTML().add_class("fpx-value")
        self.breakdown = W.HTML().add_class("fpx-breakdown")
        self.widget = W.VBox(
            [
                W.HTML(f"<style>{_CSS}</style>"),
                W.HBox([self.text_box, self.format_dropdown]),
                self._bits_row,
                W.HBox(list(self.buttons.values()), layout=W.Layout(flex_flow="row wrap")),
                W.HBox([W.HTML("<b>value</b>&nbsp;=&nbsp;"), self.value_label]),
                self.message_label,
                self.breakdown,
            ]
        ).add_class("fpx-explorer")
        self._build_bits()
        self._refresh()

    @property
    def value(self) -> float:
        """The shown value as a Python float (exact: every format fits in float64)."""
        return self.parts.value

    @property
    def code(self) -> int:
        """The shown bit pattern as an int."""
        return self.parts.code

    @property
    def bits(self) -> str:
        """The shown bit pattern as a string of 0/1, sign bit first."""
        return self.parts.bits

    def toggle_bit(self, i: int) -> None:
        """Flip bit ``i`` of :attr:`bits` (0 is the sign bit, the leftmost button)."""
        if not 0 <= i < self.format.bits:
            raise IndexError(f"bit {i} out of range: {self.format.name} has {self.format.bits}")
        self._show(from_bits(self.code ^ (1 << (self.format.bits - 1 - i)), self.format))

    def step(self, n: int = 1) -> None:
        """Move ``n`` representable values up (n > 0) or down (n < 0): the ±1 ULP buttons."""
        parts = self.parts
        for _ in range(abs(n)):
            parts = parts.next_up() if n > 0 else parts.next_down()
        self._show(parts)

    def set_special(self, name: str) -> None:
        """Show ``name`` (one of :data:`SPECIALS`); a message if the format has none."""
        parts = special_value(name, self.format)
        if parts is None:
            self._say(f"{self.format.name} has no {name}", error=True)
        else:
            self._show(parts)

    def set_text(self, text: str) -> None:
        """Round ``text`` (an exact decimal, hex float, ratio, inf or nan) into the format;
        unreadable text sets :attr:`message` and keeps the value."""
        try:
            parts = decode(text, self.format)
        except (ValueError, TypeError) as exc:
            self._say(f"cannot read {text!r}: {exc}", error=True)
        else:
            self.parts, self._source = parts, text
            self._say("")
        self._refresh(text)

    def set_format(self, fmt: Any) -> None:
        """Switch format, re-rounding the exact value (see Notes)."""
        fmt = get_format(fmt)
        try:
            parts = decode(self._source, fmt)
        except ValueError as exc:  # NaN into a format without NaN
            self._say(f"cannot show {self._source!r} in {fmt.name}: {exc}", error=True)
        else:
            old, self.format, self.parts = self.parts, fmt, parts
            self._build_bits()
            self._say(
                f"{self._source!r} re-rounded from {old.format.name} ({old.value!r}) into "
                f"{fmt.name} ({parts.value!r}): abs error {parts.abs_error:.4g}, "
                f"rel error {parts.rel_error:.4g}, {parts.ulp_error:.3g} ULP"
            )
        self._refresh()

    def _press(self, key: str) -> None:
        try:
            if key in ("next_up", "next_down"):
                self.step(1 if key == "next_up" else -1)
            else:
                self.set_special(key)
        except Exception as exc:
            self._say(f"{type(exc).__name__}: {exc}", error=True)

    def _show(self, parts: FloatParts) -> None:
        self.parts, self._source = parts, parts.value  # a float is taken exactly
        self._say("")
        self._refresh()

    def _build_bits(self) -> None:
        for button in self.bit_buttons:
            button.close()
        fmt, self.bit_buttons, groups = self.format, [], []
        for field in ("sign", "exponent", "mantissa"):
            width = {"sign": 1, "exponent": fmt.exponent_bits}.get(field, fmt.mantissa_bits)
            row = []
            for _ in range(width):
                i = len(self.bit_buttons)
                layout = W.Layout(width="2.2em", padding="0", margin="1px")
                layout.border = f"2px solid {FIELD_COLORS[field]}"
                button = W.ToggleButton(tooltip=f"{field}: bit {fmt.bits - 1 - i}", layout=layout)
                button.add_class("fpx-bit-button").add_class(f"fpx-{field}")
                self._on(button, lambda _new, i=i: self.toggle_bit(i))
                self.bit_buttons.append(button)
                row.append(button)
            if row:
                label = W.HTML(f'<span style="color:{FIELD_COLORS[field]}">{field}</span>')
                box = W.HBox(row, layout=W.Layout(flex_flow="row wrap"))
                groups.append(W.VBox([label, box], layout=W.Layout(margin="0 6px 0 0")))
        self._bits_row.children = groups

    def _refresh(self, text: str | None = None) -> None:
        with self._quiet():
            for bit, button in zip(self.bits, self.bit_buttons, strict=True):
                button.value, button.description = bit == "1", bit
            self.text_box.value = repr(self.value) if text is None else text
            self._sync_dropdown()
            up, down = self.parts.next_up(), self.parts.next_down()
            self.buttons["next_up"].disabled = up.code == self.code
            self.buttons["next_down"].disabled = down.code == self.code
            for key in SPECIALS:
                self.buttons[key].disabled = special_value(key, self.format) is None
            self.value_label.value = repr(self.value)
            self.breakdown.value = self.parts._repr_html_()


class RoundingExplorer(_Panel):
    """An exact value between its two neighbours: which one each rounding mode picks and why.

    Parameters
    ----------
    value : str, int, float, Fraction or Decimal
        Taken exactly (``"0.1"`` is one tenth).
    fmt : str or Format
    rounding : str
        The highlighted mode, one of :data:`fpexplore.rounding_explain.MODES`.

    Attributes
    ----------
    explanation : fpexplore.rounding_explain.RoundingExplanation
        The neighbours, the guard / round / sticky bits, every mode's pick and why.
    parts : FloatParts
        The highlighted mode's result; ``value`` is its float.
    format, rounding, message, is_error, widget
        ``text_box``, ``format_dropdown``, ``rounding_dropdown`` and ``view`` (the
        number line and the table) are the controls.

    Examples
    --------
    >>> rx = RoundingExplorer("2049", "float16")  # halfway between 2048 and 2050
    >>> rx.value, rx.explanation.is_tie
    (2048.0, True)
    >>> rx.set_rounding("nearest_away")
    >>> rx.value
    2050.0
    """

    def __init__(
        self, value: Any = "0.1", fmt: Any = "float16", rounding: str = "nearest_even"
    ) -> None:
        self.format, self.rounding = get_format(fmt), rounding
        self.explanation = explain_rounding(value, self.format, rounding)
        self._setup(self.format)
        self.text_box = W.Text(description="value", continuous_update=False)
        self._on(self.text_box, self.set_text)
        options = [(ROUNDING_NAMES[m], m) for m in MODES]
        self.rounding_dropdown = W.Dropdown(options=options, value=rounding)
        self.rounding_dropdown.description = "rounding"
        self._on(self.rounding_dropdown, self.set_rounding)
        self.view = W.HTML().add_class("fpx-rounding-view")
        controls = W.HBox([self.text_box, self.format_dropdown, self.rounding_dropdown])
        self.widget = W.VBox([controls, self.message_label, self.view])
        self.widget.add_class("fpx-rounding-explorer")
        self._refresh()

    @property
    def parts(self) -> FloatParts:
        """The highlighted mode's result."""
        return self.explanation.result

    @property
    def value(self) -> float:
        """The highlighted mode's result as a float."""
        return self.parts.value

    def set_text(self, text: str) -> None:
        """Explain the typed value; unreadable text sets :attr:`message`, keeps the rest."""
        self._explain(text, self.format, self.rounding)

    def set_format(self, fmt: Any) -> None:
        """Explain the same input in another format."""
        self._explain(self.explanation.input, get_format(fmt), self.rounding)

    def set_rounding(self, rounding: str) -> None:
        """Highlight another rounding mode."""
        self._explain(self.explanation.input, self.format, rounding)

    def _explain(self, x: Any, fmt: Format, rounding: str) -> None:
        try:
            self.explanation = explain_rounding(x, fmt, rounding)
        except (ValueError, TypeError) as exc:
            self._say(f"cannot explain {x!r} in {fmt.name}: {exc}", error=True)
        else:
            self.format, self.rounding = fmt, rounding
            self._say("")
        with self._quiet():
            self.text_box.value = x if isinstance(x, str) else repr(x)
        self._refresh()

    def _refresh(self) -> None:
        with self._quiet():
            given = self.explanation.input
            if self.message == "":
                self.text_box.value = given if isinstance(given, str) else repr(given)
            self._sync_dropdown()
            self.rounding_dropdown.value = self.rounding
            self.view.value = self.explanation._repr_html_()


class DensityExplorer(_Panel):
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
        The number line shows ``window``: ``[2**binade, 2**binade * (1 + 2**-zoom)]``;
        zoom 0 is the whole binade, each step halves it.
    figure : matplotlib.figure.Figure
        The figure last drawn, shown in ``output`` (an ``Output`` widget) as a PNG.
    message, is_error, widget
        ``format_dropdown``, ``binade_slider`` and ``zoom_slider`` are the controls.

    Examples
    --------
    >>> dx = DensityExplorer("float8_e4m3fn")
    >>> dx.set_binade(2)  # [4, 8]: 8 values and the end point
    >>> dx.window, dx.count
    ((4.0, 8.0), 9)
    """

    def __init__(self, fmt: Any = "float16", compare: Any = ("bfloat16",)) -> None:
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
        return max(0, self.format.mantissa_bits - 5)  # 33 values to start with

    @property
    def window(self) -> tuple[float, float]:
        """The ends of the number line."""
        lo = math.ldexp(1.0, self.binade)
        return lo, lo + math.ldexp(1.0, self.binade - self.zoom)

    @property
    def count(self) -> int:
        """How many values of the format lie in :attr:`window`, both ends included."""
        lo, hi = self.window
        return count_between(lo, hi, self.format) + (hi <= self.format.max)

    def set_format(self, fmt: Any) -> None:
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

    def _draw(self) -> None:
        from matplotlib.figure import Figure

        import fpexplore.plot as fpplot

        fmt = self.format
        low, high = fmt.emin - fmt.mantissa_bits, fmt.emax
        self.binade = min(max(self.binade, low), high)
        self.zoom = min(max(self.zoom, 0), fmt.mantissa_bits)
        with self._quiet():
            self._sync_dropdown()
            slider = self.binade_slider
            slider.min, slider.max = min(low, slider.max), max(high, slider.min)
            slider.min, slider.max, slider.value = low, high, self.binade
            self.zoom_slider.max, self.zoom_slider.value = fmt.mantissa_bits, self.zoom
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
            self._say(f"{self.count} values of {fmt.name} in [{lo!r}, {hi!r}]")
        self.figure, png = figure, io.BytesIO()
        figure.savefig(png, format="png", dpi=72)
        data = {"image/png": base64.b64encode(png.getvalue()).decode(), "text/plain": repr(figure)}
        self.output.outputs = ({"output_type": "display_data", "data": data, "metadata": {}},)

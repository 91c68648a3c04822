"""FloatExplorer: one value of a format, bit by bit; and the special values its buttons show."""

from __future__ import annotations

from typing import Any

import ipywidgets as W  # the package's __init__ has already checked it is there

from ..core.decode import FloatParts, decode, from_bits
from ..formats import FormatLike, get_format
from ..render.html import contrast_text_color
from ..render.text import FIELD_COLORS, short_repr
from ._common import Panel

__all__ = ["SPECIALS", "FloatExplorer", "special_value"]

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


def special_value(name: str, fmt: FormatLike) -> FloatParts | None:
    """The special value ``name`` (one of :data:`SPECIALS`) of ``fmt``, or None when the
    format has none (float8_e4m3fn has no infinities, FP4 neither infinities nor NaN).

    >>> special_value("smallest_subnormal", "float16").value
    5.960464477539063e-08
    >>> special_value("+inf", "float8_e4m3fn") is None
    True
    """
    fmt = get_format(fmt)
    first = int(not fmt.has_zero)  # E8M0's code 0 is its smallest value
    codes = {"+0": 0, "-0": fmt.sign_mask, "max": fmt.max_code, "smallest_subnormal": 1 - first}
    codes["smallest_normal"] = 0 if first else 1 << fmt.mantissa_bits
    try:
        parts = from_bits(codes[name], fmt) if name in codes else decode(name, fmt)
    except ValueError:  # NaN in a format without NaN
        return None
    if name == "smallest_subnormal" and (fmt.mantissa_bits == 0 or first):
        return parts  # no subnormals: the smallest value is normal, as finfo says
    return parts if parts.kind.value == _KINDS[name] else None


class FloatExplorer(Panel):
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
        One per bit, sign bit (if any) first; ``buttons`` (a dict keyed ``"next_down"``,
        ``"next_up"`` and :data:`SPECIALS`), ``text_box``, ``format_dropdown``
        and ``breakdown`` (the HTML card) are the other controls.

    Notes
    -----
    Changing the format re-rounds the exact value last typed or, after bit
    edits and button presses, the exact value shown; the message and the card
    then show the new rounding error.
    """

    _state = ("format", "parts", "_source")

    def __init__(self, value: Any = 1.0, fmt: FormatLike = "float32") -> None:
        self.format = get_format(fmt)
        self.parts = decode(value, self.format)
        self._source: Any = value  # what a change of format re-rounds
        self._setup(self.format)
        self.text_box = W.Text(value if isinstance(value, str) else short_repr(value))
        self.text_box.description, self.text_box.continuous_update = "value", False
        self._on(self.text_box, self.set_text)
        self.buttons: dict[str, W.Button] = {}
        for key, label in _BUTTONS.items():
            css = {"+": "plus-", "-": "minus-"}.get(key[0], "") + key.lstrip("+-")
            button = W.Button(description=label, layout=W.Layout(width="auto"))
            button.add_class("fpx-" + css.replace("_", "-"))
            button.on_click(lambda _button, key=key: self._guarded(self._press, key))
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
        """Flip bit ``i`` of :attr:`bits` (0 is the leftmost button: the sign bit, if any)."""
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
            self._say(f"cannot read {short_repr(text)}: {exc}", error=True)
        else:
            self.parts, self._source = parts, text
            self._say("")
        self._refresh(text)

    def set_format(self, fmt: FormatLike) -> None:
        """Switch format, re-rounding the exact value (see Notes)."""
        fmt = get_format(fmt)
        try:
            parts = decode(self._source, fmt)
        except ValueError as exc:  # NaN into a format without NaN
            self._say(f"cannot show {short_repr(self._source)} in {fmt.name}: {exc}", error=True)
        else:
            old, self.format, self.parts = self.parts, fmt, parts
            self._build_bits()
            self._say(
                f"{short_repr(self._source)} re-rounded from {old.format.name} ({old.value!r})"
                f" into {fmt.name} ({parts.value!r}): abs error {parts.abs_error:.4g}, "
                f"rel error {parts.rel_error:.4g}, {parts.ulp_error:.3g} ULP"
            )
        self._refresh()

    def _press(self, key: str) -> None:
        if key in ("next_up", "next_down"):
            self.step(1 if key == "next_up" else -1)
        else:
            self.set_special(key)

    def _rebuild(self) -> None:
        self._build_bits()

    def _show(self, parts: FloatParts) -> None:
        self.parts, self._source = parts, parts.value  # a float is taken exactly
        self._say("")
        self._refresh()

    def _build_bits(self) -> None:
        for button in self.bit_buttons:
            button.close()
        fmt, self.bit_buttons, groups = self.format, [], []
        for field in ("sign", "exponent", "mantissa"):
            width = {"sign": int(fmt.is_signed), "exponent": fmt.exponent_bits}.get(
                field, fmt.mantissa_bits
            )
            row = []
            for _ in range(width):
                i = len(self.bit_buttons)
                layout = W.Layout(width="2.2em", padding="0", margin="1px")
                layout.border = f"2px solid {FIELD_COLORS[field]}"
                button = W.ToggleButton(tooltip=f"{field}: bit {fmt.bits - 1 - i}", layout=layout)
                button.add_class("fpx-bit-button").add_class(f"fpx-{field}")
                self._on(button, lambda _new, i=i: self.toggle_bit(i))  # type: ignore[misc]
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

"""RoundingExplorer: an exact value between its neighbours, and each rounding mode's pick."""

from __future__ import annotations

from typing import Any

import ipywidgets as W  # the package's __init__ has already checked it is there

from ..core.decode import FloatParts
from ..core.rounding_explain import MODES, explain_rounding
from ..formats import Format, FormatLike, get_format
from ..render.text import ROUNDING_NAMES, short_repr
from ._common import Panel

__all__ = ["RoundingExplorer"]


class RoundingExplorer(Panel):
    """An exact value between its two neighbours: which one each rounding mode picks and why.

    Parameters
    ----------
    value : str, int, float, Fraction or Decimal
        Taken exactly (``"0.1"`` is one tenth).
    fmt : str or Format
    rounding : str
        The highlighted mode, one of :data:`fpexplore.core.rounding_explain.MODES`, or
        ``"stochastic"``: then both neighbours are shown with the probability of each.

    Attributes
    ----------
    explanation : fpexplore.rounding_explain.RoundingExplanation
        The neighbours, the guard / round / sticky bits, every mode's pick and why.
    parts : FloatParts
        The highlighted mode's result; ``value`` is its float. Under ``"stochastic"``,
        the likelier neighbour; ``probability_above`` is the chance of the other way up.
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
    >>> rx.set_text("2049.5")  # three quarters of the way from 2048 to 2050
    >>> rx.set_rounding("stochastic")
    >>> rx.probability_above, 1 - rx.probability_above
    (Fraction(3, 4), Fraction(1, 4))
    """

    _state = ("format", "rounding", "explanation")

    def __init__(
        self, value: Any = "0.1", fmt: FormatLike = "float16", rounding: str = "nearest_even"
    ) -> None:
        self.format, self.rounding = get_format(fmt), rounding
        self.explanation = explain_rounding(value, self.format, rounding)
        self._setup(self.format)
        self.text_box = W.Text(description="value", continuous_update=False)
        self._on(self.text_box, self.set_text)
        options = [(ROUNDING_NAMES[m], m) for m in MODES]
        options.append(("stochastic rounding", "stochastic"))
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

    @property
    def probability_above(self) -> Any:
        """Stochastic rounding's chance of picking the upper neighbour, an exact Fraction:
        (x - below) / (above - below); None when there is nothing to choose."""
        return self.explanation.probability_above

    def set_text(self, text: str) -> None:
        """Explain the typed value; unreadable text sets :attr:`message`, keeps the rest."""
        self._explain(text, self.format, self.rounding)

    def set_format(self, fmt: FormatLike) -> None:
        """Explain the same input in another format."""
        self._explain(self.explanation.input, get_format(fmt), self.rounding)

    def set_rounding(self, rounding: str) -> None:
        """Highlight another rounding mode."""
        self._explain(self.explanation.input, self.format, rounding)

    def _explain(self, x: Any, fmt: Format, rounding: str) -> None:
        try:
            self.explanation = explain_rounding(x, fmt, rounding)
        except (ValueError, TypeError) as exc:
            self._say(f"cannot explain {short_repr(x)} in {fmt.name}: {exc}", error=True)
        else:
            self.format, self.rounding = fmt, rounding
            self._say("")
        with self._quiet():
            self.text_box.value = x if isinstance(x, str) else short_repr(x)
        self._refresh()

    def _refresh(self) -> None:
        with self._quiet():
            given = self.explanation.input
            if self.message == "":
                self.text_box.value = given if isinstance(given, str) else short_repr(given)
            self._sync_dropdown()
            self.rounding_dropdown.value = self.rounding
            self.view.value = self.explanation._repr_html_()

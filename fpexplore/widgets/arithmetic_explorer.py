"""ArithmeticExplorer: one operation in a format, explained step by step."""

from __future__ import annotations

from typing import Any

import ipywidgets as W  # the package's __init__ has already checked it is there

from ..arith import arithmetic
from ..arith.operation import Operation
from ..core.rounding_explain import MODES
from ..formats import Format, FormatLike, get_format
from ..render.text import ROUNDING_NAMES
from ._common import Panel

__all__ = ["OPERATIONS", "ArithmeticExplorer"]

OPERATIONS = {"a + b": "add", "a - b": "sub", "a x b": "mul", "a / b": "div", "sqrt(a)": "sqrt"}
"""The operations the panel offers, as shown and as fpexplore names them."""


class ArithmeticExplorer(Panel):
    """Two operands, an operation, a format and a rounding mode: the steps, the
    flags, and the exact and stored results between the result's neighbours.

    Parameters
    ----------
    a, b : str, int, float, Fraction or Decimal
        The operands, taken exactly (``"0.1"`` is one tenth) and rounded into
        the format first.
    op : str
        ``"add"``, ``"sub"``, ``"mul"``, ``"div"`` or ``"sqrt"`` (which ignores ``b``).
    fmt : str or Format
    rounding : str
        One of :data:`fpexplore.core.rounding_explain.MODES`.

    Attributes
    ----------
    operation : fpexplore.Operation
        The result: ``.value``, ``.exact``, ``.flags``, ``.parts``; what the view shows.
    format, rounding, message, is_error, widget
        ``a_box``, ``b_box``, ``operation_dropdown``, ``format_dropdown``,
        ``rounding_dropdown`` and ``view`` are the controls.

    Examples
    --------
    >>> ax = ArithmeticExplorer("0.1", "0.2", "add", "bfloat16")
    >>> ax.value, sorted(ax.flags)
    (0.30078125, ['inexact'])
    >>> ax.set_operation("mul")
    >>> ax.value
    0.02001953125
    >>> ax.set_b("oops")
    >>> ax.value, ax.is_error
    (0.02001953125, True)
    """

    def __init__(
        self,
        a: Any = "0.1",
        b: Any = "0.2",
        op: str = "add",
        fmt: FormatLike = "bfloat16",
        rounding: str = "nearest_even",
    ) -> None:
        self.format, self.rounding, self.op = get_format(fmt), rounding, op
        self.a, self.b = a, b
        self.operation = self._compute(a, b, op, self.format, rounding)
        self._setup(self.format)
        self.a_box = W.Text(description="a", continuous_update=False)
        self._on(self.a_box, self.set_a)
        self.b_box = W.Text(description="b", continuous_update=False)
        self._on(self.b_box, self.set_b)
        self.operation_dropdown = W.Dropdown(options=list(OPERATIONS.items()), value=op)
        self.operation_dropdown.description = "operation"
        self._on(self.operation_dropdown, self.set_operation)
        modes = [(ROUNDING_NAMES[m], m) for m in MODES]
        self.rounding_dropdown = W.Dropdown(options=modes, value=rounding)
        self.rounding_dropdown.description = "rounding"
        self._on(self.rounding_dropdown, self.set_rounding)
        self.view = W.HTML().add_class("fpx-arithmetic-view")
        operands = W.HBox([self.a_box, self.operation_dropdown, self.b_box])
        settings = W.HBox([self.format_dropdown, self.rounding_dropdown])
        self.widget = W.VBox([operands, settings, self.message_label, self.view])
        self.widget.add_class("fpx-arithmetic-explorer")
        self._refresh()

    @staticmethod
    def _compute(a: Any, b: Any, op: str, fmt: Format, rounding: str) -> Operation:
        if op not in OPERATIONS.values():
            raise ValueError(
                f"unknown operation {op!r}; expected one of {', '.join(OPERATIONS.values())}"
            )
        operands = (a,) if op == "sqrt" else (a, b)
        return getattr(arithmetic, op)(*operands, fmt, rounding)

    @property
    def value(self) -> float:
        """The stored result as a float."""
        return self.operation.value

    @property
    def flags(self) -> frozenset[str]:
        """The IEEE flags the operation raised."""
        return self.operation.flags

    def set_a(self, text: Any) -> None:
        """A new first operand; unreadable text sets :attr:`message`, keeps the rest."""
        self._update(text, self.b, self.op, self.format, self.rounding)

    def set_b(self, text: Any) -> None:
        """A new second operand."""
        self._update(self.a, text, self.op, self.format, self.rounding)

    def set_operation(self, op: str) -> None:
        """Another operation on the same operands."""
        self._update(self.a, self.b, op, self.format, self.rounding)

    def set_format(self, fmt: FormatLike) -> None:
        """The same operation in another format."""
        self._update(self.a, self.b, self.op, get_format(fmt), self.rounding)

    def set_rounding(self, rounding: str) -> None:
        """The same operation under another rounding mode."""
        self._update(self.a, self.b, self.op, self.format, rounding)

    def _update(self, a: Any, b: Any, op: str, fmt: Format, rounding: str) -> None:
        try:
            self.operation = self._compute(a, b, op, fmt, rounding)
        except (ValueError, TypeError) as exc:
            self._say(f"cannot compute this in {fmt.name}: {exc}", error=True)
        else:
            self.a, self.b, self.op, self.format, self.rounding = a, b, op, fmt, rounding
            self._say("")
        self._refresh()

    def _refresh(self) -> None:
        with self._quiet():
            if self.message == "":
                for box, given in ((self.a_box, self.a), (self.b_box, self.b)):
                    box.value = given if isinstance(given, str) else repr(given)
            self.b_box.disabled = self.op == "sqrt"
            self._sync_dropdown()
            self.operation_dropdown.value = self.op
            self.rounding_dropdown.value = self.rounding
            self.view.value = self.operation._repr_html_()

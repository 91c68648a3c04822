"""The result of one operation in a format: :class:`Operation`, which explains itself.

>>> from fpexplore import add
>>> add("0.1", "0.2", "bfloat16")
Operation(0.1 + 0.2 in bfloat16 = 0.30078125 (0x3E9A), flags: inexact)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..core.decode import FloatParts
from ..exact import FLAGS
from ..formats import Format

__all__ = ["SYMBOLS", "Operation"]

SYMBOLS = {"add": "+", "sub": "-", "mul": "x", "div": "/"}
"""How each binary operation is written in explanations."""


@dataclass(frozen=True, eq=False)
class Operation:
    """One operation computed in a format, with everything needed to explain it.

    Attributes
    ----------
    op : str
        ``"add"``, ``"sub"``, ``"mul"``, ``"div"``, ``"sqrt"``, ``"fma"``,
        ``"remainder"``, ``"neg"`` or ``"abs"``.
    operands : tuple of FloatParts
        The operands as values of the format; each one's ``input`` is what was
        given and ``abs_error`` how much rounding it into the format moved it.
    format : Format
    rounding : str
    parts : FloatParts
        The stored result; its ``input_exact`` is the exact result, so its
        ``abs_error``, ``rel_error`` and ``ulp_error`` are the operation's.
    exact : Fraction or None
        The exact result (None when it is infinite or NaN). For the square root
        of a non-square (an irrational number) it is the root to 64 bits beyond
        the format's precision, and ``approximate`` is True.
    flags : frozenset of str
        The IEEE 754 exceptions raised: ``invalid``, ``division_by_zero``,
        ``overflow``, ``underflow``, ``inexact``.
    """

    op: str
    operands: tuple[FloatParts, ...]
    format: Format
    rounding: str
    parts: FloatParts
    exact: Fraction | None
    flags: frozenset[str]
    approximate: bool = False
    overflow: str | None = None

    @property
    def value(self) -> float:
        """The stored result as a float."""
        return self.parts.value

    @property
    def abs_error(self) -> float:
        """``|stored - exact|`` (the rounding error of this one operation)."""
        return self.parts.abs_error

    @property
    def rel_error(self) -> float:
        return self.parts.rel_error

    @property
    def ulp_error(self) -> float:
        return self.parts.ulp_error

    @property
    def expression(self) -> str:
        """The operation as written, e.g. ``'0.1 + 0.2'``."""
        names = [_operand_text(p.input) for p in self.operands]
        if self.op in SYMBOLS:
            return f"{names[0]} {SYMBOLS[self.op]} {names[1]}"
        return f"{self.op}({', '.join(names)})"

    def __float__(self) -> float:
        return self.value

    def __repr__(self) -> str:
        flags = ", ".join(f for f in FLAGS if f in self.flags) or "none"
        return (
            f"Operation({self.expression} in {self.format.name} = {self.value!r} "
            f"({self.parts.hex}), flags: {flags})"
        )

    def __str__(self) -> str:
        from ..explain.arithmetic import operation_text

        return operation_text(self)

    def _repr_html_(self) -> str:
        from ..explain.arithmetic import operation_html

        return operation_html(self)


def _operand_text(x: Any) -> str:
    if isinstance(x, FloatParts):
        return repr(x.value)
    return x if isinstance(x, str) else repr(x)

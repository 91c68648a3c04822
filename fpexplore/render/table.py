"""A small table that prints as aligned text, shows as HTML and exports as records.

Text and HTML show the same cell strings; :meth:`Table.to_records` keeps the
raw values, JSON-friendly (for a CLI's ``--json``).

Examples
--------
>>> t = Table(["format", "max"], [["float16", 65504.0], ["bfloat16", 3.3895313892515355e38]])
>>> print(t)
format    max
--------  -----------
float16       65504.0
bfloat16  3.38953e+38
"""

from __future__ import annotations

import html as _html
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Integral, Real
from typing import Any

__all__ = ["Table"]

_BORDER = "1px solid rgba(128, 128, 128, 0.55)"


def _cell_text(value: Any) -> str:
    """Default display: shortest repr for floats up to 12 characters, else 6 digits."""
    if value is None:
        return ""
    if value is ...:
        return "..."
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        x = float(value)
        text = repr(x)
        return text if len(text) <= 12 or not math.isfinite(x) else f"{x:.6g}"
    return str(value)


def _json_value(value: Any) -> Any:
    """A JSON-friendly version of a cell: inf/NaN become the strings 'inf', '-inf', 'nan'."""
    if value is None or isinstance(value, bool | str):
        return value
    if value is ...:
        return "..."
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, Real):
        x = float(value)
        return x if math.isfinite(x) else repr(x)
    return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


@dataclass(repr=False)
class Table:
    """A small table that prints as text, shows as HTML and exports as records.

    Parameters
    ----------
    columns : list of str
        Column names.
    rows : list of sequences
        One sequence of raw cell values per row (numbers, str, bool or None). A
        cell ``...`` (Ellipsis) shows as ``...``: a row of them marks rows left out.
    title : str, optional
        Shown above the table (a ``<caption>`` in HTML).
    notes : list of str
        Footnotes shown below the table.
    formatters : dict, optional
        Column name -> function turning a raw cell value into its display
        string; other columns use a default (short floats in full, long ones
        to 6 significant digits, bools as yes/no).

    Examples
    --------
    >>> t = Table(["x", "x squared"], [[1.5, 2.25], [3, 9]], title="Squares")
    >>> print(t)
    Squares
    x    x squared
    ---  ---------
    1.5       2.25
      3          9
    >>> t.to_records()
    [{'x': 1.5, 'x squared': 2.25}, {'x': 3, 'x squared': 9}]
    """

    columns: list[str]
    rows: Sequence[Sequence[Any]]
    title: str | None = None
    notes: list[str] = field(default_factory=list)
    formatters: dict[str, Callable[[Any], str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.columns = list(self.columns)
        self.rows = [list(row) for row in self.rows]
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(
                    f"row {row!r} has {len(row)} cells; expected {len(self.columns)} "
                    f"(columns {self.columns})"
                )

    def cell_strings(self) -> list[list[str]]:
        """Every cell as it is displayed, row by row (the same in text and HTML)."""
        shown = []
        for row in self.rows:
            shown.append(
                [
                    "..." if value is ... else self.formatters.get(column, _cell_text)(value)
                    for column, value in zip(self.columns, row, strict=True)
                ]
            )
        return shown

    def _numeric_columns(self) -> list[bool]:
        """A column is right-aligned when every non-empty cell in it is a number."""
        result = []
        for j in range(len(self.columns)):
            cells = [row[j] for row in self.rows if row[j] is not None and row[j] is not ...]
            result.append(bool(cells) and all(_is_number(c) for c in cells))
        return result

    def __repr__(self) -> str:
        """The text table, so a bare ``table`` in a REPL prints readably."""
        return str(self)

    def __str__(self) -> str:
        cells = self.cell_strings()
        widths = [
            max([len(name), *(len(row[j]) for row in cells)]) for j, name in enumerate(self.columns)
        ]
        right = self._numeric_columns()

        def line(values: Iterable[str], align: bool = True) -> str:
            parts = []
            for j, text in enumerate(values):
                pad = text.rjust if (align and right[j]) else text.ljust
                parts.append(pad(widths[j]))
            return "  ".join(parts).rstrip()

        lines = [self.title] if self.title else []
        lines.append(line(self.columns, align=False))
        lines.append("  ".join("-" * w for w in widths))
        lines.extend(line(row) for row in cells)
        lines.extend(self.notes)
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        esc = _html.escape
        right = self._numeric_columns()
        cell_style = f"padding: 3px 10px; border: {_BORDER};"
        header = "".join(
            f'<th style="{cell_style} text-align: left;">{esc(name)}</th>' for name in self.columns
        )
        body = []
        for row in self.cell_strings():
            tds = "".join(
                f'<td style="{cell_style} text-align: {"right" if right[j] else "left"}; '
                f'font-variant-numeric: tabular-nums;">{esc(text)}</td>'
                for j, text in enumerate(row)
            )
            body.append(f"<tr>{tds}</tr>")
        caption = (
            f'<caption style="caption-side: top; text-align: left; font-weight: bold; '
            f'padding: 4px 0;">{esc(self.title)}</caption>'
            if self.title
            else ""
        )
        notes = "".join(
            f'<div style="font-size: 0.9em; opacity: 0.8; margin-top: 2px;">{esc(n)}</div>'
            for n in self.notes
        )
        return (
            '<div class="fpx-table">'
            f'<table style="border-collapse: collapse; margin: 4px 0;">{caption}'
            f"<thead><tr>{header}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            f"{notes}</div>"
        )

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per row, column -> raw value, ready for ``json.dumps(allow_nan=False)``.

        Non-finite floats become the strings ``"inf"``, ``"-inf"`` and ``"nan"``.
        """
        return [
            {c: _json_value(v) for c, v in zip(self.columns, row, strict=True)} for row in self.rows
        ]

    def transpose(self, first_column: str = "") -> Table:
        """Rows become columns: the first column's cells name the new columns.

        Examples
        --------
        >>> rows = [["bits", 16, 16], ["max", 65504.0, 3e38]]
        >>> t = Table(["property", "float16", "bfloat16"], rows)
        >>> for record in t.transpose("format").to_records():
        ...     print(record)
        {'format': 'float16', 'bits': 16, 'max': 65504.0}
        {'format': 'bfloat16', 'bits': 16, 'max': 3e+38}
        """
        names = [first_column or self.columns[0]] + [str(row[0]) for row in self.rows]
        rows = [[column] + [row[j] for row in self.rows] for j, column in enumerate(self.columns)]
        return Table(names, rows[1:], title=self.title, notes=list(self.notes))

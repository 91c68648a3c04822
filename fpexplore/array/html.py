"""The HTML face of a FormatArray in Jupyter: its format, shape, values and flags.

>>> from fpexplore.array.core import FormatArray
>>> "bfloat16" in format_array_html(FormatArray([1.0, 2.0], "bfloat16"))
True
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np

__all__ = ["format_array_html"]


def format_array_html(x: Any) -> str:
    """A short HTML table: format, mode, shape, the first values, the flags raised."""
    with np.printoptions(threshold=20, edgeitems=3):
        values = html.escape(str(np.asarray(x)))
    counts = x.flag_counts
    raised = ", ".join(f"{k}: {v}" for k, v in counts.items() if v) or "none"
    rows = [
        ("format", x.format.name),
        ("rounding", x.rounding),
        ("shape", str(x.shape)),
        ("accumulate", f"{x.accumulate.name}, {x.order}"),
        ("flags of the last operation", raised),
    ]
    body = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
        for k, v in rows
    )
    return f"<div><table>{body}</table><pre>{values}</pre></div>"

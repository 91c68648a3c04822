"""A tensor report as a table (text and HTML), one row per (format, scaling).

>>> import numpy as np
>>> from fpexplore.scaling.report import tensor_report
>>> r = tensor_report(np.linspace(-1, 1, 101), ["float8_e5m2"])
>>> report_table(r).columns[:3]
['format', 'scaling', 'overflow']
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .table import Table

__all__ = ["report_table"]

_COLUMNS = [
    "format", "scaling", "overflow", "flushed_to_zero", "subnormal", "median_rel_error",
    "p99_rel_error", "max_rel_error", "snr_db",
]  # fmt: skip


def _short(x: Any) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    if isinstance(x, float):
        return f"{x:.3g}" if math.isfinite(x) else str(x)
    return str(x)


def _snr(x: Any) -> str:
    return f"{x:.1f}" if isinstance(x, float) and math.isfinite(x) else _short(x)


def report_table(report: Any) -> Table:
    """The report's records as a :class:`Table` (its notes say how it was measured)."""
    records = report.to_records()
    rows = []
    for r in records:
        scaling = r["scaling"]
        if scaling == "block" and r["block_format"] and r["block_format"] != r["format"]:
            scaling = f"block ({r['block_format']})"
        rows.append([r["format"], scaling, *(r[c] for c in _COLUMNS[2:])])
    how = "exact" if report.exact else "from 1/64-octave histograms (at most 1 + 2**-6 times)"
    notes = [
        f"{report.size} values ({report.dtype}), {report.finite} finite, amax {report.amax!r}; "
        "relative errors over the nonzero finite values",
        f"median and p99 {how}; SNR = 10 log10(sum x**2 / sum (x - q)**2) in dB",
        "per_tensor: scaled by max / amax (float32), saturating; block: OCP MX (32 elements, "
        "E8M0 scale) or NVFP4 (16, E4M3 scale and a float32 per-tensor scale)",
    ]
    formatters: dict[str, Callable[[Any], str]] = {c: _short for c in _COLUMNS[5:8]}
    formatters["snr_db"] = _snr
    return Table(list(_COLUMNS), rows, title="tensor report", notes=notes, formatters=formatters)

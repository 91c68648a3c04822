"""A tensor report as a table (text and HTML), one row per (format, scaling).

The notes under the table say what each count counts and how the errors were
measured, and, where an SNR is -inf or a maximum error inf, which values became
inf or NaN (:func:`nonfinite_notes`).

>>> import numpy as np
>>> from fpexplore.report.tensor import tensor_report
>>> r = tensor_report(np.linspace(-1, 1, 101), ["float8_e5m2"])
>>> report_table(r).columns[:4]
['format', 'scaling', 'overflow', 'clipped']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from .table import Table

__all__ = ["COLUMN_NOTES", "nonfinite_notes", "report_table"]

_COLUMNS = [
    "format", "scaling", "overflow", "clipped", "flushed_to_zero", "subnormal",
    "median_rel_error", "p99_rel_error", "max_rel_error", "snr_db",
]  # fmt: skip
ERROR_COLUMNS = ("median_rel_error", "p99_rel_error", "max_rel_error")

COLUMN_NOTES = [
    "overflow: values beyond the format's range with no scaling rule to catch them (they "
    "became inf or NaN, or saturated where the format has neither)",
    "clipped: values a scaling rule set to the element format's largest value (per_tensor "
    "saturates; MX E4M3 clamps (464, 512) x X to 448 X)",
    "flushed_to_zero: nonzero values stored as 0; subnormal: values stored among the "
    "subnormals of the (element) format",
    "relative errors |q - x| / |x| over the nonzero finite values; median and p99 from "
    "1/64-binade histograms: never below the exact value, at most 1 + 2**-6 times it",
    "snr_db = 10 log10(sum x**2 / sum (x - q)**2)",
]


def short(x: Any) -> str:
    """A number in a few characters (empty for None and NaN)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    if isinstance(x, float):
        return f"{x:.3g}" if math.isfinite(x) else str(x)
    return str(x)


def snr_text(x: Any) -> str:
    return f"{x:.1f}" if isinstance(x, float) and math.isfinite(x) else short(x)


def scaling_label(r: dict[str, Any]) -> str:
    scaling = str(r["scaling"])
    if scaling == "block" and r.get("block_format") and r["block_format"] != r["format"]:
        return f"block ({r['block_format']})"
    return scaling


def nonfinite_notes(records: Iterable[dict[str, Any]], prefix: Callable[[dict[str, Any]], str]
                    ) -> list[str]:  # fmt: skip
    """Why an SNR is -inf or a maximum error inf: which values became inf or NaN."""
    notes = []
    for r in records:
        if not (r.get("became_inf") or r.get("became_nan")):
            continue
        parts = [f"{n} became {kind}" for n, kind in ((r["became_inf"], "inf"),
                                                       (r["became_nan"], "NaN")) if n]  # fmt: skip
        cause = "beyond the format's largest finite value" if r["scaling"] == "none" else ""
        notes.append(
            f"{prefix(r)}: snr_db -inf and max_rel_error inf because "
            f"{' and '.join(parts)} (|x| from {r['nonfinite_from']!r} up{', ' if cause else ''}"
            f"{cause}); they rank above every finite error in the median and p99"
        )
    return notes


def report_table(report: Any) -> Table:
    """The report's records as a :class:`Table` (its notes say how it was measured)."""
    records = report.to_records()
    rows = [[r["format"], scaling_label(r), *(r[c] for c in _COLUMNS[2:])] for r in records]
    notes = [
        f"{report.size} values ({report.dtype}), {report.finite} finite, amax {report.amax!r}, "
        f"block axis {report.axis}",
        *COLUMN_NOTES,
        "per_tensor: scaled by max / amax (float32), saturating; block: OCP MX (32 elements, "
        "E8M0 scale) or NVFP4 (16, E4M3 scale and a float32 per-tensor scale)",
        *nonfinite_notes(records, lambda r: f"{r['format']} {scaling_label(r)}"),
    ]
    short_rows = [r["format"] for r in records if r.get("short_blocks")]
    if short_rows:
        notes.append(f"short blocks: block axis {report.axis} is shorter than a block of "
                     f"{', '.join(short_rows)}, so each block holds the whole axis, fewer "
                     "values than the format's (name the summed axis with axis=)")  # fmt: skip
    formatters: dict[str, Callable[[Any], str]] = {c: short for c in ERROR_COLUMNS}
    formatters["snr_db"] = snr_text
    return Table(list(_COLUMNS), rows, title="tensor report", notes=notes, formatters=formatters)

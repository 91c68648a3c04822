"""A checkpoint report as tables: the summary per (format, scaling), then the
worst rows (text and HTML).

>>> import numpy as np
>>> from fpexplore.report.checkpoint import checkpoint_report
>>> r = checkpoint_report({"w": np.linspace(-1, 1, 64)}, ["float8_e5m2"], progress=False)
>>> checkpoint_table(r).columns[:4]
['tensor', 'shape', 'axis', 'format']
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from .report import COLUMN_NOTES, ERROR_COLUMNS, nonfinite_notes, scaling_label, short, snr_text
from .table import Table

__all__ = ["checkpoint_html", "checkpoint_table", "checkpoint_text", "summary_table"]

_COLUMNS = [
    "tensor", "shape", "axis", "format", "scaling", "overflow", "clipped", "flushed_to_zero",
    "subnormal", "median_rel_error", "p99_rel_error", "max_rel_error", "snr_db",
]  # fmt: skip
_SUMMARY = [
    "format", "scaling", "tensors", "passing", "snr_db", "min_snr_db", "worst_tensor",
    "overflow", "clipped", "flushed_to_zero",
]  # fmt: skip
SHOWN = 20  # rows shown by str() and the notebook view (the worst ones)


def _shape(shape: Any) -> str:
    return "x".join(str(d) for d in shape) if shape else "scalar"


def checkpoint_table(report: Any, limit: int | None = None) -> Table:
    """The rows (the worst ``limit`` of them, lowest SNR first, if given)."""
    shown = report.worst(limit) if limit is not None else report
    records = shown.to_records()
    rows = [[r["tensor"], _shape(r["shape"]), _axis(r), r["format"], scaling_label(r),
             *(r[c] for c in _COLUMNS[5:])] for r in records]  # fmt: skip
    total = len(report.records) if report.of is None else report.of
    title = f"checkpoint report: {report.source}"
    if total > len(records):
        every = "; to_records() has all" if report.of is None else ""
        title += f" (the {len(records)} worst of {total} rows{every})"
    notes = [*COLUMN_NOTES,
             *nonfinite_notes(records, lambda r: f"{r['tensor']} {r['format']} "
                                                 f"{scaling_label(r)}")]  # fmt: skip
    shown_bad = [t for t in dict.fromkeys(r["tensor"] for r in records) if t in report.nonfinite]
    if shown_bad:
        sizes = {r["tensor"]: r["size"] for r in records}
        listed = ", ".join(f"{t} ({report.nonfinite[t]:,} of {max(sizes[t], 1):,} values)"
                           for t in shown_bad)  # fmt: skip
        notes.append("NaN or inf in the checkpoint itself (those values are left out of every "
                     f"statistic): {listed}")  # fmt: skip
    notes.append("axis: the block axis and where it came from (graph: the ONNX node using "
                 "the tensor; layer: its Keras layer; layout: PyTorch's (out, in, ...); last: "
                 "no summed axis known; given: named); short: the axis is shorter than a "
                 "block, so each block holds fewer values than the format's")  # fmt: skip
    notes += getattr(report, "notes", [])
    if report.skipped:
        notes.append(_skipped_note(report))
    formatters: dict[str, Callable[[Any], str]] = {c: short for c in ERROR_COLUMNS}
    formatters["snr_db"] = snr_text
    return Table(list(_COLUMNS), rows, title=title, notes=notes, formatters=formatters)


def _axis(r: dict[str, Any]) -> str:
    text = f"{r['axis']} {r.get('axis_source', '')}".rstrip()
    return text + " short" if r.get("short_blocks") else text


def _skipped_note(report: Any) -> str:
    """The tensors left out: by dtype each with its dtype, by the filters counted (the
    reasons: ``report.skipped``)."""
    typed = [(name, why) for name, why in report.skipped if why.startswith("dtype ")]
    notes = []
    if typed:
        listed = ", ".join(f"{name} ({why.split()[1]})" for name, why in typed)
        notes.append(f"not reported (not floating point, complex or long double): {listed}")
    filtered = len(report.skipped) - len(typed)
    if filtered:
        notes.append(f"{filtered} tensor{'s' if filtered != 1 else ''} left out by the filters "
                     "(min_size, include/exclude, weights_only, constants; skipped says "
                     "why)")  # fmt: skip
    return "; ".join(notes)


def summary_table(summary: Any) -> Table:
    """The summary: one row per (format, scaling)."""
    rows = [[r["format"], scaling_label(r), r["tensors"], f"{r['passing']} ({r['pass_share']:.0%})",
             r["snr_db"], r["min_snr_db"], r["worst_tensor"],
             *(r[c] for c in _SUMMARY[7:])] for r in summary.records]  # fmt: skip
    notes = [
        f"passing: tensors with no overflow and snr_db >= {summary.min_snr_db:g}",
        "snr_db: the tensors' SNR weighted by their sizes (-inf if any is -inf; exact "
        "tensors left out); min_snr_db: the worst tensor's",
    ]
    formatters: dict[str, Callable[[Any], str]] = {"snr_db": snr_text, "min_snr_db": snr_text}
    return Table(list(_SUMMARY), rows, title="summary per format and scaling", notes=notes,
                 formatters=formatters)  # fmt: skip


def _limit(report: Any) -> int | None:
    return SHOWN if len(report.records) > 2 * SHOWN else None


def checkpoint_text(report: Any) -> str:
    """The summary, then the worst rows, as text."""
    if not report.records:
        text = f"checkpoint report: {report.source}: no floating-point tensors"
        return f"{text}\n{_skipped_note(report)}" if report.skipped else text
    if report.of is not None:  # worst(n): those rows, which are not the model
        return str(checkpoint_table(report))
    return f"{report.summary().table()}\n\n{checkpoint_table(report, _limit(report))}"


def checkpoint_html(report: Any) -> str:
    """The summary, then the worst rows, as HTML."""
    if not report.records:
        lines = checkpoint_text(report).split("\n")
        return "".join(f"<p>{html.escape(line)}</p>" for line in lines)
    if report.of is not None:
        return checkpoint_table(report)._repr_html_()
    summary = report.summary().table()._repr_html_()
    return f"{summary}\n{checkpoint_table(report, _limit(report))._repr_html_()}"

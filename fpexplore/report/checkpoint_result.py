"""The result of :func:`fpexplore.checkpoint_report`: its rows, worst rows,
summary, JSON and CSV, tables and heatmap.

**Passing.** A tensor *passes* a (format, scaling) when no value overflows (none
became inf or NaN, or saturated without a scaling rule: ``overflow == 0``) and its
SNR is at least ``min_snr_db`` (20 dB by default: quantization noise at most 1% of
the signal's power). :meth:`CheckpointReport.summary` gives per (format, scaling)
the share of tensors that pass, the parameter-weighted SNR (the mean of the
tensors' SNR in dB weighted by their sizes; -inf if any tensor's is -inf;
tensors stored exactly, SNR inf, leave the mean out unless every tensor is exact)
and the total overflow, clipped and flushed counts.

>>> import numpy as np
>>> rows = [{"tensor": "w", "format": "e4m3", "scaling": "none", "size": 4, "overflow": 0,
...          "clipped": 0, "flushed_to_zero": 0, "snr_db": 30.0, "max_rel_error": 0.06}]
>>> passes(rows[0]), passes(rows[0], min_snr_db=40)
(True, False)
"""

from __future__ import annotations

import csv
import io
import json
import math
import numbers
import operator
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["MIN_SNR_DB", "CheckpointReport", "CheckpointSummary", "passes"]

MIN_SNR_DB = 20.0
"""The SNR a tensor needs (with no overflow) to pass, by default."""
LEADING = ("tensor", "shape", "dtype", "size", "axis", "axis_source")


@dataclass(frozen=True, eq=False)
class CheckpointSummary:
    """Per (format, scaling): tensors, parameters, passing share, weighted SNR, totals."""

    records: list[dict[str, Any]]
    min_snr_db: float

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per (format, scaling): ``format``, ``scaling``, ``block_format``
        (the block row's MX or NVFP4 format, as the records name it), ``tensors``,
        ``parameters``, ``passing``, ``pass_share``, ``snr_db`` (parameter-weighted),
        ``min_snr_db`` (the worst tensor's), ``worst_tensor``, ``overflow``,
        ``clipped``, ``flushed_to_zero``."""
        return [dict(r) for r in self.records]

    def table(self) -> Any:
        from ..render.checkpoint import summary_table

        return summary_table(self)

    def __str__(self) -> str:
        return str(self.table())

    __repr__ = __str__

    def _repr_html_(self) -> str:
        html: str = self.table()._repr_html_()
        return html


@dataclass(frozen=True, eq=False)
class CheckpointReport:
    """The result of :func:`checkpoint_report`: one record per (tensor, format, scaling)."""

    records: list[dict[str, Any]]
    formats: list[str]
    source: str
    skipped: list[tuple[str, str]] = field(default_factory=list)
    of: int | None = None  # worst(n): the rows of the report these were taken from
    nonfinite: dict[str, int] = field(default_factory=dict)
    """Tensors holding NaN or inf values in the checkpoint itself, and how many:
    every statistic leaves those values out (a tensor of NaN alone has SNR NaN and fails)."""
    notes: list[str] = field(default_factory=list)
    """What the report says of how it was made (tensors with no summed axis known)."""

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per (tensor, format, scaling): ``tensor``, ``shape`` (tuple),
        ``dtype`` (str), ``size``, ``axis`` (the block axis used), ``axis_source``
        (where it came from: ``"graph"``, ``"layer"``, ``"layout"``, ``"last"``,
        ``"given"``), then every key of :meth:`fpexplore.TensorReport.to_records`
        (``short_blocks`` among them)."""
        return [dict(r) for r in self.records]

    def worst(self, n: int = 10) -> CheckpointReport:
        """The ``n`` rows of lowest SNR, lowest first (ties: the largest maximum
        relative error first, then checkpoint order). Printed, they are a table of
        those rows (``of`` says how many there were), not a summary of the model."""
        try:
            count = operator.index(n)  # an int, numpy's too; not a float or a str
        except TypeError:
            count = -1
        if isinstance(n, bool) or count < 0:
            raise ValueError(f"n must be a non-negative int, got {n!r}")
        n = count
        order = sorted(range(len(self.records)), key=lambda i: _badness(self.records[i], i))
        total = len(self.records) if self.of is None else self.of
        return CheckpointReport([self.records[i] for i in order[:n]], self.formats,
                                self.source, self.skipped, total, self.nonfinite,
                                self.notes)  # fmt: skip

    def summary(self, min_snr_db: float = MIN_SNR_DB) -> CheckpointSummary:
        """Per (format, scaling): the share of tensors that pass (no overflow and an
        SNR of at least ``min_snr_db``), the parameter-weighted SNR and totals."""
        if isinstance(min_snr_db, bool) or not isinstance(min_snr_db, numbers.Real) \
                or math.isnan(min_snr_db):  # fmt: skip
            raise ValueError(f"min_snr_db must be a number, got {min_snr_db!r}")
        groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for r in self.records:
            groups.setdefault((r["format"], r["scaling"]), []).append(r)
        return CheckpointSummary([_summary_row(k, rs, min_snr_db) for k, rs in groups.items()],
                                 float(min_snr_db))  # fmt: skip

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """The records as JSON: numbers as numbers, ``shape`` a list, inf and NaN
        as the strings ``"inf"``, ``"-inf"``, ``"nan"``; written to ``path`` too if given."""
        text = json.dumps([{k: _json(v) for k, v in r.items()} for r in self.records], indent=1)
        if path is not None:
            Path(path).write_text(text + "\n")
        return text

    def to_csv(self, path: str | os.PathLike[str] | None = None) -> str:
        """The records as CSV (a header row, then one row per record): ``shape`` as
        ``4x5``, inf and NaN as ``inf``, ``-inf``, ``nan``, None as an empty cell."""
        out = io.StringIO()
        columns = list(self.records[0]) if self.records else list(LEADING)
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for r in self.records:
            writer.writerow([_csv(r.get(c)) for c in columns])
        if path is not None:
            Path(path).write_text(out.getvalue())
        return out.getvalue()

    def table(self, limit: int | None = None) -> Any:
        """The rows as a :class:`fpexplore.render.table.Table` (``limit``: the worst
        ``limit`` rows only)."""
        from ..render.checkpoint import checkpoint_table

        return checkpoint_table(self, limit)

    def __str__(self) -> str:
        from ..render.checkpoint import checkpoint_text

        return checkpoint_text(self)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        from ..render.checkpoint import checkpoint_html

        return checkpoint_html(self)

    def plot(self, ax: Any = None, *, scaling: str | None = None, top: int | None = 40) -> Any:
        """A heatmap of tensors x (format, scaling) coloured by SNR; returns the Axes.

        Parameters
        ----------
        ax : matplotlib Axes, optional
        scaling : str, optional
            One scaling's columns only (``"none"``, ``"per_tensor"``, ``"block"``).
        top : int or None
            At most this many tensors, the worst (the title says how many more);
            None: every tensor.
        """
        from ..plot.checkpoint import plot_checkpoint

        return plot_checkpoint(self, ax=ax, scaling=scaling, top=top)


def _badness(r: dict[str, Any], i: int) -> tuple[float, float, int]:
    snr = r["snr_db"]  # NaN (no finite value to measure: a failure) first, None last
    snr = math.inf if snr is None else (-math.inf if math.isnan(snr) else snr)
    worst = r["max_rel_error"]
    worst = -1.0 if worst is None or math.isnan(worst) else worst
    return (snr, -worst, i)


def passes(r: dict[str, Any], min_snr_db: float = MIN_SNR_DB) -> bool:
    """Whether a record passes: no overflow and an SNR of at least ``min_snr_db``."""
    return bool(r["overflow"] == 0 and r["snr_db"] >= min_snr_db)


def _summary_row(key: tuple[str, str], rows: list[dict[str, Any]], floor: float) -> dict[str, Any]:
    sizes = [r["size"] for r in rows]
    snrs = [r["snr_db"] for r in rows]
    finite = [(s, n) for s, n in zip(snrs, sizes, strict=True) if math.isfinite(s) and n]
    if any(s == -math.inf for s in snrs):
        weighted = -math.inf
    elif finite:
        weighted = math.fsum(s * n for s, n in finite) / sum(n for _, n in finite)
    else:  # every tensor exact (inf), or none measured (NaN: no finite values)
        weighted = math.inf if math.inf in snrs else math.nan
    worst = min(range(len(rows)), key=lambda i: _badness(rows[i], i))
    passing = sum(passes(r, floor) for r in rows)
    return {
        "format": key[0], "scaling": key[1], "block_format": rows[0].get("block_format"),
        "tensors": len(rows),
        "parameters": sum(r["size"] for r in rows), "passing": passing,
        "pass_share": passing / len(rows), "snr_db": weighted,
        "min_snr_db": rows[worst]["snr_db"], "worst_tensor": rows[worst]["tensor"],
        "overflow": sum(r["overflow"] for r in rows), "clipped": sum(r["clipped"] for r in rows),
        "flushed_to_zero": sum(r["flushed_to_zero"] for r in rows),
    }  # fmt: skip


def _json(v: Any) -> Any:
    if isinstance(v, tuple):
        return list(v)
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def _csv(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, tuple):
        return "x".join(str(d) for d in v)
    if isinstance(v, float):
        return _json(v) if not math.isfinite(v) else repr(v)
    return v

"""checkpoint_report(): will this model survive this format, and which tensors won't?

One :func:`fpexplore.tensor_report` per floating-point tensor of a checkpoint,
each tensor scaled on its own (its own amax, its own blocks: tensors are never
concatenated, so one tensor's outlier cannot change another's rows), read one
tensor and one chunk at a time. The rows of a tensor are exactly
``tensor_report(tensor, formats, axis=...)``'s (with ``tile_axis=0`` for the 2-D
tiles of an ONNX or PyTorch convolution weight), with the tensor's name, shape,
dtype and size in front.

The rows, their summary (what *passing* means) and exports:
:mod:`fpexplore.report.checkpoint_result`.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> weights = {"dense/kernel": rng.standard_normal((64, 32)), "dense/bias": np.zeros(32)}
>>> r = checkpoint_report(weights, ["float8_e4m3fn"], axis=0, progress=False)
>>> [(row["tensor"], row["scaling"], row["overflow"]) for row in r.worst(2).to_records()]
[('dense/kernel', 'block', 0), ('dense/kernel', 'per_tensor', 0)]
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from .. import codes as K
from ..io import Checkpoint, open_checkpoint
from ..scaling.block_formats import BlockFormat
from .checkpoint_result import CheckpointReport, CheckpointSummary
from .progress import progress_bar
from .records import as_array, tensor_records
from .routes.chunks import CHUNK_BYTES
from .routes.stream import needs_amax
from .selection import block_axis, check_axis, select
from .tensor import SCALINGS, parse_formats

__all__ = ["CheckpointReport", "CheckpointSummary", "checkpoint_report"]


def _open(source: Any) -> tuple[Checkpoint, str]:
    """A mapping of names to arrays (:func:`fpexplore.open_checkpoint`'s), and its name."""
    if not isinstance(source, Mapping | str | os.PathLike):
        raise TypeError(
            f"source must be a path or a mapping of names to arrays, got {type(source).__name__}"
        )
    opened = open_checkpoint(source)
    return opened, opened.name  # the file's name, without its folder: outputs show no paths


def _left_out(dtype: Any) -> str | None:
    """Why a tensor of ``dtype`` is not reported, or None if it is (floating point)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f" and dtype.itemsize > 8:
        return (f"dtype {dtype} is long double, which the report does not take "
                "(its values would be rounded twice)")  # fmt: skip
    if dtype.kind == "c":
        return f"dtype {dtype} is complex; the report takes real numbers"
    if dtype.kind == "f":
        return None
    if dtype.kind == "V":  # ml_dtypes: bfloat16 and FP8 are reported; int4, uint2... are not
        try:
            kind = K.real_array(np.empty(0, dtype)).dtype.kind
        except TypeError:
            return f"dtype {dtype} is not floating point"
        return None if kind == "V" else f"dtype {dtype} is not floating point"
    return f"dtype {dtype} is not floating point"


def no_rows(parsed: list[Any]) -> str:
    """Why ``parsed`` formats give no rows with the scalings asked (each one's reason)."""
    return "; ".join(
        f"{fmt.name} has the block scaling only" if isinstance(fmt, BlockFormat)
        else f"{fmt.name} has no block row (MX element formats such as e4m3, e5m2 or e2m1 "
        "have one, and block formats (mxfp4, nvfp4...))"
        for fmt in parsed
    )  # fmt: skip


def checkpoint_report(
    source: Any,
    formats: Any,
    *,
    scalings: Iterable[str] = SCALINGS,
    axis: int | str | None = "auto",
    min_size: int | None = None,
    include: str | Iterable[str] | None = None,
    exclude: str | Iterable[str] | None = None,
    weights_only: bool | None = None,
    progress: bool | None = None,
    scheduler: Any = None,
    chunk_bytes: int = CHUNK_BYTES,
    scale_rule: str | None = None,
) -> CheckpointReport:
    """Report every floating-point tensor of a checkpoint in each of ``formats``.

    Parameters
    ----------
    source : path or mapping
        A file :func:`fpexplore.open_checkpoint` reads (safetensors, sharded
        safetensors, npz/npy, Keras, ONNX, torch), or a mapping of names to numpy,
        dask, JAX or ml_dtypes arrays. Tensors that are not floating point (integer
        step counters, masks), complex or long double are left out and listed,
        with the reason, in ``skipped``.
    formats : format spec or list of them (as :func:`fpexplore.tensor_report`)
        A name outside the catalogue that reads as a custom eXmY format (``"e4m4"``)
        warns (``UserWarning``) with the nearest catalogue names.
    scalings : iterable of str
        Some of ``"none"``, ``"per_tensor"``, ``"block"``. A ``ValueError`` if
        none of ``formats`` has a row of these (``"bf16"`` has no block row;
        ``"mxfp4"`` has the block row only).
    axis : "auto", int or None
        The block axis. ``"auto"`` (the default): each tensor along the axis its
        layer sums over, as the file says (the ONNX node that consumes it, the
        Keras layer, PyTorch's layout for safetensors, npz and torch files), else
        its last axis. An int: that axis for every tensor that has it (a tensor
        without it, a bias for ``axis=1``, along its last axis); None: every
        tensor's last axis. Each record says which (``axis``) and why
        (``axis_source``: ``"graph"``, ``"layer"``, ``"layout"``, ``"last"`` or
        ``"given"``); ``short_blocks`` marks block rows whose axis is shorter than
        a block. 2-D tiles (``block_size=(b0, b1)``) run ``b1`` along the block
        axis and ``b0`` along the last other axis, but for a convolution weight
        ``(out, in, *kernel)`` blocked along ``in`` as the ONNX graph or PyTorch's
        layout says: ``out x in`` tiles at each tap (``tensor_report(..., axis=1,
        tile_axis=0)``).
    min_size : int or None
        Tensors of fewer values are left out (None: 2, so scalars and tensors of
        one value, such as an epsilon, are).
    include, exclude : glob pattern or patterns, optional
        Names to keep (any pattern) and to leave out (any pattern).
    weights_only : bool or None
        True: the layers' weights only (ONNX initializers that a Conv, Gemm,
        MatMul or Gather consumes; trainable Keras variables; tensors of rank 2
        or more where the file does not say). None (the default): every tensor
        but the constants (ONNX Constant node outputs and initializers filled with
        one value other than 0 or 1 that no node sums over: a -1e9 mask, an
        epsilon), each listed in ``skipped``. False: every tensor, the constants
        too. An ``include`` pattern that is a constant's name also reports it. See
        :mod:`fpexplore.report.selection`.
    progress : bool or None
        A progress bar (None: where one can be seen; see
        :mod:`fpexplore.report.progress`).
    scheduler : str, dask.distributed.Client or None
        Run on a dask.distributed cluster (its scheduler's address,
        ``"tcp://host:8786"``, or a ``Client``): one task per tensor, with the
        same records as the local run. Needs the ``dask`` extra. None (the
        default): dask's configured default, where ``distributed`` is already
        imported (never imported otherwise): the default ``Client``,
        ``dask.config``'s ``"scheduler"`` (a ``Client`` or ``"distributed"``) or
        its ``"scheduler-address"``; a local scheduler configured (``"sync"``,
        ``"threads"``) or none: the local run. See
        :mod:`fpexplore.report.distributed`.
    chunk_bytes : int
        Input bytes read at a time: bounds the memory a report needs.
    scale_rule : str, optional
        The rule of power-of-two block scales (``"floor"``, the default,
        ``"rceil"``, ``"ceil"``, ``"even"``), as :func:`fpexplore.tensor_report`
        takes it.

    Returns
    -------
    CheckpointReport

    Raises
    ------
    ValueError
        A filter that leaves no tensor, an axis no tensor has, a scheduler that
        cannot be reached (each message names what was given).
    """
    chosen = (scalings,) if isinstance(scalings, str) else tuple(scalings)  # once: an iterator
    parsed, rows = parse_formats(formats, chosen, scale_rule)
    if not rows:
        raise ValueError(f"scalings {', '.join(chosen)} give no rows: {no_rows(parsed)}")
    axis = check_axis(axis)
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, int) or chunk_bytes < 1:
        raise ValueError(f"chunk_bytes must be a positive int, got {chunk_bytes!r}")
    mapping, name = _open(source)
    labels = list(dict.fromkeys(r.label for r in rows))
    floats, skipped = [], []
    for key in mapping:  # shapes and dtypes first, without reading the tensors
        why = _left_out(mapping.spec(key).dtype)
        if why is None:
            floats.append(str(key))
        else:
            skipped.append((str(key), why))
    kept, filtered = select(mapping, min_size=min_size, include=include, exclude=exclude,
                            weights_only=weights_only, names=floats)  # fmt: skip
    skipped += filtered
    if floats and not kept:
        raise ValueError(f"{name}: no tensor left to report: {_why_none(filtered)}")
    ranks = {max(len(mapping.spec(k).shape), 1) for k in kept}
    if isinstance(axis, int) and kept and not any(-n <= axis < n for n in ranks):
        raise ValueError(
            f"axis {axis} is out of range for every tensor of {name} (ranks {sorted(ranks)})"
        )
    axes = {key: block_axis(mapping, key, axis) for key in kept}
    if scheduler is None:
        from .distributed import default_scheduler

        scheduler = default_scheduler()  # dask's configured default, if distributed is loaded
    if scheduler is not None:
        from .distributed import distributed_records

        found, bad = distributed_records(
            scheduler, mapping, kept, axes, formats, chosen, chunk_bytes, scale_rule
        )
        return CheckpointReport(found, labels, name, skipped, nonfinite=bad,
                                notes=_axis_notes(axes))  # fmt: skip
    sizes = {key: mapping.spec(key).size for key in kept}
    passes_of = 2 if needs_amax(rows) else 1
    bar = progress_bar(sum(sizes.values()) * passes_of, "report", progress)
    records: list[dict[str, Any]] = []
    nonfinite: dict[str, int] = {}
    try:
        for key in kept:
            bar.set_description(key)
            value = as_array(mapping[key])  # read now, one tensor at a time
            rows_of, bad_of = tensor_records(key, value, rows, parsed, axes[key], chunk_bytes, bar)
            records += rows_of
            if bad_of:
                nonfinite[key] = bad_of
            del value
    finally:
        bar.close()
    return CheckpointReport(records, labels, name, skipped, nonfinite=nonfinite,
                            notes=_axis_notes(axes))  # fmt: skip


def _why_none(filtered: list[tuple[str, str]]) -> str:
    """The reasons the filters left every tensor out, most common first."""
    counts: dict[str, int] = {}
    for _, why in filtered:
        reason = why.split(" (")[0] if why.startswith("not a weight") else why
        reason = "fewer values than min_size" if "min_size" in reason else reason
        reason = "constants" if why.startswith("constant: ") else reason
        counts[reason] = counts.get(reason, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])[:3]
    return "; ".join(f"{n} {reason}" for reason, n in ranked) or "the checkpoint is empty"


def _axis_notes(axes: dict[str, tuple[int, str, str]]) -> list[str]:
    """One note per reason a tensor was blocked along its last axis with no summed axis."""
    grouped: dict[str, list[str]] = {}
    for key, (_, source, note) in axes.items():
        if source == "last" and note:
            grouped.setdefault(note, []).append(key)
    return [
        f"{len(keys)} tensor{'s' if len(keys) != 1 else ''} ({', '.join(keys[:3])}"
        f"{', ...' if len(keys) > 3 else ''}) blocked along the last axis: {note}"
        for note, keys in grouped.items()
    ]

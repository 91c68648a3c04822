"""One tensor's records in a checkpoint report: the tensor's name, shape, dtype,
size, block axis and its source in front of :func:`fpexplore.tensor_report`'s rows.

The local run (:mod:`fpexplore.report.checkpoint`) and the tasks of a distributed
one (:mod:`fpexplore.report.distributed`) both call :func:`tensor_records`, so
their records are the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import codes as K
from ..lazy import is_dask
from .routes.stream import needs_amax, numpy_stats
from .routes.tiles import tile_axis
from .tensor import build_report, dtype_name

__all__ = ["as_array", "conv_tile_axis", "tensor_records"]


def conv_tile_axis(shape: tuple[int, ...], axis: int, source: str) -> int | None:
    """The axis of a 2-D tile's first size: 0 for a convolution weight ``(out, in,
    *kernel)`` blocked along ``in`` as the file says (ONNX graph, PyTorch layout),
    so its tiles are ``out x in`` at each tap; else None (the default, the last axis
    that is not the block axis: a Keras kernel ``(*kernel, in, out)``'s ``out``).

    >>> conv_tile_axis((64, 32, 3, 3), 1, "graph"), conv_tile_axis((3, 3, 32, 64), 2, "layer")
    (0, None)
    """
    return 0 if len(shape) >= 3 and axis == 1 and source in ("graph", "layout") else None


def as_array(value: Any) -> Any:
    """numpy, a memory map, ml_dtypes or dask as they are; anything with
    ``__array__`` (JAX, torch on the CPU) as numpy."""
    if isinstance(value, np.ndarray) or is_dask(value):
        return value
    return np.asarray(value)


def tensor_records(
    key: str, value: Any, rows: list[Any], parsed: list[Any], axis: tuple[int, str, str],
    chunk_bytes: int, bar: Any,
) -> tuple[list[dict[str, Any]], int]:  # fmt: skip
    """The tensor's records, and how many of its values are NaN or inf."""
    shape = tuple(int(d) for d in value.shape)
    ax, source, _ = axis
    other = tile_axis(len(shape), ax, conv_tile_axis(shape, ax, source))
    try:
        if is_dask(value):
            from .routes.dask_run import dask_stats

            stats, amax = dask_stats(value, rows, ax, other)
            bar.update(int(value.size) * (2 if needs_amax(rows) else 1))
        else:
            arr = np.asarray(value)
            if arr.dtype.isnative:
                arr = K.real_array(arr)
            else:  # '>f4' and the like: converted one chunk at a time, as it is read
                K.real_array(np.empty(0, arr.dtype))  # (checked: numbers)
            arr = arr.reshape(1) if arr.ndim == 0 else arr
            stats, amax = numpy_stats(arr, rows, ax, chunk_bytes, bar.update, figure=False,
                                      other=other)  # fmt: skip
    except (ValueError, TypeError) as error:
        raise type(error)(f"tensor {key!r}: {error}") from error
    report = build_report(stats, rows, amax, parsed, value.dtype, ax, shape, other)
    head = {"tensor": key, "shape": shape, "dtype": dtype_name(value.dtype),
            "size": int(value.size), "axis": ax, "axis_source": source}  # fmt: skip
    return [{**head, **r} for r in report.to_records()], report.size - report.finite

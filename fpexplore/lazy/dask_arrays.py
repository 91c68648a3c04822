"""dask arrays in the array functions: detection, chunk checks, and a .npy reader.

dask is an optional extra (``pip install -e ".[dask]"``); nothing here imports it
at module import. A dask array is recognised by its ``__dask_graph__`` method, and
the functions that accept one (:func:`fpexplore.round_to`,
:func:`fpexplore.representation_error`, :func:`fpexplore.decode_array`,
:func:`fpexplore.tensor_report`) map themselves over its chunks with the result's
dtype declared, so a graph built on them stays lazy and typed.

Examples
--------
>>> import numpy as np
>>> is_dask(np.zeros(3))
False
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import codes as K
from ..exact import check_rng
from ..formats import Format

__all__ = [
    "check_known_chunks",
    "from_npy",
    "is_dask",
    "lazy_rounding_errors",
    "map_elementwise",
    "map_seeded",
]


def is_dask(x: Any) -> bool:
    """True for a dask collection (without importing dask)."""
    return callable(getattr(x, "__dask_graph__", None)) and hasattr(x, "chunks")


def check_known_chunks(x: Any, what: str) -> None:
    """Raise ValueError if a dask array's chunk sizes are unknown (NaN)."""
    if any(math.isnan(c) for dim in x.chunks for c in dim):
        raise ValueError(
            f"{what} needs a dask array with known chunk sizes, got chunks {x.chunks}; "
            "call x.compute_chunk_sizes() first"
        )


def map_elementwise(
    func: Any, x: Any, out_dtype: Any, *args: Any, seeded: bool = False, **kwargs: Any
) -> Any:
    """``func(chunk, *args, **kwargs)`` over a dask array's chunks, with the output
    dtype declared (``meta`` as well, so dask does not call ``func`` on a dummy chunk).
    ``seeded=True``: the ``rng`` keyword becomes a generator of each chunk's own
    (:func:`map_seeded`)."""
    if seeded:
        rng = kwargs.pop("rng", None)
        return map_seeded(func, x, out_dtype, rng, *args, **kwargs)
    out_dtype = np.dtype(out_dtype)
    meta = np.empty((0,) * x.ndim, out_dtype)
    return x.map_blocks(_Bound(func, args, kwargs), dtype=out_dtype, meta=meta, token=func.__name__)


class _Bound:
    """``func(chunk, *args, **kwargs)``: a picklable partial with the chunk first."""

    def __init__(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.func, self.args, self.kwargs = func, args, kwargs

    def __call__(self, chunk: Any) -> Any:
        return self.func(chunk, *self.args, **self.kwargs)


def map_seeded(func: Any, x: Any, out_dtype: Any, rng: Any, *args: Any, **kwargs: Any) -> Any:
    """:func:`map_elementwise` for stochastic rounding: ``func(chunk, *args,
    rng=generator, **kwargs)`` with a generator of its own per chunk, seeded by
    ``SeedSequence(entropy, spawn_key=chunk position)``. The entropy comes from
    ``rng`` (a seed, a SeedSequence, or draws from a Generator when the graph is
    built), so equal chunks draw differently and the result does not depend on
    which chunks are computed, in what order or where."""
    root = _seed_sequence(rng)
    out_dtype = np.dtype(out_dtype)
    meta = np.empty((0,) * x.ndim, out_dtype)
    seeded = _Seeded(func, root.entropy, tuple(root.spawn_key), args, kwargs)
    return x.map_blocks(seeded, dtype=out_dtype, meta=meta, token=f"{func.__name__}-stochastic")


def _seed_sequence(rng: Any) -> np.random.SeedSequence:
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, np.random.Generator | np.random.BitGenerator):
        generator = check_rng(rng)
        return np.random.SeedSequence([int(v) for v in generator.integers(0, 2**63, 4)])
    check_rng(rng)  # a bad rng is refused, naming it
    return np.random.SeedSequence(rng)


class _Seeded:
    """``func(chunk, *args, rng=<the chunk's own generator>, **kwargs)``; dask passes
    ``block_id``, the chunk's position."""

    def __init__(
        self, func: Any, entropy: Any, key: tuple[int, ...], args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:  # fmt: skip
        self.func, self.entropy, self.key, self.args, self.kwargs = func, entropy, key, args, kwargs

    def __call__(self, chunk: Any, block_id: tuple[int, ...] | None = None) -> Any:
        position = tuple(block_id or ())
        seed = np.random.SeedSequence(self.entropy, spawn_key=self.key + position)
        rng = np.random.Generator(np.random.PCG64(seed))
        return self.func(chunk, *self.args, rng=rng, **self.kwargs)


def _stacked_errors(chunk: NDArray[Any], fmt: Format, rounding: str, overflow: Any) -> Any:
    return np.stack(K.rounding_errors(chunk, fmt, rounding, overflow=overflow))


def lazy_rounding_errors(
    x: Any, fmt: Format, rounding: str, overflow: Any
) -> tuple[Any, Any, Any, Any]:
    """:func:`fpexplore.codes.rounding_errors` of a dask array: four dask arrays, from
    one task per chunk that computes them together (stacked on a new first axis)."""
    stacked = x.map_blocks(
        _stacked_errors, fmt, rounding, overflow, new_axis=0, chunks=((4,), *x.chunks),
        dtype=np.float64, meta=np.empty((0,) * (x.ndim + 1)), token="representation_error",
    )  # fmt: skip
    return stacked[0], stacked[1], stacked[2], stacked[3]


def _require_dask() -> Any:
    try:
        import dask.array as da
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "this needs dask; install it from a clone of fpexplore (not on PyPI yet): "
            'pip install -e ".[dask]" (or pip install "dask[array]")'
        ) from error
    return da


def _read_npy(path: str, start: int, stop: int, columns: slice | None = None) -> np.ndarray:
    """Rows ``start:stop`` (and ``columns`` of the second axis) of a .npy file, copied
    out of a mapping that is then dropped, so the pages read leave the process's
    resident memory."""
    mapped = np.load(path, mmap_mode="r")
    try:
        part = mapped[start:stop] if columns is None else mapped[start:stop, columns]
        return np.array(part)
    finally:
        del mapped


def from_npy(path: str, chunk_rows: int | None = None, *, chunk_bytes: int = 1 << 26) -> Any:
    """A dask array reading a .npy file chunk by chunk, each chunk at most
    ``chunk_bytes`` bytes (64 MiB): whole rows of the first axis where a row fits,
    else single rows cut along the second axis too.

    ``dask.array.from_array(np.load(path, mmap_mode="r"))`` keeps one mapping of
    the whole file open, and every page it reads stays in the process's resident
    memory until the mapping goes. Here each chunk maps the file, copies its part
    and unmaps it, so a report over a file larger than memory holds a few chunks
    at a time.

    Parameters
    ----------
    path : str
        A .npy file.
    chunk_rows : int, optional
        At most this many rows (entries of the first axis) per chunk as well.
    chunk_bytes : int
        Bytes per chunk at most (a chunk holds at least one element).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "w.npy")
    >>> np.save(path, np.zeros((1000, 64), np.float32))  # rows of 256 bytes
    >>> from_npy(path, chunk_bytes=4096).chunks[0][:2]
    (16, 16)
    """
    da = _require_dask()
    dask: Any = importlib.import_module("dask")  # (untyped)

    header = np.load(path, mmap_mode="r")
    shape, dtype = header.shape, header.dtype
    del header
    if not shape:
        raise ValueError(f"{path} holds a 0-d array; expected at least one axis")
    if chunk_rows is not None and (isinstance(chunk_rows, bool) or chunk_rows < 1):
        raise ValueError(f"chunk_rows must be a positive int, got {chunk_rows!r}")
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, int) or chunk_bytes < 1:
        raise ValueError(f"chunk_bytes must be a positive int, got {chunk_bytes!r}")
    row_bytes = dtype.itemsize * math.prod(shape[1:])
    rows = max(1, chunk_bytes // max(row_bytes, 1))
    rows = min(rows, chunk_rows) if chunk_rows is not None else rows
    split = len(shape) > 1 and row_bytes > chunk_bytes
    step = max(1, chunk_bytes // max(1, dtype.itemsize * math.prod(shape[2:])))
    parts = []
    for start in range(0, shape[0], rows):
        stop = min(start + rows, shape[0])
        if not split:
            block = dask.delayed(_read_npy, pure=True)(path, start, stop)
            parts.append(da.from_delayed(block, (stop - start, *shape[1:]), dtype=dtype))
            continue
        pieces = []
        for first in range(0, shape[1], step):
            last = min(first + step, shape[1])
            block = dask.delayed(_read_npy, pure=True)(path, start, stop, slice(first, last))
            pieces.append(da.from_delayed(block, (1, last - first, *shape[2:]), dtype=dtype))
        parts.append(da.concatenate(pieces, axis=1))
    return da.concatenate(parts, axis=0)

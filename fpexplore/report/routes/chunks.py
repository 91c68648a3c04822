"""Cutting a tensor into chunks bounded in bytes, with whole blocks along an axis.

A tensor report reads its input chunk by chunk (each at most ``chunk_bytes`` of
input) and works through each chunk in cache-sized pieces. :func:`plan_chunks`
gives the index boxes: a box takes whole trailing axes where they fit, else cuts
the outermost axis that does not fit; along the block axis a cut falls on a
multiple of the block size (the axis's last, ragged block stays whole), so every
block of 32 (or 16) consecutive elements lies in one box. The boxes cover the
tensor exactly once, in C order, and are generated lazily: planning a
``(2_000_000, 4096)`` tensor allocates nothing.

Pages of a memory-mapped input that a chunk has read are handed back to the
system afterwards (:func:`release_pages`), so the process's resident memory
stays bounded by the chunk size, not the file's size.

Examples
--------
>>> [tuple((s.start, s.stop) for s in box) for box in plan_chunks((4, 64), 64, axis=1, align=32)]
[((0, 1), (0, 64)), ((1, 2), (0, 64)), ((2, 3), (0, 64)), ((3, 4), (0, 64))]
>>> boxes = plan_chunks((64, 3), 40, axis=0, align=32)  # one block of 32 down each column
>>> [tuple((s.start, s.stop) for s in box) for box in boxes][:4]
[((0, 32), (0, 1)), ((0, 32), (1, 2)), ((0, 32), (2, 3)), ((32, 64), (0, 1))]
"""

from __future__ import annotations

import itertools
import math
import mmap
from collections.abc import Iterator
from typing import Any

__all__ = ["CHUNK_BYTES", "PIECE", "count_chunks", "plan_chunks", "release_pages"]

CHUNK_BYTES = 1 << 26
"""Default input bytes per chunk (64 MiB)."""
PIECE = 1 << 16
"""Elements worked on at a time inside a chunk (their temporaries stay in cache)."""

Box = tuple[slice, ...]


def plan_chunks(
    shape: tuple[int, ...], limit: int, *, axis: int | None = None, align: int = 1
) -> Iterator[Box]:
    """Index boxes of at most ``max(limit, align)`` elements covering ``shape``.

    Parameters
    ----------
    shape : tuple of int
    limit : int
        Elements per box at most (a box holds at least one whole block: ``align``).
    axis : int, optional
        The block axis: cuts along it fall on multiples of ``align``.
    align : int
        The block size (1: no constraint).
    """
    shape = tuple(int(d) for d in shape)
    limit = max(int(limit), align, 1)
    if axis is not None and not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis {axis} is out of range for shape {shape}")
    if axis is None or align <= 1:
        yield from _plain(shape, limit)
        return
    axis %= len(shape)
    trailing = math.prod(shape[axis + 1 :])
    if align * trailing <= limit and math.prod(shape) <= limit:  # (what _aligned gives)
        yield tuple(slice(0, d) for d in shape)
        return
    if align * trailing <= limit:
        yield from _aligned(shape, limit, axis, align)
        return
    # not even one block's worth along ``axis`` with whole trailing axes: a span of
    # ``align`` along it, and the trailing axes cut plainly
    inner = max(1, limit // align)
    for lead in itertools.product(*(range(d) for d in shape[:axis])):
        head = tuple(slice(i, i + 1) for i in lead)
        for start in range(0, shape[axis], align):
            span = slice(start, min(start + align, shape[axis]))
            for box in _plain(shape[axis + 1 :], inner):
                yield (*head, span, *box)


def _tails(shape: tuple[int, ...]) -> list[int]:
    tails = [1] * (len(shape) + 1)
    for j in range(len(shape) - 1, -1, -1):
        tails[j] = tails[j + 1] * shape[j]
    return tails


def _split(shape: tuple[int, ...], limit: int, step_of: Any) -> Iterator[Box]:
    tails = _tails(shape)
    if tails[0] <= limit:
        yield tuple(slice(0, d) for d in shape)
        return
    j = next(j for j in range(len(shape) + 1) if tails[j] <= limit)
    s = j - 1  # the axis that is cut
    step = step_of(s, limit // tails[j])
    rest = tuple(slice(0, d) for d in shape[j:])
    for lead in itertools.product(*(range(d) for d in shape[:s])):
        head = tuple(slice(i, i + 1) for i in lead)
        for start in range(0, shape[s], step):
            yield (*head, slice(start, min(start + step, shape[s])), *rest)


def _plain(shape: tuple[int, ...], limit: int) -> Iterator[Box]:
    return _split(shape, limit, lambda s, step: max(1, step))


def _aligned(shape: tuple[int, ...], limit: int, axis: int, align: int) -> Iterator[Box]:
    def step_of(s: int, step: int) -> int:
        return max(align, step // align * align) if s == axis else max(1, step)

    return _split(shape, limit, step_of)


def count_chunks(shape: tuple[int, ...], limit: int, *, axis: int | None = None,
                 align: int = 1) -> int:  # fmt: skip
    """How many boxes :func:`plan_chunks` gives (by counting them)."""
    return sum(1 for _ in plan_chunks(shape, limit, axis=axis, align=align))


def _mapping(x: Any) -> mmap.mmap | None:
    """The ``mmap.mmap`` an array's memory lives in, if any (through its bases)."""
    seen = 0
    obj = x
    while obj is not None and seen < 32:
        if isinstance(obj, mmap.mmap):
            return obj
        if isinstance(obj, memoryview):
            obj = obj.obj
        else:
            obj = getattr(obj, "_mmap", None) or getattr(obj, "base", None)
        seen += 1
    return None


def release_pages(x: Any) -> None:
    """Drop from this process the pages of a memory-mapped array's mapping (the
    system's page cache keeps them; a later read maps them again). Does nothing
    for other arrays or where ``madvise`` is unavailable."""
    mapped = _mapping(x)
    advice = getattr(mmap, "MADV_DONTNEED", None)
    if mapped is None or advice is None or mapped.closed:
        return
    try:
        with memoryview(mapped) as view:
            if not view.readonly:  # a copy-on-write mapping would lose its changes
                return
        mapped.madvise(advice)
    except (OSError, ValueError):  # pragma: no cover - depends on the platform
        return

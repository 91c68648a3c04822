"""Blocked, threaded execution of the kernels, and their branch-free helpers.

:func:`run_blocks` runs a kernel's ``work`` over cache-sized blocks of an
array, sharing large arrays among a small thread pool. How many threads is
read at each call from this module's ``THREADS`` and ``PARALLEL_MIN``, which
users set with :func:`fpexplore.codes.set_threads`. :class:`Scratch` holds a block's work arrays;
:func:`mask_where` and :func:`blend` select without per-element branches.

Examples
--------
>>> seen = []
>>> run_blocks(5, 2, lambda part, buffers: seen.append((part.start, part.stop)), int)
>>> seen
[(0, 2), (2, 4), (4, 5)]
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

BLOCK = 1 << 16
"""Elements per block: large enough to amortize numpy call overhead, small
enough that a block's temporaries stay in cache."""

_CHUNK_BLOCKS = 4  # blocks per chunk that a thread takes at a time

_pool: tuple[int, ThreadPoolExecutor] | None = None  # (pid, pool): a fork gets a new one


def _blocks(n: int, block: int | None = None, start: int = 0):
    """Slices covering ``range(start, n)`` in blocks (of BLOCK elements by default)."""
    block = block or BLOCK
    for first in range(start, n, block):
        yield slice(first, min(first + block, n))


THREADS: int | None = None
"""Threads for arrays of at least ``PARALLEL_MIN`` elements: None for the CPU
count (at most 4), 1 to stay on the calling thread. Set it with
:func:`fpexplore.codes.set_threads`."""

PARALLEL_MIN = 1 << 21
"""The smallest array that ``THREADS`` applies to; smaller ones stay on the calling thread."""


def set_threads(threads: int | None = None, *, parallel_min: int | None = None) -> None:
    """Set how many threads the kernels use for large arrays (see :data:`THREADS`)."""
    global THREADS, PARALLEL_MIN
    if threads is not None and (
        isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
    ):
        raise ValueError(f"threads must be None or a positive int, got {threads!r}")
    if parallel_min is not None:
        if isinstance(parallel_min, bool) or not isinstance(parallel_min, int) or parallel_min < 1:
            raise ValueError(f"parallel_min must be a positive int, got {parallel_min!r}")
        PARALLEL_MIN = parallel_min
    THREADS = threads


def threads_for(n: int) -> int:
    """Threads for an array of ``n`` elements, by :data:`THREADS` and :data:`PARALLEL_MIN`."""
    if n < PARALLEL_MIN:
        return 1
    return THREADS or min(os.cpu_count() or 1, 4)


def run_blocks(
    n: int, block: int, work: Callable[[slice, Any], None], scratch: Callable[[int], Any]
) -> None:
    """``work(block_slice, buffers)`` over ``range(n)`` in blocks, ``buffers =
    scratch(size)`` made once per thread. A large array is cut into chunks of a
    few blocks that the calling thread and ``THREADS - 1`` pool threads take in
    turn, so a thread that the machine starves costs at most one chunk.
    Floating-point warnings are off inside (the kernels handle overflow, inf
    and NaN themselves); an exception in any thread is raised here."""
    global _pool
    threads = threads_for(n)
    if threads == 1:
        with np.errstate(all="ignore"):
            buffers = scratch(min(n, block))
            for part in _blocks(n, block):
                work(part, buffers)
        return
    if _pool is None or _pool[0] != os.getpid() or _pool[1]._max_workers < threads - 1:
        _pool = (os.getpid(), ThreadPoolExecutor(threads - 1, thread_name_prefix="fpexplore"))
    chunk = _CHUNK_BLOCKS * block
    starts = iter(range(0, n, chunk))
    lock = threading.Lock()
    failed: list[BaseException] = []

    def run() -> None:
        with np.errstate(all="ignore"):  # errstate is per thread
            buffers = scratch(block)
            while not failed:
                with lock:
                    first = next(starts, None)
                if first is None:
                    return
                try:
                    for part in _blocks(min(first + chunk, n), block, first):
                        work(part, buffers)
                except BaseException as error:
                    failed.append(error)
                    raise

    futures = [_pool[1].submit(run) for _ in range(threads - 1)]
    try:
        run()
    finally:
        for future in futures:
            future.exception()  # wait for every thread before the outputs are used
    for future in futures:
        future.result()


class Scratch:
    """Block-sized work arrays, allocated once per call."""

    def __init__(self, n: int) -> None:
        self.n = min(n, BLOCK)
        self.magnitude, self.rounded, self.codes, self.work, self.mask = (
            np.empty(self.n, np.uint64) for _ in range(5)
        )
        self._floats: dict[str, np.ndarray] = {}

    def floats(self, name: str = "work") -> np.ndarray:
        """A float64 work array, made on first use."""
        if name not in self._floats:
            self._floats[name] = np.empty(self.n)
        return self._floats[name]


def mask_where(values: np.ndarray, limit: int, out: np.ndarray, *, below: bool) -> np.ndarray:
    """out = all ones where values < limit (``below``) or values > limit, else 0.
    uint64 arrays below 2**63: the difference wraps past 2**63 exactly there, and
    an arithmetic shift spreads that bit. No branches, unlike a boolean mask."""
    if below:
        np.subtract(values, limit, out=out)
    else:
        np.subtract(limit, values, out=out)
    signed = out.view(np.int64)
    np.right_shift(signed, 63, out=signed)
    return out


def blend(dst: np.ndarray, src: Any, mask: np.ndarray, work: np.ndarray) -> None:
    """dst = src where mask is all ones (dst ^ ((dst ^ src) & mask)); src an array or int."""
    np.bitwise_xor(dst, src, out=work)
    np.bitwise_and(work, mask, out=work)
    np.bitwise_xor(dst, work, out=dst)

"""fpexplore._kernels.blocks: blocked, threaded execution, steered by codes.set_threads."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from fpexplore import codes as K
from fpexplore._kernels import blocks as _blocks


def _threads_used(n: int, block: int) -> set[str]:
    """The names of the threads that ran the blocks of ``range(n)``, checking that
    every element was covered exactly once."""
    covered = np.zeros(n, np.int64)
    names: set[str] = set()
    lock = threading.Lock()

    def work(part: slice, buffers: object) -> None:
        covered[part] += 1
        with lock:
            names.add(threading.current_thread().name)

    _blocks.run_blocks(n, block, work, lambda size: None)
    np.testing.assert_array_equal(covered, 1)
    return names


def test_threads_are_set_on_the_public_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(K, "PARALLEL_MIN", 100)
    monkeypatch.setattr(K, "THREADS", 1)
    assert K.threads_for(10_000) == 1
    assert _threads_used(10_000, 10) == {threading.current_thread().name}
    monkeypatch.setattr(K, "THREADS", 2)
    assert _blocks.threads_for(10_000) == 2
    assert _blocks.threads_for(99) == 1  # below PARALLEL_MIN
    names = _threads_used(10_000, 10)
    assert _blocks._pool is not None and _blocks._pool[1]._max_workers >= 1
    assert names <= {threading.current_thread().name} | {
        t.name for t in threading.enumerate() if t.name.startswith("fpexplore")
    }


def test_the_default_is_the_cpu_count_up_to_four(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(K, "THREADS", None)
    assert 1 <= K.threads_for(K.PARALLEL_MIN) <= 4
    assert K.threads_for(K.PARALLEL_MIN - 1) == 1


def test_an_error_in_a_block_is_raised_to_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(K, "PARALLEL_MIN", 100)
    monkeypatch.setattr(K, "THREADS", 2)

    def work(part: slice, buffers: object) -> None:
        if part.start >= 5_000:
            raise ZeroDivisionError(part.start)

    with pytest.raises(ZeroDivisionError):
        _blocks.run_blocks(10_000, 10, work, lambda size: None)


def test_set_threads_is_where_the_setting_lives() -> None:
    saved = (_blocks.THREADS, _blocks.PARALLEL_MIN)
    try:
        K.set_threads(1, parallel_min=10)
        assert (_blocks.THREADS, _blocks.PARALLEL_MIN) == (1, 10)
        assert (K.THREADS, K.PARALLEL_MIN) == (1, 10)  # read through the public face
        assert _blocks.threads_for(10**9) == 1
        K.set_threads(2)
        assert _blocks.threads_for(10) == 2 and _blocks.threads_for(9) == 1
        K.THREADS = 3  # the 0.1 spelling still steers the kernels
        assert _blocks.THREADS == 3
        for bad in (0, -1, 1.5, True, "2"):
            with pytest.raises(ValueError, match="threads"):
                K.set_threads(bad)
        with pytest.raises(ValueError, match="parallel_min"):
            K.set_threads(1, parallel_min=0)
    finally:
        K.set_threads(saved[0], parallel_min=saved[1])

"""The CPU-time bound of the fuzz and edge tests fails a slow call and only that."""

from __future__ import annotations

import threading
import time

import pytest

from tests.cpu_time import within


def _spin(seconds: float) -> str:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
    return "done"


def test_a_call_slow_on_every_try_fails() -> None:
    with pytest.raises(AssertionError, match="in each of 2 tries"):
        within(lambda: _spin(0.05), 0.01)


def test_a_call_slow_once_passes_on_its_second_try() -> None:
    tries = []

    def once_slow() -> int:
        tries.append(1)
        if len(tries) == 1:
            _spin(0.05)
        return len(tries)

    assert within(once_slow, 0.03) == (2, None)


def test_other_threads_cpu_is_not_the_calls() -> None:
    busy = threading.Thread(target=_spin, args=(0.3,))
    busy.start()
    try:
        assert within(lambda: time.sleep(0.2) or "slept", 0.1) == ("slept", None)
    finally:
        busy.join()


def test_caught_errors_are_returned_and_others_raise() -> None:
    result, error = within(lambda: int("x"), 1.0, (ValueError,))
    assert result is None and isinstance(error, ValueError)
    with pytest.raises(KeyError):
        within(lambda: {}["k"], 1.0, (ValueError,))

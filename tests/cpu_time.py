"""A bound on one call's CPU time that a shared, loaded machine does not break.

What counts is the calling thread's CPU time, with the garbage collector paused:
threads that earlier tests left in the process (XLA's compiler, a dask worker, a
thread pool) and a collection of their garbage are not the call's cost. A call over
the bound runs once more and the faster try counts: an input that makes the code
slow is slow every time; a pause of the machine is not.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

TRIES = 2


def _timed(call: Callable[[], Any], catch: tuple[type[BaseException], ...]) -> tuple[float, Any]:
    """(CPU seconds of this thread, (result, None) or (None, the caught error))."""
    enabled = gc.isenabled()
    gc.disable()
    start = time.thread_time()
    try:
        outcome: tuple[Any, BaseException | None] = (call(), None)
    except catch as err:
        outcome = (None, err)
    finally:
        elapsed = time.thread_time() - start
        if enabled:
            gc.enable()
    return elapsed, outcome


def within(
    call: Callable[[], Any], limit: float, catch: tuple[type[BaseException], ...] = ()
) -> tuple[Any, Any]:
    """(result, None), or (None, the error) for an error of ``catch``; fails when every
    try of ``call`` takes ``limit`` CPU seconds or more. Other errors propagate."""
    times = []
    for _ in range(TRIES):
        elapsed, outcome = _timed(call, catch)
        times.append(elapsed)
        if elapsed < limit:
            return outcome
    raise AssertionError(f"{min(times):.2f} CPU s in each of {TRIES} tries (limit {limit} s)")

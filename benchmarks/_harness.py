"""Timing, memory and table helpers for benchmarks/run.py (standard library and numpy only)."""

from __future__ import annotations

import gc
import importlib
import importlib.metadata
import os
import platform
import statistics
import time
import tracemalloc
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


def optional(module: str) -> Any:
    """The module, or None when it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def median_times(
    funcs: dict[str, Callable[[], Any]], repeat: int, budget_s: float = 20.0
) -> dict[str, float]:
    """Median wall time of each function, timed round robin (one call of each in
    turn, after a warm-up call of each) so that a change in the machine's load
    hits all of them alike. A slow function gets fewer calls (at least 3) when
    ``repeat`` of them would overrun ``budget_s``."""
    gc.collect()
    calls = {}
    for name, func in funcs.items():
        start = time.perf_counter()
        func()
        first = time.perf_counter() - start
        calls[name] = max(3, min(repeat, int(budget_s / max(first, 1e-9))))
    times: dict[str, list[float]] = {name: [] for name in funcs}
    for round_ in range(max(calls.values())):
        for name, func in funcs.items():
            if round_ < calls[name]:
                start = time.perf_counter()
                func()
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def median_time(func: Callable[[], Any], repeat: int, budget_s: float = 20.0) -> float:
    """Median wall time of ``func()`` (see :func:`median_times`)."""
    return median_times({"func": func}, repeat, budget_s)["func"]


def scalar_time(func: Callable[[], Any], repeat: int = 7, min_s: float = 0.05) -> float:
    """Median time of one call of a fast function, timed in batches (timeit style)."""
    func()
    batch = 1
    while True:
        start = time.perf_counter()
        for _ in range(batch):
            func()
        if time.perf_counter() - start >= min_s or batch >= 1 << 20:
            break
        batch *= 2
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(batch):
            func()
        samples.append((time.perf_counter() - start) / batch)
    return statistics.median(samples)


def peak_memory(func: Callable[[], Any]) -> tuple[int, Any]:
    """Peak bytes traced by tracemalloc during ``func()`` (numpy reports its buffers),
    and the result (kept alive, so it is part of the peak)."""
    gc.collect()
    tracemalloc.start()
    try:
        result = func()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, result


def new_bytes(result: Any, inputs: Iterable[np.ndarray]) -> int:
    """Bytes of the arrays in ``result`` that are not views of ``inputs``."""
    arrays = []
    if isinstance(result, np.ndarray):
        arrays = [result]
    elif isinstance(result, tuple | list):
        arrays = [a for a in result if isinstance(a, np.ndarray)]
    else:
        arrays = [v for v in vars(result).values() if isinstance(v, np.ndarray)]
    inputs = list(inputs)
    return sum(
        a.nbytes for a in arrays if not any(np.shares_memory(a, i) for i in inputs) and a.size
    )


def fmt_time(seconds: float) -> str:
    if seconds != seconds:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def fmt_rate(per_second: float) -> str:
    if per_second != per_second:
        return "-"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if per_second >= scale:
            return f"{per_second / scale:.3g} {unit}/s"
    return f"{per_second:.3g} /s"


def fmt_bytes(n: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


@dataclass
class Table:
    """A plain-text (and Markdown) table printed row by row."""

    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)

    def add(self, *cells: Any) -> None:
        self.rows.append([str(c) for c in cells])

    def render(self) -> str:
        widths = [len(c) for c in self.columns]
        for row in self.rows:
            widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]

        def line(cells: list[str]) -> str:
            return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

        rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
        body = [line(self.columns), rule, *(line(r) for r in self.rows)]
        return f"\n### {self.title}\n\n" + "\n".join(body) + "\n"


def machine_summary(peers: dict[str, Any]) -> str:
    """CPU, cores, memory, Python, numpy (with its SIMD extensions) and peer versions."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        memory_text = f"{memory / 2**30:.0f} GiB RAM"
    except (ValueError, OSError, AttributeError):
        memory_text = "RAM unknown"
    simd = "unknown"
    try:
        from numpy._core._multiarray_umath import (
            __cpu_baseline__,
            __cpu_dispatch__,
            __cpu_features__,
        )

        found = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
        simd = f"baseline {' '.join(__cpu_baseline__)}; dispatched {' '.join(found)}"
    except ImportError:
        pass
    versions = ", ".join(
        f"{name} {_version(name)}" if mod else f"{name} not installed"
        for name, mod in peers.items()
    )
    return (
        f"machine: {cpu}, {os.cpu_count()} logical CPUs, {memory_text}, "
        f"{platform.system()} {platform.release()}\n"
        f"python {platform.python_version()}, numpy {np.__version__} ({simd})\n"
        f"peers: {versions}"
    )


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "?"

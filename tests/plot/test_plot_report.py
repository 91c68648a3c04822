"""The tensor report's figure."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from fpexplore import tensor_report
from fpexplore.plot.report import plot_report


def test_ranges_over_the_histogram() -> None:
    x = np.random.default_rng(0).standard_normal(2000) * 1e-3
    r = tensor_report(x, ["float8_e4m3fn", "float16", "mxfp4"])
    fig, ax = plt.subplots()
    assert plot_report(r, ax=ax) is ax
    gids = {c.get_gid() for c in ax.collections}
    for name in ("float8_e4m3fn", "float16"):
        assert {f"{name} subnormal", f"{name} normal", f"{name} overflow"} <= gids
    bars = [p for p in ax.patches if p.get_gid() == "log2 histogram"]
    total = sum(b.get_height() * b.get_width() * 4 for b in bars)  # heights per 1/4 octave
    assert abs(total - x.size) < 1e-6 * x.size
    left, right = ax.get_xlim()
    assert left <= np.log2(np.abs(x).min()) and right >= np.log2(65504)
    lines = [line.get_gid() for line in ax.lines]
    assert "float8_e4m3fn per-tensor normal range" in lines
    plt.close(fig)


def test_empty_and_zero_tensor() -> None:
    ax = tensor_report(np.zeros(5), ["float8_e5m2"]).plot()
    assert ax.get_xlim()[0] < ax.get_xlim()[1]
    plt.close(ax.figure)

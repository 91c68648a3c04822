"""tensor_report: counts and errors on crafted tensors, numpy against dask."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fpexplore import get_format, tensor_report
from fpexplore.report.routes.stats import QUANTILE_BOUND

FORMATS = ["float8_e4m3fn", "float8_e5m2", "bfloat16", "mxfp4", "nvfp4", "mxint8"]


def _records(report):
    return {(r["format"], r["scaling"]): r for r in report.to_records()}


def test_counts_of_a_crafted_tensor() -> None:
    e4m3 = get_format("e4m3")
    # 464 is the tie between 448 and 480 (even: 448 stays); 465 overflows
    x = np.array([1.0, 464.0, 465.0, 1e6, 2.0**-10, 2.0**-8, -0.0, 3.0, np.nan, np.inf])
    rows = _records(tensor_report(x, ["float8_e4m3fn"]))
    none = rows["float8_e4m3fn", "none"]
    assert none["overflow"] == 2  # 465 and 1e6: NaN in e4m3fn
    assert none["flushed_to_zero"] == 1  # 2**-10 is below half the smallest subnormal 2**-9
    assert none["subnormal"] == 1  # 2**-8
    assert none["nonzero"] == 7 and none["max_rel_error"] == math.inf
    assert none["snr_db"] == -math.inf
    per = rows["float8_e4m3fn", "per_tensor"]
    assert per["scale"] == float(np.float32(e4m3.max / 1e6)) and per["overflow"] == 0
    assert per["flushed_to_zero"] == 3  # 1.0, 2**-10, 2**-8 vanish next to 1e6


def test_errors_against_numpy_oracle() -> None:
    x = np.random.default_rng(0).standard_normal(4001)
    rec = _records(tensor_report(x, ["bfloat16"]))["bfloat16", "none"]
    q = x.astype(np.float32)  # not bfloat16: compute the oracle from round_to's definition
    from fpexplore import round_to

    q = round_to(x, "bfloat16")
    rel = np.abs(q - x) / np.abs(x)
    for key, q_ in (("median_rel_error", 0.5), ("p99_rel_error", 0.99)):
        exact = float(np.quantile(rel, q_, method="inverted_cdf"))
        assert exact <= rec[key] <= exact * QUANTILE_BOUND
    assert rec["max_rel_error"] == float(rel.max())
    assert rec["snr_db"] == pytest.approx(10 * np.log10(np.sum(x**2) / np.sum((x - q) ** 2)))


def test_dask_agrees_with_numpy() -> None:
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(1)
    x = (rng.standard_t(2, (300, 80)) * 1e-2).astype(np.float32)
    x[0, 0], x[1, 1], x[4, :40] = 3e4, np.nan, 0.0
    exact = tensor_report(x, FORMATS).to_records()
    lazy = tensor_report(da.from_array(x, chunks=(70, 48)), FORMATS).to_records()
    for a, b in zip(exact, lazy, strict=True):
        for key in ("format", "scaling", "overflow", "flushed_to_zero", "subnormal", "nonzero",
                    "max_rel_error", "scale"):  # fmt: skip
            assert a[key] == b[key], (a["format"], a["scaling"], key)
        assert a["snr_db"] == pytest.approx(b["snr_db"], rel=1e-9)
        for key in ("median_rel_error", "p99_rel_error"):
            if a[key] in (0.0, math.inf):
                assert b[key] == a[key]
            else:
                assert a[key] <= b[key] <= a[key] * QUANTILE_BOUND, (a["format"], key)


def test_dask_from_npy(tmp_path) -> None:
    pytest.importorskip("dask.array")
    from fpexplore.lazy import from_npy

    x = np.random.default_rng(2).standard_normal((1000, 64)).astype(np.float32)
    np.save(tmp_path / "t.npy", x)
    lazy = from_npy(str(tmp_path / "t.npy"), chunk_rows=128)
    assert lazy.chunks[0][0] == 128
    a = _records(tensor_report(x, ["mxfp4"]))["mxfp4", "block"]
    b = _records(tensor_report(lazy, ["mxfp4"]))["mxfp4", "block"]
    assert a["overflow"] == b["overflow"] and a["max_rel_error"] == b["max_rel_error"]


def test_unknown_chunks_and_bad_input() -> None:
    da = pytest.importorskip("dask.array")
    x = da.from_array(np.arange(10.0), chunks=5)
    x = x[x > 3]  # chunk sizes unknown until computed
    with pytest.raises(ValueError, match="known chunk sizes"):
        tensor_report(x, ["e4m3"])
    with pytest.raises(ValueError, match="unknown format"):
        tensor_report(np.ones(3), ["float7"])
    with pytest.raises(ValueError, match="at least one format"):
        tensor_report(np.ones(3), [])
    with pytest.raises(TypeError, match="dtype"):
        tensor_report(np.array(["a"]), ["e4m3"])


def test_renderings_and_figure() -> None:
    pytest.importorskip("matplotlib")
    r = tensor_report(np.random.default_rng(3).standard_normal(500), ["e4m3", "nvfp4"])
    text = str(r)
    assert "block (mxfp8_e4m3)" in text and "snr_db" in text
    assert "<table" in r._repr_html_()
    ax = r.plot()
    gids = {c.get_gid() for c in ax.collections}
    assert {"float8_e4m3fn normal", "float8_e4m3fn subnormal", "float8_e4m3fn overflow"} <= gids
    import matplotlib.pyplot as plt

    plt.close(ax.figure)

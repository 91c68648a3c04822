"""Text and HTML of a quantized block and of a tensor report."""

from __future__ import annotations

import numpy as np

from fpexplore import quantize_blocks, tensor_report
from fpexplore.explain.blocks import block_table
from fpexplore.render.report import report_table


def test_one_block_explained() -> None:
    x = np.array([0.3, -1.7, 5.9, 100.0])
    table = block_table(quantize_blocks(x, "mxfp4"), 0)
    assert "amax = 100.0" in table.title
    assert "X = 2**(6 - 2) = 16.0 (E8M0 code 0x83)" in table.title
    records = table.to_records()
    assert [r["code"] for r in records] == ["0x0", "0x8", "0x1", "0x7"]
    assert [r["value"] for r in records] == [0.0, -0.0, 8.0, 96.0]
    assert records[3]["abs error"] == 4.0


def test_nan_block_and_nvfp4_scale_text() -> None:
    x = np.zeros(32)
    x[3] = np.nan
    assert "NaN (E8M0 code 0xff" in block_table(quantize_blocks(x, "mxfp8_e5m2"), 0).title
    q = quantize_blocks(np.linspace(-1, 1, 16), "nvfp4")
    assert "block scale s = " in str(q) and "per-tensor scale" in str(q)
    assert "<table" in q._repr_html_()


def test_report_table() -> None:
    r = tensor_report(np.linspace(-1, 1, 101), ["float8_e5m2", "mxint8"])
    table = report_table(r)
    assert table.columns[:2] == ["format", "scaling"]
    rows = table.to_records()
    assert [row["scaling"] for row in rows] == ["none", "per_tensor", "block (mxfp8_e5m2)",
                                                "block"]  # fmt: skip
    assert "never below the exact value, at most 1 + 2**-6 times it" in str(r)

"""ml_dtypes' integer types (int4, uint4, int2, uint2...) are integers: every entry
point that takes an integer array takes them, exactly (they were refused with
'expected an array of real numbers, got dtype int4')."""

from __future__ import annotations

import numpy as np
import pytest

import fpexplore as fpx

ml_dtypes = pytest.importorskip("ml_dtypes")
TYPES = [name for name in ("int4", "uint4", "int2", "uint2", "int1", "uint1")
         if hasattr(ml_dtypes, name)]  # fmt: skip


@pytest.mark.parametrize("name", TYPES)
def test_ml_integer_arrays_are_integers(name: str) -> None:
    kind = getattr(ml_dtypes, name)
    info = ml_dtypes.iinfo(kind)
    values = np.arange(int(info.min), int(info.max) + 1)
    x = values.astype(kind)
    for fmt in ("float4_e2m1fn", "float8_e4m3fn", "bfloat16"):
        assert np.array_equal(fpx.round_to(x, fmt), fpx.round_to(values, fmt))
    assert fpx.sum(x, "float32").exact == int(values.sum())
    assert np.array_equal(fpx.scale_per_tensor(x, "e4m3").scaled,
                          fpx.scale_per_tensor(values, "e4m3").scaled)  # fmt: skip
    assert np.array_equal(fpx.quantize_blocks(x, "mxfp4").values,
                          fpx.quantize_blocks(values, "mxfp4").values)  # fmt: skip
    got = fpx.tensor_report(x, ["float8_e4m3fn"]).to_records()
    want = fpx.tensor_report(values, ["float8_e4m3fn"]).to_records()
    assert [r["max_rel_error"] for r in got] == [r["max_rel_error"] for r in want]


@pytest.mark.parametrize("name", TYPES)
def test_ml_integer_scalars_are_integers(name: str) -> None:
    kind = getattr(ml_dtypes, name)
    info = ml_dtypes.iinfo(kind)
    v = int(info.max) or int(info.min)  # int1 holds -1 and 0
    assert fpx.decode(kind(v), "float8_e4m3fn").value == v
    assert fpx.add(kind(v), 2, "float16").value == v + 2
    if v > 0:
        assert fpx.compute_scale(kind(v), "e4m3") == fpx.compute_scale(v, "e4m3")

"""dask arrays in round_to, representation_error and decode_array."""

from __future__ import annotations

import numpy as np
import pytest

from fpexplore import decode_array, representation_error, round_to

da = pytest.importorskip("dask.array")


def _x():
    x = np.random.default_rng(5).standard_normal((60, 7)).astype(np.float32)
    return x, da.from_array(x, chunks=(16, 4))


def test_round_to_declares_its_dtype() -> None:
    x, lazy = _x()
    for dtype, expected in ((None, np.float64), ("narrow", np.float32), (np.float64, np.float64)):
        out = round_to(lazy, "bfloat16", dtype=dtype)
        assert out.dtype == expected
        computed = out.compute()
        assert computed.dtype == expected  # the chunks carry the declared dtype
        assert np.array_equal(computed, round_to(x, "bfloat16", dtype=dtype))
    assert round_to(lazy, "e4m3", dtype="narrow").compute().dtype == np.float16


def test_representation_error_and_decode_array() -> None:
    x, lazy = _x()
    eager, err = representation_error(x, "e5m2"), representation_error(lazy, "e5m2")
    for name in ("rounded", "abs_error", "rel_error", "ulp_error"):
        assert getattr(err, name).dtype == np.float64
        assert np.array_equal(getattr(err, name).compute(), getattr(eager, name))
    parts, lazy_parts = decode_array(x, "bfloat16"), decode_array(lazy, "bfloat16")
    for name in ("code", "sign", "exponent", "mantissa", "kind", "value"):
        got = getattr(lazy_parts, name)
        assert got.dtype == getattr(parts, name).dtype, name
        assert np.array_equal(got.compute(), np.asarray(getattr(parts, name))), name


def test_import_does_not_load_dask() -> None:
    import subprocess
    import sys

    code = "import sys, fpexplore; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

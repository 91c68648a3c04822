"""Per-tensor scaling: the scale from amax, the current and delayed recipes."""

from __future__ import annotations

import numpy as np
import pytest

from fpexplore import DelayedScaling, compute_scale, round_to, scale_per_tensor


def test_scale_rule() -> None:
    assert compute_scale(448.0, "e4m3") == 1.0
    assert compute_scale(3.0, "e4m3") == float(np.float32(448 / 3))
    assert compute_scale(3.0, "e4m3", margin=1) == float(np.float32(224 / 3))
    assert compute_scale(3.0, "e4m3", power_of_two=True) == 128.0
    assert compute_scale(0.0, "e4m3") == 1.0
    assert compute_scale(1e-300, "e4m3") == 2.0**127


def test_current_scaling_single_rounding_of_float32() -> None:
    x = (np.random.default_rng(3).standard_normal(1000) * 1e-3).astype(np.float32)
    t = scale_per_tensor(x, "float8_e5m2")
    s = t.scale
    assert t.amax == float(np.abs(x).max())
    # x * s is exact in float64 (24 + 24 bits), so scaled is round(x * s) once
    assert np.array_equal(t.scaled, round_to(x.astype(np.float64) * s, "e5m2"))
    assert np.array_equal(t.values, t.scaled / s)
    assert np.abs(t.scaled).max() <= 57344.0


def test_one_outlier_ruins_per_tensor_scaling() -> None:
    x = np.full(100, 1e-3)
    plain = scale_per_tensor(x, "e4m3")
    x[0] = 1e4
    outlier = scale_per_tensor(x, "e4m3")
    assert (plain.values[1:] != 0).all() and (outlier.values[1:] == 0).all()


def test_delayed_recipe_saturates_growth() -> None:
    t = scale_per_tensor([1.0, 50.0], "e4m3", recipe="delayed", amax_history=[10.0, 20.0])
    assert t.amax == 20.0 and t.scaled[1] == 448.0
    d = DelayedScaling("e4m3", history_len=3)
    amaxes = [d(np.array([a])).amax for a in (2.0, 8.0, 1.0, 0.5, 0.25, 0.125)]
    assert amaxes == [2.0, 2.0, 8.0, 8.0, 8.0, 1.0]


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="unknown recipe 'later'"):
        scale_per_tensor([1.0], "e4m3", recipe="later")
    with pytest.raises(ValueError, match="non-empty amax_history"):
        scale_per_tensor([1.0], "e4m3", recipe="delayed")
    with pytest.raises(ValueError, match="amax must be finite"):
        compute_scale(float("inf"), "e4m3")
    with pytest.raises(ValueError, match="history_len"):
        DelayedScaling("e4m3", history_len=0)
    with pytest.raises(ValueError, match="unknown format"):
        scale_per_tensor([1.0], "float7")

"""The underflow flag of compare() against the hardware: numpy's casts under
np.errstate(under="raise")."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.render.comparison import compare


def _tiny_inputs(fmt: str) -> np.ndarray:
    f = fpx.get_format(fmt)
    rng = np.random.default_rng(13)
    sn, m = f.smallest_normal, f.mantissa_bits
    edges = [sn * (1 - 2.0**-k) for k in range(1, m + 4)]
    edges += [
        sn - f.smallest_subnormal / 2,
        sn - f.smallest_subnormal / 4,
        f.smallest_subnormal / 2,
    ]
    edges += [f.smallest_subnormal * 1.5, sn, sn * (1 + 2.0**-m)]
    return np.concatenate([sn * rng.uniform(0, 1.05, 600), edges, -np.array(edges)])


def _hardware(x: float, dtype: type) -> bool:
    with np.errstate(under="raise"):
        try:
            np.array([x]).astype(dtype)
        except FloatingPointError:
            return True
    return False


def _flag(x: float, fmt: str) -> bool:
    return compare(x, [fmt]).to_records()[0]["flag"] == "underflow"


def test_float32_flag_is_the_hardware_one() -> None:
    mismatches = [
        x for x in _tiny_inputs("float32") if _hardware(x, np.float32) != _flag(x, "float32")
    ]
    assert mismatches == []


def test_the_issue_case() -> None:
    x = Fraction(2) ** -126 - Fraction(2) ** -150  # stored as 2**-126, tiny after rounding
    assert fpx.decode(x, "float32").value == 2.0**-126
    assert compare(x, ["float32"]).to_records()[0]["flag"] == "underflow"
    assert _hardware(float(x), np.float32)


def test_float16_flag_differs_from_numpy_only_by_the_tininess_rule() -> None:
    """numpy's float16 cast is software and detects tininess before rounding; ours is
    after rounding (as x86 and the float32 cast). Where the two rules agree, so do we."""
    f = fpx.get_format("float16")
    for x in _tiny_inputs("float16"):
        inexact = fpx.decode(float(x), "float16").abs_error != 0
        before = inexact and abs(x) < f.smallest_normal
        assert _hardware(x, np.float16) == before
        if abs(fpx.decode(float(x), "float16").value) < f.smallest_normal or not before:
            assert _flag(x, "float16") == before


@pytest.mark.parametrize("rounding", ["up", "down", "toward_zero", "nearest_away"])
def test_flag_follows_the_mode(rounding: str) -> None:
    just_below = 2.0**-126 * (1 - 2.0**-30)
    record = compare(just_below, ["float32"], rounding=rounding).to_records()[0]
    tiny = rounding in ("down", "toward_zero")  # the others round it up to 2**-126
    assert (record["flag"] == "underflow") == tiny

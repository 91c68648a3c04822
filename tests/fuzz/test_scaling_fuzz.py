"""Scaled formats over arbitrary inputs: block quantization and its inverse,
per-tensor scaling, compute_scale and the delayed recipe answer exactly (against
the Fraction oracles of tests/scaling_oracle.py) or refuse clearly, in time."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import fpexplore as fpx
from tests.fuzz.strategies import (
    BLOCK_NAMES,
    FORMAT_NAMES,
    FUZZ,
    MODES,
    amaxes,
    arrays,
    code_arrays,
)
from tests.fuzz.test_api_fuzz import _within
from tests.scaling_oracle import expected_blocks, expected_scaled


def _finite(x: np.ndarray) -> bool:
    return x.dtype.kind in "iu" or bool(np.isfinite(x.astype(np.float64)).all())


@settings(FUZZ, max_examples=200)
@given(
    arrays(), st.sampled_from(BLOCK_NAMES), st.sampled_from([*MODES, "stochastic"]),
    st.integers(0, 2), st.sampled_from([None, 0, -1, 1]),
)  # fmt: skip
def test_quantize_blocks_is_exact_or_refuses(
    arr: np.ndarray, name: str, mode: str, split: int, axis: int | None
) -> None:
    x = arr.reshape(2, -1) if split and arr.size % 2 == 0 and arr.size else arr
    kwargs = {} if axis is None else {"axis": axis}
    q, error = _within(lambda: fpx.quantize_blocks(x, name, rounding=mode, rng=1, **kwargs))
    if error is not None:
        return
    assert q.values.shape == x.shape and q.codes.shape == x.shape
    again, _ = _within(q.dequantize)
    assert np.array_equal(again, q.values, equal_nan=True)
    if x.ndim == 1 and x.size and mode != "stochastic" and _finite(x):
        want = expected_blocks(x, name, mode)
        assert [Fraction(v) for v in q.values.tolist()] == want, (x, name, mode)


@settings(FUZZ, max_examples=200)
@given(code_arrays(), code_arrays(), st.sampled_from(BLOCK_NAMES),
       st.sampled_from([None, 1.0, 2.0**-20, "1", -1.0]))  # fmt: skip
def test_dequantize_blocks_answers_or_refuses(
    scales: Any, codes: Any, name: str, tensor_scale: Any
) -> None:
    values, error = _within(
        lambda: fpx.dequantize_blocks(scales, codes, name, tensor_scale=tensor_scale)
    )
    if error is not None:
        named = ("codes", "scales", "tensor_scale", "nvfp4", "axis")
        assert any(word in str(error) for word in named), str(error)
        return
    assert values.shape == np.shape(codes) and values.dtype == np.float64


@settings(FUZZ, max_examples=200)
@given(
    arrays(), st.sampled_from(FORMAT_NAMES[:10]), st.sampled_from(MODES),
    st.sampled_from([None, "saturate"]), st.integers(-200, 200), st.booleans(),
    st.one_of(st.none(), st.lists(amaxes(), min_size=0, max_size=3)),
)  # fmt: skip
def test_per_tensor_scaling_is_exact_or_refuses(
    arr: np.ndarray, fmt: str, mode: str, overflow: str | None, margin: int,
    power_of_two: bool, history: list[Any] | None,
) -> None:  # fmt: skip
    recipe = "current" if history is None else "delayed"
    t, error = _within(
        lambda: fpx.scale_per_tensor(
            arr,
            fmt,
            recipe=recipe,
            amax_history=history,
            margin=margin,
            power_of_two=power_of_two,
            rounding=mode,
            overflow=overflow,
        )
    )
    if error is not None:
        return
    assert np.float32(t.scale) == t.scale and 2.0**-127 <= t.scale <= 2.0**127
    f = fpx.get_format(fmt)
    items = arr.tolist() if arr.dtype.kind in "iu" else arr.astype(np.float64).tolist()
    for given_value, got in zip(np.ravel(items).tolist(), np.ravel(t.scaled).tolist(), strict=True):
        if isinstance(given_value, float) and not np.isfinite(given_value):
            continue
        negative = bool(np.signbit(given_value))
        want = expected_scaled(Fraction(given_value), t.scale, f, mode, overflow, negative)
        if want.kind == "nan":
            assert np.isnan(got)
        elif want.kind == "inf":
            assert got == (-np.inf if want.neg else np.inf)
        else:
            assert Fraction(got) == want.value, (given_value, t.scale, fmt, mode, overflow)
            assert want.value != 0 or bool(np.signbit(got)) == want.neg, (given_value, got)


@settings(FUZZ, max_examples=300)
@given(amaxes(), st.sampled_from(FORMAT_NAMES), st.one_of(st.integers(-3000, 3000),
       st.sampled_from([10**9, -(10**9), 1.5, True])), st.booleans())  # fmt: skip
def test_compute_scale_is_a_float32_value_or_refuses(
    amax: Any, fmt: str, margin: Any, power_of_two: bool
) -> None:
    s, error = _within(
        lambda: fpx.compute_scale(amax, fmt, margin=margin, power_of_two=power_of_two)
    )
    if error is not None:
        assert any(word in str(error) for word in ("amax", "margin")), str(error)
        return
    assert isinstance(s, float) and np.float32(s) == s and 2.0**-127 <= s <= 2.0**127


@settings(FUZZ, max_examples=60)
@given(st.lists(arrays(), min_size=1, max_size=5), st.sampled_from(FORMAT_NAMES[:10]),
       st.integers(1, 3))  # fmt: skip
def test_delayed_scaling_keeps_a_float32_scale(tensors: list[np.ndarray], fmt: str, n: int) -> None:
    d = fpx.DelayedScaling(fmt, history_len=n)
    for x in tensors:
        t, error = _within(lambda x=x: d(x))
        if error is None:
            assert np.float32(t.scale) == t.scale and t.scale > 0
            assert all(np.isfinite(a) for a in d.history)

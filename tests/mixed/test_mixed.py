"""Each float16 failure of fpexplore.mixed reproduced, and each fix shown to work."""

import doctest
import inspect
import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fpexplore.mixed import loss_scaling
from fpexplore.mixed import simulations as mixed

EPS16 = float(np.finfo(np.float16).eps)  # 2**-10
SMALLEST_SUBNORMAL16 = 2.0**-24  # about 5.96e-8


# --- softmax and crossentropy (claims 15 and 16) ---------------------------------------


def test_exp_12_overflows_float16():
    assert math.exp(12) == pytest.approx(162754.79, abs=0.01)
    assert math.exp(12) > float(np.finfo(np.float16).max) == 65504.0
    demo = mixed.softmax_overflow_demo((12.0, 1.0, 0.0), label=0)
    assert np.isinf(demo.exp_naive[0])
    assert np.all(np.isfinite(demo.exp_naive[1:]))


def test_naive_float16_softmax_is_nan_and_stable_one_sums_to_one():
    naive = mixed.softmax([12.0, 1.0, 0.0], "float16", stable=False)
    assert np.isnan(naive[0])  # inf / inf
    assert naive[1] == naive[2] == 0.0  # finite / inf
    stable = mixed.softmax([12.0, 1.0, 0.0], "float16", stable=True)
    assert np.all(np.isfinite(stable))
    assert abs(stable.sum() - 1.0) <= EPS16
    assert stable == pytest.approx(mixed.softmax([12.0, 1.0, 0.0], "float64"), abs=EPS16)
    assert np.all(stable == stable.astype(np.float16))  # values are float16 values


def test_float32_softmax_as_keras_keeps_it_matches_exact():
    demo = mixed.softmax_overflow_demo()
    assert np.isnan(demo.loss_naive)
    assert demo.probs_float32 == pytest.approx(demo.probs_exact, rel=1e-6)
    # log(1 + 2.3e-5) in float32: absolute error about float32's spacing at 1
    assert demo.loss_float32 == pytest.approx(demo.loss_exact, abs=2.0**-23)
    assert demo.loss_exact == pytest.approx(math.log1p(math.exp(-11) + math.exp(-12)))


def test_naive_crossentropy_of_underflowed_probability_is_inf_stable_is_finite():
    logits = [10.0, -10.0, 0.0]  # p[1] = 2.1e-9, below float16's smallest subnormal
    assert mixed.softmax(logits, "float16", stable=False)[1] == 0.0
    assert mixed.crossentropy(logits, 1, "float16", stable=False) == math.inf
    assert mixed.crossentropy(logits, 1, "float16") == 20.0
    assert mixed.crossentropy(logits, 1, "float64") == pytest.approx(20.0000454, rel=1e-7)


def test_stable_crossentropy_survives_huge_logits():
    assert mixed.crossentropy([1000.0, 0.0], 1, "float16") == 1000.0
    assert mixed.crossentropy([1000.0, 0.0], 0, "float16") == 0.0
    assert np.isnan(mixed.crossentropy([1000.0, 0.0], 0, "float16", stable=False))  # inf/inf
    assert mixed.crossentropy([1000.0, 0.0], 1, "float16", stable=False) == math.inf  # -log 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1000, 1000, allow_nan=False), min_size=2, max_size=10))
def test_stable_float16_softmax_is_always_a_distribution(logits):
    probs = mixed.softmax(logits, "float16")
    assert np.all(np.isfinite(probs)) and np.all(probs >= 0)
    assert abs(probs.sum() - 1.0) <= len(logits) * EPS16


def test_softmax_in_bfloat16_overflows_later():
    # bfloat16 has float32's range: exp(12) fits, exp(89) does not.
    assert np.all(np.isfinite(mixed.softmax([12.0, 1.0, 0.0], "bfloat16", stable=False)))
    assert np.isnan(mixed.softmax([89.0, 0.0], "bfloat16", stable=False)[0])


# --- gradient underflow and loss scaling -------------------------------------------------


def test_1e_minus_8_underflows_in_float16_and_survives_loss_scaling():
    assert 1e-8 < SMALLEST_SUBNORMAL16 / 2
    assert np.float16(1e-8) == 0
    assert mixed.loss_scale_roundtrip([1e-8], scale=1.0)[0] == 0.0
    recovered = mixed.loss_scale_roundtrip([1e-8], scale=2.0**15)
    assert recovered.dtype == np.float32
    assert recovered[0] == pytest.approx(1e-8, rel=EPS16)


def test_underflow_threshold_is_half_the_smallest_subnormal():
    half = SMALLEST_SUBNORMAL16 / 2
    values = np.array([half, np.nextafter(half, 1.0), SMALLEST_SUBNORMAL16])
    # a tie rounds to the even neighbour, 0; anything above it rounds up
    assert mixed.round_values(values, "float16").tolist() == [0.0] + [SMALLEST_SUBNORMAL16] * 2


def test_fraction_of_gradients_lost_with_and_without_scaling():
    g = mixed.sample_gradients(100_000, seed=0)
    plain = mixed.gradient_underflow(g, scale=1.0)
    scaled = mixed.gradient_underflow(g, scale=2.0**15)
    direct = np.mean(g.astype(np.float16) == 0)
    assert plain.fraction_zero == direct
    assert 0.10 < plain.fraction_zero < 0.20
    assert scaled.fraction_zero < 1e-4
    assert scaled.fraction_overflow < 1e-4
    assert scaled.median_rel_error < EPS16 / 2  # normal float16 values
    assert plain.fraction_subnormal > 0.5 > scaled.fraction_subnormal
    too_large = mixed.gradient_underflow(g, scale=2.0**40)
    assert too_large.fraction_overflow > 0.5


def test_bfloat16_needs_no_loss_scaling():
    g = mixed.sample_gradients(10_000, seed=0)
    assert mixed.gradient_underflow(g, fmt="bfloat16").fraction_zero == 0.0


def test_loss_scale_sweep_has_a_window_where_nothing_is_lost():
    sweep = mixed.loss_scale_sweep(mixed.sample_gradients(10_000))
    lost = sweep.fraction_zero + sweep.fraction_overflow
    assert lost[0] > 0.1 and lost[-1] > 0.5
    assert 2.0**15 in sweep.scale[lost < 1e-3]


# --- dynamic loss scaling ----------------------------------------------------------------


def test_dynamic_loss_scaling_defaults_are_keras_defaults():
    params = inspect.signature(mixed.dynamic_loss_scaling).parameters
    assert params["initial_scale"].default == 2.0**15
    assert params["growth_steps"].default == 2000


def test_scale_halves_on_inf_and_that_step_is_skipped():
    log = mixed.dynamic_loss_scaling([1.0, 1.0, 4.0, 1.0], growth_steps=100)
    assert np.isinf(log.max_scaled_gradient[2])  # 4 * 2**15 = 131072 > 65504
    assert log.applied.tolist() == [True, True, False, True]
    assert log.scale.tolist() == [2.0**15, 2.0**15, 2.0**15, 2.0**14]
    assert log.good_steps.tolist() == [1, 2, 0, 1]
    assert "skip" in log.explain()[2]


def test_nan_gradient_is_skipped_whatever_the_scale():
    log = mixed.dynamic_loss_scaling([np.nan, 1e-3], initial_scale=1.0, growth_steps=5)
    assert log.applied.tolist() == [False, True]
    assert log.next_scale.tolist() == [0.5, 0.5]


def test_scale_doubles_after_n_consecutive_good_steps():
    n = 3
    log = mixed.dynamic_loss_scaling([0.25] * 7, growth_steps=n)
    assert log.applied.all()
    assert log.scale.tolist() == [2.0**15] * 3 + [2.0**16] * 3 + [2.0**17]
    assert "double" in log.explain()[n - 1]


def test_too_large_initial_scale_is_lowered_quickly():
    log = mixed.dynamic_loss_scaling([1.0] * 12, initial_scale=2.0**24, growth_steps=1000)
    first_good = int(np.argmax(log.applied))
    assert log.scale[first_good] == 2.0**15  # 2**15 * 1.0 = 32768 <= 65504 < 2**16
    assert first_good == 9 and not log.applied[:first_good].any()


def test_growth_steps_must_be_positive():
    with pytest.raises(ValueError, match="growth_steps"):
        mixed.dynamic_loss_scaling([1.0], growth_steps=0)


# --- accumulation --------------------------------------------------------------------------


@pytest.mark.parametrize(("fmt", "stall"), [("float16", 2048.0), ("bfloat16", 256.0)])
def test_running_sum_of_ones_stalls_exactly(fmt, stall):
    assert mixed.stall_point(1.0, fmt) == stall
    sums = mixed.running_sum(np.ones(int(stall) + 10), fmt)
    assert sums[int(stall) - 1] == stall
    assert np.all(sums[int(stall) - 1 :] == stall)


@pytest.mark.parametrize(("fmt", "stall_of_one"), [("float16", 2048.0), ("bfloat16", 256.0)])
def test_adding_0_01_stalls_earlier(fmt, stall_of_one):
    stall = mixed.stall_point(0.01, fmt)
    assert stall < stall_of_one
    # at the stall, the increment is at most half the spacing of the format there
    assert mixed.round_values([stall + 0.01], fmt)[0] == stall


def test_bfloat16_running_sum_matches_ml_dtypes():
    terms = np.random.default_rng(3).random(500)
    expected, total = [], ml_dtypes.bfloat16(0)
    for t in terms.astype(ml_dtypes.bfloat16):
        total = ml_dtypes.bfloat16(np.float32(total) + np.float32(t))
        expected.append(float(total))
    assert mixed.running_sum(terms, "bfloat16").tolist() == expected


def test_float32_accumulator_does_not_stall_in_the_demo():
    demo = mixed.accumulation_demo(1.0, 3000)
    assert demo.stall == {
        "float16": 2048.0,
        "bfloat16": 256.0,
        "float32": pytest.approx(math.nan, nan_ok=True),
    }
    assert np.array_equal(demo.sums["float32"], demo.exact)
    assert demo.sums["float16"][-1] == 2048.0


def test_float32_accumulation_of_float16_products_is_far_more_accurate():
    acc = mixed.dot_product_accumulation(4096, seed=0)
    assert acc.rel_error["float32"].max() < 1e-5
    assert acc.rel_error["float16"][-1] > 1e-2
    assert acc.rel_error["float16"][-1] > 1000 * acc.rel_error["float32"][-1]


# --- matrix products -------------------------------------------------------------------------


def test_float16_accumulating_matmul_rounds_every_partial_sum():
    rng = np.random.default_rng(1)
    a, b = rng.random((2, 5)), rng.random((5, 3))
    a16, b16 = a.astype(np.float16), b.astype(np.float16)
    expected = np.zeros((2, 3), dtype=np.float16)
    for i in range(2):
        for j in range(3):
            for k in range(5):
                expected[i, j] = np.float16(expected[i, j] + np.float16(a16[i, k] * b16[k, j]))
    assert np.array_equal(mixed.matmul_float16(a, b, "float16"), expected.astype(np.float64))
    with pytest.raises(ValueError, match="accumulate"):
        mixed.matmul_float16(a, b, "bfloat16")


def test_float32_accumulated_matmul_error_is_much_smaller():
    err = mixed.matmul_error((64, 1024), size=32, seed=0)
    assert np.all(err.max_rel_error["float32"] < 1e-5)
    assert np.all(err.max_rel_error["float16"] > 1e-3)
    assert np.all(err.mean_rel_error["float16"] > 1000 * err.mean_rel_error["float32"])
    assert err.max_rel_error["float16"][1] > err.max_rel_error["float16"][0]  # grows with k


# --- docstring examples ------------------------------------------------------------------------


@pytest.mark.parametrize("module", [mixed, loss_scaling])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


def test_loss_scale_window_is_where_nothing_overflows_and_little_underflows():
    sweep = mixed.loss_scale_sweep(mixed.sample_gradients(10_000, seed=0))
    lo, hi = sweep.window(1e-3)
    inside = (sweep.scale >= lo) & (sweep.scale <= hi)
    assert np.all(sweep.fraction_overflow[inside] == 0)
    assert np.all(sweep.fraction_zero[inside] <= 1e-3)
    outside_ok = (sweep.fraction_overflow == 0) & (sweep.fraction_zero <= 1e-3) & ~inside
    assert not outside_ok.any()
    assert sweep.window(0) is None or sweep.window(0)[0] >= lo  # stricter: no wider
    narrow = mixed.loss_scale_sweep(mixed.sample_gradients(1000), scales=[1.0, 2.0**40])
    assert narrow.window() is None
    with pytest.raises(ValueError, match="tolerance must be a fraction"):
        sweep.window(1.5)

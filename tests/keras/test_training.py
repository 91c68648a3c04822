"""Training under each policy: every preset trains, weights land on their grid,
master weights stay float32, delayed scaling keeps its history, runs repeat."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.keras import PRESETS, FormatPolicy, emulate

# Every place rounds stochastically: the cheapest policy to compile that uses every key.
STOCHASTIC = FormatPolicy(
    "bfloat16", "bfloat16", "bfloat16", rounding="stochastic", weight_rounding="stochastic"
)


def _np(variable):
    """A variable's value as a numpy array (a copy)."""
    return np.array(variable.value)


def _fit(keras, model, data, epochs=1, lr=0.1):
    model.compile(optimizer=keras.optimizers.SGD(lr), loss="sparse_categorical_crossentropy")
    return model.fit(*data, epochs=epochs, batch_size=32, verbose=0, shuffle=False)


def _on_grid(values, fmt):
    values = np.asarray(values, dtype=np.float32)
    return np.array_equal(values, fpx.round_to(values, fmt).astype(np.float32))


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_trains_a_step(keras, mlp, data, name):
    model = emulate(mlp(), name)
    history = _fit(keras, model, data)
    assert np.isfinite(history.history["loss"]).all()
    assert model.fpexplore_policy is PRESETS[name]
    assert model.fpexplore_report.name == name
    assert model.predict(data[0], verbose=0).shape == (64, 3)


@pytest.mark.parametrize("name", ["bfloat16_weights", "bfloat16_weights_stochastic"])
def test_weights_are_on_the_bfloat16_grid_after_fit(keras, mlp, data, name):
    model = emulate(mlp(), name)
    before = [_np(v) for v in model.trainable_variables]
    _fit(keras, model, data, epochs=2)
    assert len(model.trainable_variables) == 4
    for variable, old in zip(model.trainable_variables, before, strict=True):
        value = _np(variable)
        assert value.dtype == np.float32
        assert _on_grid(value, "bfloat16"), variable.path
        assert not np.array_equal(value, old), f"{variable.path} never moved"


def test_stochastic_weight_rounding_keeps_updates_nearest_loses(keras, mlp, data):
    """Kernel entries of magnitude in [0.5, 1), where bfloat16's spacing is 2**-8, and
    updates below half of it: to nearest nothing moves; stochastic rounding moves some
    entries, each by one spacing."""
    rng = np.random.default_rng(1)
    start = fpx.round_to(rng.uniform(0.5, 1.0, (8, 16)) * rng.choice([-1, 1], (8, 16)), "bf16")
    moved = {}
    for name in ("bfloat16_weights", "bfloat16_weights_stochastic"):
        model = emulate(mlp(), name)
        kernel = model.get_layer("hidden").kernel
        kernel.assign(start.astype(np.float32))
        _fit(keras, model, data, epochs=3, lr=1e-3)
        step = _np(kernel) - start
        moved[name] = int(np.count_nonzero(step))
        assert set(np.abs(step[step != 0])) <= {2.0**-8}
    assert moved["bfloat16_weights"] == 0
    assert moved["bfloat16_weights_stochastic"] > 0


def test_master_weights_stay_float32_and_the_stored_copy_is_their_rounding(keras, mlp, data):
    model = emulate(mlp(), "bfloat16")
    _fit(keras, model, data, epochs=2, lr=0.01)
    optimizer = model.optimizer
    masters = optimizer.master_weights
    assert len(masters) == len(model.trainable_variables) == 4
    off_grid = 0
    for master, stored in zip(masters, model.trainable_variables, strict=True):
        m = _np(master)
        assert m.dtype == np.float32
        off_grid += int(np.count_nonzero(m != fpx.round_to(m, "bfloat16")))
        expected = fpx.round_to(m, "bfloat16").astype(np.float32)
        np.testing.assert_array_equal(_np(stored), expected)
    assert off_grid > 0  # the masters hold what bfloat16 cannot


def test_delayed_scaling_updates_its_amax_histories(keras, mlp, data):
    model = emulate(mlp(), "fp8")
    state = model.get_layer("hidden")._fpexplore_state
    history_len = PRESETS["fp8"].amax_history_len
    assert np.all(_np(state.inputs_amax_history) == 0)
    x, y = data
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy")
    model.fit(x, y, epochs=1, batch_size=32, verbose=0, shuffle=False)  # two steps
    inputs = _np(state.inputs_amax_history)  # newest first
    assert inputs.shape == (history_len,)
    np.testing.assert_array_equal(inputs[:2], [np.abs(x[32:]).max(), np.abs(x[:32]).max()])
    assert np.all(inputs[2:] == 0)
    kernel = _np(state.kernel_amax_history)
    assert kernel[0] > 0 and kernel[1] > 0 and np.all(kernel[2:] == 0)
    grads = _np(state.grad_amax_history)
    assert grads[0] > 0 and grads[1] > 0 and np.all(grads[2:] == 0)
    model.predict(x, verbose=0)  # inference does not record
    np.testing.assert_array_equal(_np(state.inputs_amax_history), inputs)


def test_the_same_seed_trains_the_same_weights(keras, mlp, data):
    runs = []
    for seed in (0, 0, 1):  # the policy's seed, not Keras' global one, draws the rounding
        keras.utils.set_random_seed(0)
        model = emulate(mlp(), dataclasses.replace(STOCHASTIC, seed=seed))
        _fit(keras, model, data, epochs=2)
        runs.append([_np(v) for v in model.trainable_variables])
    for a, b in zip(*runs[:2], strict=True):
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(*runs[1:], strict=True))


def test_dynamic_loss_scaling_wraps_a_loss_scale_optimizer(keras, mlp, data):
    model = emulate(mlp(), "mixed_float16")
    _fit(keras, model, data)
    inner = model.optimizer.inner_optimizer
    assert isinstance(inner, keras.optimizers.LossScaleOptimizer)
    assert float(_np(inner.dynamic_scale)) == 2.0**15
    fixed = emulate(mlp(), FormatPolicy("float16", "float16", loss_scale=1024.0))
    _fit(keras, fixed, data)
    assert fixed.optimizer.inner_optimizer.loss_scale_factor == 1024.0

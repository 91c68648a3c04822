"""What notebook 06 relies on in Keras's mixed-precision API (claims 13 to 16)."""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")


@pytest.fixture
def policy():
    """Set a global dtype policy for one test and restore float32 afterwards."""

    def set_policy(name):
        keras.mixed_precision.set_global_policy(name)

    try:
        yield set_policy
    finally:
        keras.mixed_precision.set_global_policy("float32")


def _model():
    return keras.Sequential(
        [
            keras.Input(shape=(8,)),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dense(3, activation="softmax", dtype="float32"),
        ]
    )


def test_keras_runs_on_the_jax_backend():
    assert keras.backend.backend() == "jax"


def test_mixed_float16_layers_compute_in_float16_and_keep_float32_weights(policy):
    policy("mixed_float16")
    assert keras.mixed_precision.global_policy().name == "mixed_float16"
    model = _model()
    *hidden, last = model.layers
    for layer in hidden:
        assert (layer.compute_dtype, layer.variable_dtype) == ("float16", "float32")
        assert all(w.dtype == "float32" for w in layer.weights)
    assert (last.compute_dtype, last.variable_dtype) == ("float32", "float32")
    outputs = model(np.ones((4, 8), dtype="float32"))
    assert keras.backend.standardize_dtype(outputs.dtype) == "float32"
    assert np.allclose(np.asarray(outputs).sum(axis=1), 1.0, atol=1e-6)


def test_compile_wraps_the_optimizer_in_a_loss_scale_optimizer(policy):
    policy("mixed_float16")
    model = _model()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    optimizer = model.optimizer
    assert isinstance(optimizer, keras.optimizers.LossScaleOptimizer)
    assert isinstance(optimizer.inner_optimizer, keras.optimizers.Adam)
    assert optimizer.initial_scale == 2.0**15
    assert optimizer.dynamic_growth_steps == 2000
    x = np.random.default_rng(0).random((32, 8)).astype("float32")
    model.fit(x, np.zeros(32, dtype="int32"), epochs=1, batch_size=16, verbose=0)
    assert float(optimizer.dynamic_scale.value) == 2.0**15  # 2 good steps: no change


def test_mixed_bfloat16_computes_in_bfloat16_without_loss_scaling(policy):
    policy("mixed_bfloat16")
    model = _model()
    assert model.layers[0].compute_dtype == "bfloat16"
    assert model.layers[0].variable_dtype == "float32"
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    assert not isinstance(model.optimizer, keras.optimizers.LossScaleOptimizer)


def test_default_policy_is_float32_in_both_dtypes():
    assert keras.mixed_precision.global_policy().name == "float32"
    for layer in _model().layers:
        assert (layer.compute_dtype, layer.variable_dtype) == ("float32", "float32")


def test_a_softmax_layer_without_dtype_follows_mixed_float16(policy):
    policy("mixed_float16")
    head = keras.layers.Dense(3, activation="softmax")
    out = head(np.ones((2, 8), dtype="float32"))
    assert head.compute_dtype == "float16"
    assert keras.backend.standardize_dtype(out.dtype) == "float16"


def test_auto_scale_loss_false_keeps_a_plain_optimizer(policy):
    policy("mixed_float16")
    model = _model()
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", auto_scale_loss=False)
    assert type(model.optimizer) is keras.optimizers.SGD


def test_loss_scale_factor_below_one_zeroes_float16_updates_only(policy):
    """Notebook 06, section 6: a loss shrunk by 2**-24 trains in float32, stalls in float16."""
    x = np.random.default_rng(0).random((64, 8)).astype("float32")
    y = np.zeros(64, dtype="int32")
    moved = {}
    for name in ("float32", "mixed_float16"):
        policy(name)
        keras.utils.set_random_seed(0)
        model = _model()
        before = np.array(model.layers[0].kernel.value)
        model.compile(
            optimizer=keras.optimizers.SGD(0.1, loss_scale_factor=2.0**-24),
            loss="sparse_categorical_crossentropy",
            auto_scale_loss=False,
        )
        model.fit(x, y, epochs=1, batch_size=64, verbose=0)
        moved[name] = float(np.mean(np.array(model.layers[0].kernel.value) != before))
    assert moved["float32"] > 0.5 and moved["mixed_float16"] < moved["float32"] / 2

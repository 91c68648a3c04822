"""Edges of emulate: optimizers that write the weights at the end of fit, models built
after emulate, nested models, the arguments a user may pass, a backend Keras cannot load."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.keras import FormatPolicy, emulate


def _np(variable):
    return np.array(variable.value)


def _on_grid(values, fmt="bfloat16"):
    values = np.asarray(values, dtype=np.float32)
    return np.array_equal(values, fpx.round_to(values, fmt).astype(np.float32))


@pytest.mark.parametrize("name", ["bfloat16_weights", "bfloat16"])
def test_ema_weights_are_stored_in_the_format_after_fit(keras, mlp, data, name):
    """use_ema: fit ends by writing the moving averages into the weights (or masters)."""
    model = emulate(mlp(), name)
    optimizer = keras.optimizers.Adam(1e-2, use_ema=True, ema_momentum=0.9)
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy")
    model.fit(*data, epochs=2, batch_size=16, verbose=0)
    for variable in model.trainable_variables:
        assert _on_grid(_np(variable)), variable.path
    averages = model.optimizer.inner_optimizer._model_variables_moving_average
    if name == "bfloat16":  # the masters took the averages, the weights their rounding
        for master, average, stored in zip(
            model.optimizer.master_weights, averages, model.trainable_variables, strict=True
        ):
            np.testing.assert_array_equal(_np(master), _np(average))
            np.testing.assert_array_equal(_np(stored), fpx.round_to(_np(average), "bf16"))
    else:
        for average, stored in zip(averages, model.trainable_variables, strict=True):
            np.testing.assert_array_equal(_np(stored), fpx.round_to(_np(average), "bf16"))


def test_a_model_built_later_predicts_with_weights_in_the_format(keras, data):
    x = data[0]
    model = emulate(keras.Sequential([keras.layers.Dense(4), keras.layers.Dense(3)]), "bfloat16")
    first = model.predict(x, verbose=0)  # builds the model, then stores its weights
    assert model.trainable_variables
    for variable in model.trainable_variables:
        assert _on_grid(_np(variable)), variable.path
    np.testing.assert_array_equal(first, model.predict(x, verbose=0))
    other = emulate(keras.Sequential([keras.layers.Dense(4)]), "bfloat16_weights")
    other.compile(optimizer="sgd", loss="mse")
    other.evaluate(x, np.zeros((64, 4), np.float32), verbose=0)
    assert all(_on_grid(_np(v)) for v in other.trainable_variables)


def test_nested_models_are_rows_of_their_own_and_exclude_takes_them_whole(keras):
    def build():
        inner = keras.Sequential([keras.Input((8,)), keras.layers.Dense(8, name="a")], name="sub")
        inputs = keras.Input((8,))
        return keras.Model(inputs, keras.layers.Dense(2, name="head")(inner(inputs)))

    report = emulate(build(), "fp8").fpexplore_report
    assert report.emulated == ("a", "head")
    assert report.float32 == ()
    assert ("sub", "Sequential", None) in report.layers
    assert "sub   Sequential  nested model" in str(report)
    report = emulate(build(), "fp8", exclude=["sub"]).fpexplore_report
    assert report.emulated == ("head",)
    assert report.float32 == ("a",)
    report = emulate(build(), "fp8", exclude="head").fpexplore_report  # one name
    assert report.emulated == ("a",)


def test_arguments_of_other_types(keras, mlp):
    with pytest.raises(TypeError, match="emulate needs a keras.Model, got str"):
        emulate("model", "fp8")
    policy = FormatPolicy("float16", seed=np.int64(3), loss_scale=np.float32(128))
    assert (policy.seed, policy.loss_scale) == (3, 128.0)
    assert type(policy.seed) is int and type(policy.loss_scale) is float
    assert FormatPolicy(amax_history_len=np.uint8(4)).amax_history_len == 4
    with pytest.raises(ValueError, match="seed must be an int >= 0, got 1.5"):
        FormatPolicy(seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="loss_scale"):
        FormatPolicy(loss_scale=np.float32("nan"))


@pytest.mark.parametrize("backend", ["tensorflow", "torch"])
def test_a_backend_that_is_not_installed_is_named(backend):
    """KERAS_BACKEND names a backend that is not installed: the error names it and
    advises JAX, rather than asking for the keras extra that is there."""
    pytest.importorskip("keras")
    try:
        __import__(backend)
    except ImportError:
        pass
    else:
        pytest.skip(f"{backend} is installed")
    code = (
        "import fpexplore.keras as fk\n"
        "try:\n"
        "    fk.emulate(None, 'fp8')\n"
        "except ValueError as e:\n"
        "    print(type(e).__mro__[1].__name__, isinstance(e, ImportError), e)\n"
    )
    env = {**os.environ, "KERAS_BACKEND": backend}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert f"this Keras runs on {backend!r}: set KERAS_BACKEND=jax" in run.stdout
    assert run.stdout.startswith("ValueError True")


@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
def test_conv1d_rounds_its_operands(keras, padding):
    """Conv1D convolves in its own call (not through convolution_op): rounded too."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-3, 3, (2, 9, 3)).astype(np.float32)

    def conv(**kwargs):
        return keras.layers.Conv1D(4, 3, padding=padding, dilation_rate=2, **kwargs)

    model = emulate(keras.Sequential([keras.Input((9, 3)), conv(name="c")]), "fp8")
    assert model.fpexplore_report.emulated == ("c",)
    layer = model.get_layer("c")
    layer.bias.assign(np.full(4, 0.25, np.float32))
    kernel = _np(layer.kernel)
    plain = keras.Sequential([keras.Input((9, 3)), conv(bias_initializer="zeros")])
    plain.layers[0].kernel.assign(fpx.scale_per_tensor(kernel, "e4m3").values.astype(np.float32))
    expected = np.asarray(plain(fpx.scale_per_tensor(x, "e4m3").values.astype(np.float32)))
    np.testing.assert_array_equal(np.asarray(model(x)), expected + np.float32(0.25))


# Keras' saving code calls Variable.numpy(), which numpy 2 flags (not ours to fix).
@pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")
@pytest.mark.parametrize("name", ["mixed_float16", "bfloat16"])
def test_saved_optimizer_state_loads_into_the_optimizer_given_to_compile(
    keras, mlp, data, tmp_path, name
):
    """Under dynamic loss scaling the step runs through a LossScaleOptimizer that
    emulate added; the file holds the state of the optimizer given to compile, which is
    the one a loaded model has (no "Skipping variable loading" warning)."""
    model = emulate(mlp(), name)
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy")
    model.fit(*data, epochs=1, batch_size=16, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")  # warnings are errors here
    assert type(loaded.optimizer).__name__ == "Adam"
    given = model.optimizer.inner_optimizer
    if name == "mixed_float16":
        given = given.inner_optimizer
    assert int(_np(loaded.optimizer.iterations)) == int(_np(given.iterations)) == 4
    for saved, back in zip(given.variables, loaded.optimizer.variables, strict=True):
        np.testing.assert_array_equal(_np(saved), _np(back))


def test_products_and_their_gradients_ask_for_float32_precision(keras):
    """JAX multiplies float32 in TF32 on recent GPUs by default; an emulated layer's
    matmul, convolution and their gradients ask for float32 (HIGHEST) on every device."""
    import jax

    inputs = keras.Input((6, 6, 2))
    x = keras.layers.Conv2D(3, 3, name="conv")(inputs)
    x = keras.layers.Flatten()(x)
    x = keras.layers.EinsumDense("ab,bc->ac", (4,), name="einsum")(x)
    model = emulate(keras.Model(inputs, keras.layers.Dense(2, name="dense")(x)), "fp8")
    trainable = [v.value for v in model.trainable_variables]
    others = [v.value for v in model.non_trainable_variables]
    x = np.ones((2, 6, 6, 2), np.float32)

    def loss(trainable):
        return model.stateless_call(trainable, others, x, training=True)[0].sum()

    text = str(jax.make_jaxpr(jax.grad(loss))(trainable))
    products = text.count("dot_general[") + text.count("conv_general_dilated[")
    # each product and its two gradients (the conv's dX too, which jit drops as unused)
    assert products == 9
    assert text.count("Precision.HIGHEST, Precision.HIGHEST") == products


@pytest.mark.parametrize("master", [False, True])
@pytest.mark.parametrize("fmt", ["bfloat16", "float8_e4m3fn"])
def test_stochastic_weights_are_a_neighbour_of_the_float32_update(keras, fmt, master):
    """Each stored weight is one of the two neighbours, in the format, of the float32
    value SGD made (w - lr * g, from the stored weight or its master), and both occur."""
    model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(32)])
    emulate(model, FormatPolicy(weights=fmt, weight_rounding="stochastic", master_weights=master))
    model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
    optimizer = model.optimizer
    optimizer.build(model.trainable_variables)
    rng = np.random.default_rng(5)
    ups = downs = 0
    for _ in range(4):
        sources = optimizer.master_weights if master else model.trainable_variables
        before = [_np(v) for v in sources]
        grads = [rng.standard_normal(v.shape).astype(np.float32) for v in before]
        optimizer.apply(grads, model.trainable_variables)
        for old, g, variable in zip(before, grads, model.trainable_variables, strict=True):
            exact = old - np.float32(0.01) * g  # float32, as SGD computes it
            down, up = fpx.round_to(exact, fmt, "down"), fpx.round_to(exact, fmt, "up")
            stored = _np(variable)
            assert np.all((stored == down) | (stored == up))
            ups += int(np.sum((stored == up) & (up != down)))
            downs += int(np.sum((stored == down) & (up != down)))
    assert ups > 0 and downs > 0

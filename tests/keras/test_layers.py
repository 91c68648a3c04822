"""What an emulated layer computes: operands rounded as fpexplore.round_to and
fpexplore.quantize_blocks round them, products summed in float32, dY rounded on the
way back; which layers are emulated; errors; saving."""

from __future__ import annotations

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.keras import FormatPolicy, emulate

pytest.importorskip("jax")  # the layers' module imports JAX (the keras extra, Python 3.11+)
from fpexplore.keras.einsums import letters_axes as _letters_axes


def _np(variable):
    return np.array(variable.value)


def _r(x, fmt):
    """The numpy reference: x rounded into fmt, as float32."""
    return fpx.round_to(np.asarray(x, dtype=np.float32), fmt).astype(np.float32)


def _exact_matmul(a, b):
    """float32 operands multiplied and summed exactly (float64), rounded once to float32."""
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def _dense_model(keras, units=5, inputs=6, **kwargs):
    return keras.Sequential([keras.Input((inputs,)), keras.layers.Dense(units, **kwargs)])


def _operands(rng, shape, lo=0.5, hi=4.0):
    """Magnitudes in [lo, hi) with random signs: FP8 products of these sum exactly in float32."""
    return (rng.uniform(lo, hi, shape) * rng.choice([-1, 1], shape)).astype(np.float32)


def test_dense_rounds_inputs_and_kernel_and_sums_in_float32(keras):
    rng = np.random.default_rng(0)
    model = emulate(_dense_model(keras, use_bias=False), FormatPolicy("float8_e4m3fn"))
    kernel = _operands(rng, (6, 5))
    model.layers[0].kernel.assign(kernel)
    x = _operands(rng, (4, 6))
    got = np.asarray(model(x))
    np.testing.assert_array_equal(got, _exact_matmul(_r(x, "e4m3"), _r(kernel, "e4m3")))
    assert not np.array_equal(got, _exact_matmul(x, kernel))
    assert np.array_equal(_np(model.layers[0].kernel), kernel)  # the stored kernel is untouched


def test_dense_keeps_bias_and_activation_in_float32(keras):
    rng = np.random.default_rng(1)
    model = emulate(_dense_model(keras, activation="relu"), FormatPolicy("bfloat16"))
    layer = model.layers[0]
    bias = rng.standard_normal(5).astype(np.float32) * 1e-3  # not bfloat16 values
    layer.bias.assign(bias)
    x = rng.standard_normal((3, 6)).astype(np.float32)
    expected = np.asarray(keras.ops.matmul(_r(x, "bf16"), _r(_np(layer.kernel), "bf16"))) + bias
    np.testing.assert_allclose(np.asarray(model(x)), np.maximum(expected, 0), rtol=1e-6)


def test_einsum_dense_rounds_its_operands(keras):
    rng = np.random.default_rng(2)
    layer = keras.layers.EinsumDense("abc,cd->abd", output_shape=(3, 4), bias_axes=None)
    model = emulate(keras.Sequential([keras.Input((3, 6)), layer]), FormatPolicy("e4m3"))
    kernel = _operands(rng, (6, 4))
    layer.kernel.assign(kernel)
    x = _operands(rng, (2, 3, 6))
    expected = np.einsum("abc,cd->abd", _r(x, "e4m3").astype(np.float64), _r(kernel, "e4m3"))
    np.testing.assert_array_equal(np.asarray(model(x)), expected.astype(np.float32))


def test_conv2d_rounds_its_operands(keras):
    rng = np.random.default_rng(3)
    conv = keras.layers.Conv2D(2, 3, use_bias=False, name="conv")
    model = emulate(keras.Sequential([keras.Input((5, 5, 2)), conv]), FormatPolicy("e4m3"))
    kernel = _operands(rng, (3, 3, 2, 2))
    conv.kernel.assign(kernel)
    x = _operands(rng, (1, 5, 5, 2))
    plain = keras.layers.Conv2D(2, 3, use_bias=False)
    plain.build((None, 5, 5, 2))
    plain.kernel.assign(_r(kernel, "e4m3"))
    np.testing.assert_array_equal(np.asarray(model(x)), np.asarray(plain(_r(x, "e4m3"))))
    assert "conv" in model.fpexplore_report.emulated


def test_block_scaling_quantizes_blocks_along_the_summed_axis(keras):
    rng = np.random.default_rng(4)
    model = emulate(_dense_model(keras, units=3, inputs=64, use_bias=False), "mxfp4")
    layer = model.layers[0]
    kernel = rng.standard_normal((64, 3)).astype(np.float32)
    layer.kernel.assign(kernel)
    x = rng.standard_normal((2, 64)).astype(np.float32)
    qx = fpx.quantize_blocks(x, "mxfp4", axis=-1).values.astype(np.float32)
    qk = fpx.quantize_blocks(kernel, "mxfp4", axis=0).values.astype(np.float32)
    np.testing.assert_array_equal(np.asarray(model(x)), _exact_matmul(qx, qk))


@pytest.mark.parametrize(
    ("equation", "ndims", "axes"),
    [("ab,bc->ac", (2, 2, 2), ((1, 0), (0, 1), (1, 0))),
     ("abc,cd->abd", (3, 2, 3), ((2, 1), (0, 1), (2, 1))),
     ("...b,bc->...c", (3, 2, 3), ((2, 0), (0, 1), (2, 0))),
     ("abcd,cde->abe", (4, 3, 3), ((3, 1), (1, 2), (2, 1))),
     ("ab,b->a", (2, 1, 1), ((1, 0), (0, 0), (0, 0)))],
)  # fmt: skip
def test_einsum_summed_axes_of_the_three_gemms(equation, ndims, axes):
    """Per operand (x, w, y): the axes its GEMMs sum, fprop and wgrad for x, fprop and
    dgrad for w, dgrad and wgrad for y (the last summed letter; an ellipsis counts)."""
    assert _letters_axes(equation, ndims) == axes


def _gradients(keras, model, x, upstream):
    """d(sum(upstream * model(x))) by each trainable variable and by x: dY = upstream."""
    import jax

    trainable = [v.value for v in model.trainable_variables]
    non_trainable = [v.value for v in model.non_trainable_variables]

    def objective(trainable, x):
        y, _ = model.stateless_call(trainable, non_trainable, x, training=True)
        return keras.ops.sum(y * upstream)

    return jax.grad(objective, argnums=(0, 1))(trainable, x)


def test_backward_rounds_dy_before_both_gradient_matmuls(keras):
    rng = np.random.default_rng(5)
    model = emulate(_dense_model(keras), FormatPolicy(backward="float8_e5m2"))
    layer = model.layers[0]
    x = rng.standard_normal((4, 6)).astype(np.float32)
    upstream = (rng.standard_normal((4, 5)) * 10.0 ** rng.integers(-7, 1, (4, 5))).astype(
        np.float32
    )  # some below E5M2's smallest subnormal, 2**-16
    (d_kernel, d_bias), d_x = _gradients(keras, model, x, upstream)
    dy = _r(upstream, "e5m2")
    assert np.count_nonzero(dy == 0) > 0  # some gradients are lost: the point of the test
    np.testing.assert_allclose(np.asarray(d_kernel), x.T @ dy, rtol=1e-6, atol=1e-30)
    np.testing.assert_allclose(np.asarray(d_x), dy @ _np(layer.kernel).T, rtol=1e-6, atol=1e-30)
    # the bias is added after the rounding point: its gradient is dY unrounded
    np.testing.assert_allclose(np.asarray(d_bias), upstream.sum(axis=0), rtol=1e-6)


def test_forward_rounding_passes_gradients_straight_through(keras):
    rng = np.random.default_rng(6)
    model = emulate(_dense_model(keras), FormatPolicy("float8_e4m3fn"))
    kernel = _np(model.layers[0].kernel)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    upstream = rng.standard_normal((4, 5)).astype(np.float32)
    (d_kernel, _), d_x = _gradients(keras, model, x, upstream)
    # dW = rounded(x).T @ dY and dX = dY @ rounded(W).T: the rounding itself has gradient 1
    np.testing.assert_allclose(np.asarray(d_kernel), _r(x, "e4m3").T @ upstream, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(d_x), upstream @ _r(kernel, "e4m3").T, rtol=1e-5)


def test_other_layers_are_listed_as_float32(keras):
    inputs = keras.Input((8, 8, 1))
    x = keras.layers.Conv2D(4, 3, name="conv")(inputs)
    x = keras.layers.BatchNormalization(name="norm")(x)
    x = keras.layers.Flatten(name="flat")(x)
    outputs = keras.layers.Dense(2, name="head")(x)
    model = emulate(keras.Model(inputs, outputs), "fp8")
    report = model.fpexplore_report
    assert report.emulated == ("conv", "head")
    assert report.float32 == ("norm", "flat")
    lines = []
    model.summary(print_fn=lambda line, **_: lines.append(line))
    text = "\n".join(lines)
    assert "fpexplore emulation (policy fp8): 2 layers emulated, 2 in float32" in text
    assert "norm" in text and "emulated: forward float8_e4m3fn delayed" in text
    assert "accumulation in float32" in text
    assert "<table>" in report._repr_html_()


def test_excluded_layers_run_in_float32(keras, mlp):
    model = emulate(mlp(), "fp8", exclude=["out"])
    assert model.fpexplore_report.emulated == ("hidden",)
    assert model.fpexplore_report.float32 == ("dropout", "out")
    x = np.random.default_rng(7).standard_normal((4, 16)).astype(np.float32)
    out = model.get_layer("out")
    expected = keras.activations.softmax(keras.ops.matmul(x, out.kernel) + out.bias)
    np.testing.assert_allclose(np.asarray(out(x)), np.asarray(expected), rtol=1e-6)
    with pytest.raises(ValueError, match=r"has no layers named \['nope'\]"):
        emulate(mlp(), "fp8", exclude=["nope"])


def test_models_built_later_are_emulated_too(keras, data):
    """No keras.Input: the layers are built by fit, and the weights stored at its start."""

    class Subclassed(keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = keras.layers.Dense(16, activation="relu")
            self.out = keras.layers.Dense(3, activation="softmax")

        def call(self, x):
            return self.out(self.hidden(x))

    for model in (
        keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3)]),
        Subclassed(),
    ):
        assert not model.built
        model = emulate(model, "bfloat16_weights")
        assert len(model.fpexplore_report.emulated) == 2
        model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
        model.fit(*data, epochs=1, batch_size=32, verbose=0)
        assert len(model.trainable_variables) == 4
        for variable in model.trainable_variables:
            value = _np(variable)
            assert np.array_equal(value, _r(value, "bfloat16")), variable.path


def test_float32_policy_emulates_nothing(keras, mlp):
    model = emulate(mlp(), "float32")
    assert model.fpexplore_report.emulated == ()
    assert not hasattr(model.get_layer("hidden"), "_fpexplore_state")


def test_clear_errors(keras, mlp, monkeypatch):
    with pytest.raises(ValueError, match="unknown preset 'fp9'"):
        emulate(mlp(), "fp9")
    with pytest.raises(ValueError, match="forward: unknown format 'fp9'"):
        emulate(mlp(), FormatPolicy("fp9"))
    with pytest.raises(TypeError, match="emulate needs a keras.Model, got Dense"):
        emulate(keras.layers.Dense(3), "fp8")
    compiled = mlp()
    compiled.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="call emulate before compile"):
        emulate(compiled, "fp8")
    twice = emulate(mlp(), "fp8")
    with pytest.raises(ValueError, match="is emulated already"):
        emulate(twice, "bfloat16")
    half = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, dtype="mixed_float16")])
    with pytest.raises(ValueError, match="dtype policy 'mixed_float16'"):
        emulate(half, "fp8")
    monkeypatch.setattr(keras.backend, "backend", lambda: "torch")
    with pytest.raises(ValueError, match="this Keras runs on 'torch'"):
        emulate(mlp(), "fp8")


# Keras' saving code calls Variable.numpy(), which numpy 2 flags (not ours to fix).
@pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")
def test_save_keeps_weights_not_the_emulation(keras, mlp, data, tmp_path):
    model = emulate(mlp(), "fp8")
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(*data, epochs=1, batch_size=32, verbose=0)
    path = tmp_path / "model.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert not hasattr(loaded, "fpexplore_policy")
    for name in ("hidden", "out"):
        for attr in ("kernel", "bias"):
            saved = getattr(model.get_layer(name), attr)
            np.testing.assert_array_equal(_np(saved), _np(getattr(loaded.get_layer(name), attr)))
    assert len(loaded.trainable_variables) == 4  # no amax histories came back
    assert type(loaded.optimizer).__name__ == "Adam"
    again = emulate(keras.saving.load_model(path, compile=False), "fp8")
    assert again.fpexplore_report.emulated == ("hidden", "out")
    assert np.isfinite(np.asarray(again(data[0][:4]))).all()
    history = again.get_layer("hidden")._fpexplore_state.inputs_amax_history
    assert np.all(_np(history) == 0)  # the amax histories start again
    model.save_weights(tmp_path / "w.weights.h5")
    fresh = emulate(mlp(), "fp8")
    fresh.load_weights(tmp_path / "w.weights.h5")
    np.testing.assert_array_equal(
        _np(fresh.get_layer("out").kernel), _np(model.get_layer("out").kernel)
    )


def test_operands_are_scaled_as_fpexplore_scales_them():
    """The wiring of the scalings: each operand as fpexplore.scale_per_tensor gives it."""
    import jax.numpy as jnp

    from fpexplore.keras.operands import quantize
    from fpexplore.keras.policies.specs import OperandSpec

    x = np.random.default_rng(8).standard_normal((16, 32)).astype(np.float32) * 1e-3
    current = OperandSpec("float8_e4m3fn", "per_tensor", "nearest_even")
    expected = fpx.scale_per_tensor(x, "e4m3").values.astype(np.float32)
    np.testing.assert_array_equal(np.asarray(quantize(jnp.asarray(x), current)), expected)
    delayed = OperandSpec("float8_e4m3fn", "delayed", "nearest_even")
    empty = jnp.zeros(4)  # the first step: the tensor's own amax
    np.testing.assert_array_equal(np.asarray(quantize(x, delayed, history=empty)), expected)
    history = np.array([0.0, 2e-3, 0.0, 5e-4], np.float32)
    expected = fpx.scale_per_tensor(x, "e4m3", recipe="delayed", amax_history=list(history)).values
    np.testing.assert_array_equal(
        np.asarray(quantize(x, delayed, history=jnp.asarray(history))), expected.astype(np.float32)
    )
    block = OperandSpec("float4_e2m1fn", "nvfp4", "nearest_even")
    expected = fpx.quantize_blocks(x, "nvfp4", axis=0).values.astype(np.float32)
    np.testing.assert_array_equal(np.asarray(quantize(x, block, axis=0)), expected)


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_conv_gradient_blocks_run_along_each_gemms_summed_axis(keras, data_format):
    """dY of a convolution is quantized twice from float32: for dgrad in blocks along
    its channels (the axis that dX = conv_transpose(dY, W) sums), whatever the data
    format, and for wgrad in blocks along the batch (the axis dW sums): one SGD step
    of a 1x1 Conv2D against numpy (short operands, so every float32 sum is exact)."""
    rng = np.random.default_rng(7)
    n, c_in, c_out, h, w = 4, 3, 6, 2, 4
    first = data_format == "channels_first"
    shape = (c_in, h, w) if first else (h, w, c_in)
    conv = keras.layers.Conv2D(c_out, 1, use_bias=False, data_format=data_format)
    model = emulate(
        keras.Sequential([keras.Input(shape), conv]),
        FormatPolicy(None, "e5m2", backward_scaling="mxfp8_e5m2"),
    )
    kernel = _r(_operands(rng, (1, 1, c_in, c_out)), "e4m3")
    conv.kernel.assign(kernel)
    model.compile(
        optimizer=keras.optimizers.SGD(2.0**-6),
        loss=lambda t, y: keras.ops.sum(y * t, axis=(1, 2, 3)),  # dY = t / n exactly
    )
    x = _r(_operands(rng, (n, *shape)), "e4m3")
    t = np.zeros((n, *conv.compute_output_shape((n, *shape))[1:]), np.float32)
    t[...] = _operands(rng, t.shape, 2.0**-10, 4.0)  # magnitudes that differ along each axis
    model.train_on_batch(x, t)
    dy = fpx.quantize_blocks(t / n, "mxfp8_e5m2", axis=0).values.astype(np.float32)
    xs, dys = (np.moveaxis(a, 1, -1) if first else a for a in (x, dy))
    grad = _exact_matmul(xs.reshape(-1, c_in).T, dys.reshape(-1, c_out))
    expected = (kernel[0, 0] - np.float32(2.0**-6) * grad).astype(np.float32)
    np.testing.assert_array_equal(_np(conv.kernel)[0, 0], expected)


def test_delayed_scaling_steps_against_numpy(keras):
    """Five SGD steps of a Dense layer under delayed scaling with a history of 2, against
    numpy: each operand (and dY) is scaled by the largest amax of the 2 steps before
    (its own on the first), saturating above it. Every amax is max / 2**k, so every
    scale is a power of two and every float32 sum exact (the inputs' magnitudes span
    2**12, dY's 2**6); the kernel is small but for its amax, so that each update shows."""
    rng = np.random.default_rng(11)
    n, m, k, lr = 4, 8, 3, np.float32(2.0**-12)
    layer = keras.layers.Dense(k)
    model = emulate(
        keras.Sequential([keras.Input((m,)), layer]),
        FormatPolicy("e4m3", "e5m2", scaling="delayed", amax_history_len=2),
    )
    kernel = _operands(rng, (m, k), 0.5, 3.0) * np.float32(2.0**-12)
    kernel[0, 0] = 3.5  # the kernel's amax (448 / 128) at every step: x[:, 0] is 0
    layer.kernel.assign(kernel)
    bias = np.zeros(k, np.float32)
    model.compile(
        optimizer=keras.optimizers.SGD(float(lr)), loss=lambda t, y: keras.ops.sum(y * t, -1)
    )
    history = {"x": [], "w": [], "dy": []}

    def scaled(a, fmt, name):
        amax = float(np.max(np.abs(a)))
        past = history[name][-2:] or [amax]
        history[name].append(amax)
        values = fpx.scale_per_tensor(a, fmt, recipe="delayed", amax_history=past).values
        return values.astype(np.float32)

    for step, (x_exp, dy_exp) in enumerate([(-10, -3), (-5, 2), (-9, -1), (-11, -3), (-11, -3)]):
        # magnitudes down to 2**-10 of the amax: subnormal in E4M3 under too small a scale
        x = _operands(rng, (n, m), 1.0, 3.0) * np.exp2(rng.uniform(-11, 0, (n, m)))
        x = (x * np.float32(2.0 ** (x_exp + 7))).astype(np.float32)
        x[:, 0] = 0
        x[1, 1] = 3.5 * 2.0 ** (x_exp + 7)  # amax 448 * 2**x_exp
        t = _operands(rng, (n, k), 0.5, 6.0) * np.float32(2.0**dy_exp)
        t[2, 1] = 7 * 2.0**dy_exp  # dY = t / 4: amax 57344 * 2**(dy_exp - 15)
        model.train_on_batch(x, t)
        xq = scaled(x, "e4m3", "x")
        scaled(kernel, "e4m3", "w")  # its amax history (dW does not depend on it)
        dyq = scaled(t / np.float32(n), "e5m2", "dy")
        kernel = (kernel - lr * _exact_matmul(xq.T, dyq)).astype(np.float32)
        bias = (bias - lr * (t / np.float32(n)).sum(0)).astype(np.float32)
        np.testing.assert_array_equal(_np(layer.kernel), kernel, err_msg=f"step {step}")
        np.testing.assert_array_equal(_np(layer.bias), bias, err_msg=f"step {step}")
    assert history["x"][1] > 448 * 2.0**-10  # step 1 saturated (scaled by step 0's)


@pytest.mark.parametrize("master", [False, True])
def test_one_sgd_step_of_a_dense_layer_against_numpy(keras, master):
    """dW = X_q^T dY_q with dY_q the E5M2 rounding of relu'(z + b) * dL/dy; the bias is
    added unrounded and its gradient sums the float32 dY; kernel and bias are stored
    in bfloat16 after the step (from their float32 masters when kept)."""
    rng = np.random.default_rng(5)
    n, m, k, lr = 4, 16, 5, np.float32(2.0**-4)
    layer = keras.layers.Dense(k, activation="relu")
    model = keras.Sequential([keras.Input((m,)), layer])
    layer.kernel.assign(_operands(rng, (m, k)))
    layer.bias.assign(_operands(rng, (k,), 0.1, 2.0))
    policy = FormatPolicy("e4m3", "e5m2", "bf16", master_weights=master)
    model = emulate(model, policy)
    model.compile(
        optimizer=keras.optimizers.SGD(float(lr)),
        loss=lambda t, y: keras.ops.sum(y * t, -1),  # dL/dy = t / n
    )
    kernel, bias = _np(layer.kernel), _np(layer.bias)  # on the bfloat16 grid already
    x = _operands(rng, (n, m))
    t = _r(_operands(rng, (n, k), 1.0, 2.0), "bf16")  # 8 bits: the bias' sums are exact
    model.train_on_batch(x, t)
    xq, wq = _r(x, "e4m3"), _r(kernel, "e4m3")
    dy = np.where(_exact_matmul(xq, wq) + bias > 0, t / np.float32(n), 0).astype(np.float32)
    assert 0 < np.count_nonzero(dy) < dy.size and not np.array_equal(_r(dy, "e5m2"), dy)
    kernel = kernel - lr * _exact_matmul(xq.T, _r(dy, "e5m2"))
    bias = bias - lr * dy.sum(0)
    np.testing.assert_array_equal(_np(layer.kernel), _r(kernel, "bf16"))
    np.testing.assert_array_equal(_np(layer.bias), _r(bias, "bf16"))
    if master:
        masters = [_np(v) for v in model.optimizer.master_weights]
        np.testing.assert_array_equal(masters[0], kernel)
        np.testing.assert_array_equal(masters[1], bias)

"""emulate emulates a layer as the policy says or lists it as float32, never silently
neither: layers Keras makes when it builds a layer later, step functions Keras made
before emulate, subclasses with a call of their own, quantize after emulate, the
report's order."""

from __future__ import annotations

import numpy as np
import pytest

from fpexplore.keras import FormatPolicy, emulate

E4M3 = FormatPolicy("float8_e4m3fn")  # no state, no weights format: Keras' caches see no change

# One of each emulated kind: (name, a layer factory, an input batch's shape).
KINDS = [
    ("dense", lambda k: k.layers.Dense(3), (2, 5)),
    ("einsum", lambda k: k.layers.EinsumDense("abc,cd->abd", (4, 3)), (2, 4, 5)),
    ("conv1d", lambda k: k.layers.Conv1D(2, 3), (2, 6, 3)),
    ("conv2d", lambda k: k.layers.Conv2D(2, 3), (1, 5, 5, 2)),
    ("conv3d", lambda k: k.layers.Conv3D(2, 2), (1, 3, 3, 3, 2)),
]
IDS = [kind[0] for kind in KINDS]


def _x(shape, seed=0):
    return np.random.default_rng(seed).uniform(-3, 3, shape).astype(np.float32)


def _copy_weights(source, target):
    for a, b in zip(source.weights, target.weights, strict=True):
        b.assign(np.array(a.value))


def _lazy_block(keras, make):
    """A layer that makes its sublayer in its build, as MultiHeadAttention does."""

    class Block(keras.layers.Layer):
        def build(self, shape):
            self.inner = make(keras)
            self.inner.build(shape)

        def call(self, x):
            return self.inner(x)

    return Block(name="block")


@pytest.mark.parametrize(("kind", "make", "shape"), KINDS, ids=IDS)
def test_layers_made_when_keras_builds_a_layer_later_are_emulated(keras, kind, make, shape):
    x = _x(shape)
    lazy = emulate(keras.Sequential([_lazy_block(keras, make)]), E4M3)
    assert lazy.fpexplore_report.emulated == ()  # nothing made yet
    got = np.asarray(lazy(x))  # builds the block, which makes its layer: emulated at once
    inner = lazy.layers[0].inner
    assert lazy.fpexplore_report.emulated == (inner.name,)
    assert lazy.fpexplore_report.float32 == ("block",)
    built = keras.Sequential([_lazy_block(keras, make)])
    built(x)
    _copy_weights(lazy, built)
    plain = np.asarray(built(x))
    emulate(built, E4M3)  # the same layer, emulated after it was built
    np.testing.assert_array_equal(got, np.asarray(built(x)))
    assert not np.array_equal(got, plain)


def test_excluded_layers_exclude_the_layers_their_build_makes(keras):
    model = emulate(keras.Sequential([_lazy_block(keras, KINDS[0][1])]), E4M3, exclude="block")
    model(_x((2, 5)))
    assert model.fpexplore_report.emulated == ()
    assert model.fpexplore_report.float32 == ("block", model.layers[0].inner.name)


def test_multi_head_attention_in_a_subclassed_model_built_by_fit(keras):
    """MultiHeadAttention makes its query, key, value and output projections (EinsumDense)
    in its build, which fit runs: they are emulated, and listed in model order."""

    class Model(keras.Model):
        def __init__(self):
            super().__init__()
            self.attention = keras.layers.MultiHeadAttention(2, 4, name="attention")
            self.head = keras.layers.Dense(1, name="head")

        def call(self, x, training=None):  # Keras' fit passes `training` to a call that takes it
            return self.head(self.attention(x, x, training=training))

    x, y = _x((4, 3, 8)), _x((4, 3, 1), 1)
    model = emulate(Model(), "fp8")
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, epochs=1, batch_size=4, verbose=0)
    report = model.fpexplore_report
    projections = ("query", "key", "value", "attention_output")
    assert report.emulated == (*projections, "head")
    assert report.layers[0][0] == "attention"  # the container, first
    inside = {layer.name: layer for layer in model.attention._flatten_layers()}
    for name in projections:
        state = inside[name]._fpexplore_state
        assert np.any(np.array(state.inputs_amax_history.value) > 0), name  # it trained
    assert f"{len(projections) + 1} layers emulated" in str(report)


def _state(owner, *names):
    """The values of its variables, as Keras' JAX steps take them (fresh copies: the
    jitted steps donate theirs)."""
    names = names or ("trainable_variables", "non_trainable_variables")
    values = [[np.array(v.value) for v in getattr(owner, name)] for name in names]
    return values[0] if len(values) == 1 else tuple(values)


def test_step_functions_made_before_emulate_are_dropped(keras):
    """predict before emulate made a float32 predict function: the next predict, and
    predict_on_batch and predict_step, are emulated, equal to model(x) bit for bit;
    evaluate, test_on_batch, train_on_batch, fit, test_step and train_step compute
    their loss from the same emulated outputs (SGD at rate 0 leaves the weights)."""
    x, y = _x((6, 5)), _x((6, 3), 1)
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)])
    before = model.predict(x, verbose=0)
    model.make_test_function()
    model.make_train_function()
    emulate(model, E4M3)
    assert (model.train_function, model.test_function, model.predict_function) == (None,) * 3
    emulated = np.asarray(model(x))
    assert not np.array_equal(emulated, before)
    np.testing.assert_array_equal(model.predict(x, verbose=0), emulated)
    np.testing.assert_array_equal(model.predict_on_batch(x), emulated)
    outputs, _ = model.predict_step(_state(model), (x,))
    np.testing.assert_array_equal(np.asarray(outputs), emulated)
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse")
    loss = float(np.mean((emulated - y) ** 2))
    np.testing.assert_allclose(model.evaluate(x, y, batch_size=6, verbose=0), loss, rtol=1e-6)
    np.testing.assert_allclose(model.test_on_batch(x, y), loss, rtol=1e-6)
    np.testing.assert_allclose(model.train_on_batch(x, y), loss, rtol=1e-6)
    history = model.fit(x, y, batch_size=6, epochs=1, verbose=0).history["loss"]
    np.testing.assert_allclose(history, [loss], rtol=1e-6)
    logs, _ = model.test_step((*_state(model), _state(model, "metrics_variables")), (x, y))
    np.testing.assert_allclose(logs["loss"], loss, rtol=1e-6)
    optimizer, metrics = _state(model.optimizer, "variables"), _state(model, "metrics_variables")
    logs, _ = model.train_step((*_state(model), optimizer, metrics), (x, y))
    np.testing.assert_allclose(logs["loss"], loss, rtol=1e-6)
    float32 = float(np.mean((before - y) ** 2))
    assert abs(float32 - loss) > 1e-4  # the tolerance above tells the two apart


def _subclass(keras, base, *, own_product=False):
    class Twice(base):
        def call(self, x, training=None):
            if own_product:  # computes without the base class' call
                return keras.ops.matmul(x, self.kernel)
            return super().call(x) * 2

    return Twice


@pytest.mark.parametrize(("kind", "make", "shape"), KINDS, ids=IDS)
def test_a_subclass_keeps_its_own_call_with_the_emulated_product_inside(keras, kind, make, shape):
    x = _x(shape)
    layer = make(keras)
    config = layer.get_config()
    twice = _subclass(keras, type(layer)).from_config(config)
    model = keras.Sequential([keras.Input(shape[1:]), twice])
    base = keras.Sequential([keras.Input(shape[1:]), type(layer).from_config(config)])
    _copy_weights(model, base)
    plain = np.asarray(model(x))
    emulate(model, E4M3)
    emulate(base, E4M3)
    assert model.fpexplore_report.emulated == (twice.name,)
    got = np.asarray(model(x))
    np.testing.assert_array_equal(got, np.asarray(base(x)) * 2)
    assert not np.array_equal(got, plain)
    assert type(twice).__name__ == "Twice"
    assert keras.saving.serialize_keras_object(twice)["class_name"] == "Twice"


def test_a_subclass_that_computes_without_its_base_call_raises(keras):
    Own = _subclass(keras, keras.layers.Dense, own_product=True)
    model = emulate(keras.Sequential([keras.Input((5,)), Own(3, name="own")]), E4M3)
    with pytest.raises(TypeError, match=r"'own' \(Twice\) computed its output without Dense"):
        model(_x((2, 5)))
    excluded = emulate(
        keras.Sequential([keras.Input((5,)), Own(3, name="own")]), E4M3, exclude="own"
    )
    assert excluded.fpexplore_report.float32 == ("own",)
    assert np.asarray(excluded(_x((2, 5)))).shape == (2, 3)


@pytest.mark.parametrize("mode", ["float8", "int8"])
def test_quantize_after_emulate_is_refused(keras, mode):
    model = emulate(keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)]), "fp8")
    with pytest.raises(ValueError, match=rf"model.quantize\('{mode}'\).*fpexplore.keras.emulate"):
        model.quantize(mode)
    with pytest.raises(ValueError, match=rf"quantize\('{mode}'\) on layer .*emulate"):
        model.layers[0].quantize(mode)
    assert model.layers[0].quantization_mode is None


@pytest.mark.parametrize("seed", [0, 542_361, 542_362, 10**6, 2**32, 2**64, 10**30])
def test_every_seed_a_policy_accepts_emulates(keras, seed):
    policy = FormatPolicy("bfloat16", rounding="stochastic", seed=seed)
    model = emulate(keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)]), policy)
    first, second = np.asarray(model(_x((2, 5)))), np.asarray(model(_x((2, 5))))
    assert not np.array_equal(first, second)  # fresh random bits at each call


def test_stochastic_weights_take_a_seed_of_any_size(keras):
    policy = FormatPolicy(weights="bfloat16", weight_rounding="stochastic", seed=10**30)
    model = emulate(keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)]), policy)
    model.compile(optimizer="sgd", loss="mse")
    assert np.isfinite(model.train_on_batch(_x((2, 5)), _x((2, 3))))


def test_stream_seeds_differ_by_seed_and_place():
    from fpexplore.keras.seeds import stream_seed

    seeds = [0, 542_362, 10**6, 2**32, 10**30]
    streams = {stream_seed(s, *place) for s in seeds for place in ((0, 0), (0, 1), (1,))}
    assert len(streams) == 3 * len(seeds)
    assert all(0 <= s < 2**32 for s in streams)


def test_nested_models_are_listed_top_down_in_model_order(keras):
    inner = keras.Sequential(
        [keras.Input((8,)), keras.layers.Dense(8, name="a"), keras.layers.Dense(8, name="b")],
        name="sub",
    )
    deeper = keras.Sequential(
        [keras.Input((8,)), inner, keras.layers.Dense(8, name="c")], name="mid"
    )
    inputs = keras.Input((8,))
    x = keras.layers.Dense(8, name="first")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(2, name="head")(deeper(x)))
    report = emulate(model, "fp8").fpexplore_report
    assert [name for name, *_ in report.layers] == ["first", "mid", "sub", "a", "b", "c", "head"]
    assert report.emulated == ("first", "a", "b", "c", "head")
    text = str(report).splitlines()
    assert [line.split()[0] for line in text[1:-1]] == [
        "first",
        "mid",
        "sub",
        "a",
        "b",
        "c",
        "head",
    ]

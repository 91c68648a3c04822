"""open_checkpoint on .keras and .weights.h5 files written by Keras itself."""

from __future__ import annotations

import os
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore import open_checkpoint
from fpexplore.io import CheckpointError

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")
pytest.importorskip("h5py")

# Keras 3.15's Variable.numpy() (called by model.save) trips numpy 2's copy= deprecation.
pytestmark = [
    pytest.mark.filterwarnings(
        "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
    ),
    pytest.mark.slow,  # building the Keras models takes about half a minute
]


def _expected(model) -> dict[str, np.ndarray]:
    """Keras' own names of the model's variables (without the model's name)."""
    prefix = model.name + "/"
    return {v.path.removeprefix(prefix): np.asarray(v.numpy()) for v in model.weights}


def _trained(model, x, y):
    """The model, built on ``x``, with an Adam optimizer that has state to save."""
    model.compile(optimizer="adam", loss="mse")
    if not model.built:
        model(x[:1])
    model.optimizer.build(model.trainable_variables)  # moments: saved in the files too
    return model


@pytest.fixture(scope="module")
def many_layers():
    keras.utils.set_random_seed(0)
    inp = keras.Input((6, 8))
    x = keras.layers.MultiHeadAttention(2, 4, name="mha")(inp, inp)
    x = keras.layers.LayerNormalization(center=False)(x)
    x = keras.layers.Conv1D(3, 2)(x)
    x = keras.layers.SeparableConv1D(4, 2)(x)
    x = keras.layers.DepthwiseConv1D(2)(x)
    x = keras.layers.LSTM(5, return_sequences=True)(x)
    x = keras.layers.GRU(5)(x)
    x = keras.layers.Dense(4, use_bias=False)(x)
    x = keras.layers.BatchNormalization(center=False)(x)
    x = keras.layers.PReLU()(x)
    inner = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(4, name="deep"), keras.layers.GroupNormalization(2)],
        name="inner",
    )
    x = inner(x)
    out = keras.layers.Dense(3, name="out", dtype="bfloat16")(x)
    model = keras.Model(inp, out)
    rng = np.random.default_rng(0)
    return _trained(model, rng.standard_normal((8, 6, 8)), rng.standard_normal((8, 3)))


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    return got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_keras_archive_names_every_variable_as_keras_does(many_layers, tmp_path: Path) -> None:
    path = tmp_path / "model.keras"
    many_layers.save(path)
    ckpt = open_checkpoint(path)
    want = _expected(many_layers)
    assert list(ckpt) == list(want)  # names and order; no optimizer state
    assert all(_same(ckpt[name], want[name]) for name in want)
    assert ckpt["out/kernel"].dtype.name == "bfloat16"
    assert ckpt.spec("mha/query/kernel") == ((8, 2, 4), np.dtype(np.float32))
    assert ckpt.kind == "keras" and ckpt.name == "model.keras"


def test_weights_h5_without_a_config(many_layers, tmp_path: Path) -> None:
    """Without config.json a layer's class comes from its group's name: unambiguous
    layers get Keras' names; a layer whose settings would decide (BatchNormalization
    without center) gets positions."""
    path = tmp_path / "model.weights.h5"
    many_layers.save_weights(path)
    ckpt = open_checkpoint(path)
    want = _expected(many_layers)
    assert len(ckpt) == len(want)
    named = [n for n in ckpt if not n.split("/")[-1].isdigit()]
    assert all(_same(ckpt[n], want[n]) for n in named)
    positional = sorted(set(ckpt) - set(named))
    assert positional == [
        "batch_normalization/0", "batch_normalization/1", "batch_normalization/2",
        "layer_normalization/0",
    ]  # fmt: skip
    assert _same(ckpt["batch_normalization/1"], want["batch_normalization/moving_mean"])


def test_sequential_and_subclassed_models(tmp_path: Path) -> None:
    keras.backend.clear_session()  # automatic layer names (dense_1...) count from zero again
    keras.utils.set_random_seed(1)
    rng = np.random.default_rng(1)
    seq = keras.Sequential(
        [keras.Input((5,), dtype="int32"), keras.layers.Embedding(10, 3),
         keras.layers.Conv1D(2, 3, padding="same"), keras.layers.SimpleRNN(2),
         keras.layers.EinsumDense("ab,bc->ac", output_shape=3)]
    )  # fmt: skip
    _trained(seq, rng.integers(0, 10, (4, 5)), rng.standard_normal((4, 3)))
    seq.save(tmp_path / "seq.keras")
    ckpt = open_checkpoint(tmp_path / "seq.keras")
    assert list(ckpt) == list(_expected(seq))
    assert any(name.endswith("/embeddings") for name in ckpt)

    class Scaled(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.encoder = keras.layers.Dense(4, name="encoder")
            self.blocks = [keras.layers.Dense(4), keras.layers.Dense(2)]
            self.scale = self.add_weight(shape=(2,), name="scale", initializer="ones")

        def call(self, x):
            x = self.encoder(x)
            for block in self.blocks:
                x = block(x)
            return x * self.scale

    model = _trained(Scaled(name="scaled"), rng.standard_normal((4, 3)), np.ones((4, 2)))
    model.save_weights(tmp_path / "scaled.weights.h5")
    ckpt = open_checkpoint(tmp_path / "scaled.weights.h5")
    want = _expected(model)
    # The blocks' groups are named after their class (dense, dense_1); the encoder's
    # group after its attribute, which says nothing of its class: positions.
    blocks = [name for name in want if not name.startswith(("encoder", "scale"))]
    assert list(ckpt) == ["scaled/0", *blocks, "encoder/0", "encoder/1"]
    assert _same(ckpt["scaled/0"], want["scale"])
    assert _same(ckpt["encoder/0"], want["encoder/kernel"])
    assert _same(ckpt["dense_1/bias"], want["dense_1/bias"])


def test_normalization_layers_named_as_keras_does(tmp_path: Path) -> None:
    # an adapted Normalization (mean, variance, count) and an RMSNormalization (scale)
    # were named by position ("normalization/0") where Keras names them
    keras.backend.clear_session()
    rng = np.random.default_rng(2)
    norm = keras.layers.Normalization()
    norm.adapt(rng.standard_normal((16, 4)))
    model = keras.Sequential(
        [keras.Input((4,)), norm, keras.layers.Dense(3), keras.layers.RMSNormalization()]
    )
    _trained(model, rng.standard_normal((4, 4)), rng.standard_normal((4, 3)))
    model.save(tmp_path / "norm.keras")
    model.save_weights(tmp_path / "norm.weights.h5")
    want = _expected(model)
    for path in (tmp_path / "norm.keras", tmp_path / "norm.weights.h5"):
        ckpt = open_checkpoint(path)
        assert sorted(ckpt) == sorted(want)
        assert all(_same(ckpt[name], want[name]) for name in want)
    assert ckpt["normalization/count"].dtype == np.int32


def test_legacy_keras_2_h5(tmp_path: Path) -> None:
    keras.utils.set_random_seed(2)
    layers = [keras.layers.Dense(4, name="d1"), keras.layers.BatchNormalization()]
    model = keras.Sequential([keras.Input((3,)), *layers, keras.layers.Dense(2)])
    _trained(model, np.ones((4, 3)), np.ones((4, 2)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Keras warns that .h5 is a legacy format
        model.save(tmp_path / "legacy.h5")
    ckpt = open_checkpoint(tmp_path / "legacy.h5")
    want = _expected(model)
    got = {name.removeprefix(model.name + "/"): ckpt[name] for name in ckpt}
    assert sorted(got) == sorted(want)
    assert all(_same(got[n], want[n]) for n in want)


def test_broken_keras_files(many_layers, tmp_path: Path) -> None:
    path = tmp_path / "model.keras"
    many_layers.save(path)
    whole = path.read_bytes()
    cut = tmp_path / "cut.keras"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(CheckpointError, match="cut.keras: "):
        open_checkpoint(cut)
    with zipfile.ZipFile(tmp_path / "empty.keras", "w") as z:
        z.writestr("config.json", "{}")
    with pytest.raises(CheckpointError, match="empty.keras: no model.weights.h5 inside"):
        open_checkpoint(tmp_path / "empty.keras")
    weights = tmp_path / "model.weights.h5"
    many_layers.save_weights(weights)
    bad = tmp_path / "bad.weights.h5"
    bad.write_bytes(weights.read_bytes()[:3000])
    with pytest.raises(CheckpointError, match="bad.weights.h5: not a readable Keras weights file"):
        open_checkpoint(bad)
    bad.write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(100))
    with pytest.raises(CheckpointError, match="bad.weights.h5: "):
        open_checkpoint(bad)


def test_roles_say_the_axis_each_layer_sums(tmp_path) -> None:
    """model.save of Dense, Conv2D, EinsumDense, Embedding and BatchNormalization:
    each weight's summed axis from its layer; the moving statistics are no weights."""
    keras.utils.set_random_seed(0)
    inp = keras.Input((6,), dtype="int32")
    x = keras.layers.Embedding(50, 8, name="emb")(inp)
    x = keras.layers.EinsumDense("abc,cd->abd", output_shape=(6, 12), name="ein")(x)
    x = keras.layers.Reshape((6, 12, 1))(x)
    x = keras.layers.Conv2D(4, (3, 3), name="conv")(x)
    x = keras.layers.BatchNormalization(name="bn")(x)
    x = keras.layers.Flatten()(x)
    out = keras.layers.Dense(3, name="dense")(x)
    keras.Model(inp, out).save(tmp_path / "m.keras")
    ckpt = fpx.open_checkpoint(tmp_path / "m.keras")
    roles = {name: ckpt.role(name) for name in ckpt}
    assert (roles["dense/kernel"].axis, roles["dense/kernel"].source) == (0, "layer")
    assert roles["conv/kernel"].axis == 2 and ckpt.spec("conv/kernel").shape == (3, 3, 1, 4)
    assert roles["ein/kernel"].axis == 0 and roles["emb/embeddings"].axis == 1
    assert roles["bn/moving_mean"].weight is False and roles["bn/gamma"].weight is True
    r = fpx.checkpoint_report(tmp_path / "m.keras", ["mxfp4"], weights_only=True,
                              progress=False)  # fmt: skip
    got = {row["tensor"]: (row["axis"], row["axis_source"]) for row in r.to_records()}
    assert got["dense/kernel"] == (0, "layer") and got["conv/kernel"] == (2, "layer")
    assert "bn/moving_mean" not in got and "dense/bias" in got  # trainable

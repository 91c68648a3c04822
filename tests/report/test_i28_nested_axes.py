"""Block axes of nested Keras sublayers, and weights of ONNX ops of unknown summed axis.

Keras: the EinsumDense sublayers of an attention layer (whose configs a ``.keras`` file
does not hold), the layers of a nested model (looked up in that model's own config, not
in the outer model's, where a layer may have the same name) and the sublayers of a
custom layer each get the axis their own layer sums over. ONNX: an initializer that
only an op of unknown summed axis consumes says nothing, so ``weights_only`` keeps it
by its rank.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import fpexplore as fpx

RNG = np.random.default_rng(28)
# Keras 3.15's Variable.numpy() (called by model.save) trips numpy 2's copy= deprecation.
KERAS_SAVES = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)


def _axes(path, **kwargs) -> dict[str, tuple[int, str]]:
    """Tensor -> (axis, axis_source) of a report of ``path``."""
    r = fpx.checkpoint_report(path, ["mxfp4"], progress=False, **kwargs)
    return {row["tensor"]: (row["axis"], row["axis_source"]) for row in r.to_records()}


@pytest.fixture(scope="module")
def keras():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    pytest.importorskip("h5py")
    return pytest.importorskip("keras")


def _attention_model(keras, **mha):
    keras.utils.set_random_seed(0)
    inp = keras.Input((5, 8))
    x = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4, name="mha", **mha)(inp, inp)
    gqa = keras.layers.GroupQueryAttention(
        head_dim=4, num_query_heads=2, num_key_value_heads=1, name="gqa"
    )
    return keras.Model(inp, gqa(x, x))


@KERAS_SAVES
@pytest.mark.slow
@pytest.mark.parametrize("file", ["m.keras", "m.weights.h5"])
def test_attention_sublayer_kernels_sum_over_their_input_axes(keras, tmp_path, file) -> None:
    """query/key/value (and gate) kernels ``(d_model, heads, key_dim)`` sum over axis 0;
    the output kernel ``(heads, key_dim, d_model)`` over axes 0 and 1, of which the
    first is given (EinsumDense's convention: one axis per tensor)."""
    model = _attention_model(keras, use_gate=True)
    path = tmp_path / file
    model.save(path) if file.endswith(".keras") else model.save_weights(path)
    ckpt = fpx.open_checkpoint(path)
    kernels = {
        "mha/query/kernel": (8, 2, 4), "mha/key/kernel": (8, 2, 4),
        "mha/value/kernel": (8, 2, 4), "mha/gate/kernel": (8, 2, 4),
        "mha/attention_output/kernel": (2, 4, 8), "gqa/query/kernel": (8, 2, 4),
        "gqa/key/kernel": (8, 1, 4), "gqa/value/kernel": (8, 1, 4),
        "gqa/attention_output/kernel": (2, 4, 8),
    }  # fmt: skip
    assert {name: ckpt.spec(name).shape for name in kernels} == kernels
    for name in kernels:
        assert ckpt.role(name)[:3] == (0, "layer", True), name
        assert ckpt.role(name.replace("kernel", "bias")).weight is True, name
    got = _axes(path)
    assert {name: got[name] for name in kernels} == dict.fromkeys(kernels, (0, "layer"))
    assert all(name.endswith("bias") for name, (_, source) in got.items() if source != "layer")


@KERAS_SAVES
@pytest.mark.slow
def test_attention_without_bias_names_its_kernels(keras, tmp_path) -> None:
    model = _attention_model(keras, use_bias=False)
    model.save(tmp_path / "m.keras")
    ckpt = fpx.open_checkpoint(tmp_path / "m.keras")
    assert "mha/query/bias" not in ckpt and "mha/attention_output/bias" not in ckpt
    assert ckpt.role("mha/attention_output/kernel")[:2] == (0, "layer")


@KERAS_SAVES
@pytest.mark.slow
@pytest.mark.parametrize("nested_first", [False, True])
def test_nested_models_and_custom_layers(keras, tmp_path, nested_first) -> None:
    """A nested model's layer named as an outer layer (before or after it in the
    model) is read with its own config, and the outer one with its; a custom layer's
    Dense and Conv1D sublayers (Keras' own names) sum over their input channels."""

    class Block(keras.layers.Layer):
        def __init__(self, **kwargs) -> None:
            super().__init__(**kwargs)
            self.up = keras.layers.Dense(16)
            self.conv = keras.layers.Conv1D(8, 3, padding="same")

        def build(self, shape) -> None:
            self.up.build(shape)
            self.conv.build((*shape[:-1], 16))

        def call(self, x):
            return self.conv(self.up(x))

    keras.utils.set_random_seed(0)
    inner_in = keras.Input((5, 8))
    inner = keras.Model(inner_in, keras.layers.Dense(8, name="proj")(inner_in), name="sub")
    outer = keras.layers.Conv1D(8, 3, padding="same", name="proj")
    inp = keras.Input((5, 8))
    x = outer(inner(inp)) if nested_first else inner(outer(inp))
    x = Block(name="block")(x)
    seq = keras.Sequential([keras.Input((5, 8)), keras.layers.Dense(4, name="seq_dense")],
                           name="seq")  # fmt: skip
    keras.Model(inp, seq(x)).save(tmp_path / "m.keras")
    ckpt = fpx.open_checkpoint(tmp_path / "m.keras")
    assert ckpt.spec("proj/kernel").shape == (3, 8, 8)
    assert ckpt.role("proj/kernel")[:2] == (1, "layer")  # a Conv1D's, not the Dense's 0
    assert ckpt.role("sub/proj/kernel")[:2] == (0, "layer")
    block = {n: ckpt.spec(n).shape for n in ckpt if n.startswith("block/") and "kernel" in n}
    assert sorted(block.values()) == [(3, 16, 8), (8, 16)]
    for name, shape in block.items():
        assert ckpt.role(name)[:2] == (len(shape) - 2, "layer"), name
    got = _axes(tmp_path / "m.keras", weights_only=True)
    assert got["seq/seq_dense/kernel"] == (0, "layer") and got["proj/kernel"] == (1, "layer")


onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def _onnx_with_unknown_consumers(path) -> None:
    hidden, features = 4, 8
    arrays = {
        "lstm_w": RNG.standard_normal((1, 4 * hidden, features)),
        "lstm_r": RNG.standard_normal((1, 4 * hidden, hidden)),
        "lstm_b": RNG.standard_normal((1, 8 * hidden)),
        "custom_w": RNG.standard_normal((features, 16)),
        "custom_v": RNG.standard_normal(16),
        "scale": RNG.standard_normal((5, 16)),
        "offset": RNG.standard_normal(16),
    }
    inits = [numpy_helper.from_array(a.astype(np.float32), n) for n, a in arrays.items()]
    inits.append(numpy_helper.from_array(np.array([5, 16], np.int64), "shape"))
    nodes = [
        helper.make_node("LSTM", ["x", "lstm_w", "lstm_r", "lstm_b"], ["h"], hidden_size=hidden),
        helper.make_node("MyProject", ["x", "custom_w", "custom_v"], ["p"], domain="org.i28"),
        helper.make_node("Reshape", ["p", "shape"], ["q"]),
        helper.make_node("Mul", ["q", "scale"], ["s"]),
        helper.make_node("Add", ["s", "offset"], ["y"]),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 1, features])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [5, 16])
    graph = helper.make_graph(nodes, "g", [x], [y], inits)
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("org.i28", 1)]
    onnx.save(helper.make_model(graph, opset_imports=opsets), str(path))


def test_onnx_initializers_of_unknown_consumers_are_weights_by_rank(tmp_path) -> None:
    path = tmp_path / "m.onnx"
    _onnx_with_unknown_consumers(path)
    ckpt = fpx.open_checkpoint(path)
    for name in ("lstm_w", "lstm_r", "lstm_b", "custom_w", "custom_v"):
        role = ckpt.role(name)
        assert (role.axis, role.weight) == (None, None), name  # the file says nothing
        assert "whose summed axis is not known" in role.note, name
    for name in ("scale", "offset"):  # only ops that sum over no axis
        assert ckpt.role(name).weight is False, name
    r = fpx.checkpoint_report(path, ["mxfp4"], weights_only=True, progress=False)
    got = {row["tensor"]: (row["axis"], row["axis_source"]) for row in r.to_records()}
    assert got == {"lstm_w": (2, "last"), "lstm_r": (2, "last"), "lstm_b": (1, "last"),
                   "custom_w": (1, "last")}  # fmt: skip
    assert any("lstm_w" in note and "LSTM, whose summed axis is not known" in note
               for note in r.notes)  # fmt: skip
    skipped = dict(r.skipped)
    assert skipped["custom_v"] == "rank 1: not a weight (weights_only)"
    assert skipped["scale"].startswith("not a weight (consumed by Mul, which sums over no axis")
    assert "offset" in skipped

"""open_checkpoint on ONNX models built with onnx.helper and saved with onnx.save, and
on PyTorch state_dict files (when torch is installed: it is not a test dependency)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fpexplore import open_checkpoint
from fpexplore.io import CheckpointError

ml_dtypes = pytest.importorskip("ml_dtypes")
RNG = np.random.default_rng(11)
W = RNG.standard_normal((4, 3)).astype(np.float32)


def _model(onnx, *, external: Path | None = None):
    from onnx import TensorProto, helper, numpy_helper

    initializers = [
        numpy_helper.from_array(W, "fc.weight"),
        numpy_helper.from_array(W[0].astype(ml_dtypes.bfloat16), "fc.bias_bf16"),
        numpy_helper.from_array(W[1].astype(ml_dtypes.float8_e4m3fn), "fc.scale_fp8"),
        numpy_helper.from_array(np.array([1, 3], np.int64), "shape"),  # not a weight
    ]
    nodes = [
        helper.make_node("Constant", [], ["const_w"],
                         value=numpy_helper.from_array(W.T.astype(np.float16))),
        helper.make_node("Constant", [], ["eps"], value_float=1e-5),
        helper.make_node("Constant", [], ["axes"], value_ints=[0]),  # not a weight
        helper.make_node("MatMul", ["x", "fc.weight"], ["h"]),
        helper.make_node("MatMul", ["h", "const_w"], ["y"]),
    ]  # fmt: skip
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], initializers,
    )  # fmt: skip
    return helper.make_model(graph)


def test_onnx_floating_initializers_and_constants(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    path = tmp_path / "model.onnx"
    onnx.save(_model(onnx), str(path))
    ckpt = open_checkpoint(path)
    assert list(ckpt) == ["fc.weight", "fc.bias_bf16", "fc.scale_fp8", "const_w", "eps"]
    assert np.array_equal(ckpt["fc.weight"], W)
    assert ckpt["fc.bias_bf16"].dtype == ml_dtypes.bfloat16
    assert ckpt["fc.bias_bf16"].tobytes() == W[0].astype(ml_dtypes.bfloat16).tobytes()
    assert ckpt["fc.scale_fp8"].dtype == ml_dtypes.float8_e4m3fn
    assert np.array_equal(ckpt["const_w"], W.T.astype(np.float16))
    assert ckpt["eps"].dtype == np.float32 and float(ckpt["eps"]) == np.float32(1e-5)
    assert ckpt.spec("fc.weight") == ((4, 3), np.dtype(np.float32))


def test_onnx_external_data_is_read_per_tensor(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    path = tmp_path / "big.onnx"
    onnx.save(_model(onnx), str(path), save_as_external_data=True,
              all_tensors_to_one_file=True, location="big.data", size_threshold=0)  # fmt: skip
    ckpt = open_checkpoint(path)
    assert np.array_equal(ckpt["fc.weight"], W)
    data = tmp_path / "big.data"
    data.write_bytes(data.read_bytes()[:10])
    with pytest.raises(CheckpointError, match="big.onnx: tensor 'fc.weight': .*external data"):
        open_checkpoint(path)
    data.unlink()
    with pytest.raises(CheckpointError, match="external data file 'big.data' is missing"):
        open_checkpoint(path)


def test_broken_onnx_files(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    path = tmp_path / "bad.onnx"
    path.write_bytes(b"\xff\xff\xff not a protobuf")
    with pytest.raises(CheckpointError, match="bad.onnx: not a readable ONNX model"):
        open_checkpoint(path)
    model = _model(onnx)
    model.graph.initializer[0].dims[:] = [5, 3]  # the bytes hold 4 x 3
    onnx.save(model, str(path))
    with pytest.raises(CheckpointError, match=r"tensor 'fc.weight': shape \(5, 3\) needs 60"):
        open_checkpoint(path)


# -- PyTorch ---------------------------------------------------------------------------


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def test_torch_state_dict_with_bf16_and_fp8(torch, tmp_path: Path) -> None:
    state = {
        "fc.weight": torch.tensor(W).to(torch.bfloat16),
        "fc.scale": torch.tensor(W[0]).to(torch.float8_e4m3fn),
        "fc.bias": torch.tensor(W[1], dtype=torch.float16),
        "steps": torch.tensor(3),
    }
    torch.save(state, tmp_path / "model.pt")
    ckpt = open_checkpoint(tmp_path / "model.pt")
    assert list(ckpt) == list(state)
    assert ckpt["fc.weight"].dtype == ml_dtypes.bfloat16
    assert ckpt["fc.weight"].tobytes() == W.astype(ml_dtypes.bfloat16).tobytes()
    assert ckpt["fc.scale"].tobytes() == W[0].astype(ml_dtypes.float8_e4m3fn).tobytes()
    assert ckpt["steps"].dtype == np.int64


def test_torch_training_checkpoint_keeps_the_model_only(torch, tmp_path: Path) -> None:
    model = torch.nn.Linear(3, 2)
    optimizer = torch.optim.Adam(model.parameters())
    model(torch.ones(1, 3)).sum().backward()
    optimizer.step()
    path = tmp_path / "train.ckpt"
    torch.save({"epoch": 1, "model_state_dict": model.state_dict(),
                "optimizer_state_dict": optimizer.state_dict()}, path)  # fmt: skip
    ckpt = open_checkpoint(path)
    assert list(ckpt) == ["weight", "bias"]
    assert np.array_equal(ckpt["weight"], model.weight.detach().numpy())


def test_torch_tensors_in_a_mapping(torch) -> None:
    ckpt = open_checkpoint({"w": torch.ones(2, 2, dtype=torch.bfloat16)})
    assert ckpt.spec("w").dtype == ml_dtypes.bfloat16 and ckpt["w"].dtype == ml_dtypes.bfloat16


def test_broken_torch_files(torch, tmp_path: Path) -> None:
    path = tmp_path / "bad.pt"
    path.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(CheckpointError, match="bad.pt: not a readable PyTorch file"):
        open_checkpoint(path)
    torch.save([torch.ones(2)], path)
    with pytest.raises(CheckpointError, match="bad.pt: holds a list; expected a state_dict"):
        open_checkpoint(path)

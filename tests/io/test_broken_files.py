"""Broken files of every kind: each error is a CheckpointError (a ValueError) that names
the file, whatever the library underneath raised (h5py's RuntimeError, zipfile's
NotImplementedError, protobuf's silence on an empty file), and a mapping's bad values
name the tensor."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import numpy as np
import pytest

from fpexplore import checkpoint_report, open_checkpoint
from fpexplore.cli.main import main
from fpexplore.io import CheckpointError, MissingLibraryError


def _weights_h5(path: Path) -> None:
    """A small file laid out as Keras 3 writes ``model.save_weights``."""
    h5py = pytest.importorskip("h5py")
    with h5py.File(path, "w") as f:
        variables = f.create_group("dense").create_group("vars")
        variables.attrs["name"] = "dense"
        variables["0"] = np.ones((3, 2), np.float32)
        variables["1"] = np.zeros(2, np.float32)
        f.create_group("vars").attrs["name"] = "model"


@pytest.mark.parametrize("signature", [b"HEAP", b"TREE", b"SNOD"])
def test_corrupt_hdf5_structures_name_the_file(tmp_path: Path, signature: bytes) -> None:
    good = tmp_path / "good.weights.h5"
    _weights_h5(good)
    assert list(open_checkpoint(good)) == ["dense/kernel", "dense/bias"]
    bad = tmp_path / "bad.weights.h5"
    bad.write_bytes(good.read_bytes().replace(signature, b"XXXX"))  # h5py: RuntimeError
    with pytest.raises(CheckpointError, match="^bad.weights.h5: "):
        open_checkpoint(bad)
    assert main(["report", str(bad), "-f", "e4m3"]) == 2


def test_unknown_zip_compression_names_the_file(tmp_path: Path, capsys) -> None:
    path = tmp_path / "c.npz"
    np.savez_compressed(path, w=np.ones(3))
    raw = bytearray(path.read_bytes())
    for magic, at in ((b"PK\x01\x02", 10), (b"PK\x03\x04", 8)):  # both headers: method 99
        i = raw.find(magic)
        raw[i + at : i + at + 2] = struct.pack("<H", 99)
    path.write_bytes(bytes(raw))  # zipfile: NotImplementedError
    with pytest.raises(CheckpointError, match="^c.npz: "):
        open_checkpoint(path)
    assert main(["report", str(path), "-f", "e4m3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "c.npz" in err and "Traceback" not in err


def test_a_file_changed_after_opening_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "m.weights.h5"
    _weights_h5(path)
    ckpt = open_checkpoint(path)
    path.write_bytes(b"no longer HDF5")  # h5py: OSError when the tensor is read
    with pytest.raises(CheckpointError, match="^m.weights.h5: cannot read tensor 'dense/kernel'"):
        ckpt["dense/kernel"]


@pytest.mark.parametrize(
    ("suffix", "library"),
    [(".keras", "h5py"), (".weights.h5", "h5py"), (".onnx", "onnx"), (".pt", "torch")],
)
def test_a_missing_library_names_the_file(monkeypatch, tmp_path: Path, suffix, library) -> None:
    path = tmp_path / f"model{suffix}"
    path.write_bytes(b"0")
    monkeypatch.setitem(sys.modules, library, None)
    with pytest.raises(MissingLibraryError, match=f"^model{suffix}: .*needs {library}"):
        open_checkpoint(path)


def _onnx_model(onnx, extra):
    from onnx import helper, numpy_helper

    good = numpy_helper.from_array(np.ones(3, np.float32), "good")
    return helper.make_model(helper.make_graph([], "g", [], [], [good, extra]))


def test_an_empty_or_graphless_onnx_file_is_refused(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    path = tmp_path / "empty.onnx"
    path.write_bytes(b"")  # protobuf parses no bytes as an empty model
    with pytest.raises(CheckpointError, match="^empty.onnx: .*no graph"):
        open_checkpoint(path)
    model = onnx.helper.make_model(onnx.helper.make_graph([], "g", [], []))
    model.ClearField("graph")
    onnx.save(model, str(path))
    with pytest.raises(CheckpointError, match="^empty.onnx: .*no graph"):
        open_checkpoint(path)


def test_onnx_tensors_whose_dims_or_values_do_not_agree(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    proto = onnx.TensorProto
    cases = []
    t = proto(name="short", data_type=proto.FLOAT, dims=[4], float_data=[1, 2, 3])
    cases.append((t, r"tensor 'short': shape \(4,\) holds 4 values but float_data has 3"))
    t = proto(name="half", data_type=proto.FLOAT16, dims=[2, 2], int32_data=[15360])
    cases.append((t, r"tensor 'half': shape \(2, 2\) holds 4 values but int32_data has 1"))
    t = proto(name="wide", data_type=proto.DOUBLE, dims=[2], double_data=[1.0, 2.0, 3.0])
    cases.append((t, r"tensor 'wide': shape \(2,\) holds 2 values but double_data has 3"))
    t = onnx.numpy_helper.from_array(np.ones(3), "double")  # float64 bytes, 3 values
    t.dims[:] = [4]  # (float64's name starts as float6_e2m3fn's does: it was not checked)
    cases.append((t, r"tensor 'double': shape \(4,\) needs 32 bytes but raw_data holds 24"))
    t = proto(name="neg", data_type=proto.FLOAT, dims=[-1])
    cases.append((t, r"tensor 'neg' has dims \[-1\]; expected integers >= 0"))
    path = tmp_path / "bad.onnx"
    for tensor, message in cases:
        onnx.save(_onnx_model(onnx, tensor), str(path))
        with pytest.raises(CheckpointError, match="^bad.onnx: " + message):
            open_checkpoint(path)
    fine = proto(name="fine", data_type=proto.FLOAT16, dims=[2], int32_data=[15360, 16384])
    onnx.save(_onnx_model(onnx, fine), str(path))
    assert open_checkpoint(path)["fine"].tolist() == [1.0, 2.0]


def test_bad_values_of_a_mapping_name_the_tensor() -> None:
    with pytest.raises(CheckpointError, match="mapping: 'ragged' cannot be read as an array"):
        open_checkpoint({"ragged": [[1.0], [1.0, 2.0]]})
    da = pytest.importorskip("dask.array")
    x = da.from_array(np.arange(10.0), chunks=3)
    with pytest.raises(CheckpointError, match="mapping: 'picked' has unknown chunk sizes"):
        open_checkpoint({"picked": x[x > 3]})
    with pytest.raises(CheckpointError, match="'picked' has unknown chunk sizes"):
        checkpoint_report({"picked": x[x > 3]}, "e4m3", progress=False)


def test_arrays_read_from_any_file_are_read_only(tmp_path: Path) -> None:
    w = np.arange(6.0).reshape(2, 3)
    np.savez(tmp_path / "stored.npz", w=w)
    np.savez_compressed(tmp_path / "packed.npz", w=w)
    paths = [tmp_path / "stored.npz", tmp_path / "packed.npz"]
    if __import__("importlib").util.find_spec("h5py"):
        _weights_h5(tmp_path / "m.weights.h5")
        paths.append(tmp_path / "m.weights.h5")
    for path in paths:
        ckpt = open_checkpoint(path)
        for name in ckpt:
            value = ckpt[name]
            with pytest.raises(ValueError, match="read-only"):
                value[...] = 0
        with pytest.raises(TypeError):
            ckpt["w"] = w  # type: ignore[index]
    mine = {"w": w}
    assert open_checkpoint(mine)["w"].flags.writeable  # a mapping's arrays as they are


@pytest.mark.parametrize("suffix", [".h5", ".weights.h5", ".hdf5"])
def test_an_hdf5_file_that_keras_did_not_write_is_refused(tmp_path: Path, suffix, capsys) -> None:
    # an HDF5 file of plain datasets read as a Keras model with no variables: an empty
    # report, exit status 0, presented as the whole model
    h5py = pytest.importorskip("h5py")
    path = tmp_path / f"plain{suffix}"
    with h5py.File(path, "w") as f:
        f["a"] = np.ones((3, 4), np.float32)
        f.create_group("g")["b"] = np.arange(5.0)
    with pytest.raises(CheckpointError, match=rf"plain{suffix}: not a Keras weights file"):
        open_checkpoint(path)
    assert main(["report", str(path), "-f", "e4m3"]) == 2
    assert capsys.readouterr().err.count("\n") == 1

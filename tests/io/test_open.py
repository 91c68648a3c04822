"""open_checkpoint: which reader a path takes, bad paths, and mappings of arrays."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest

from fpexplore import open_checkpoint
from fpexplore.io import Checkpoint, CheckpointError, CheckpointNotFoundError, MissingLibraryError

W = np.random.default_rng(3).standard_normal((4, 3)).astype(np.float32)


def test_import_loads_no_reader_library() -> None:
    code = (
        "import sys, fpexplore; "
        "print(sorted(m for m in ('h5py', 'onnx', 'safetensors', 'torch', 'ml_dtypes', 'jax', "
        "'keras', 'fpexplore.jax') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_missing_file_is_a_value_error_and_a_file_not_found_error(tmp_path: Path) -> None:
    path = tmp_path / "model.safetensors"
    with pytest.raises(CheckpointNotFoundError, match="model.safetensors: no such file") as caught:
        open_checkpoint(path)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, FileNotFoundError)


def test_directory_and_unknown_kinds(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="is a directory; expected a checkpoint file"):
        open_checkpoint(tmp_path)
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    with pytest.raises(CheckpointError, match=r"notes.txt: unknown kind of file; .*\.safetensors"):
        open_checkpoint(other)
    empty = tmp_path / "blank"
    empty.write_bytes(b"")
    with pytest.raises(CheckpointError, match="blank: unknown kind of file"):
        open_checkpoint(empty)
    with pytest.raises(TypeError, match="expected a path or a mapping"):
        open_checkpoint(42)


def test_files_without_a_known_suffix_are_sniffed(tmp_path: Path) -> None:
    np.save(tmp_path / "w.npy", W)
    (tmp_path / "w.npy").rename(tmp_path / "weights.data")
    assert np.array_equal(open_checkpoint(tmp_path / "weights.data")["weights.data"], W)
    np.savez(tmp_path / "z.npz", w=W)
    (tmp_path / "z.npz").rename(tmp_path / "archive")
    assert list(open_checkpoint(tmp_path / "archive")) == ["w"]
    st = pytest.importorskip("safetensors.numpy")
    st.save_file({"w": W}, str(tmp_path / "model"))
    assert open_checkpoint(tmp_path / "model").kind == "safetensors"


def test_a_mapping_passes_through_without_copies() -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf16 = W.astype(ml_dtypes.bfloat16)
    source = {"w": W, "b": bf16, "nested": {"kernel": W[:2], "deeper": {"bias": W[0]}}}
    ckpt = open_checkpoint(source)
    assert isinstance(ckpt, Mapping) and isinstance(ckpt, Checkpoint)
    assert list(ckpt) == ["w", "b", "nested/kernel", "nested/deeper/bias"]
    assert ckpt["w"] is W and ckpt["b"] is bf16 and ckpt["b"].dtype == ml_dtypes.bfloat16
    assert ckpt.spec("nested/kernel") == ((2, 3), np.dtype(np.float32))
    assert open_checkpoint(ckpt) is ckpt
    assert repr(ckpt) == "<Checkpoint mapping (mapping): 4 tensors, 33 values>"
    lists = open_checkpoint({"v": [1.0, 2.0]})
    assert lists["v"].dtype == np.float64


def test_dask_and_jax_arrays_pass_through() -> None:
    da = pytest.importorskip("dask.array")
    lazy = da.from_array(W, chunks=(2, 3))
    ckpt = open_checkpoint({"lazy": lazy})
    assert ckpt["lazy"] is lazy and ckpt.spec("lazy").shape == (4, 3)
    jnp = pytest.importorskip("jax.numpy")
    j = jnp.asarray(W, dtype=jnp.bfloat16)
    ckpt = open_checkpoint({"j": j})
    assert ckpt["j"] is j and ckpt.spec("j").dtype.name == "bfloat16"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ({1: W}, "key 1 is int; expected tensor names"),
        ({"w": "text"}, "'w' is str; expected an array"),
        ({"w": 3.0}, "'w' is float; expected an array"),
        ({"w": np.array(["a"])}, "dtype <U1; expected numbers"),
        ({"w": np.array([None])}, "dtype object; expected numbers"),
        ({"a/b": W, "a": {"b": W}}, "two tensors are named 'a/b'"),
    ],
)
def test_bad_mappings(source, message: str) -> None:
    with pytest.raises(CheckpointError, match=message):
        open_checkpoint(source)


def test_a_missing_library_names_the_extra(monkeypatch, tmp_path: Path) -> None:
    st = pytest.importorskip("safetensors.numpy")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    st.save_file({"w": W.astype(ml_dtypes.bfloat16)}, str(tmp_path / "bf.safetensors"))
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # import ml_dtypes now fails
    with pytest.raises(
        MissingLibraryError,
        match=r"bf.safetensors: tensor .w. \(BF16\) is "
        r'bfloat16, which needs ml_dtypes: pip install -e "\.\[checkpoints\]"',
    ):
        open_checkpoint(tmp_path / "bf.safetensors")
    for suffix, library in ((".keras", "h5py"), (".weights.h5", "h5py"), (".onnx", "onnx")):
        path = tmp_path / f"m{suffix}"
        path.write_bytes(b"0")
        monkeypatch.setitem(sys.modules, library, None)
        with pytest.raises(MissingLibraryError, match=f"needs {library}: pip install") as caught:
            open_checkpoint(path)
        assert isinstance(caught.value, ImportError) and isinstance(caught.value, ValueError)
    path = tmp_path / "m.pt"
    path.write_bytes(b"0")
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingLibraryError, match="needs torch: pip install torch"):
        open_checkpoint(path)

"""open_checkpoint on .npy and .npz files written by numpy, and on broken copies."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from fpexplore import open_checkpoint
from fpexplore.io import CheckpointError

RNG = np.random.default_rng(7)
W = RNG.standard_normal((6, 5)).astype(np.float32)
B = RNG.standard_normal(5).astype(np.float16)


def test_npy_is_one_memory_mapped_tensor_named_by_its_stem(tmp_path: Path) -> None:
    path = tmp_path / "dense.kernel.npy"
    np.save(path, W)
    ckpt = open_checkpoint(path)
    assert list(ckpt) == ["dense.kernel"] and ckpt.kind == "npy"
    got = ckpt["dense.kernel"]
    assert np.array_equal(got, W) and got.dtype == np.float32
    assert not got.flags.writeable
    assert isinstance(got.base, np.memmap)  # mapped, not read
    assert np.array_equal(ckpt.read_rows("dense.kernel", 2, 4), W[2:4])


@pytest.mark.parametrize(
    "array",
    [
        np.asfortranarray(W),
        np.array(3.5),
        np.zeros((0, 3)),
        np.arange(10, dtype=">i4"),  # big-endian stays as stored
        (W + 1j).astype(np.complex64),
    ],
    ids=["fortran", "0-d", "empty", "big-endian", "complex"],
)
def test_npy_layouts(tmp_path: Path, array: np.ndarray) -> None:
    np.save(tmp_path / "x.npy", array)
    got = open_checkpoint(tmp_path / "x.npy")["x"]
    assert got.dtype == array.dtype and got.shape == array.shape
    assert np.array_equal(got, array)
    if array.ndim:
        rows = open_checkpoint(tmp_path / "x.npy").read_rows("x", 1, 3)
        assert np.array_equal(rows, array[1:3])


def test_npz_stored_members_are_mapped_in_place(tmp_path: Path) -> None:
    path = tmp_path / "weights.npz"
    np.savez(path, kernel=W, bias=B, step=np.int64(3))
    ckpt = open_checkpoint(path)
    assert list(ckpt) == ["kernel", "bias", "step"]
    assert isinstance(ckpt["kernel"].base, np.memmap)
    with np.load(path) as reference:
        for name in ckpt:
            assert np.array_equal(ckpt[name], reference[name])
            assert ckpt[name].dtype == reference[name].dtype
    assert np.array_equal(ckpt.read_rows("kernel", 4, 9), W[4:])


def test_npz_compressed_members_are_inflated_one_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "small.npz"
    np.savez_compressed(path, kernel=W, bias=B)
    ckpt = open_checkpoint(path)
    assert ckpt.spec("kernel") == ((6, 5), np.dtype(np.float32))
    assert np.array_equal(ckpt["kernel"], W) and np.array_equal(ckpt["bias"], B)
    assert np.array_equal(ckpt.read_rows("kernel", 0, 2), W[:2])


def test_large_npz_member_with_zip64(tmp_path: Path) -> None:
    """Members written with zip64 extra fields (numpy forces zip64) still map."""
    big = np.arange(1 << 16, dtype=np.float64)
    path = tmp_path / "big.npz"
    np.savez(path, big=big, small=B)
    assert np.array_equal(open_checkpoint(path)["big"], big)


def test_npy_errors(tmp_path: Path) -> None:
    path = tmp_path / "w.npy"
    np.save(path, W)
    whole = path.read_bytes()
    path.write_bytes(whole[:-7])
    with pytest.raises(CheckpointError, match="w.npy: .*truncated"):
        open_checkpoint(path)
    path.write_bytes(b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f4',")
    with pytest.raises(CheckpointError, match="not a valid .npy header"):
        open_checkpoint(path)
    path.write_bytes(b"not numpy at all")
    with pytest.raises(CheckpointError, match="not a valid .npy header"):
        open_checkpoint(path)
    np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(CheckpointError, match="Python objects"):
        open_checkpoint(path)
    np.save(path, np.array(["a", "b"]))
    with pytest.raises(CheckpointError, match="expected numbers"):
        open_checkpoint(path)


def test_npy_of_ml_dtypes_values_is_refused_with_a_reason(tmp_path: Path) -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    np.save(tmp_path / "bf16.npy", W.astype(ml_dtypes.bfloat16))
    with pytest.raises(CheckpointError, match="raw 2-byte records .* bfloat16"):
        open_checkpoint(tmp_path / "bf16.npy")


def test_npz_errors(tmp_path: Path) -> None:
    path = tmp_path / "w.npz"
    path.write_bytes(b"PK but not a zip")
    with pytest.raises(CheckpointError, match="w.npz: not a zip archive"):
        open_checkpoint(path)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("notes.txt", "hello")
    with pytest.raises(CheckpointError, match="'notes.txt' is not a .npy array"):
        open_checkpoint(path)
    np.savez(path, w=W)
    # the header now claims float64: twice the bytes the member holds
    path.write_bytes(path.read_bytes().replace(b"'descr': '<f4'", b"'descr': '<f8'"))
    with pytest.raises(CheckpointError, match="member 'w.npy': .* holds 120"):
        open_checkpoint(path)


def test_npz_corrupt_compressed_member(tmp_path: Path) -> None:
    path = tmp_path / "c.npz"
    np.savez_compressed(path, w=np.zeros(10_000))
    whole = bytearray(path.read_bytes())
    whole[80:120] = bytes(40)  # inside the deflated stream
    path.write_bytes(bytes(whole))
    with pytest.raises(CheckpointError, match="c.npz: member 'w.npy'"):
        ckpt = open_checkpoint(path)
        ckpt["w"]  # if the header survived, reading the values fails

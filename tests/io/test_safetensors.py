"""open_checkpoint on .safetensors files written by the safetensors library, and on
hand-corrupted copies of them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fpexplore import open_checkpoint
from fpexplore.io import CheckpointError
from fpexplore.io.safetensors_file import DTYPES

ml_dtypes = pytest.importorskip("ml_dtypes")
st = pytest.importorskip("safetensors.numpy")

RNG = np.random.default_rng(19)
VALUES = RNG.standard_normal((3, 5)).astype(np.float32) * 4

# Every dtype the format defines that safetensors.numpy writes (from numpy or
# ml_dtypes arrays), with the ml_dtypes type it stays as.
WRITTEN = {
    "BOOL": np.bool_, "U8": np.uint8, "I8": np.int8, "U16": np.uint16, "I16": np.int16,
    "U32": np.uint32, "I32": np.int32, "U64": np.uint64, "I64": np.int64,
    "F16": np.float16, "F32": np.float32, "F64": np.float64, "C64": np.complex64,
    "BF16": ml_dtypes.bfloat16, "F8_E4M3": ml_dtypes.float8_e4m3fn,
    "F8_E5M2": ml_dtypes.float8_e5m2, "F8_E8M0": ml_dtypes.float8_e8m0fnu,
    "F8_E4M3FNUZ": ml_dtypes.float8_e4m3fnuz, "F8_E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
}  # fmt: skip


def _cast(kind: type) -> np.ndarray:
    if np.dtype(kind).kind in "biu":
        return (np.abs(VALUES) * 3).astype(kind)
    if kind is ml_dtypes.float8_e8m0fnu:
        return np.abs(VALUES).astype(kind)  # unsigned powers of two
    return VALUES.astype(kind)


@pytest.fixture
def every_dtype(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    tensors = {f"t_{name.lower()}": _cast(kind) for name, kind in WRITTEN.items()}
    tensors["scalar"] = np.array(2.5, np.float32)
    tensors["empty"] = np.zeros((0, 4), ml_dtypes.bfloat16)
    path = tmp_path / "model.safetensors"
    st.save_file(tensors, str(path), metadata={"format": "np"})
    return path, tensors


def test_the_table_covers_every_written_dtype() -> None:
    assert set(WRITTEN) == set(DTYPES)


def test_every_dtype_round_trips_bit_for_bit(every_dtype) -> None:
    path, tensors = every_dtype
    ckpt = open_checkpoint(path)
    assert set(ckpt) == set(tensors) and len(ckpt) == len(tensors)
    for name, expected in tensors.items():
        got = ckpt[name]
        assert got.dtype == expected.dtype, name  # bf16 stays ml_dtypes.bfloat16...
        assert got.shape == expected.shape, name
        assert got.tobytes() == expected.tobytes(), name
        assert ckpt.spec(name) == (expected.shape, expected.dtype)
        assert not got.flags.writeable, name


def test_agrees_with_the_library_where_it_reads(every_dtype) -> None:
    """safetensors.numpy reads numpy's dtypes (and bf16): the same arrays."""
    path, _ = every_dtype
    ckpt = open_checkpoint(str(path))
    with st.safe_open(str(path), framework="np") as f:
        for name in f.keys():
            if ckpt[name].dtype.name.startswith("float8"):
                continue  # the library has no numpy type for FP8
            assert np.array_equal(ckpt[name], f.get_tensor(name), equal_nan=True), name


def test_bfloat16_values(tmp_path: Path) -> None:
    bf16 = VALUES.astype(ml_dtypes.bfloat16)
    st.save_file({"w": bf16}, str(tmp_path / "bf16.safetensors"))
    got = open_checkpoint(tmp_path / "bf16.safetensors")["w"]
    assert got.dtype == ml_dtypes.bfloat16
    assert np.array_equal(got.astype(np.float32), bf16.astype(np.float32))


def test_reading_one_tensor_maps_only_its_bytes(monkeypatch, tmp_path: Path) -> None:
    tensors = {"a": np.ones((64, 64), np.float32), "b": np.zeros(1000, np.float16)}
    path = tmp_path / "two.safetensors"
    st.save_file(tensors, str(path))
    ckpt = open_checkpoint(path)
    calls = []
    real = np.memmap

    def spy(*args, **kwargs):
        calls.append(args[3:5])  # offset, shape
        return real(*args, **kwargs)

    monkeypatch.setattr(np, "memmap", spy)
    assert ckpt["b"].shape == (1000,)
    assert calls == [(ckpt._entries["b"].source.offset, (1000,))]
    rows = ckpt.read_rows("a", 10, 12)
    assert rows.shape == (2, 64) and rows.flags.writeable  # a copy, its map closed
    assert calls[-1][1] == (2, 64)


def test_read_rows_equals_slicing(every_dtype) -> None:
    path, tensors = every_dtype
    ckpt = open_checkpoint(path)
    for start, stop in ((0, 1), (1, 3), (2, 99), (3, 3)):
        got = ckpt.read_rows("t_bf16", start, stop)
        assert got.tobytes() == tensors["t_bf16"][start:stop].tobytes()
    with pytest.raises(ValueError, match="0-d"):
        ckpt.read_rows("scalar", 0, 1)


def test_repr_and_missing_name(every_dtype) -> None:
    path, _ = every_dtype
    ckpt = open_checkpoint(path)
    assert repr(ckpt).startswith("<Checkpoint model.safetensors (safetensors): 21 tensors")
    assert str(path.parent) not in repr(ckpt)
    with pytest.raises(KeyError, match="did you mean 't_bf16'"):
        ckpt["t_bf17"]
    assert "t_f32" in ckpt and "nope" not in ckpt


# -- hand-corrupted copies --------------------------------------------------------------


def _file(tmp_path: Path, header: object, data: bytes, *, raw: bytes | None = None) -> Path:
    text = raw if raw is not None else json.dumps(header).encode()
    path = tmp_path / "bad.safetensors"
    path.write_bytes(len(text).to_bytes(8, "little") + text + data)
    return path


F32 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}


@pytest.mark.parametrize(
    ("header", "data", "message"),
    [
        ({"w": {**F32, "dtype": "F12"}}, bytes(8), "unknown dtype 'F12'"),
        ({"w": {**F32, "dtype": "F4"}}, bytes(8), "packed several to a byte"),
        ({"w": {**F32, "shape": [2, -1]}}, bytes(8), "expected a list of integers"),
        ({"w": {**F32, "shape": [2.0]}}, bytes(8), "expected a list of integers"),
        ({"w": {**F32, "shape": "2"}}, bytes(8), "expected a list of integers"),
        ({"w": {**F32, "data_offsets": [8, 0]}}, bytes(8), "0 <= begin <= end"),
        ({"w": {**F32, "data_offsets": [0, 8, 9]}}, bytes(8), "0 <= begin <= end"),
        ({"w": {**F32, "shape": [3]}}, bytes(8), "needs 12 bytes but data_offsets"),
        ({"w": {"dtype": "F32", "shape": [2]}}, bytes(8), "needs dtype, shape and data_offsets"),
        ({"w": F32}, bytes(4), "truncated"),
        ({"w": F32}, bytes(12), "followed by bytes no tensor uses"),
        ({"w": {**F32, "data_offsets": [4, 12]}}, bytes(12), "leaves a gap after the header"),
        ({"w": F32, "v": {**F32, "data_offsets": [4, 12]}}, bytes(12), "overlaps tensor 'w'"),
        ({"w": F32, "v": {**F32, "data_offsets": [12, 20]}}, bytes(20), "gap after tensor 'w'"),
        ({"w": F32, "v": {**F32, "data_offsets": [8, 16]}}, bytes(8), "truncated"),
        ([1, 2], b"", "not an object"),
    ],
)
def test_corrupt_headers(tmp_path: Path, header, data, message) -> None:
    path = _file(tmp_path, header, data)
    with pytest.raises(CheckpointError, match=message) as caught:
        open_checkpoint(path)
    assert str(caught.value).startswith("bad.safetensors: ")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}', "not valid UTF-8 JSON"),
        (b'{"w": 1, "w": 2}', "appears twice"),
        (b'{"w": "\xff"}', "not valid UTF-8 JSON"),
    ],
)
def test_unreadable_headers(tmp_path: Path, raw: bytes, message: str) -> None:
    with pytest.raises(CheckpointError, match=message):
        open_checkpoint(_file(tmp_path, None, bytes(8), raw=raw))


def test_truncated_or_impossible_header_length(tmp_path: Path) -> None:
    path = tmp_path / "cut.safetensors"
    path.write_bytes(b"\x10\x00\x00")
    with pytest.raises(CheckpointError, match="only 3 bytes; .* 8-byte header length"):
        open_checkpoint(path)
    path.write_bytes((1000).to_bytes(8, "little") + b"{}")
    with pytest.raises(CheckpointError, match="runs past the end of the file"):
        open_checkpoint(path)
    path.write_bytes((1 << 40).to_bytes(8, "little") + b"{}")
    with pytest.raises(CheckpointError, match="over the 100000000-byte limit"):
        open_checkpoint(path)


def test_a_real_file_truncated_or_overwritten(every_dtype, tmp_path: Path) -> None:
    path, _ = every_dtype
    whole = path.read_bytes()
    cut = tmp_path / "cut.safetensors"
    cut.write_bytes(whole[:-3])
    with pytest.raises(CheckpointError, match="cut.safetensors: .*truncated"):
        open_checkpoint(cut)
    cut.write_bytes(whole[:20])
    with pytest.raises(CheckpointError, match="runs past the end"):
        open_checkpoint(cut)
    n = int.from_bytes(whole[:8], "little")
    broken = whole[:8] + whole[8 : 8 + n].replace(b'"F32"', b'"F33"') + whole[8 + n :]
    cut.write_bytes(broken)
    with pytest.raises(CheckpointError, match="unknown dtype 'F33'"):
        open_checkpoint(cut)


def test_empty_file_of_tensors(tmp_path: Path) -> None:
    st.save_file({}, str(tmp_path / "none.safetensors"))
    assert len(open_checkpoint(tmp_path / "none.safetensors")) == 0

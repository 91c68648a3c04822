"""Files from someone else, other than HDF5 (see test_untrusted_hdf5.py): ONNX external
data outside the model's folder is refused without touching it; a header that
promises more than the bytes hold is refused by name on every route of ``.npy`` and
``.npz``; repeated ``.npz`` names are refused; big-endian ``.npy`` is converted one
chunk at a time; ml_dtypes' integer types are not reported as floats. The files are
written by numpy, onnx and zipfile."""

from __future__ import annotations

import builtins
import io
import os
import tracemalloc
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

from fpexplore import checkpoint_report, open_checkpoint
from fpexplore.cli.main import main
from fpexplore.io import CheckpointError

SECRET = np.arange(16, dtype=np.float32) + 1000


class _Touched:
    """Every path that os.stat, os.lstat, os.open and open were given."""

    def __init__(self, monkeypatch) -> None:
        self.paths: list[str] = []
        for module, name in ((os, "stat"), (os, "lstat"), (os, "open"), (builtins, "open")):
            real = getattr(module, name)
            monkeypatch.setattr(module, name, self._wrap(real))
        monkeypatch.setattr(io, "open", builtins.open)

    def _wrap(self, real):
        def wrapped(path, *args, **kwargs):
            if isinstance(path, str | bytes | os.PathLike):
                self.paths.append(os.path.abspath(os.fsdecode(path)))
            return real(path, *args, **kwargs)

        return wrapped

    def inside(self, folder: Path) -> list[str]:
        return [p for p in self.paths if p == str(folder) or p.startswith(f"{folder}{os.sep}")]


def _onnx_external(path: Path, location: str, length: int = 64) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import external_data_helper, helper, numpy_helper

    tensor = numpy_helper.from_array(np.zeros(16, np.float32), "w")
    external_data_helper.set_external_data(tensor, location=location, offset=0, length=length)
    tensor.ClearField("raw_data")
    tensor.data_location = onnx.TensorProto.EXTERNAL
    onnx.save(helper.make_model(helper.make_graph([], "g", [], [], [tensor])), str(path))


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    model, outside = tmp_path / "model", tmp_path / "outside"
    model.mkdir()
    outside.mkdir()
    (outside / "secret.bin").write_bytes(SECRET.tobytes() * 3)
    return model, outside


@pytest.mark.parametrize(
    "how", ["dotdot", "dotdot inside", "absolute", "file symlink", "folder symlink", "chain"]
)
def test_onnx_external_data_outside_the_folder_is_refused_untouched(tmp_path, monkeypatch, how):
    model, outside = _folders(tmp_path)
    secret = outside / "secret.bin"
    location = {
        "dotdot": "../outside/secret.bin",
        "dotdot inside": "sub/../../outside/secret.bin",
        "absolute": str(secret),
        "file symlink": "link.bin",
        "folder symlink": "linked/secret.bin",
        "chain": "first.bin",
    }[how]
    (model / "sub").mkdir()
    os.symlink(secret, model / "link.bin")
    os.symlink(outside, model / "linked")
    os.symlink("second.bin", model / "first.bin")  # inside, then out
    os.symlink("../outside/secret.bin", model / "second.bin")
    path = model / "m.onnx"
    _onnx_external(path, location)
    touched = _Touched(monkeypatch)
    with pytest.raises(CheckpointError, match=r"^m.onnx: tensor 'w': its external data .*outside"):
        open_checkpoint(path)
    monkeypatch.undo()
    assert touched.inside(outside) == []
    assert main(["report", str(path), "-f", "e4m3"]) == 2


def test_onnx_external_data_inside_the_folder_is_read(tmp_path: Path) -> None:
    model, _ = _folders(tmp_path)
    (model / "data").mkdir()
    (model / "data" / "w.bin").write_bytes(SECRET.tobytes())
    for location in ("data/w.bin", "./data/../data/w.bin", "data//w.bin"):
        path = model / "m.onnx"
        _onnx_external(path, location)
        np.testing.assert_array_equal(open_checkpoint(path)["w"], SECRET)
    os.symlink("data/w.bin", model / "alias.bin")  # inside, but onnx reads no symlinks
    _onnx_external(path, "alias.bin")
    with pytest.raises(CheckpointError, match=r"^m.onnx: .*symbolic link 'alias.bin'"):
        open_checkpoint(path)


def test_onnx_packed_tensors_that_promise_more_than_their_bytes(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import helper

    for type_name in ("FLOAT4E2M1",):
        tensor = onnx.TensorProto(
            name="q", data_type=getattr(onnx.TensorProto, type_name), dims=[2**40]
        )
        tensor.raw_data = bytes(64)
        path = tmp_path / "q.onnx"
        onnx.save(helper.make_model(helper.make_graph([], "g", [], [], [tensor])), str(path))
        with pytest.raises(CheckpointError, match=r"^q.onnx: tensor 'q': shape \(1099511627776,\)"):
            open_checkpoint(path)


def _npy_bytes(shape, dtype="<f4", data: bytes | None = None) -> bytes:
    buffer = io.BytesIO()
    header = {"descr": dtype, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue() + (bytes(64) if data is None else data)


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_an_npz_member_that_promises_more_than_it_holds(tmp_path, method, capsys) -> None:
    path = tmp_path / "lie.npz"
    with zipfile.ZipFile(path, "w", method) as z:
        z.writestr("w.npy", _npy_bytes((2**40,)))
    with pytest.raises(CheckpointError, match=r"^lie.npz: member 'w.npy': its header describes"):
        open_checkpoint(path)
    assert main(["report", str(path), "-f", "e4m3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "lie.npz" in err and "Traceback" not in err


def test_an_npy_that_promises_more_than_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "lie.npy"
    path.write_bytes(_npy_bytes((2**40,)))
    with pytest.raises(CheckpointError, match=r"^lie.npy: its header describes"):
        open_checkpoint(path)


def _lie_about_size(path: Path, member: str, size: int) -> None:
    """Write ``size`` as ``member``'s uncompressed size in both of its zip headers."""
    raw = bytearray(path.read_bytes())
    name = member.encode()
    i = raw.find(b"PK\x01\x02")
    while i >= 0:
        if raw[i + 46 : i + 46 + len(name)] == name:
            raw[i + 24 : i + 28] = size.to_bytes(4, "little")
            local = int.from_bytes(raw[i + 42 : i + 46], "little")
            raw[local + 22 : local + 26] = size.to_bytes(4, "little")
        i = raw.find(b"PK\x01\x02", i + 4)
    path.write_bytes(bytes(raw))


def test_an_npz_member_that_claims_more_than_deflate_gives(tmp_path: Path) -> None:
    path = tmp_path / "bomb.npz"
    n = 2**28  # 1 GiB of float32 declared, in a few hundred bytes
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("w.npy", _npy_bytes((n,), data=bytes(4096)))
    header = len(_npy_bytes((n,), data=b""))
    _lie_about_size(path, "w.npy", header + 4 * n)  # the sizes now agree with the header
    with pytest.raises(CheckpointError, match=r"^bomb.npz: member 'w.npy' claims .*deflate"):
        open_checkpoint(path)


def test_an_npz_with_a_repeated_member_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "twice.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile: "Duplicate name"
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("w.npy", _npy_bytes((16,)))
            z.writestr("w.npy", _npy_bytes((16,)))
    with pytest.raises(CheckpointError, match=r"^twice.npz: two members are named 'w.npy'"):
        open_checkpoint(path)


def _peak(path: Path) -> int:
    tracemalloc.start()
    try:
        checkpoint_report(path, ["e4m3"], scalings=["none"], progress=False, chunk_bytes=1 << 20)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("dtype", [">f4", ">f2", ">f8"])
def test_a_big_endian_npy_is_converted_one_chunk_at_a_time(tmp_path: Path, dtype) -> None:
    values = np.random.default_rng(0).standard_normal((2048, 2048)).astype(dtype)  # 8-32 MB
    np.save(tmp_path / "big.npy", values)
    np.save(tmp_path / "little.npy", values.astype(values.dtype.newbyteorder("<")))
    _peak(tmp_path / "little.npy")  # the work areas, allocated once and reused after
    big, little = _peak(tmp_path / "big.npy"), _peak(tmp_path / "little.npy")
    assert big < little + (4 << 20), (big, little)
    a = checkpoint_report(tmp_path / "big.npy", "e4m3", progress=False, chunk_bytes=1 << 20)
    b = checkpoint_report(tmp_path / "little.npy", "e4m3", progress=False, chunk_bytes=1 << 20)
    strip = [{k: v for k, v in r.items() if k not in ("tensor", "dtype")} for r in a.records]
    assert strip == [{k: v for k, v in r.items() if k not in ("tensor", "dtype")}
                     for r in b.records]  # fmt: skip


def test_ml_dtypes_integer_tensors_are_left_out() -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    names = [n for n in ("int2", "uint2", "int4", "uint4") if hasattr(ml_dtypes, n)]
    weights = {n: np.arange(4).astype(getattr(ml_dtypes, n)) for n in names}
    weights["w"] = np.linspace(-1, 1, 8, dtype=np.float32)
    report = checkpoint_report(weights, ["e4m3"], progress=False)
    assert {r["tensor"] for r in report.records} == {"w"}
    assert [name for name, _ in report.skipped] == names
    assert all("not floating point" in why for _, why in report.skipped)

"""A corpus of hostile checkpoint files for every reader, and the check run on it.

:func:`write_corpus` writes, into a folder, small valid files of every kind (written by
safetensors, numpy, h5py, zipfile and onnx themselves) and, from each, files that lie:
truncations, bit flips, runs of 0xFF bytes (sizes and offsets become huge), and the
hand-made lies of each format (huge declared shapes, unwritten HDF5 datasets, zip sizes
beyond deflate's ratio, repeated names, external references, a decompression bomb).
Some are also written without a suffix, so that they take the route of the first bytes.

Run as a module (``python -m tests.fuzz.checkpoint_corpus FOLDER``), it opens every
file of the folder and reads every tensor under an address-space limit (what it has
mapped after its imports, plus :data:`HEADROOM` bytes) and tracemalloc, and prints
one JSON record per file: ``ok`` (read), ``refused`` (a ``CheckpointError`` whose
message starts with the file's name) or ``bad`` (anything else: another exception,
an error that does not name the file, or a peak of traced memory over
:data:`TRACED_LIMIT`).
"""

from __future__ import annotations

import io
import json
import random
import resource
import sys
import tracemalloc
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

HEADROOM = 768 << 20
"""Address space the check may map beyond what its imports took."""
TRACED_LIMIT = 64 << 20
"""The most memory (as tracemalloc counts it) that opening and reading one file may take."""
FLIPS = 24
"""Single-bit flips written of each valid file."""


def _npy(shape, dtype: str = "<f4", data: bytes | None = None) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": dtype, "fortran_order": False, "shape": shape}
    )
    return buffer.getvalue() + (bytes(64) if data is None else data)


def _zip(path: Path, members: list[tuple[str, bytes]], method: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile: "Duplicate name"
        with zipfile.ZipFile(path, "w", method) as z:
            for name, data in members:
                z.writestr(name, data)


def lie_about_size(raw: bytes, member: str, size: int) -> bytes:
    """``raw`` (a zip) with ``size`` as ``member``'s uncompressed size in both headers."""
    out = bytearray(raw)
    name = member.encode()
    i = out.find(b"PK\x01\x02")
    while i >= 0:
        if out[i + 46 : i + 46 + len(name)] == name:
            out[i + 24 : i + 28] = size.to_bytes(4, "little")
            local = int.from_bytes(out[i + 42 : i + 46], "little")
            out[local + 22 : local + 26] = size.to_bytes(4, "little")
        i = out.find(b"PK\x01\x02", i + 4)
    return bytes(out)


RNG = np.random.default_rng(7)
W = RNG.standard_normal((8, 6)).astype(np.float32)
B = RNG.standard_normal(6).astype(np.float16)


def _safetensors(folder: Path) -> dict[str, bytes]:
    from safetensors.numpy import save

    good = save({"w": W, "b": B})
    n = int.from_bytes(good[:8], "little")
    header = json.loads(good[8 : 8 + n])
    lies = {}
    for key, value in (("shape", [2**40]), ("data_offsets", [0, 2**62])):
        lie = dict(header)
        lie["w"] = {**header["w"], key: value}
        text = json.dumps(lie).encode()
        lies[key] = len(text).to_bytes(8, "little") + text + good[8 + n :]
    lies["header length"] = (2**62).to_bytes(8, "little") + good[8:]
    return {"good": good, **lies}


def _npy_files(folder: Path) -> dict[str, bytes]:
    buffer = io.BytesIO()
    np.save(buffer, W)
    big = io.BytesIO()
    np.save(big, W.astype(">f4"))
    return {
        "good": buffer.getvalue(),
        "big-endian": big.getvalue(),
        "huge shape": _npy((2**40,)),
        "overflowing shape": _npy((2**62, 2**62)),
        "object": _npy((1,), "|O"),
    }


def _npz(method: int) -> Callable[[Path], dict[str, bytes]]:
    def make(folder: Path) -> dict[str, bytes]:
        path = folder / "scratch.zip"
        buffers = []
        for value in (W, B):
            buffer = io.BytesIO()
            np.save(buffer, value)
            buffers.append(buffer.getvalue())
        files = {}
        cases = {
            "good": [("w.npy", buffers[0]), ("b.npy", buffers[1])],
            "huge shape": [("w.npy", _npy((2**40,)))],
            "repeated": [("w.npy", buffers[0]), ("w.npy", buffers[0])],
            "not npy": [("w.npy", buffers[0]), ("config.json", b"{}")],
        }
        for case, members in cases.items():
            _zip(path, members, method)
            files[case] = path.read_bytes()
        if method == zipfile.ZIP_DEFLATED:
            n = 2**28
            _zip(path, [("w.npy", _npy((n,), data=bytes(4096)))], method)
            header = len(_npy((n,), data=b""))
            files["bomb"] = lie_about_size(path.read_bytes(), "w.npy", header + 4 * n)
        path.unlink()
        return files

    return make


def _h5(folder: Path, how: str) -> bytes:
    import h5py

    path = folder / "scratch.h5"
    outside = str(folder.parent / "outside.bin")
    with h5py.File(path, "w") as f:
        variables = f.create_group("dense").create_group("vars")
        variables.attrs["name"] = "dense"
        if how == "good":
            variables["0"] = W
        elif how == "unwritten":
            variables.create_dataset("0", (2**40,), np.float32, chunks=(4096,))
        elif how == "external storage":
            variables.create_dataset("0", (8, 6), np.float32, external=[(outside, 0, 192)])
        elif how == "external link":
            variables["0"] = h5py.ExternalLink(str(folder.parent / "outside.h5"), "/w")
        elif how == "virtual":
            layout = h5py.VirtualLayout((8,), np.float32)
            layout[:] = h5py.VirtualSource(str(folder.parent / "outside.h5"), "w", (8,))
            variables.create_virtual_dataset("0", layout)
        variables["1"] = B
        f.create_group("vars").attrs["name"] = "model"
    data = path.read_bytes()
    path.unlink()
    return data


H5_CASES = ("good", "unwritten", "external storage", "external link", "virtual")


def _weights_h5(folder: Path) -> dict[str, bytes]:
    return {how: _h5(folder, how) for how in H5_CASES}


def _keras(method: int) -> Callable[[Path], dict[str, bytes]]:
    def make(folder: Path) -> dict[str, bytes]:
        path = folder / "scratch.zip"
        files = {}
        for how in H5_CASES:
            members = [("metadata.json", b"{}"), ("config.json", b"{}")]
            _zip(path, [*members, ("model.weights.h5", _h5(folder, how))], method)
            files[how] = path.read_bytes()
        if method == zipfile.ZIP_DEFLATED:
            bomb = [("config.json", b" " * (4 << 20)), ("model.weights.h5", _h5(folder, "good"))]
            _zip(path, bomb, method)
            files["config bomb"] = lie_about_size(path.read_bytes(), "config.json", 2**32 - 2)
        path.unlink()
        return files

    return make


def _onnx_files(folder: Path) -> dict[str, bytes]:
    import onnx
    from onnx import external_data_helper, helper, numpy_helper

    def model(*tensors) -> bytes:
        return helper.make_model(
            helper.make_graph([], "g", [], [], list(tensors))
        ).SerializeToString()

    files = {"good": model(numpy_helper.from_array(W, "w"), numpy_helper.from_array(B, "b"))}
    for case, location in (
        ("dotdot", "../outside.bin"),
        ("absolute", str(folder.parent / "outside.bin")),
    ):
        tensor = numpy_helper.from_array(W, "w")
        external_data_helper.set_external_data(tensor, location=location, offset=0, length=192)
        tensor.ClearField("raw_data")
        tensor.data_location = onnx.TensorProto.EXTERNAL
        files[case] = model(tensor)
    huge = onnx.TensorProto(name="q", data_type=onnx.TensorProto.FLOAT4E2M1, dims=[2**40])
    huge.raw_data = bytes(64)
    files["huge packed"] = model(huge)
    files["overflowing dims"] = model(
        onnx.TensorProto(name="q", data_type=onnx.TensorProto.FLOAT, dims=[2**62, 2**62])
    )
    return files


KINDS: dict[str, tuple[str, Callable[[Path], dict[str, bytes]]]] = {
    "safetensors": (".safetensors", _safetensors),
    "npy": (".npy", _npy_files),
    "npz-stored": (".npz", _npz(zipfile.ZIP_STORED)),
    "npz-deflated": (".npz", _npz(zipfile.ZIP_DEFLATED)),
    "weights": (".weights.h5", _weights_h5),
    "keras-stored": (".keras", _keras(zipfile.ZIP_STORED)),
    "keras-deflated": (".keras", _keras(zipfile.ZIP_DEFLATED)),
    "onnx": (".onnx", _onnx_files),
}
"""Each kind of file in the corpus: its suffix, and the maker of its cases."""


def mutations(data: bytes, seed: int) -> dict[str, bytes]:
    """Truncations, single-bit flips and runs of 0xFF of ``data``."""
    rng = random.Random(seed)
    n = len(data)
    out = {}
    for cut in sorted({0, 1, 7, 8, 9, 16, 64, n // 4, n // 2, n - 1, rng.randrange(n)}):
        if cut < n:
            out[f"cut{cut}"] = data[:cut]
    for i in range(FLIPS):
        at = rng.randrange(n)
        flipped = bytearray(data)
        flipped[at] ^= 1 << rng.randrange(8)
        out[f"flip{i}-{at}"] = bytes(flipped)
    for i in range(8):
        at = rng.randrange(max(1, n - 8))
        out[f"ff{i}-{at}"] = data[:at] + b"\xff" * 8 + data[at + 8 :]
    return out


def write_corpus(folder: Path) -> list[Path]:
    """Write the corpus into ``folder`` (see the module notes); the files written."""
    inside = folder / "corpus"
    inside.mkdir(exist_ok=True)
    import h5py

    (folder / "outside.bin").write_bytes(np.arange(64, dtype=np.float32).tobytes())
    with h5py.File(folder / "outside.h5", "w") as f:
        f["w"] = np.arange(8, dtype=np.float32)
    written = []
    for seed, (kind, (suffix, make)) in enumerate(KINDS.items()):
        for case, data in make(inside).items():
            name = f"{kind}-{case.replace(' ', '_')}"
            variants = {name: data}
            if case == "good":
                variants.update({f"{name}-{m}": d for m, d in mutations(data, seed).items()})
            for stem, bytes_ in variants.items():
                path = inside / f"{stem}{suffix}"
                path.write_bytes(bytes_)
                written.append(path)
            sniffed = inside / f"{name}-nosuffix"  # the route of the first bytes
            sniffed.write_bytes(data)
            written.append(sniffed)
    return written


def _check(path: Path) -> dict[str, str]:
    from fpexplore import open_checkpoint
    from fpexplore.io import CheckpointError

    record = {"file": path.name}
    tracemalloc.start()
    try:
        ckpt = open_checkpoint(path)
        for name in ckpt:
            np.ascontiguousarray(ckpt[name]).tobytes()  # every byte of every tensor read
        record["outcome"] = "ok"
    except CheckpointError as err:
        named = str(err).startswith(f"{path.name}: ")
        record["outcome"] = "refused" if named else "bad"
        record["message"] = str(err)[:300]
    except BaseException as err:  # anything else is what the check is for
        record["outcome"] = "bad"
        record["message"] = f"{type(err).__name__}: {str(err)[:300]}"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    if peak > TRACED_LIMIT:
        record["outcome"] = "bad"
        record["message"] = f"traced peak {peak} bytes"
    return record


def _limit_address_space() -> None:
    with open("/proc/self/status") as f:
        size = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    resource.setrlimit(resource.RLIMIT_AS, (size + HEADROOM, resource.RLIM_INFINITY))


def main(folder: str) -> None:
    import h5py  # noqa: F401 - imported before the limit is set, as the readers do
    import onnx  # noqa: F401

    import fpexplore.io.keras_files
    import fpexplore.io.numpy_files
    import fpexplore.io.onnx_files  # noqa: F401

    warnings.simplefilter("error")
    _limit_address_space()
    for path in sorted(Path(folder).iterdir()):
        if path.is_file():
            print(json.dumps(_check(path)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])

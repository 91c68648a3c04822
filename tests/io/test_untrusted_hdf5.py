"""HDF5 files (``.weights.h5``, and the one inside a ``.keras`` archive) from someone
else: nothing that reaches outside the file (external raw storage, external links,
virtual datasets) is followed, no declared size beyond what the file stores is
allocated, and a deflated ``.keras`` is inflated once, in order, with a bounded
``config.json``. Every file here is written by h5py itself."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from fpexplore import open_checkpoint
from fpexplore.cli.main import main
from fpexplore.io import CheckpointError

h5py = pytest.importorskip("h5py")

SECRET = np.arange(16, dtype=np.float32) + 1000  # what the other file holds


def _secret(folder: Path) -> Path:
    """An outside file: raw float32 bytes, and an HDF5 file holding the same."""
    (folder / "secret.bin").write_bytes(SECRET.tobytes())
    with h5py.File(folder / "secret.h5", "w") as f:
        f["data"] = SECRET
        f.create_group("dense").create_group("vars")["0"] = SECRET
    return folder / "secret.bin"


def _layer(f, kernel=None) -> None:
    """A Keras 3 layout: a layer ``dense`` with a kernel and a bias, the model's vars."""
    variables = f.require_group("dense").require_group("vars")
    variables.attrs["name"] = "dense"
    if kernel is not None:
        variables["0"] = kernel
    variables["1"] = np.zeros(2, np.float32)
    f.require_group("vars").attrs["name"] = "model"


def _hostile(path: Path, how: str) -> None:
    """A weights file whose layer ``dense`` reaches outside the file in one way."""
    folder = path.parent
    with h5py.File(path, "w") as f:
        variables = f.create_group("dense").create_group("vars")
        if how == "external storage":
            variables.create_dataset(
                "0", (4, 4), np.float32, external=[(str(folder / "secret.bin"), 0, 64)]
            )
        elif how == "relative external storage":
            variables.create_dataset("0", (4, 4), np.float32, external=[("secret.bin", 0, 64)])
        elif how == "external link":
            variables["0"] = h5py.ExternalLink(str(folder / "secret.h5"), "/data")
        elif how == "external link to a layer":
            del f["dense"]
            f["dense"] = h5py.ExternalLink(str(folder / "secret.h5"), "/dense")
        elif how == "external link in the optimizer":
            f.create_group("optimizer")["vars"] = h5py.ExternalLink("secret.h5", "/dense")
        elif how == "virtual dataset":
            layout = h5py.VirtualLayout((16,), np.float32)
            layout[:] = h5py.VirtualSource(str(folder / "secret.h5"), "data", (16,))
            variables.create_virtual_dataset("0", layout)
        elif how == "virtual dataset of this file":
            f["plain"] = np.ones(16, np.float32)
            layout = h5py.VirtualLayout((16,), np.float32)
            layout[:] = h5py.VirtualSource(".", "plain", (16,))
            variables.create_virtual_dataset("0", layout)
        else:
            raise AssertionError(how)
    with h5py.File(path, "a") as f:
        _layer(f)


OUTSIDE = [
    "external storage",
    "relative external storage",
    "external link",
    "external link to a layer",
    "external link in the optimizer",
    "virtual dataset",
    "virtual dataset of this file",
]


def _keras(path: Path, weights: Path, *, deflate: bool = False, config: bytes = b"{}") -> None:
    """A .keras archive around ``weights`` (stored as Keras writes it, or deflated)."""
    method = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", method) as z:
        z.writestr("metadata.json", b'{"keras_version": "3.0.0"}')
        z.writestr("config.json", config)
        z.write(weights, "model.weights.h5")


@pytest.mark.parametrize("how", OUTSIDE)
@pytest.mark.parametrize("route", ["weights.h5", "keras", "keras deflated"])
def test_hdf5_that_reaches_outside_the_file_is_refused(tmp_path: Path, how, route) -> None:
    _secret(tmp_path)
    weights = tmp_path / "m.weights.h5"
    _hostile(weights, how)
    path = weights
    if route != "weights.h5":
        path = tmp_path / "m.keras"
        _keras(path, weights, deflate=route == "keras deflated")
    with pytest.raises(CheckpointError, match=rf"^{path.name}: .*outside") as err:
        open_checkpoint(path)
    assert "1000" not in str(err.value)


def test_external_storage_is_refused_before_anything_is_read(tmp_path, capsys) -> None:
    _secret(tmp_path)
    weights = tmp_path / "m.weights.h5"
    _hostile(weights, "external storage")
    (tmp_path / "secret.bin").unlink()  # refused on what the file says, not what is there
    with pytest.raises(CheckpointError, match=r"^m.weights.h5: dataset '/dense/vars/0'.*external"):
        open_checkpoint(weights)
    assert main(["report", str(weights), "-f", "e4m3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "m.weights.h5" in err


def _unwritten(path: Path, shape, *, chunks=None, compression=None) -> None:
    with h5py.File(path, "w") as f:
        variables = f.create_group("dense").create_group("vars")
        variables.create_dataset("0", shape, np.float32, chunks=chunks, compression=compression)
        _layer(f)


@pytest.mark.parametrize(
    ("shape", "options"),
    [
        ((2**40,), {"chunks": (1024,)}),  # 4 TiB declared, no chunk written
        ((2**20, 2**20), {"chunks": (64, 64), "compression": "gzip"}),
        ((1000, 1000), {}),  # contiguous, never written: nothing allocated in the file
    ],
)
@pytest.mark.parametrize("route", ["weights.h5", "keras", "keras deflated"])
def test_declared_sizes_beyond_the_stored_bytes_are_refused(tmp_path, shape, options, route):
    weights = tmp_path / "m.weights.h5"
    _unwritten(weights, shape, **options)
    assert weights.stat().st_size < 100_000
    path = weights
    if route != "weights.h5":
        path = tmp_path / "m.keras"
        _keras(path, weights, deflate=route == "keras deflated")
    with pytest.raises(CheckpointError, match=rf"^{path.name}: dataset '/dense/vars/0' declares"):
        open_checkpoint(path)


def test_written_chunked_and_compressed_datasets_are_read(tmp_path: Path) -> None:
    kernel = np.arange(64 * 48, dtype=np.float32).reshape(64, 48) / 7
    path = tmp_path / "m.weights.h5"
    with h5py.File(path, "w") as f:
        variables = f.create_group("dense").create_group("vars")
        variables.create_dataset("0", data=kernel, chunks=(16, 16), compression="gzip")
        variables.create_dataset("9", data=np.zeros((0, 3), np.float32))  # empty: fine
        _layer(f)
        f["dense/vars"].create_dataset("2", data=np.zeros(5000, np.float32), compression="gzip")
    ckpt = open_checkpoint(path)
    np.testing.assert_array_equal(ckpt["dense/0"], kernel)
    assert ckpt["dense/9"].shape == (0, 3)


class _Counted:
    """Counts the bytes every zlib decompressor of zipfile gives out."""

    def __init__(self) -> None:
        self.out = 0

    def patch(self, monkeypatch) -> None:
        real = zipfile._get_decompressor  # type: ignore[attr-defined]
        counter = self

        class Wrapped:
            def __init__(self, inner) -> None:
                self.inner = inner

            def decompress(self, data, max_length=0):
                got = self.inner.decompress(data, max_length)
                counter.out += len(got)
                return got

            def __getattr__(self, name):
                return getattr(self.inner, name)

        monkeypatch.setattr(zipfile, "_get_decompressor", lambda t: Wrapped(real(t)))


def test_a_deflated_keras_file_is_inflated_once(tmp_path: Path, monkeypatch) -> None:
    rng = np.random.default_rng(0)
    weights = tmp_path / "m.weights.h5"
    layers = {f"dense_{i}": rng.standard_normal((64, 64)).astype(np.float32) for i in range(12)}
    with h5py.File(weights, "w") as f:
        for name, kernel in layers.items():
            variables = f.create_group(name).create_group("vars")
            variables.attrs["name"] = name
            variables["0"] = kernel
            variables["1"] = kernel[0]
        f.create_group("vars").attrs["name"] = "model"
    path = tmp_path / "m.keras"
    _keras(path, weights, deflate=True)
    with zipfile.ZipFile(path) as z:
        member = z.getinfo("model.weights.h5")
        assert member.compress_type == zipfile.ZIP_DEFLATED
        small = sum(i.file_size for i in z.infolist() if i.filename != "model.weights.h5")
    counted = _Counted()
    counted.patch(monkeypatch)
    ckpt = open_checkpoint(path)
    for name, kernel in layers.items():
        np.testing.assert_array_equal(ckpt[f"{name}/kernel"], kernel)
        np.testing.assert_array_equal(ckpt[f"{name}/bias"], kernel[0])
    # every byte of the weights inflated once (a backward seek inflates from the start again)
    assert counted.out <= member.file_size + small


def test_a_config_json_bomb_is_refused_unread(tmp_path: Path, monkeypatch) -> None:
    weights = tmp_path / "m.weights.h5"
    with h5py.File(weights, "w") as f:
        _layer(f, np.ones((3, 2), np.float32))
    path = tmp_path / "m.keras"
    bomb = b'{"a": "' + b" " * (200 << 20) + b'"}'  # 200 MB of JSON, 200 KB deflated
    size = len(bomb)
    _keras(path, weights, deflate=True, config=bomb)
    del bomb
    counted = _Counted()
    counted.patch(monkeypatch)
    with pytest.raises(CheckpointError, match=rf"^m.keras: config.json inflates to {size} bytes"):
        open_checkpoint(path)
    assert counted.out < 64 << 20  # stopped at the limit, not inflated whole


def _lie_about_size(path: Path, member: str, size: int) -> None:
    """Write ``size`` as ``member``'s uncompressed size in both of its zip headers."""
    raw = bytearray(path.read_bytes())
    name = member.encode()
    i = raw.find(b"PK\x01\x02")
    while i >= 0:  # the central directory's entries
        if raw[i + 46 : i + 46 + len(name)] == name:
            raw[i + 24 : i + 28] = size.to_bytes(4, "little")
            local = int.from_bytes(raw[i + 42 : i + 46], "little")
            raw[local + 22 : local + 26] = size.to_bytes(4, "little")
        i = raw.find(b"PK\x01\x02", i + 4)
    path.write_bytes(bytes(raw))


def test_a_lying_zip_size_is_refused(tmp_path: Path) -> None:
    """A member whose size field claims more than deflate can give from its bytes."""
    weights = tmp_path / "m.weights.h5"
    with h5py.File(weights, "w") as f:
        _layer(f, np.ones((3, 2), np.float32))
    path = tmp_path / "m.keras"
    _keras(path, weights, deflate=True, config=json.dumps({"x": 1}).encode())
    _lie_about_size(path, "model.weights.h5", 2**32 - 2)
    with pytest.raises(CheckpointError, match=r"^m.keras: model.weights.h5 claims 4294967294"):
        open_checkpoint(path)


def test_a_legacy_file_naming_one_weight_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.h5"
    with h5py.File(path, "w") as f:
        f.attrs["layer_names"] = [b"a", b"b"]
        for layer in ("a", "b"):
            group = f.create_group(layer)
            group.attrs["weight_names"] = [b"dense/kernel:0"]
            group.create_group("dense")["kernel:0"] = np.ones((2, 2), np.float32)
    with pytest.raises(CheckpointError, match=r"^old.h5: variable 'dense/kernel' appears twice"):
        open_checkpoint(path)


def test_an_empty_dataspace_in_the_optimizer_is_no_lie(tmp_path: Path) -> None:
    path = tmp_path / "m.weights.h5"
    with h5py.File(path, "w") as f:
        _layer(f, np.ones((3, 2), np.float32))
        f.create_group("optimizer").create_dataset("nothing", data=h5py.Empty("f4"))
    assert list(open_checkpoint(path)) == ["dense/kernel", "dense/bias"]

"""Read numpy's ``.npy`` and ``.npz`` files, memory-mapped where the bytes allow.

* ``.npy``: one tensor, named by the file's stem (``"w.npy"`` gives ``"w"``),
  memory-mapped as ``np.load(path, mmap_mode="r")`` would.
* ``.npz`` (a zip of ``.npy`` members, named without ``.npy`` as ``np.load`` names
  them): a member stored without compression (``np.savez``) is memory-mapped at its
  place inside the zip, so nothing is copied; a compressed member
  (``np.savez_compressed``) cannot be mapped, and is decompressed when it is read,
  one member at a time (its whole size in memory while it is used). Opening reads
  only each member's ``.npy`` header.

Every size is checked before anything is allocated: a header must describe
exactly the bytes its member (or file) holds, a deflated member may claim no more
than deflate can give from its compressed bytes
(:func:`~fpexplore.io.zip_members.check_member`), and two members of one name are
refused (``np.load`` would keep the last silently).

Arrays of Python objects (which ``.npy`` stores pickled) are refused: reading
them would run code from the file. So are arrays of raw records (``'<V2'``), which
is how numpy saves ml_dtypes arrays: the file does not say whether its 2-byte
values are bfloat16 or something else (a ``.safetensors`` file names its dtypes).

Examples
--------
>>> import numpy as np, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "weights.npz")
>>> np.savez(path, w=np.arange(6.0).reshape(2, 3), b=np.zeros(3, np.float16))
>>> ckpt = read_npz(path)
>>> list(ckpt), ckpt["w"][1]
(['w', 'b'], array([3., 4., 5.]))
"""

from __future__ import annotations

import os
import zipfile
import zlib
from typing import IO, Any, Literal

import numpy as np

from .checkpoint import Checkpoint, CheckpointError, Entry, Raw, TensorSpec
from .zip_members import check_member, stored_data_start

__all__ = ["read_npy", "read_npz"]

_MAX_HEADER = 1 << 20


def _npy_header(f: IO[bytes], where: str) -> tuple[TensorSpec, Literal["C", "F"], int]:
    """Spec, order and header length of the ``.npy`` data that ``f`` starts at."""
    fmt = np.lib.format
    begin = f.tell()
    try:
        version = fmt.read_magic(f)
        read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
        shape, fortran, dtype = read(f, max_header_size=_MAX_HEADER)
    except Exception as err:  # numpy's parser raises ValueError, SyntaxError, TokenError...
        raise CheckpointError(f"{where}: not a valid .npy header: {err}") from None
    if dtype.hasobject:
        raise CheckpointError(
            f"{where}: holds Python objects (dtype {dtype}), stored pickled; "
            "expected an array of numbers"
        )
    if dtype.kind == "V":
        raise CheckpointError(
            f"{where}: holds raw {dtype.itemsize}-byte records (dtype {dtype.str!r}), as numpy "
            "saves ml_dtypes arrays such as bfloat16: the file does not say which format; "
            "save float32 values, or a .safetensors file, which names its dtypes"
        )
    if dtype.kind not in "biufc":
        raise CheckpointError(f"{where}: holds dtype {dtype}; expected numbers")
    order: Literal["C", "F"] = "F" if fortran else "C"
    return TensorSpec(tuple(shape), dtype), order, f.tell() - begin


def read_npy(path: str) -> Checkpoint:
    """A :class:`Checkpoint` of one memory-mapped ``.npy`` array, named by the stem."""
    name = os.path.basename(path)
    with open(path, "rb") as f:
        spec, order, offset = _npy_header(f, name)
    size = os.path.getsize(path)
    if offset + spec.nbytes > size:
        raise CheckpointError(
            f"{name}: its header describes {spec.nbytes} bytes of {spec.dtype} {spec.shape} "
            f"but the file holds {size - offset} after the header: truncated"
        )
    stem = name[: -len(".npy")] if name.lower().endswith(".npy") else name
    return Checkpoint(path, "npy", {stem: Entry(spec, Raw(path, offset, order))})


def _holds(spec: TensorSpec, header: int, info: zipfile.ZipInfo, where: str) -> None:
    if header + spec.nbytes != info.file_size:
        raise CheckpointError(
            f"{where}: its header describes {spec.nbytes} bytes of {spec.dtype} "
            f"{spec.shape} but the member holds {info.file_size - header}"
        )


def _member(path: str, z: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, size: int) -> Entry:
    where = f"{name}: member {info.filename!r}"
    check_member(info, where, size)  # sizes that agree; no more than deflate can give
    if info.compress_type == zipfile.ZIP_STORED:
        with open(path, "rb") as f:
            start = stored_data_start(f, info, where)
            f.seek(start)
            spec, order, header = _npy_header(f, where)
        _holds(spec, header, info, where)
        if start + info.file_size > size:
            raise CheckpointError(f"{where} runs past the end of the archive: truncated")
        return Entry(spec, Raw(path, start + header, order))
    try:
        with z.open(info) as f:
            spec, _, header = _npy_header(f, where)
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as err:  # bytes that do not inflate
        raise CheckpointError(f"{where} cannot be decompressed: {err}") from None
    _holds(spec, header, info, where)  # the header promises what the member's size says
    return Entry(spec, lambda: _inflate(path, info, spec, where))


def _inflate(path: str, info: zipfile.ZipInfo, spec: TensorSpec, where: str) -> Any:
    """A deflated member's array, read into an array of the size checked at open."""
    try:
        with zipfile.ZipFile(path) as z, z.open(info.filename) as member:
            f: Any = member
            _, order, _ = _npy_header(f, where)
            out = np.empty(spec.shape, spec.dtype, order=order)
            flat: Any = out.reshape(-1, order="A")  # a view: the bytes in the file's order
            view = memoryview(flat).cast("B")
            got = 0
            while got < spec.nbytes:
                n = f.readinto(view[got:])
                if not n:
                    raise EOFError(f"it ends after {got} of {spec.nbytes} bytes")
                got += n
            if f.read(1):
                raise ValueError("it holds more bytes than its header describes")
            return out
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error) as err:
        if isinstance(err, CheckpointError):
            raise
        raise CheckpointError(f"{where} cannot be read: {err}") from None


def read_npz(path: str) -> Checkpoint:
    """A :class:`Checkpoint` of an ``.npz`` archive: its ``.npy`` members, by name."""
    name = os.path.basename(path)
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as err:
        raise CheckpointError(f"{name}: not a zip archive (an .npz file is one): {err}") from None
    entries: dict[str, Entry] = {}
    size = os.path.getsize(path)
    with z:
        for info in z.infolist():
            if info.is_dir():
                continue
            if not info.filename.endswith(".npy"):
                raise CheckpointError(
                    f"{name}: member {info.filename!r} is not a .npy array; "
                    "an .npz file holds .npy members only"
                )
            key = info.filename[: -len(".npy")]
            if key in entries:
                raise CheckpointError(f"{name}: two members are named {info.filename!r}")
            entries[key] = _member(path, z, info, name, size)
    return Checkpoint(path, "npz", entries)

"""Members of zip archives (``.npz``, ``.keras``) read in place, without extracting them.

A member stored without compression is a run of bytes inside the archive, after its
local header (30 bytes), its name and its extra field (where zip64 sizes live):
:func:`stored_data_start` finds where the run starts, so that a reader can memory-map
it (``.npz`` arrays) or open it as a file of its own (:class:`Window`: the HDF5 file
inside a ``.keras`` archive, which h5py then reads in place).

A member's sizes come from the archive, which anyone can write: :func:`check_member`
refuses encrypted members, compression methods other than stored and deflate, a
stored member whose sizes disagree or that runs past the archive, and a deflated
member that claims more than :data:`MAX_RATIO` times its compressed bytes (more
than deflate can give). :func:`read_member` inflates a small member (a
``config.json``) up to a limit; :func:`inflate_to_file` inflates a large one once,
in order, into a temporary file, where h5py, which seeks back and forth, can
read it (a zip member seeked backwards is inflated again from its start).

Examples
--------
>>> import io, os, tempfile, zipfile
>>> path = os.path.join(tempfile.mkdtemp(), "a.zip")
>>> with zipfile.ZipFile(path, "w") as z:
...     z.writestr("hello.txt", b"hello, world")
>>> with zipfile.ZipFile(path) as z:
...     info = z.getinfo("hello.txt")
>>> with open(path, "rb") as f:
...     start = stored_data_start(f, info, "a.zip")
>>> with Window(path, start, info.file_size) as member:
...     _ = member.seek(7)
...     member.read()
b'world'
"""

from __future__ import annotations

import io
import os
import shutil
import struct
import tempfile
import zipfile
from typing import IO, Any

from .checkpoint import CheckpointError

__all__ = [
    "MAX_RATIO",
    "Window",
    "check_member",
    "inflate_to_file",
    "not_torch",
    "read_member",
    "stored_data_start",
]

MAX_RATIO = 1032
"""The most bytes a deflated member may claim for each compressed byte: deflate's
largest ratio (a run of one byte value)."""


def check_member(info: zipfile.ZipInfo, where: str, archive_size: int) -> None:
    """Refuse a member that its sizes or method make unreadable or a bomb."""
    if info.flag_bits & 1:
        raise CheckpointError(f"{where} is encrypted")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise CheckpointError(
            f"{where} is compressed with zip method {info.compress_type}; "
            "expected stored (0) or deflate (8)"
        )
    if info.header_offset + info.compress_size > archive_size:
        raise CheckpointError(
            f"{where} claims {info.compress_size} bytes at offset {info.header_offset}, "
            f"past the end of the {archive_size}-byte archive: truncated or corrupt"
        )
    if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
        raise CheckpointError(
            f"{where} is stored without compression, but its sizes disagree "
            f"({info.file_size} and {info.compress_size} bytes): corrupt"
        )
    if info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise CheckpointError(
            f"{where} claims {info.file_size} bytes from {info.compress_size} deflated, "
            f"more than deflate can give (at most {MAX_RATIO} to 1): corrupt, or a bomb"
        )


def read_member(z: zipfile.ZipFile, info: zipfile.ZipInfo, where: str, limit: int) -> bytes:
    """A member's bytes, refused (before inflating) if it claims more than ``limit``."""
    if info.file_size > limit:
        raise CheckpointError(
            f"{where} inflates to {info.file_size} bytes, over the {limit}-byte limit"
        )
    with z.open(info) as f:
        data = f.read(limit + 1)  # zipfile stops at the size claimed, and checks the CRC
    return data


def inflate_to_file(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> IO[bytes]:
    """A deflated member inflated once, in order, into an anonymous temporary file
    (removed when it is closed); its size is checked by :func:`check_member` first."""
    out = tempfile.TemporaryFile()
    try:
        with z.open(info) as f:
            shutil.copyfileobj(f, out, 1 << 20)
    except BaseException:
        out.close()
        raise
    out.flush()
    return out


def stored_data_start(f: IO[bytes], info: zipfile.ZipInfo, where: str) -> int:
    """Where a stored member's bytes start in the archive open as ``f``."""
    f.seek(info.header_offset)
    local = f.read(30)
    if len(local) < 30 or local[:4] != b"PK\x03\x04":
        raise CheckpointError(f"{where}: its local zip header is missing or corrupt")
    name_length, extra_length = struct.unpack("<HH", local[26:30])
    start: int = info.header_offset + 30 + name_length + extra_length
    return start


class Window(io.RawIOBase):
    """The bytes ``[start, start + size)`` of a file (a path, or an open file whose
    descriptor is duplicated), as a seekable file of their own."""

    def __init__(self, path: str | IO[bytes], start: int, size: int) -> None:
        if isinstance(path, str):
            self._file = open(path, "rb")
        else:
            self._file = os.fdopen(os.dup(path.fileno()), "rb")
        self._start, self._size, self._at = start, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        base = (0, self._at, self._size)[whence]
        self._at = max(0, base + offset)
        return self._at

    def tell(self) -> int:
        return self._at

    def readinto(self, buffer: Any) -> int:
        n = max(0, min(len(buffer), self._size - self._at))
        self._file.seek(self._start + self._at)
        got = self._file.readinto(memoryview(buffer)[:n])
        self._at += got or 0
        return got or 0

    def close(self) -> None:
        self._file.close()
        super().close()


def not_torch(names: list[str]) -> str:
    """What a zip whose members are ``names`` is, when it is not a torch checkpoint
    (``""`` when it is: a ``data.pkl`` and no TorchScript code).

    >>> not_torch(["pkg/__init__.py", "pkg-1.0.dist-info/WHEEL"])
    'a Python wheel (pkg-1.0.dist-info), not a checkpoint'
    >>> not_torch(["m/data.pkl", "m/data/0"])
    ''
    """
    if any(n.endswith(".dist-info/WHEEL") for n in names):
        info = next(n for n in names if n.endswith(".dist-info/WHEEL")).split("/")[0]
        return f"a Python wheel ({info}), not a checkpoint"
    if any(n.endswith("data.pkl") for n in names):
        if any("/code/" in n or n.endswith("constants.pkl") for n in names):
            return ("a TorchScript archive (torch.jit.save), not a state_dict: load it with "
                    "torch.jit.load and pass its state_dict() instead")  # fmt: skip
        return ""
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return f"a zip archive that is no checkpoint this reads (members: {shown or 'none'})"

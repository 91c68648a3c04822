"""Members of zip archives (``.npz``, ``.keras``) read in place, without extracting them.

A member stored without compression is a run of bytes inside the archive, after its
local header (30 bytes), its name and its extra field (where zip64 sizes live):
:func:`stored_data_start` finds where the run starts, so that a reader can memory-map
it (``.npz`` arrays) or open it as a file of its own (:class:`Window`: the HDF5 file
inside a ``.keras`` archive, which h5py then reads in place).

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
import struct
import zipfile
from typing import IO, Any

from .checkpoint import CheckpointError

__all__ = ["Window", "not_torch", "stored_data_start"]


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
    """The bytes ``[start, start + size)`` of a file, as a seekable file of their own."""

    def __init__(self, path: str, start: int, size: int) -> None:
        self._file, self._start, self._size, self._at = open(path, "rb"), start, size, 0

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

"""The ``.keras`` archive around a Keras weights file: its ``config.json``, bounded, and
its ``model.weights.h5``, read in place when stored (as Keras writes it) or inflated
once into a temporary file when deflated (h5py seeks back and forth, and a zip member
seeked backwards is inflated again from its start: a deflated archive read in place
takes time that grows with the square of its size).

Every member's sizes are checked first (:func:`fpexplore.io.zip_members.check_member`),
and ``config.json`` is refused over :data:`MAX_CONFIG` bytes before it is inflated.
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from collections.abc import Callable
from typing import Any

from .checkpoint import CheckpointError
from .zip_members import Window, check_member, inflate_to_file, read_member, stored_data_start

__all__ = ["MAX_CONFIG", "Inflated", "weights_member"]

MAX_CONFIG = 64 << 20
"""The largest ``config.json`` read from a ``.keras`` archive, in bytes."""


def weights_member(path: str, name: str) -> tuple[Callable[[], Any], Any, int]:
    """An opener of ``model.weights.h5`` inside a ``.keras`` zip, the model config and
    the member's size."""
    archive = os.path.getsize(path)
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            if "model.weights.h5" not in names:
                raise CheckpointError(
                    f"{name}: no model.weights.h5 inside (members: {', '.join(names)}); "
                    "expected a .keras file written by model.save"
                )
            config = None
            if "config.json" in names:
                info = z.getinfo("config.json")
                check_member(info, f"{name}: config.json", archive)
                config = json.loads(read_member(z, info, f"{name}: config.json", MAX_CONFIG))
            info = z.getinfo("model.weights.h5")
            check_member(info, f"{name}: model.weights.h5", archive)
            if info.compress_type == zipfile.ZIP_STORED:  # as Keras writes it: read in place
                with open(path, "rb") as f:
                    start = stored_data_start(f, info, f"{name}: model.weights.h5")
                if start + info.file_size > archive:
                    raise CheckpointError(f"{name}: model.weights.h5 runs past the archive's end")
                return (lambda: Window(path, start, info.file_size)), config, info.file_size
            inflated = inflate_to_file(z, info)  # read once, in order; h5py seeks back and forth
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error) as err:
        if isinstance(err, CheckpointError):
            raise
        raise CheckpointError(f"{name}: not a readable .keras archive: {err}") from None
    opener = Inflated(inflated, info.file_size)
    return opener, config, info.file_size


class Inflated:
    """Opens a member inflated into a temporary file (closed with the checkpoint)."""

    def __init__(self, file: Any, size: int) -> None:
        self.file, self.size = file, size

    def __call__(self) -> Window:
        return Window(self.file, 0, self.size)

"""The mapping that :func:`fpexplore.open_checkpoint` returns, and its errors.

A :class:`Checkpoint` holds one :class:`Entry` per tensor: the tensor's
:class:`TensorSpec` (shape and dtype, read from the file's table of contents when it
was opened) and how to read it. Reading ``ckpt[name]`` reads that tensor alone:

* raw bytes at a known place in the file (safetensors, ``.npy``, the members of an
  ``.npz`` stored without compression): a read-only memory map of just those bytes,
  so nothing is read until the array is used, and only the pages used are read;
  :meth:`Checkpoint.read_rows` copies a run of rows out of a map opened and closed
  for that call, so a long walk over a large tensor keeps only one chunk resident;
* anything else (compressed ``.npz`` members, HDF5, ONNX, torch): the library's
  reader, for that tensor only.

Every problem is a :class:`CheckpointError` (a ``ValueError``) whose message starts
with the file's name.

Examples
--------
>>> import numpy as np
>>> ckpt = Checkpoint("weights", "mapping", {"w": Entry(TensorSpec((2, 3), np.dtype("f4")),
...                                                         lambda: np.ones((2, 3), "f4"))})
>>> ckpt
<Checkpoint weights (mapping): 1 tensor, 6 values>
>>> ckpt.spec("w").nbytes, ckpt["w"].shape
(24, (2, 3))
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

__all__ = [
    "EXTRA",
    "Checkpoint",
    "CheckpointError",
    "CheckpointNotFoundError",
    "Entry",
    "MissingLibraryError",
    "Raw",
    "TensorRole",
    "TensorSpec",
    "ml_dtype",
]

EXTRA = 'pip install -e ".[checkpoints]"'
"""How to install the readers' optional libraries (h5py, onnx, ml_dtypes) from a clone."""


class CheckpointError(ValueError):
    """A checkpoint that cannot be read: the message names the file and the problem."""


class CheckpointNotFoundError(CheckpointError, FileNotFoundError):
    """No file at the path given (a ``ValueError`` and a ``FileNotFoundError``)."""


class MissingLibraryError(CheckpointError, ImportError):
    """An optional library that this file needs is not installed (also an ``ImportError``)."""


class TensorSpec(NamedTuple):
    """A tensor's shape and dtype, known without reading its values."""

    shape: tuple[int, ...]
    dtype: np.dtype[Any]

    @property
    def size(self) -> int:
        """The number of values."""
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        """The bytes its values take in memory."""
        return self.size * self.dtype.itemsize


class TensorRole(NamedTuple):
    """What a file says of a tensor's use, as far as it says anything.

    ``axis``: the axis its layer sums over (None: not known); ``source``: where that
    came from, ``"graph"`` (the ONNX node consuming it), ``"layer"`` (its Keras
    layer), ``"layout"`` (the framework's layout of the file's kind: PyTorch's
    ``(out, in, *kernel)``) or ``""``; ``weight``: whether it is a layer's weight
    (an ONNX initializer a Conv, Gemm, MatMul or Gather consumes, a trainable Keras
    variable), None if the file does not say; ``note``: why no axis is known.
    """

    axis: int | None = None
    source: str = ""
    weight: bool | None = None
    note: str = ""


LAYOUT_KINDS = ("safetensors", "npz", "npy", "torch")
"""Kinds of file whose tensors are taken to be in PyTorch's layout: a Linear weight
``(out, in)`` and a convolution's ``(out, in / groups, *kernel)`` sum over axis 1."""


@dataclass(frozen=True)
class Raw:
    """A tensor stored as raw bytes: ``spec.nbytes`` bytes from ``offset`` of ``path``,
    in C (row-major) or Fortran order."""

    path: str
    offset: int
    order: Literal["C", "F"] = "C"


@dataclass(frozen=True)
class Entry:
    """One tensor of a checkpoint: its spec and either raw bytes or a loader."""

    spec: TensorSpec
    source: Raw | Callable[[], Any]


def _map(raw: Raw, spec: TensorSpec, shape: tuple[int, ...], offset: int) -> np.ndarray:
    """A read-only array over ``shape`` values of ``spec.dtype`` at ``offset``."""
    if math.prod(shape) == 0:
        empty = np.empty(shape, spec.dtype)
        empty.flags.writeable = False
        return empty
    mapped = np.memmap(raw.path, spec.dtype, "r", offset, shape or (1,), order=raw.order)
    array: np.ndarray = mapped.view(np.ndarray)  # a plain array, holding the map open
    return array.reshape(shape) if not shape else array


class Checkpoint(Mapping[str, Any]):
    """A read-only mapping of tensor names to arrays, each read when asked for.

    Made by :func:`fpexplore.open_checkpoint`. ``ckpt[name]`` reads one tensor (a
    memory map where the file stores raw bytes); :meth:`spec` gives its shape and
    dtype without reading it. Values keep the dtype they are stored in (bfloat16
    and FP8 as ml_dtypes types) and, read from a file, are read-only arrays
    (a mapping's values are given as they are). Names iterate in the file's order.

    Attributes
    ----------
    name : str
        The file's name (without its folder), or ``"mapping"`` for a Python mapping.
    kind : str
        What was read: ``"safetensors"``, ``"npy"``, ``"npz"``, ``"keras"``,
        ``"onnx"``, ``"torch"`` or ``"mapping"``.
    path : str or None
        The file, or None for a Python mapping.
    """

    def __init__(
        self, path: str | None, kind: str, entries: Mapping[str, Entry], *, name: str = "",
        roles: Mapping[str, TensorRole] | None = None,
    ) -> None:  # fmt: skip
        self.path = None if path is None else os.fspath(path)
        self.kind = kind
        self.name = name or (os.path.basename(self.path) if self.path else "mapping")
        self._entries = dict(entries)
        self._roles = dict(roles or {})

    def __getitem__(self, name: str) -> Any:
        entry = self._entry(name)
        if isinstance(entry.source, Raw):
            try:
                return _map(entry.source, entry.spec, entry.spec.shape, entry.source.offset)
            except (OSError, ValueError) as err:  # the file changed since it was opened
                raise self.error(f"cannot read tensor {name!r}: {err}") from err
        try:
            value = entry.source()
        except (CheckpointError, MemoryError):
            raise
        except Exception as err:  # a library's error on a file changed or corrupt since
            raise self.error(f"cannot read tensor {name!r}: {type(err).__name__}: {err}") from err
        if self.path is not None and isinstance(value, np.ndarray):
            value.flags.writeable = False  # read from a file: read-only, as a memory map is
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def spec(self, name: str) -> TensorSpec:
        """The shape and dtype of tensor ``name``, without reading it."""
        return self._entry(name).spec

    def role(self, name: str) -> TensorRole:
        """What the file says of tensor ``name``'s use (:class:`TensorRole`): from the
        ONNX graph or the Keras layers where the reader knows them; a tensor of rank 2
        or more of a :data:`LAYOUT_KINDS` file sums over axis 1; else nothing known."""
        spec = self._entry(name).spec
        if name in self._roles:
            return self._roles[name]
        if self.kind in LAYOUT_KINDS and len(spec.shape) >= 2:
            return TensorRole(1, "layout")
        return TensorRole()

    def constant(self, name: str) -> str:
        """Why the file says tensor ``name`` is a constant rather than a parameter, or
        ``""``: only ONNX files name constants
        (:meth:`fpexplore.io.onnx_files.OnnxCheckpoint.constant`)."""
        self._entry(name)
        return ""

    def read_rows(self, name: str, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` (along the first axis) of tensor ``name``, as a copy.

        Raw bytes are copied out of a memory map of just those rows that is closed
        before this returns, so walking a large tensor chunk by chunk keeps one
        chunk in memory (a map of the whole tensor would keep every page it read).
        Other tensors are read whole and sliced.
        """
        entry = self._entry(name)
        spec, raw = entry.spec, entry.source
        if not spec.shape:
            raise ValueError(f"tensor {name!r} of {self.name} is 0-d; it has no rows")
        start, stop, _ = slice(start, stop).indices(spec.shape[0])
        stop = max(start, stop)
        if not isinstance(raw, Raw) or raw.order != "C":
            return np.array(self[name][start:stop])
        row = math.prod(spec.shape[1:]) * spec.dtype.itemsize
        shape = (stop - start, *spec.shape[1:])
        try:
            mapped = _map(raw, spec, shape, raw.offset + start * row)
            return np.array(mapped)
        except (OSError, ValueError) as err:
            raise self.error(f"cannot read tensor {name!r}: {err}") from err

    def error(self, problem: str) -> CheckpointError:
        """A :class:`CheckpointError` whose message starts with this file's name."""
        return CheckpointError(f"{self.name}: {problem}")

    def _entry(self, name: str) -> Entry:
        try:
            return self._entries[name]
        except (KeyError, TypeError):
            close = difflib.get_close_matches(str(name), list(self._entries), n=3)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            raise KeyError(f"{name!r} is not a tensor of {self.name}{hint}") from None

    def __repr__(self) -> str:
        n = len(self)
        values = sum(entry.spec.size for entry in self._entries.values())
        return (
            f"<Checkpoint {self.name} ({self.kind}): {n} tensor{'s' if n != 1 else ''}, "
            f"{values:,} values>"
        )


def ml_dtype(name: str, where: str) -> np.dtype[Any]:
    """The numpy dtype of the ml_dtypes type ``name`` (``"bfloat16"``...); a
    :class:`MissingLibraryError` naming ``where`` if ml_dtypes is not installed."""
    try:
        import ml_dtypes
    except ImportError as err:
        raise MissingLibraryError(f"{where} is {name}, which needs ml_dtypes: {EXTRA}") from err
    kind = getattr(ml_dtypes, name, None)
    if kind is None:
        raise MissingLibraryError(
            f"{where} is {name}, which this ml_dtypes {ml_dtypes.__version__} lacks; "
            f"upgrade it: {EXTRA}"
        )
    dtype: np.dtype[Any] = np.dtype(kind)
    return dtype

"""open_checkpoint(): which reader a path takes, and Python mappings of arrays.

A path is read by its suffix; a file whose suffix says nothing (``pytorch_model``,
``weights.data``) by its first bytes. A mapping of names to arrays is checked and
wrapped as it is: its values are not copied or converted (torch tensors excepted,
which become numpy arrays, see :mod:`fpexplore.io.torch_files`), and nested
mappings (a flax ``params`` tree) are flattened with ``/`` between the keys.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Mapping
from typing import Any

import numpy as np

from .checkpoint import (
    Checkpoint,
    CheckpointError,
    CheckpointNotFoundError,
    Entry,
    MissingLibraryError,
    TensorSpec,
)

__all__ = ["SUFFIXES", "open_checkpoint"]

SUFFIXES = {
    ".safetensors": "safetensors",
    ".npy": "npy",
    ".npz": "npz",
    ".keras": "keras",
    ".h5": "keras_h5",
    ".hdf5": "keras_h5",
    ".onnx": "onnx",
    ".pt": "torch",
    ".pth": "torch",
    ".bin": "torch",
    ".ckpt": "torch",
}
"""The suffixes read, and the reader of each."""


def _reader(kind: str) -> Any:
    if kind == "safetensors":
        from .safetensors_file import read_safetensors

        return read_safetensors
    if kind in ("npy", "npz"):
        from . import numpy_files

        return numpy_files.read_npy if kind == "npy" else numpy_files.read_npz
    if kind in ("keras", "keras_h5"):
        from . import keras_files

        return keras_files.read_keras if kind == "keras" else keras_files.read_weights_h5
    if kind == "onnx":
        from .onnx_files import read_onnx

        return read_onnx
    from .torch_files import read_torch

    return read_torch


def _sniff(path: str) -> str | None:
    """The reader that a file's first bytes point to, or None."""
    with open(path, "rb") as f:
        head = f.read(16)
    if head.startswith(b"\x93NUMPY"):
        return "npy"
    if head.startswith(b"\x89HDF\r\n\x1a\n"):
        return "keras_h5"
    if len(head) >= 9 and head[8:9] == b"{" and int.from_bytes(head[:8], "little") < 1 << 27:
        return "safetensors"
    if head.startswith(b"PK\x03\x04"):
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
        if "model.weights.h5" in names:
            return "keras"
        if names and all(n.endswith(".npy") for n in names):
            return "npz"
        return "torch"  # _open_path names any other zip for what it is
    if head[:1] == b"\x80":  # a pickle: torch's legacy format
        return "torch"
    return None


def _open_path(path: str) -> Checkpoint:
    name = os.path.basename(path) or path
    if not os.path.exists(path):
        raise CheckpointNotFoundError(f"{name}: no such file ({path})")
    lower = name.lower()
    if os.path.isdir(path) or lower.endswith(".index.json"):
        from .sharded import find_index, read_sharded

        return read_sharded(find_index(path) if os.path.isdir(path) else path)
    kind = next((k for suffix, k in SUFFIXES.items() if lower.endswith(suffix)), None)
    if kind is None:
        try:
            kind = _sniff(path)
        except Exception:  # an unreadable zip and the like: say what is read instead
            kind = None
        if kind is None:
            raise CheckpointError(
                f"{name}: unknown kind of file; expected one of {', '.join(SUFFIXES)}"
            )
    if kind == "torch" and zipfile.is_zipfile(path):  # a wheel or TorchScript is no state_dict
        from .zip_members import not_torch

        with zipfile.ZipFile(path) as z:
            refused = not_torch(z.namelist())
        if refused:
            raise CheckpointError(f"{name}: {refused}")
    try:
        checkpoint: Checkpoint = _reader(kind)(path)
    except MissingLibraryError as err:
        if str(err).startswith(f"{name}: "):
            raise
        raise MissingLibraryError(f"{name}: {err}") from err
    except CheckpointError:
        raise
    except PermissionError as err:
        raise CheckpointError(f"{name}: cannot be read: {err.strerror}") from None
    except MemoryError:
        raise
    except Exception as err:  # what a library raises on a corrupt file: h5py's RuntimeError,
        # zipfile's NotImplementedError (an unknown compression method), among others
        raise CheckpointError(
            f"{name}: not a readable {kind} file: {type(err).__name__}: {err}"
        ) from err
    return checkpoint


def _flatten(mapping: Mapping[Any, Any], prefix: str, out: dict[str, Any]) -> None:
    for key, value in mapping.items():
        if not isinstance(key, str):
            raise CheckpointError(
                f"mapping: key {key!r} is {type(key).__name__}; expected tensor names (str)"
            )
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            _flatten(value, f"{name}/", out)
        elif name in out:
            raise CheckpointError(f"mapping: two tensors are named {name!r}")
        else:
            out[name] = value


def _spec(name: str, value: Any) -> tuple[TensorSpec, Any]:
    """The spec of a mapping's value, and the value to give (torch tensors converted)."""
    if type(value).__module__.startswith("torch"):
        from .torch_files import tensor_spec, to_numpy

        return tensor_spec(value, f"mapping: tensor {name!r}"), lambda: to_numpy(value)
    if not (hasattr(value, "shape") and hasattr(value, "dtype")):
        if isinstance(value, str | bytes) or not hasattr(value, "__len__"):
            raise CheckpointError(
                f"mapping: {name!r} is {type(value).__name__}; expected an array "
                "(numpy, dask, JAX, ml_dtypes or torch)"
            )
        try:
            value = np.asarray(value)
        except (ValueError, TypeError) as err:  # ragged lists and the like
            raise CheckpointError(f"mapping: {name!r} cannot be read as an array: {err}") from None
    if any(not isinstance(n, int | np.integer) for n in value.shape):
        raise CheckpointError(
            f"mapping: {name!r} has unknown chunk sizes (shape {value.shape}); "
            "call .compute_chunk_sizes() on it first"
        )
    try:
        dtype = np.dtype(value.dtype)
    except TypeError:
        raise CheckpointError(
            f"mapping: {name!r} has dtype {value.dtype}, which numpy does not know"
        ) from None
    if dtype.hasobject or dtype.kind in "SUMm":
        raise CheckpointError(f"mapping: {name!r} has dtype {dtype}; expected numbers")
    return TensorSpec(tuple(int(n) for n in value.shape), dtype), lambda: value


def open_checkpoint(source: Any) -> Checkpoint:
    """Open a checkpoint file, or wrap a mapping of arrays, as a read-only mapping.

    Parameters
    ----------
    source : str, os.PathLike or mapping
        A file, read by its suffix (by its first bytes when the suffix is none of
        these):

        * ``.safetensors``: every dtype, bfloat16 and FP8 as ml_dtypes types; mapped;
        * ``.npy``: one tensor named by the file's stem; mapped;
        * ``.npz``: the arrays by name; mapped unless compressed;
        * ``.keras``, ``.weights.h5``: the model's variables by layer path
          (``"dense/kernel"``), not the optimizer's state; legacy Keras 2 ``.h5``
          files too (needs h5py);
        * ``.onnx``: floating-point initializers and Constant nodes by name (needs
          onnx);
        * ``.pt``, ``.pth``, ``.bin``, ``.ckpt``: a PyTorch ``state_dict`` (needs
          torch), bfloat16 and FP8 as ml_dtypes types; mapped (a wheel, a TorchScript
          archive or another zip is refused, named for what it is);
        * a folder of ``.safetensors`` shards with their ``*.safetensors.index.json``,
          or the index itself: every shard as one mapping, names as the index gives
          them (:mod:`fpexplore.io.sharded`);

        or a mapping of names to arrays (numpy, dask, JAX, ml_dtypes or torch;
        nested mappings are flattened with ``/``), wrapped without copying.

    Returns
    -------
    Checkpoint
        A read-only ``Mapping[str, array]`` that reads each tensor when it is
        asked for (``.spec(name)`` gives its shape and dtype without reading it).
        Values keep their stored dtype.

    Raises
    ------
    CheckpointError
        A ``ValueError`` naming the file and the problem: a missing file (also a
        ``FileNotFoundError``), a directory, an unknown kind of file, a truncated
        or corrupt header, offsets out of range or overlapping, a shape that does
        not match the bytes, an unknown dtype, or a missing optional library
        (also an ``ImportError``; the message says what to install). Nothing is
        returned unless every tensor could be described.

    Examples
    --------
    >>> import numpy as np
    >>> ckpt = open_checkpoint({"dense": {"kernel": np.ones((4, 2), np.float32)}})
    >>> list(ckpt), ckpt.spec("dense/kernel").shape
    (['dense/kernel'], (4, 2))
    >>> open_checkpoint("missing.safetensors")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fpexplore.io.checkpoint.CheckpointNotFoundError: missing.safetensors: no such file (...)
    """
    if isinstance(source, Checkpoint):
        return source
    if isinstance(source, Mapping):
        flat: dict[str, Any] = {}
        _flatten(source, "", flat)
        entries = {}
        for name, value in flat.items():
            spec, load = _spec(name, value)
            entries[name] = Entry(spec, load)
        return Checkpoint(None, "mapping", entries)
    if isinstance(source, str | os.PathLike):
        return _open_path(os.fspath(source))
    raise TypeError(
        f"open_checkpoint expected a path or a mapping of names to arrays, "
        f"got {type(source).__name__}"
    )

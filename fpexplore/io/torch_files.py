"""Read PyTorch ``state_dict`` files (``.pt``, ``.pth``, ``.bin``, ``.ckpt``; needs torch).

``torch.load(path, map_location="cpu", weights_only=True, mmap=True)``: the
restricted unpickler, which builds tensors and plain containers only and runs no
code from the file, and a memory map of the tensors' storage, so a tensor's bytes
are read when it is used. Files in torch's legacy (pre-1.6, not zip) format cannot
be mapped and are loaded whole.

What the file holds: a ``state_dict`` (names -> tensors), or a training
checkpoint that holds one under ``"state_dict"``, ``"model_state_dict"`` or
``"model"`` (then only that one, not the optimizer's state beside it); nested
dictionaries are flattened with ``.`` as torch names submodules. Values that are
not tensors (a step count, a version) are left out.

numpy has no bfloat16 or float8 type, so ``tensor.numpy()`` refuses those
tensors. The workaround used here, for every tensor whose dtype numpy lacks: view
the tensor's bytes as an integer tensor of the same width, take that as a numpy
array (no copy), and view it as the ml_dtypes type::

    t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    t.view(torch.uint8).numpy().view(ml_dtypes.float8_e4m3fn)

The values are the same bits, so nothing is rounded.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from .checkpoint import (
    Checkpoint,
    CheckpointError,
    Entry,
    MissingLibraryError,
    TensorSpec,
    ml_dtype,
)

__all__ = ["ML_DTYPES", "read_torch", "tensor_spec", "to_numpy"]

ML_DTYPES = {
    "bfloat16": ("int16", "bfloat16"),
    "float8_e4m3fn": ("uint8", "float8_e4m3fn"),
    "float8_e5m2": ("uint8", "float8_e5m2"),
    "float8_e4m3fnuz": ("uint8", "float8_e4m3fnuz"),
    "float8_e5m2fnuz": ("uint8", "float8_e5m2fnuz"),
    "float8_e8m0fnu": ("uint8", "float8_e8m0fnu"),
}
"""torch dtypes without a numpy type: the integer view taken, and the ml_dtypes type."""

_HOLDERS = ("state_dict", "model_state_dict", "model")


def _torch(name: str = "mapping") -> Any:
    try:
        return importlib.import_module("torch")  # (untyped)
    except ImportError as err:
        raise MissingLibraryError(
            f"{name}: reading PyTorch files needs torch: pip install torch (the CPU build is "
            "enough)"
        ) from err


def _short(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


def tensor_spec(tensor: Any, where: str) -> TensorSpec:
    """The shape and numpy (or ml_dtypes) dtype of a torch tensor."""
    name = _short(tensor.dtype)
    if name in ML_DTYPES:
        dtype = ml_dtype(ML_DTYPES[name][1], where)
    else:
        try:
            dtype = np.dtype(name)
        except TypeError:
            raise CheckpointError(
                f"{where} has dtype torch.{name}, which has no numpy or ml_dtypes type"
            ) from None
    return TensorSpec(tuple(int(n) for n in tensor.shape), dtype)


def to_numpy(tensor: Any) -> Any:
    """A torch tensor as a numpy array of the same dtype, sharing its memory (bfloat16
    and FP8 through an integer view and ml_dtypes, see the module notes)."""
    torch = _torch()
    tensor = tensor.detach().cpu()
    name = _short(tensor.dtype)
    if name not in ML_DTYPES:
        return tensor.numpy()
    integer, ml_name = ML_DTYPES[name]
    return tensor.view(getattr(torch, integer)).numpy().view(ml_dtype(ml_name, "a torch tensor"))


def _flatten(tree: Mapping[Any, Any], prefix: str, out: dict[str, Any], torch: Any) -> None:
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, torch.Tensor):
            out[name] = value
        elif isinstance(value, Mapping):
            _flatten(value, f"{name}.", out, torch)


def read_torch(path: str) -> Checkpoint:
    """A :class:`Checkpoint` of a PyTorch ``state_dict`` file (see the module notes)."""
    name = os.path.basename(path)
    torch = _torch(name)

    def load(mmap: bool) -> Any:
        return torch.load(path, map_location="cpu", weights_only=True, mmap=mmap)

    try:
        try:
            loaded = load(True)
        except RuntimeError as err:  # the legacy format cannot be memory-mapped
            if "mmap" not in str(err) and "zip" not in str(err):
                raise
            loaded = load(False)
    except Exception as err:  # unpickling errors of many kinds
        raise CheckpointError(f"{name}: not a readable PyTorch file: {err}") from None
    if not isinstance(loaded, Mapping):
        raise CheckpointError(
            f"{name}: holds a {type(loaded).__name__}; expected a state_dict (names -> tensors)"
        )
    holder = next((k for k in _HOLDERS if isinstance(loaded.get(k), Mapping)), None)
    tensors: dict[str, Any] = {}
    _flatten(loaded[holder] if holder else loaded, "", tensors, torch)
    entries = {}
    for key, tensor in tensors.items():
        spec = tensor_spec(tensor, f"{name}: tensor {key!r}")
        entries[key] = Entry(spec, (lambda t: lambda: to_numpy(t))(tensor))
    return Checkpoint(path, "torch", entries)

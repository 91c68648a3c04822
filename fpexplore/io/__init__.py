"""Checkpoint readers: the files people have, as read-only mappings of arrays.

:func:`open_checkpoint` takes a path (or a mapping of arrays) and returns a
:class:`Checkpoint`, a read-only ``Mapping[str, array]`` that reads each tensor
when it is asked for. The routes a tensor takes:

* ``.safetensors`` (:mod:`.safetensors_file`): the header checked, then each tensor a
  memory map of its bytes; bfloat16 and FP8 as ml_dtypes types; no library needed.
* ``.npy`` / ``.npz`` (:mod:`.numpy_files`): memory maps, including members stored
  inside an ``.npz``; compressed members decompressed one at a time.
* ``.keras`` / ``.weights.h5`` (:mod:`.keras_files`, h5py): the model's variables
  by layer path, each read from the HDF5 file when asked for; no optimizer state.
* ``.onnx`` (:mod:`.onnx_files`, onnx): floating-point initializers and Constant
  nodes; external data read one tensor at a time.
* torch files (:mod:`.torch_files`, torch): ``torch.load(weights_only=True,
  mmap=True)``, bfloat16 and FP8 viewed as ml_dtypes types without a copy.
* a mapping (:mod:`.open`): its arrays as they are.

This layer needs numpy alone at import; h5py, onnx, torch and ml_dtypes are
imported by the reader that needs them, and a missing one raises
:class:`MissingLibraryError` naming what to install (``pip install -e
".[checkpoints]"`` from a clone). It imports nothing else from fpexplore: the
reports above it import this.

Examples
--------
>>> import numpy as np
>>> ckpt = open_checkpoint({"w": np.zeros((3, 4), np.float32)})
>>> dict(ckpt.items())["w"].shape
(3, 4)
"""

from .checkpoint import (
    EXTRA,
    Checkpoint,
    CheckpointError,
    CheckpointNotFoundError,
    MissingLibraryError,
    TensorRole,
    TensorSpec,
)
from .open import SUFFIXES, open_checkpoint

__all__ = [
    "EXTRA",
    "SUFFIXES",
    "Checkpoint",
    "CheckpointError",
    "CheckpointNotFoundError",
    "MissingLibraryError",
    "TensorRole",
    "TensorSpec",
    "open_checkpoint",
]

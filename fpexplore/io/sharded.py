"""Sharded safetensors checkpoints: a folder of ``*.safetensors`` and their index.

Large models are published as several ``model-00001-of-00004.safetensors`` files and
a ``model.safetensors.index.json`` whose ``weight_map`` names the shard holding each
tensor. :func:`read_sharded` opens every shard (each one's header, checked as
:mod:`fpexplore.io.safetensors_file` checks it) and joins them into one mapping,
names and order as the index gives them; each tensor stays a memory map of its own
shard, read when asked for. The index is authoritative: a shard missing, a tensor
the index names twice or places in a shard that lacks it, a tensor stored in two
shards, or one a shard holds that the index does not list is a
:class:`CheckpointError` naming the file and the tensor. Shard paths are relative to
the index's folder (subfolders included; never outside it). Sharded PyTorch ``.bin``
checkpoints (``pytorch_model.bin.index.json``) are not read: open their shards one
at a time, or their safetensors.

Examples
--------
>>> import numpy as np, tempfile, os, json
>>> folder = tempfile.mkdtemp()
>>> def shard(name, tensors):
...     header, offset, data = {}, 0, b""
...     for key, x in tensors.items():
...         header[key] = {"dtype": "F32", "shape": list(x.shape),
...                        "data_offsets": [offset, offset + x.nbytes]}
...         offset, data = offset + x.nbytes, data + x.astype("<f4").tobytes()
...     head = json.dumps(header).encode()
...     with open(os.path.join(folder, name), "wb") as f:
...         _ = f.write(len(head).to_bytes(8, "little") + head + data)
>>> shard("a.safetensors", {"w1": np.ones(2, "f4")})
>>> shard("b.safetensors", {"w2": np.zeros(3, "f4")})
>>> index = {"weight_map": {"w1": "a.safetensors", "w2": "b.safetensors"}}
>>> with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
...     json.dump(index, f)
>>> ckpt = read_sharded(os.path.join(folder, "model.safetensors.index.json"))
>>> list(ckpt), ckpt["w2"].tolist()
(['w1', 'w2'], [0.0, 0.0, 0.0])
"""

from __future__ import annotations

import glob
import json
import os
from typing import Any

from .checkpoint import Checkpoint, CheckpointError, Entry

__all__ = ["INDEX_SUFFIX", "find_index", "read_sharded"]

INDEX_SUFFIX = ".safetensors.index.json"
BIN_INDEX_SUFFIX = ".bin.index.json"
"""A sharded PyTorch checkpoint's index (``pytorch_model.bin.index.json``): not read."""


def _bin_index(name: str) -> CheckpointError:
    """Why the index ``name`` of sharded PyTorch ``.bin`` files is not read, and what is."""
    return CheckpointError(
        f"{name}: a sharded PyTorch .bin checkpoint, which is not read; sharded "
        f"safetensors are (a folder of .safetensors with its *{INDEX_SUFFIX}, or that "
        "index), and so is one .bin shard at a time (a state_dict; needs torch)"
    )


class _Object(dict):  # type: ignore[type-arg]
    """A JSON object, with the keys it names more than once (the last value is kept)."""

    twice: dict[str, list[Any]]


def _object(pairs: list[tuple[str, Any]]) -> _Object:
    """:func:`json.load`'s ``object_pairs_hook``: keeps the values of repeated keys."""
    found = _Object()
    found.twice = {}
    for key, value in pairs:
        if key in found:
            found.twice.setdefault(key, [found[key]]).append(value)
        found[key] = value
    return found


def find_index(folder: str) -> str:
    """The ``*.safetensors.index.json`` of a folder; a :class:`CheckpointError` naming
    the folder if it has none, or several."""
    name = os.path.basename(os.path.normpath(folder)) or folder
    found = sorted(glob.glob(os.path.join(glob.escape(folder), f"*{INDEX_SUFFIX}")))
    if len(found) == 1:
        return found[0]
    if found:
        listed = ", ".join(os.path.basename(f) for f in found)
        raise CheckpointError(f"{name}: a folder of several indexes ({listed}); open one of them")
    bins = sorted(glob.glob(os.path.join(glob.escape(folder), f"*{BIN_INDEX_SUFFIX}")))
    if bins:
        raise _bin_index(os.path.basename(bins[0]))
    shards = sorted(glob.glob(os.path.join(glob.escape(folder), "*.safetensors")))
    if shards:
        raise CheckpointError(
            f"{name}: a folder of {len(shards)} .safetensors file(s) without a "
            f"*{INDEX_SUFFIX}; open one file, or add the index its shards came with"
        )
    raise CheckpointError(
        f"{name}: is a directory; expected a checkpoint file, or a folder of .safetensors "
        f"shards with their *{INDEX_SUFFIX}"
    )


def read_sharded(index_path: str) -> Checkpoint:
    """One lazy :class:`Checkpoint` over every shard that the index names."""
    from .safetensors_file import read_safetensors

    index_name = os.path.basename(index_path)
    if index_name.lower().endswith(BIN_INDEX_SUFFIX):
        raise _bin_index(index_name)
    try:
        with open(index_path, encoding="utf-8") as f:
            index = json.load(f, object_pairs_hook=_object)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CheckpointError(f"{index_name}: not a readable index: {err}") from None
    if isinstance(index, _Object) and "weight_map" in index.twice:
        raise CheckpointError(f"{index_name}: names 'weight_map' twice; expected one")
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in weight_map.items()
    ):
        raise CheckpointError(
            f"{index_name}: expected an object with a 'weight_map' of tensor names to shard files"
        )
    for key, files in getattr(weight_map, "twice", {}).items():
        where = (f"both times in {files[0]!r}" if len(set(files)) == 1
                 else f"in {', '.join(map(repr, dict.fromkeys(files)))}")  # fmt: skip
        raise CheckpointError(
            f"{index_name}: tensor {key!r} is named twice in its weight_map ({where}); "
            "expected each tensor once"
        )
    folder = os.path.dirname(os.path.abspath(index_path))
    shards: dict[str, Checkpoint] = {}
    for file in dict.fromkeys(weight_map.values()):
        path = os.path.normpath(os.path.join(folder, file))
        outside = os.path.isabs(file) or os.path.commonpath([folder, path]) != folder
        if outside or not os.path.isfile(path):
            first = next(k for k, v in weight_map.items() if v == file)
            where = (f"is not in {folder}; expected a path relative to the index's folder"
                     if outside else f"is missing from {folder}")  # fmt: skip
            raise CheckpointError(f"{index_name}: shard {file!r} (holding {first!r}) {where}")
        if file.lower().endswith(".bin"):
            raise _bin_index(f"{index_name}: shard {file!r}")
        shards[file] = read_safetensors(path)
    holder: dict[str, str] = {}
    for file, shard in shards.items():
        for key in shard:
            if key in holder:
                raise CheckpointError(f"{file}: tensor {key!r} is also in {holder[key]}")
            holder[key] = file
    entries: dict[str, Entry] = {}
    for key, file in weight_map.items():
        if holder.get(key) != file:
            where = f"it is in {holder[key]}" if key in holder else "no shard holds it"
            raise CheckpointError(f"{file}: has no tensor {key!r}, as {index_name} says ({where})")
        entries[key] = shards[file]._entries[key]
    for key, file in holder.items():
        if key not in entries:
            raise CheckpointError(
                f"{file}: holds tensor {key!r}, which {index_name} does not list; expected "
                "the index to name every tensor of its shards"
            )
    name = os.path.basename(folder) if index_name.startswith("model.") else index_name
    return Checkpoint(index_path, "safetensors", entries, name=name)

"""Read ``.safetensors`` files: every dtype, bfloat16 and FP8 through ml_dtypes.

The format: 8 bytes, a little-endian unsigned length N; N bytes of UTF-8 JSON
mapping each tensor's name to its ``dtype``, ``shape`` and ``data_offsets``
``[begin, end)`` (relative to the end of the header), plus an optional
``"__metadata__"`` object of strings; then the tensors' bytes, little-endian, in C
order, back to back.

Why this module reads the file itself rather than through the ``safetensors``
library (which the tests use to write the files read here, and to compare with):

* ``safetensors.numpy`` knows numpy's own dtypes only: it writes FP8 from
  ml_dtypes arrays but cannot read them back (numpy has no float8 type), and
  releases before 0.6 read no bfloat16 either;
* its ``get_tensor`` copies a whole tensor into memory, where a memory map lets a
  report stream a tensor larger than memory in chunks
  (:meth:`~fpexplore.io.checkpoint.Checkpoint.read_rows`);
* so ``.safetensors`` files need no library at all (ml_dtypes for bfloat16/FP8).

The header is checked as strictly as the library checks it before any offset is
trusted: a header length inside the file and under 100 MB; a JSON object without
repeated names; each dtype known; shapes of non-negative integers; offsets that
are integers with ``begin <= end`` whose span is exactly ``prod(shape) * itemsize``
bytes; tensors that tile the data area from 0 without gap or overlap; and a data
area that ends exactly at the end of the file (a shorter file is truncated).

Examples
--------
>>> import numpy as np, tempfile, os, json
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "tiny.safetensors")
>>> header = json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode()
>>> with open(path, "wb") as f:
...     _ = f.write(len(header).to_bytes(8, "little") + header)
...     _ = f.write(np.array([1.5, -2.0], "<f4").tobytes())
>>> read_safetensors(path)["w"]
array([ 1.5, -2. ], dtype=float32)
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from .checkpoint import Checkpoint, CheckpointError, Entry, Raw, TensorSpec, ml_dtype

__all__ = ["DTYPES", "MAX_HEADER", "read_safetensors"]

MAX_HEADER = 100_000_000
"""The largest header accepted, in bytes (the library's own limit)."""

DTYPES = {
    "BOOL": "|b1", "U8": "|u1", "I8": "|i1", "U16": "<u2", "I16": "<i2", "U32": "<u4",
    "I32": "<i4", "U64": "<u8", "I64": "<i8", "F16": "<f2", "F32": "<f4", "F64": "<f8",
    "C64": "<c8", "BF16": "bfloat16", "F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2",
    "F8_E8M0": "float8_e8m0fnu", "F8_E4M3FNUZ": "float8_e4m3fnuz",
    "F8_E5M2FNUZ": "float8_e5m2fnuz",
}  # fmt: skip
"""Each safetensors dtype and the numpy dtype string or ml_dtypes type that reads it."""

PACKED = {"F4": 4, "F6_E2M3": 6, "F6_E3M2": 6}
"""Dtypes of fewer than 8 bits that the format packs several to a byte: refused."""


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"the name {key!r} appears twice")
        seen[key] = value
    return seen


def _header(path: str, name: str, size: int) -> tuple[dict[str, Any], int]:
    """The parsed JSON header and where the data area starts."""
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise CheckpointError(
                f"{name}: only {len(head)} bytes; a safetensors file starts with an 8-byte "
                "header length"
            )
        n = int.from_bytes(head, "little")
        if n > MAX_HEADER:
            raise CheckpointError(
                f"{name}: header length {n} is over the {MAX_HEADER}-byte limit "
                "(corrupt, or not a safetensors file)"
            )
        if 8 + n > size:
            raise CheckpointError(
                f"{name}: header length {n} runs past the end of the file ({size} bytes): "
                "truncated, or not a safetensors file"
            )
        text = f.read(n)
    try:
        header = json.loads(text.decode("utf-8"), object_pairs_hook=_object_without_repeats)
    except (UnicodeDecodeError, ValueError) as err:
        raise CheckpointError(f"{name}: the header is not valid UTF-8 JSON: {err}") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{name}: the header is JSON {type(header).__name__}, not an object")
    return header, 8 + n


def _int_list(value: Any, length: int | None = None) -> list[int] | None:
    """``value`` if it is a list of non-negative ints (of ``length``), else None."""
    if not isinstance(value, list) or (length is not None and len(value) != length):
        return None
    ok = all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    return value if ok else None


def _tensor(name: str, key: str, info: Any) -> tuple[str, list[int], list[int]]:
    """The dtype, shape and offsets of one header entry, checked."""
    where = f"{name}: tensor {key!r}"
    if not isinstance(info, dict) or not {"dtype", "shape", "data_offsets"} <= info.keys():
        raise CheckpointError(f"{where} needs dtype, shape and data_offsets; got {info!r}")
    dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    if dtype in PACKED:
        raise CheckpointError(
            f"{where} has dtype {dtype} ({PACKED[dtype]} bits, packed several to a byte), "
            f"which this reader does not unpack; supported: {', '.join(DTYPES)}"
        )
    if dtype not in DTYPES:
        known = ", ".join(DTYPES)
        raise CheckpointError(f"{where} has unknown dtype {dtype!r}; expected one of {known}")
    if _int_list(shape) is None:
        raise CheckpointError(f"{where} has shape {shape!r}; expected a list of integers >= 0")
    if _int_list(offsets, 2) is None or offsets[0] > offsets[1]:
        raise CheckpointError(
            f"{where} has data_offsets {offsets!r}; expected [begin, end] with 0 <= begin <= end"
        )
    return dtype, shape, offsets


def read_safetensors(path: str) -> Checkpoint:
    """A :class:`Checkpoint` of a ``.safetensors`` file, each tensor memory-mapped.

    Raises :class:`~fpexplore.io.checkpoint.CheckpointError` (a ``ValueError``)
    naming the file and the problem for anything the format forbids (see the
    module notes), before any tensor is read.
    """
    name = os.path.basename(path)
    size = os.path.getsize(path)
    header, start = _header(path, name, size)
    header.pop("__metadata__", None)
    tensors: list[tuple[int, int, str, TensorSpec]] = []
    for key, info in header.items():
        dtype_name, shape, (begin, end) = _tensor(name, key, info)
        code = DTYPES[dtype_name]
        where = f"{name}: tensor {key!r} ({dtype_name})"
        dtype = np.dtype(code) if code[0] in "<|" else ml_dtype(code, where)
        spec = TensorSpec(tuple(shape), dtype)
        if end - begin != spec.nbytes:
            raise CheckpointError(
                f"{where}: shape {shape} needs {spec.nbytes} bytes but data_offsets "
                f"[{begin}, {end}] hold {end - begin}"
            )
        tensors.append((begin, end, key, spec))
    position, previous = 0, None
    for begin, end, key, _ in sorted(tensors):
        if begin != position:
            what = "overlaps" if begin < position else "leaves a gap after"
            after = f"tensor {previous!r}" if previous is not None else "the header"
            raise CheckpointError(
                f"{name}: tensor {key!r} at data_offsets [{begin}, {end}] {what} {after} "
                f"(which ends at {position})"
            )
        position, previous = end, key
    if start + position != size:
        problem = "truncated" if start + position > size else "followed by bytes no tensor uses"
        raise CheckpointError(
            f"{name}: the header places {position} bytes of tensors after its {start} bytes, "
            f"{start + position} in all, but the file has {size} bytes: {problem}"
        )
    entries = {key: Entry(spec, Raw(path, start + begin)) for begin, _, key, spec in tensors}
    return Checkpoint(path, "safetensors", entries)

"""Read ONNX models (``.onnx``; needs the ``onnx`` package).

The tensors are the main graph's floating-point weights:

* its initializers, by name, in the graph's order;
* its ``Constant`` nodes whose value is floating-point, named by the node's output
  (exporters such as ``torch.onnx`` sometimes store weights this way, and a reader
  that skipped them would report a model without those weights). Small constants
  (a LayerNorm's epsilon, a scale of 0.5) are tensors too.

Constants: the checkpoint read (an :class:`OnnxCheckpoint`) says, by
:meth:`OnnxCheckpoint.constant`, which of its tensors are constants rather than
parameters; a report leaves those out unless asked for
(:mod:`fpexplore.report.selection`). A constant is a tensor of 2 or more values
(fewer is ``min_size``'s to leave out) that the graph says is no layer's weight
(every node that consumes it sums over no axis of it: an ``Add``, ``Mul``, ``Div``,
``Pow``...; see :mod:`fpexplore.io.onnx_roles`), consumed by at least one node of
the main graph, and that is

* a ``Constant`` node's output, or
* filled: every one of its values the same (an attention mask of -1e9, an epsilon
  broadcast to a shape), other than 0 or 1.

A tensor a Conv, Gemm, MatMul or Gather consumes is a weight, however it is
stored, and never a constant; so is one an op of unknown summed axis consumes (an
``LSTM``'s) or one that no node of the main graph consumes (a subgraph's, say). A
bias, a shift or a norm's scale of varied values is a parameter, and so is one
still at its initial zeros or ones: every format's elements hold 0 and 1, so those
never fill a report's worst rows. Whether a tensor is filled is found by
reading it, the first time :meth:`~OnnxCheckpoint.constant` asks (not when the file
is opened), and remembered.

Integer and boolean initializers (shapes, indices, masks) are not weights and are
left out, as are sparse initializers and the subgraphs of control-flow nodes.
Values come from ``onnx.numpy_helper.to_array``, which gives bfloat16 and FP8 as
ml_dtypes types. Each weight's summed axis comes from the node that consumes it
(:mod:`fpexplore.io.onnx_roles`). The model's protobuf is parsed once, when the file is opened;
weights stored as external data (models over 2 GB) are read from their files one
tensor at a time, when asked for. An external data file must lie in the model's
folder: a location that is absolute, climbs out with ``..`` or passes through a
symbolic link is refused when the file is opened, before anything outside the
folder is looked at (:func:`external_file`). Every tensor's declared shape is
checked against the bytes that hold it (raw, typed or external; FP4 and FP6
packed several to a byte).

Examples
--------
>>> import numpy as np
>>> onnx = __import__("pytest").importorskip("onnx")
>>> from onnx import helper, numpy_helper
>>> w = numpy_helper.from_array(np.ones((2, 2), np.float32), "w")
>>> graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
...     [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 2])],
...     [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 2])], [w])
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "tiny.onnx")
>>> onnx.save(helper.make_model(graph), path)
>>> read_onnx(path)["w"]
array([[1., 1.],
       [1., 1.]], dtype=float32)
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from .checkpoint import (
    EXTRA,
    Checkpoint,
    CheckpointError,
    Entry,
    MissingLibraryError,
    TensorRole,
    TensorSpec,
)
from .onnx_roles import graph_roles

__all__ = ["FLOAT_TYPES", "OnnxCheckpoint", "external_file", "read_onnx"]

FLOAT_TYPES = (
    "FLOAT", "FLOAT16", "DOUBLE", "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
    "FLOAT8E5M2FNUZ", "FLOAT8E8M0", "FLOAT4E2M1", "FLOAT6E2M3", "FLOAT6E3M2",
)  # fmt: skip
"""The ONNX tensor types read (those this onnx release knows)."""


def _onnx(name: str) -> Any:
    try:
        return importlib.import_module("onnx")  # (untyped)
    except ImportError as err:
        raise MissingLibraryError(f"{name}: reading ONNX models needs onnx: {EXTRA}") from err


def external_file(base: str, location: str, where: str) -> str:
    """The file that external data ``location`` names in the folder ``base``.

    Refused, before anything outside ``base`` is looked at: an absolute path, a
    ``..`` that climbs out of ``base``, and any symbolic link on the way (onnx
    reads none, and one could lead anywhere). Each component is looked at (with
    ``lstat``) inside ``base`` only, so nothing outside the folder is touched."""
    text = f"{where}: its external data location {location!r}"
    if "\0" in location:
        raise CheckpointError(f"{text} holds a NUL character; refused")
    if os.path.isabs(location) or location.startswith("\\"):
        raise CheckpointError(f"{text} is an absolute path, outside the model's folder; refused")
    current: list[str] = []
    for part in location.replace("\\", "/").split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not current:
                raise CheckpointError(f"{text} leads outside the model's folder; refused")
            current.pop()
            continue
        current.append(part)
        if os.path.islink(os.path.join(base, *current)):  # lstat, inside the folder
            raise CheckpointError(
                f"{text} passes through the symbolic link {'/'.join(current)!r}, which could "
                "lead outside the model's folder (onnx reads no symbolic links); refused"
            )
    return os.path.join(base, *current)


def _loader(onnx: Any, tensor: Any, base: str, where: str) -> Callable[[], Any]:
    def load() -> Any:
        if tensor.data_location == onnx.TensorProto.EXTERNAL:  # checked again: it may change
            info = {entry.key: entry.value for entry in tensor.external_data}
            external_file(base, info.get("location", ""), where)
        try:
            return onnx.numpy_helper.to_array(tensor, base_dir=base)
        except (OSError, ValueError, TypeError) as err:
            raise CheckpointError(f"{where} cannot be read: {err}") from None

    return load


_TYPED = ("float_data", "double_data", "int32_data", "int64_data", "uint64_data")
"""TensorProto's typed fields, which hold values when ``raw_data`` does not."""


_PACKED = {"float4_e2m1fn": 4, "float6_e2m3fn": 6, "float6_e3m2fn": 6}
"""Types that ONNX packs several to a byte, and their bits."""


def _int(info: dict[str, str], key: str, default: int, where: str) -> int:
    try:
        value = int(info.get(key, default))
    except ValueError:
        raise CheckpointError(f"{where}: its external data {key} is {info[key]!r}") from None
    if value < 0:
        raise CheckpointError(f"{where}: its external data {key} is {value}; expected >= 0")
    return value


def _check_bytes(onnx: Any, tensor: Any, spec: TensorSpec, base: str, where: str) -> None:
    """Refuse raw or external bytes that do not hold the tensor's shape."""
    bits = _PACKED.get(spec.dtype.name, 8 * spec.dtype.itemsize)
    need = (spec.size * bits + 7) // 8
    if tensor.data_location == onnx.TensorProto.EXTERNAL:
        info = {entry.key: entry.value for entry in tensor.external_data}
        if not info.get("location"):
            raise CheckpointError(f"{where}: its external data names no file (no location)")
        file = external_file(base, info["location"], where)  # before anything is looked at
        if not os.path.isfile(file):
            raise CheckpointError(
                f"{where}: its external data file {info['location']!r} is missing"
            )
        offset, length = _int(info, "offset", 0, where), _int(info, "length", need, where)
        size = os.path.getsize(file)
        if length != need or offset + length > size:
            raise CheckpointError(
                f"{where}: shape {spec.shape} needs {need} bytes; its external data holds "
                f"{length} from offset {offset} of a {size}-byte file"
            )
    elif tensor.HasField("raw_data"):
        if len(tensor.raw_data) != need:
            raise CheckpointError(
                f"{where}: shape {spec.shape} needs {need} bytes but raw_data holds "
                f"{len(tensor.raw_data)}"
            )
    else:  # values in a typed field: one entry a value (16 bits or fewer in int32_data)
        field = next((f for f in _TYPED if len(getattr(tensor, f))), "float_data")
        count = len(getattr(tensor, field))
        packed = spec.dtype.name in _PACKED  # several values an entry: at most 32 bits' worth
        if (count != spec.size) if not packed else not -(-need // 4) <= count <= spec.size:
            raise CheckpointError(
                f"{where}: shape {spec.shape} holds {spec.size} values but {field} has {count}"
            )


class OnnxCheckpoint(Checkpoint):
    """A :class:`~fpexplore.io.Checkpoint` of an ONNX model, which knows its
    constants (see the module notes)."""

    def __init__(
        self, path: str, entries: dict[str, Entry], *, roles: dict[str, TensorRole],
        from_nodes: set[str], consumed: set[str],
    ) -> None:  # fmt: skip
        super().__init__(path, "onnx", entries, roles=roles)
        self._from_nodes = frozenset(from_nodes)
        self._consumed = frozenset(consumed)
        self._constants: dict[str, str] = {}

    def constant(self, name: str) -> str:
        """Why tensor ``name`` is a constant rather than a parameter, or ``""`` if it
        is not one (the module notes say which are). Reads the tensor the first
        time it is asked of one that no node sums over (to see whether it is
        filled); the answer is remembered."""
        if name not in self._constants:
            self._constants[name] = self._constant(name)
        return self._constants[name]

    def _constant(self, name: str) -> str:
        spec, role = self.spec(name), self.role(name)
        if spec.size < 2 or role.weight is not False or name not in self._consumed:
            return ""
        if name in self._from_nodes:
            return "an ONNX Constant node's output"
        flat = np.asarray(self[name]).reshape(-1)
        if flat.dtype.kind != "f":  # ml_dtypes types: float32 holds each of their values
            flat = flat.astype(np.float32)
        first = flat[0]
        with np.errstate(invalid="ignore"):
            filled = bool(np.all(flat == first)) or bool(np.all(np.isnan(flat)))
        if not filled or first == 0 or first == 1:
            return ""
        return f"every one of its {spec.size:,} values is {float(first):g}"


def read_onnx(path: str) -> OnnxCheckpoint:
    """An :class:`OnnxCheckpoint` of an ONNX model's floating-point initializers and
    Constant nodes (see the module notes)."""
    name = os.path.basename(path)
    onnx = _onnx(name)
    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as err:  # protobuf's DecodeError and friends share no base class
        raise CheckpointError(f"{name}: not a readable ONNX model: {err}") from None
    if not model.HasField("graph"):
        raise CheckpointError(
            f"{name}: an ONNX model with no graph (an empty or truncated file?); nothing to read"
        )
    proto = onnx.TensorProto
    floats = {getattr(proto, t) for t in FLOAT_TYPES if hasattr(proto, t)}
    base = os.path.dirname(os.path.abspath(path))
    tensors: list[tuple[str, Any]] = [(t.name, t) for t in model.graph.initializer]
    from_nodes: set[str] = set()
    for node in model.graph.node:
        if node.op_type != "Constant" or node.domain not in ("", "ai.onnx"):
            continue
        for attribute in node.attribute:
            if attribute.name in ("value", "value_float", "value_floats"):
                from_nodes.add(node.output[0])
            if attribute.name == "value":
                tensors.append((node.output[0], attribute.t))
            elif attribute.name in ("value_float", "value_floats"):
                value = np.asarray(
                    attribute.f if attribute.name == "value_float" else list(attribute.floats),
                    np.float32,
                )
                tensors.append((node.output[0], onnx.numpy_helper.from_array(value)))
    entries: dict[str, Entry] = {}
    for key, tensor in tensors:
        where = f"{name}: tensor {key!r}"
        if tensor.data_type not in floats:
            continue
        if key in entries:
            raise CheckpointError(f"{where} is defined twice")
        try:
            dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tensor.data_type))
        except (KeyError, TypeError, ValueError) as err:
            raise CheckpointError(f"{where} has a type this onnx cannot read: {err}") from None
        if any(d < 0 for d in tensor.dims):
            raise CheckpointError(f"{where} has dims {list(tensor.dims)}; expected integers >= 0")
        spec = TensorSpec(tuple(int(d) for d in tensor.dims), dtype)
        _check_bytes(onnx, tensor, spec, base, where)
        entries[key] = Entry(spec, _loader(onnx, tensor, base, where))
    roles = graph_roles(model.graph, {key: entry.spec.shape for key, entry in entries.items()})
    consumed = {key for node in model.graph.node for key in node.input if key in entries}
    return OnnxCheckpoint(path, entries, roles=roles, from_nodes=from_nodes & set(entries),
                          consumed=consumed)  # fmt: skip

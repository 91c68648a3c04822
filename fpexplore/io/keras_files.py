"""Read Keras files: ``.keras`` archives and ``.weights.h5`` files (needs h5py).

A ``.keras`` file is a zip holding ``config.json`` (the model's architecture),
``metadata.json`` and ``model.weights.h5``, the file that ``model.save_weights``
writes on its own. In it, each layer is an HDF5 group whose ``vars`` subgroup holds
the layer's variables as datasets named by position (``0``, ``1``...) and whose
other subgroups are its sublayers (an LSTM's ``cell``, an attention layer's
``query_dense``...); a ``vars`` group's ``name`` attribute is the layer's name.
Naming the variables is one job (the walk of the groups and the config that names
what they hold go together), so this module is longer than most.

The tensors are the model's variables, named by their layer path as Keras names
``variable.path`` (without the model's own name): ``"dense/kernel"``,
``"mha/query/bias"``, ``"lstm/lstm_cell/recurrent_kernel"``. The file stores no
variable names, only positions, so the names come from the order in which Keras'
built-in layers save their variables (:data:`VARIABLES`), with the layer's class
read from ``config.json`` (a ``.keras`` file) or from the group's name (Keras
names a group after the layer's class, ``dense_1``); the layers of a nested model
(or of any layer whose config holds its sublayers') are looked up in that layer's
config alone, so that one named as a layer elsewhere in the model is read with its
own; an attention layer's EinsumDense sublayers, which no config holds, are known
by the attribute they are saved under (``query_dense``, ``_output_dense``...) and
their equations by :func:`.keras_roles.attention_config`; ``use_bias``, ``center`` and
``scale`` settings in the config drop the variables a layer does not have. A layer
outside the table, or whose count of variables does not match it, has its
variables named by position: ``"my_layer/0"``. Variables that belong to the model
itself are named ``"<model name>/0"``...

The optimizer's state (Adam's moments, the iteration count), which these files
also hold under ``optimizer``, is not part of the model and is left out.

bfloat16 variables (stored by Keras as 2-byte opaque data marked ``dtype:
bfloat16``) come back as ml_dtypes bfloat16. Each tensor is read from the file when
asked for; a ``.keras`` archive stores its members uncompressed, so the HDF5 file
inside it is read in place (one re-zipped with deflate is inflated once, into a
temporary file). Before anything is read, the HDF5 file is checked to reach
nowhere outside itself and to declare no more than it stores
(:mod:`.hdf5_checks`), and ``config.json`` to be under :data:`MAX_CONFIG` bytes
(:mod:`.keras_archive`). Legacy Keras 2 ``.h5`` files (``model_weights``, with
variable names stored) are read too.
"""

from __future__ import annotations

import importlib
import os
import re
import weakref
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
from .checkpoint import ml_dtype as _ml_dtype
from .hdf5_checks import check_contained, check_dataset
from .keras_archive import MAX_CONFIG, Inflated, weights_member
from .keras_roles import ATTENTION_SUBLAYERS, attention_config, keras_role

__all__ = ["MAX_CONFIG", "VARIABLES", "read_keras", "read_weights_h5"]

_KERNEL_BIAS = ("kernel", "bias")
VARIABLES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("Dense", "EinsumDense"), _KERNEL_BIAS),
    **{f"Conv{d}D{t}": _KERNEL_BIAS for d in (1, 2, 3) for t in ("", "Transpose")},
    **{f"DepthwiseConv{d}D": _KERNEL_BIAS for d in (1, 2)},
    **{f"SeparableConv{d}D": ("depthwise_kernel", "pointwise_kernel", "bias") for d in (1, 2)},
    **dict.fromkeys(
        ("LSTMCell", "GRUCell", "SimpleRNNCell"), ("kernel", "recurrent_kernel", "bias")
    ),
    "Embedding": ("embeddings",),
    "LayerNormalization": ("gamma", "beta"),
    "GroupNormalization": ("gamma", "beta"),
    "BatchNormalization": ("gamma", "beta", "moving_mean", "moving_variance"),
    "PReLU": ("alpha",),
    "Normalization": ("mean", "variance", "count"),  # adapted (none with mean= given)
    "RMSNormalization": ("scale",),
}
"""Keras' built-in layers and the order in which they save their variables."""

_SUBLAYERS = tuple(ATTENTION_SUBLAYERS)
"""An attention layer's sublayers, in the order Keras creates them (saved under these
names by MultiHeadAttention, with a leading ``_`` by GroupQueryAttention)."""
_SUBLAYER_CLASS = dict.fromkeys(_SUBLAYERS, "EinsumDense")

_Configs = dict[str, tuple[str, dict[str, Any]]]


def _snake(name: str) -> str:
    """Keras' snake_case of a class name (``"Conv2D"`` -> ``"conv2d"``)."""
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


_BY_SNAKE = {_snake(cls): cls for cls in VARIABLES}


def _h5py(name: str) -> Any:
    try:
        return importlib.import_module("h5py")  # (untyped)
    except ImportError as err:
        raise MissingLibraryError(f"{name}: reading Keras files needs h5py: {EXTRA}") from err


def _variable_names(cls: str | None, config: dict[str, Any], count: int) -> list[str] | None:
    """The names of a layer's ``count`` saved variables, or None if unknown."""
    names = list(VARIABLES.get(cls or "", ()))
    if not names:
        return None
    if config.get("use_bias") is False or (cls == "EinsumDense" and not config.get("bias_axes", 1)):
        names.remove("bias")
    if "Normalization" in (cls or ""):
        names = [
            n for n in names if config.get({"gamma": "scale", "beta": "center"}.get(n, ""), True)
        ]
    if len(names) == count + 1 and names[-1] == "bias" and not config:
        names.pop()  # no config to say so, but only an optional bias is missing
    return names if len(names) == count else None


def _layer_configs(config: Any, nested: bool = True) -> _Configs:
    """Layer name -> (class name, config) for every layer of a model config, nested too
    (``nested=False``: only those in no other layer's config that ``config`` holds)."""
    found: _Configs = {}
    if isinstance(config, dict):
        inner = config.get("config")
        if isinstance(inner, dict) and "class_name" in config and "name" in inner:
            found.setdefault(str(inner["name"]), (str(config["class_name"]), inner))
            if not nested:
                return found
        for value in config.values():
            found.update({k: v for k, v in _layer_configs(value, nested).items() if k not in found})
    elif isinstance(config, list):
        for value in config:
            found.update({k: v for k, v in _layer_configs(value, nested).items() if k not in found})
    return found


def _sublayer_configs(config: dict[str, Any]) -> _Configs:
    """The configs of the layers that a layer's (or model's) ``config`` holds itself: a
    model's layers, not those of the models nested in it, which may share their names."""
    return _layer_configs({k: v for k, v in config.items() if k != "dtype"}, nested=False)


def _natural(key: str) -> tuple[str, int]:
    match = re.fullmatch(r"(.*?)(?:_(\d+))?", key)
    assert match is not None
    return match.group(1), int(match.group(2) or 0)


def _class_of(key: str, layer_name: str, configs: _Configs) -> tuple[str | None, dict[str, Any]]:
    """The class and config of the layer saved as group ``key`` with name ``layer_name``:
    from ``configs`` (those of the layers its parent holds), else the class its group's
    or its own name is the snake_case of, else the attention sublayer it is saved as."""
    if layer_name in configs:
        return configs[layer_name]
    for candidate in (key, layer_name):
        base = _natural(candidate)[0]
        if base in _BY_SNAKE:
            return _BY_SNAKE[base], {}
    return _SUBLAYER_CLASS.get(key.lstrip("_")), {}


def _role_config(cls: str | None, config: dict[str, Any], key: str, ndim: int) -> dict[str, Any]:
    """The config a variable's role is read from: the layer's own, or for an attention
    layer's EinsumDense sublayer (whose config no file holds) the equation Keras
    builds for a kernel of ``ndim`` axes."""
    if config or cls != "EinsumDense":
        return config
    return attention_config(key, ndim)


def _dtype(dataset: Any, where: str) -> np.dtype[Any]:
    dtype: np.dtype[Any] = np.dtype(dataset.dtype)
    marked = dataset.attrs.get("dtype")
    if dtype.kind == "V" and marked is not None:
        marked = marked.decode() if isinstance(marked, bytes) else str(marked)
        dtype = _ml_dtype(marked, where)
        if dtype.itemsize != dataset.dtype.itemsize:
            raise CheckpointError(
                f"{where}: stored in {dataset.dtype.itemsize} bytes, not {marked}"
            )
    elif dtype.kind not in "biufc":
        raise CheckpointError(f"{where} has dtype {dtype}, which is not numbers")
    return dtype


class _Walk:
    """Collects (tensor name -> HDF5 dataset path, spec) over a Keras 3 weights file."""

    def __init__(self, file_name: str, config: Any) -> None:
        self.file_name = file_name
        self.configs = _layer_configs(config)
        inner = config.get("config") if isinstance(config, dict) else None
        self.top = _sublayer_configs(inner) if isinstance(inner, dict) else None  # the model's
        self.rank = {name: i for i, name in enumerate(self.configs)}  # the model's order
        self.found: dict[str, tuple[str, TensorSpec]] = {}
        self.roles: dict[str, TensorRole] = {}  # each variable's use (keras_roles)

    def add(self, name: str, dataset: Any) -> None:
        where = f"{self.file_name}: variable {name!r}"
        if name in self.found:
            raise CheckpointError(f"{where} appears twice")
        spec = TensorSpec(tuple(int(n) for n in dataset.shape), _dtype(dataset, where))
        self.found[name] = (dataset.name, spec)

    def layer(self, group: Any, key: str, prefix: str, scope: _Configs | None) -> None:
        """Adds the variables of the layer saved as ``group`` (under its parent's ``key``),
        and its sublayers'; ``scope``: the configs of the layers its parent holds (None:
        the parent's config is not known, so the whole model's)."""
        variables = group["vars"]
        layer_name = str(variables.attrs.get("name", key))
        datasets = sorted(variables, key=_natural)
        cls, config = _class_of(key, layer_name, self.configs if scope is None else scope)
        names = _variable_names(cls, config, len(datasets)) or datasets
        for dataset, variable in zip(datasets, names, strict=True):
            self.add(f"{prefix}{layer_name}/{variable}", variables[dataset])
            if names is not datasets:
                spec = self.found[f"{prefix}{layer_name}/{variable}"][1]
                layer_config = _role_config(cls, config, key, len(spec.shape))
                role = keras_role(cls, layer_config, variable, spec.shape)
                self.roles[f"{prefix}{layer_name}/{variable}"] = role
        inner = _sublayer_configs(config) if config else None
        self.children(group, f"{prefix}{layer_name}/", scope=inner)

    def _order(self, group: Any, key: str) -> tuple[int, str, int]:
        child = group[key]
        name = str(child["vars"].attrs.get("name", key)) if "vars" in child else key
        sublayer = key.lstrip("_")
        rank = self.rank.get(name, len(self.rank) + (*_SUBLAYERS, sublayer).index(sublayer))
        return (rank, *_natural(key))

    def children(
        self, group: Any, prefix: str, skip: tuple[str, ...] = ("vars",),
        scope: _Configs | None = None,
    ) -> None:  # fmt: skip
        """Adds the layers saved in ``group`` (directly, or in its ``layers`` group...),
        each looked up in ``scope`` (:meth:`layer`)."""
        keys = [k for k in group if k not in skip and hasattr(group[k], "keys")]
        for key in sorted(keys, key=lambda k: self._order(group, k)):
            child = group[key]
            if "vars" in child:
                self.layer(child, key, prefix, scope)
            else:
                self.children(child, prefix, scope=scope)


def _read_layout(
    h5: Any, file_name: str, config: Any
) -> tuple[dict[str, tuple[str, TensorSpec]], dict[str, TensorRole]]:
    """Every model variable of an open weights file: name -> (dataset path, spec), and
    the roles of those whose layer is known."""
    if "model_weights" in h5 or "layer_names" in h5.attrs:
        return _legacy(h5, file_name), {}
    if "vars" not in h5 and "layers" not in h5:  # Keras writes both, even with no variables
        raise CheckpointError(
            f"{file_name}: not a Keras weights file (no 'vars' or 'layers' group, nor a "
            f"Keras 2 'layer_names'; it holds: {', '.join(sorted(h5)[:8]) or 'nothing'}); "
            "expected a file written by model.save or model.save_weights"
        )
    walk = _Walk(file_name, config)
    if "vars" in h5:  # the model's own variables
        model = str(h5["vars"].attrs.get("name", "model"))
        for key in sorted(h5["vars"], key=_natural):
            walk.add(f"{model}/{key}", h5["vars"][key])
    walk.children(h5, "", skip=("vars", "optimizer"), scope=walk.top)
    return walk.found, walk.roles


def _legacy(h5: Any, file_name: str) -> dict[str, tuple[str, TensorSpec]]:
    """A Keras 2 HDF5 file: the layers listed in ``layer_names``, each with its own
    ``weight_names`` (``"dense/kernel:0"``), under ``model_weights`` or the root."""
    root = h5["model_weights"] if "model_weights" in h5 else h5
    found: dict[str, tuple[str, TensorSpec]] = {}
    for layer in root.attrs.get("layer_names", []):
        group = root[layer.decode() if isinstance(layer, bytes) else str(layer)]
        for weight in group.attrs.get("weight_names", []):
            weight = weight.decode() if isinstance(weight, bytes) else str(weight)
            dataset = group[weight]
            name = re.sub(r":\d+$", "", weight)
            where = f"{file_name}: variable {name!r}"
            if name in found:
                raise CheckpointError(f"{where} appears twice")
            found[name] = (dataset.name, TensorSpec(tuple(dataset.shape), _dtype(dataset, where)))
    return found


def _checkpoint(path: str, opener: Callable[[], Any], config: Any, size: int) -> Checkpoint:
    name = os.path.basename(path)
    h5py = _h5py(name)
    try:
        with opener() as raw, h5py.File(raw, "r") as h5:
            check_contained(h5, name, size)  # before anything is read
            layout, roles = _read_layout(h5, name, config)
    except CheckpointError:
        raise
    except (OSError, KeyError, ValueError, TypeError) as err:
        raise CheckpointError(f"{name}: not a readable Keras weights file: {err}") from None

    def load(dataset: str, spec: TensorSpec) -> Callable[[], Any]:
        def read() -> Any:
            with opener() as raw, h5py.File(raw, "r") as h5:
                check_dataset(h5[dataset], name, size)  # the file may have changed
                return np.asarray(h5[dataset][()]).view(spec.dtype).reshape(spec.shape)

        return read

    entries = {key: Entry(spec, load(dataset, spec)) for key, (dataset, spec) in layout.items()}
    return Checkpoint(path, "keras", entries, roles=roles)


def read_weights_h5(path: str) -> Checkpoint:
    """A :class:`Checkpoint` of a ``.weights.h5`` (or legacy Keras ``.h5``) file."""
    return _checkpoint(path, lambda: open(path, "rb"), None, os.path.getsize(path))


def read_keras(path: str) -> Checkpoint:
    """A :class:`Checkpoint` of a ``.keras`` archive's model variables."""
    _h5py(os.path.basename(path))  # first, so that a missing h5py is what is reported
    opener, config, size = weights_member(path, os.path.basename(path))
    if not isinstance(opener, Inflated):
        return _checkpoint(path, opener, config, size)
    try:
        checkpoint = _checkpoint(path, opener, config, size)
    except BaseException:
        opener.file.close()
        raise
    weakref.finalize(checkpoint, opener.file.close)  # the temporary file lives as long
    return checkpoint

"""Which policy each layer of a model gets, and why: ``exclude`` and ``overrides``.

A *selector* names layers of a model by

* a layer's name (``"dense_3"``; a nested model's name takes its layers whole),
* a glob over the names (``"block_*"``, ``"*attention*"``),
* a layer class name (``"Dense"``, ``"Conv2D"``, ``"EinsumDense"``): the layers of
  that class or of a subclass of it, or
* a position among the emulated kinds of layers (Dense, EinsumDense, Conv1D/2D/3D),
  in the model's order: ``"first:2"``, ``"last:8"``.

Each layer of an emulated kind starts with the model's policy; then the policy's own
``overrides`` (a recipe's rule, such as NVFP4's last layers in BF16), then
``emulate``'s ``overrides``, in their order (a later key wins), then ``exclude``
(float32, whatever else matched). An override's value is a policy, a preset name or
None (float32). A per-layer policy chooses how that layer's GEMMs quantize their
operands and accumulate; the weights format, master weights and loss scaling are the
model policy's, as there is one optimizer.

Examples
--------
>>> POSITION.match("last:8").groups()
('last', '8')
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .policy import FormatPolicy
from .presets import PRESETS, get_policy

__all__ = ["POSITION", "Assignment", "assign", "select"]

POSITION = re.compile(r"^(first|last):(\d+)$")
"""A selector by position: ``first:k`` or ``last:k``."""
HINT = (
    "a selector is a layer name, a glob such as 'dense_*', a layer class name such as "
    "'Dense', or 'first:k' / 'last:k' among the emulated layers"
)

Assignment = tuple[FormatPolicy | None, str]
"""A layer's policy (None: float32) and why it got it."""


def _label(policy: FormatPolicy | None) -> str:
    if policy is None:
        return "float32"
    from .report import describe

    return next((k for k, v in PRESETS.items() if v == policy), None) or describe(policy)


def select(selector: str, layers: list[Any], emulable: list[Any]) -> set[int]:
    """The ids of the layers ``selector`` names (a nested model's layers with it);
    empty if none."""
    if not isinstance(selector, str):
        raise TypeError(f"a layer selector must be a string, got {selector!r}")
    position = POSITION.match(selector)
    if position is not None:
        k = min(int(position.group(2)), len(emulable))  # past the end: all of them
        chosen = emulable[:k] if position.group(1) == "first" else emulable[len(emulable) - k :]
        return {id(layer) for layer in chosen}
    found: set[int] = set()
    for layer in layers:
        classes = {cls.__name__ for cls in type(layer).__mro__}
        if (
            layer.name == selector
            or fnmatch.fnmatchcase(layer.name, selector)
            or (selector in classes and selector not in ("Layer", "Operation", "object"))
        ):
            found.update(id(inner) for inner in layer._flatten_layers(include_self=True))
    return found


def _check_position(selector: Any, what: str) -> None:
    """Refuse ``first:0`` / ``last:0``, which name no layer of any model."""
    position = POSITION.match(selector) if isinstance(selector, str) else None
    if position is not None and int(position.group(2)) == 0:
        raise ValueError(
            f"{what}: {selector!r} selects no layers; k in 'first:k' / 'last:k' must be "
            "at least 1 (a k past the number of emulated layers selects them all)"
        )


def _policy(value: Any, key: str) -> FormatPolicy | None:
    if value is None:
        return None
    try:
        return get_policy(value)
    except ValueError as error:
        raise ValueError(f"overrides[{key!r}]: {error}") from None


def assign(
    policy: FormatPolicy,
    name: str,
    layers: list[Any],
    emulable: list[Any],
    *,
    exclude: Iterable[str] = (),
    overrides: Mapping[str, Any] | None = None,
    model_name: str = "model",
) -> dict[int, Assignment]:
    """Per emulable layer (by id): its policy (None: float32) and the reason."""
    chosen: dict[int, Assignment] = {id(layer): (policy, f"policy {name}") for layer in emulable}
    steps: list[tuple[str, str, Any]] = []
    steps += [("policy overrides", key, value) for key, value in (policy.overrides or {}).items()]
    if overrides is not None:
        if not isinstance(overrides, Mapping):
            raise TypeError(
                f"overrides must be a mapping of selectors to policies, got {overrides!r}"
            )
        steps += [("overrides", key, value) for key, value in overrides.items()]
    steps += [("exclude", key, None) for key in exclude]
    unknown = []
    for what, key, value in steps:
        _check_position(key, what)
        hits = select(key, layers, emulable)
        if not hits and what != "policy overrides":
            unknown.append((what, key))
            continue
        layer_policy = _policy(value, key) if what != "exclude" else None
        if what == "exclude":
            reason = f"excluded by {key!r}"
        else:
            source = f"{name}'s override" if what == "policy overrides" else "override"
            reason = f"{source} {key!r} -> {_label(layer_policy)}"
        for layer_id in hits & chosen.keys():
            chosen[layer_id] = (layer_policy, reason)
    if unknown:
        what = unknown[0][0]
        names = [key for w, key in unknown if w == what]
        raise ValueError(f"{what}: model {model_name!r} has no layers named {names} ({HINT})")
    return chosen

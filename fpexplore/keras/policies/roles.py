"""The six operands of a layer's three GEMMs (their roles), and the accumulators.

A linear layer runs three GEMMs, each of two operands, each quantized from the
float32 tensor along the axis that GEMM sums:

==========  ==================  ======================================================
GEMM        product             roles (the operand: the axis its blocks run along)
==========  ==================  ======================================================
``fprop``   ``y = x w``         ``fprop.x`` (input features), ``fprop.w`` (input features)
``dgrad``   ``dX = dY wᵀ``      ``dgrad.dy`` (output features), ``dgrad.w`` (output features)
``wgrad``   ``dW = xᵀ dY``      ``wgrad.x`` (the batch), ``wgrad.dy`` (the batch)
==========  ==================  ======================================================

:class:`FrozenMap` keeps a policy's mappings (roles, accumulators, layer overrides)
hashable, as the policy is.

Examples
--------
>>> ROLES[:2]
('fprop.x', 'fprop.w')
>>> check_roles({"fprop.q": "bfloat16"})
Traceback (most recent call last):
...
ValueError: roles: unknown role 'fprop.q'; expected one of 'fprop.x', 'fprop.w', \
'dgrad.dy', 'dgrad.w', 'wgrad.x', 'wgrad.dy'
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .specs import OperandSpec, quiet_notices

__all__ = ["GEMMS", "ROLES", "FrozenMap", "check_accumulate", "check_roles"]

ROLES = ("fprop.x", "fprop.w", "dgrad.dy", "dgrad.w", "wgrad.x", "wgrad.dy")
"""The operands of a layer's three GEMMs, as ``FormatPolicy(roles=...)`` names them."""
GEMMS = ("fprop", "dgrad", "wgrad")
"""The three GEMMs of a layer, as ``FormatPolicy(accumulate=...)`` names them."""


class FrozenMap(Mapping[str, Any]):
    """A read-only, hashable mapping (keys in the order given)."""

    def __init__(self, items: Mapping[str, Any] | None = None) -> None:
        self._items = dict(items or {})

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(self._items.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._items) == dict(other)

    def __repr__(self) -> str:
        return repr(self._items)


def _names(allowed: tuple[str, ...]) -> str:
    return ", ".join(repr(n) for n in allowed)


def check_roles(roles: Any) -> FrozenMap | None:
    """``roles`` as a :class:`FrozenMap` of role -> :class:`OperandSpec` or None."""
    if roles is None:
        return None
    if not isinstance(roles, Mapping):
        raise TypeError(f"roles must be a mapping of role names to specs, got {roles!r}")
    checked = {}
    for role, spec in roles.items():
        if role not in ROLES:
            raise ValueError(f"roles: unknown role {role!r}; expected one of {_names(ROLES)}")
        if isinstance(spec, str):
            try:
                with quiet_notices():  # FormatPolicy says it, where the policy is made
                    spec = OperandSpec(spec)
            except ValueError as error:
                raise ValueError(f"roles[{role!r}]: {error}") from None
        elif spec is not None and not isinstance(spec, OperandSpec):
            raise TypeError(
                f"roles[{role!r}] must be an OperandSpec, a format name or None, got {spec!r}"
            )
        if spec is not None and spec.hadamard is not None and not role.startswith("wgrad."):
            raise ValueError(
                f"roles[{role!r}]: hadamard={spec.hadamard} is for the wgrad operands only "
                "('wgrad.x', 'wgrad.dy'), where it leaves dW unchanged in exact arithmetic"
            )
        checked[role] = spec
    _check_wgrad_hadamard(checked)
    return FrozenMap({role: checked[role] for role in ROLES if role in checked})


def _check_wgrad_hadamard(specs: Mapping[str, OperandSpec | None]) -> None:
    """Refuse a Hadamard transform on one wgrad operand only, or of two sizes:
    ``(x Q)ᵀ (dY Q)`` is ``xᵀ dY`` only with the same ``Q`` on both."""
    sizes = {role: getattr(specs.get(role), "hadamard", None) for role in ("wgrad.x", "wgrad.dy")}
    if sizes["wgrad.x"] != sizes["wgrad.dy"]:
        given = ", ".join(f"{role} {size}" for role, size in sizes.items())
        raise ValueError(
            f"roles: hadamard must be the same on 'wgrad.x' and 'wgrad.dy' (None on both, "
            f"or one power of two on both), got {given}: a transform of one operand alone, "
            "or of two sizes, changes dW"
        )


def _accumulator(value: Any, what: str) -> Any:
    if isinstance(value, str) and value == "float32":
        return value
    import fpexplore

    kind = getattr(fpexplore, "Accumulator", None)
    names = getattr(fpexplore, "ACCUMULATORS", {})
    if kind is not None and isinstance(value, kind):
        return value
    if isinstance(value, str) and value in names:
        return value
    allowed = _names(tuple(dict.fromkeys(("float32", *names))))  # ACCUMULATORS holds float32
    raise ValueError(f"{what}: unknown accumulator {value!r}; expected an Accumulator or {allowed}")


def check_accumulate(value: Any) -> Any:
    """An accumulator name or ``Accumulator``, or a :class:`FrozenMap` of GEMM -> one."""
    if not isinstance(value, Mapping):
        return _accumulator(value, "accumulate")
    checked = {}
    for gemm, one in value.items():
        if gemm not in GEMMS:
            raise ValueError(f"accumulate: unknown GEMM {gemm!r}; expected one of {_names(GEMMS)}")
        checked[gemm] = _accumulator(one, f"accumulate[{gemm!r}]")
    return FrozenMap(checked)

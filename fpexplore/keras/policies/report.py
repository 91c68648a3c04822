"""Which layers of a model an emulation rounds, and which run in float32.

Examples
--------
>>> from fpexplore.keras import FormatPolicy
>>> r = EmulationReport(FormatPolicy("bfloat16"), "custom",
...                     (("dense", "Dense", True), ("dropout", "Dropout", False)))
>>> r.emulated, r.float32
(('dense',), ('dropout',))
>>> print(r)
fpexplore emulation (policy custom): 1 layer emulated, 1 in float32
  dense    Dense    emulated: forward bfloat16
  dropout  Dropout  float32
  accumulation in float32; weights float32
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from .policy import FormatPolicy

__all__ = ["SUMS_IN_FLOAT32", "EmulationReport", "describe"]

SUMS_IN_FLOAT32 = "sums in float32 (its einsum equation is no single GEMM)"
"""The reason's note on an einsum layer whose accumulator model cannot apply."""


def describe(policy: FormatPolicy) -> str:
    """What a layer's GEMMs do under ``policy``, in a few words: the shorthand
    (``forward ..., backward ...``) or, with roles, each group of roles alike."""
    if policy.roles is None:
        parts = []
        for label, spec in (("forward", policy.forward_spec), ("backward", policy.backward_spec)):
            if spec is not None:
                parts.append(f"{label} {spec.short()}")
        text = ", ".join(parts) or "float32 operands"
    else:
        groups: dict[str, list[str]] = {}
        for role, spec in policy.role_specs.items():
            groups.setdefault("float32" if spec is None else spec.short(), []).append(role)
        text = "; ".join(f"{'/'.join(roles)} {spec}" for spec, roles in groups.items())
    accumulate = {policy.accumulator(g) for g in ("fprop", "dgrad", "wgrad")}
    if accumulate != {"float32"}:
        text += "; accumulate " + ", ".join(
            f"{g} {policy.accumulator(g)}" for g in ("fprop", "dgrad", "wgrad")
        )
    return text


def _summed(policy: FormatPolicy | None, reason: str) -> str:
    """How a layer's GEMMs accumulate: one model for all three, or each GEMM's."""
    if policy is None or SUMS_IN_FLOAT32 in reason:
        return "float32"
    models = [str(policy.accumulator(g)) for g in ("fprop", "dgrad", "wgrad")]
    if len(set(models)) == 1:
        return models[0]
    return ", ".join(f"{g} {m}" for g, m in zip(("fprop", "dgrad", "wgrad"), models, strict=True))


def _some(names: list[str], shown: int = 3) -> str:
    """The first ``shown`` names, and how many more."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


@dataclass(frozen=True)
class EmulationReport:
    """What :func:`~fpexplore.keras.emulate` did to a model.

    ``layers`` holds one ``(name, class name, emulated)`` triple per layer, in the
    model's order, top-down: a nested model's row, then its layers; ``emulated`` is
    None for a nested model itself, whose layers have rows of their own. Layers that
    Keras makes later (when it builds a layer that makes them) are emulated as they
    are made, and ``model.fpexplore_report`` is then made again with their rows.
    ``reasons`` holds one ``(name, policy, reason)`` triple per layer of an emulated
    kind: the policy it got (None: float32) and why (``"policy nvfp4"``,
    ``"override 'last:1' -> bfloat16"``, ``"excluded by 'head'"``).
    """

    policy: FormatPolicy
    name: str
    layers: tuple[tuple[str, str, bool | None], ...]
    reasons: tuple[tuple[str, FormatPolicy | None, str], ...] = ()

    def policy_of(self, layer: str) -> FormatPolicy | None:
        """The policy the layer named ``layer`` computes under (None: float32)."""
        for name, policy, _ in self.reasons:
            if name == layer:
                return policy
        if layer in {name for name, _, _ in self.layers}:
            return None
        raise ValueError(f"layer: no layer named {layer!r} in this report")

    def reason(self, layer: str) -> str:
        """Why the layer named ``layer`` got its policy (``"not an emulated kind"``
        for the other layers)."""
        for name, _, why in self.reasons:
            if name == layer:
                return why
        if layer in {name for name, _, _ in self.layers}:
            return "not an emulated kind"
        raise ValueError(f"layer: no layer named {layer!r} in this report")

    @property
    def emulated(self) -> tuple[str, ...]:
        """Names of the layers whose matmuls or convolutions round their operands."""
        return tuple(name for name, _, done in self.layers if done is True)

    @property
    def float32(self) -> tuple[str, ...]:
        """Names of the layers that run in float32 (their weights may still be stored
        in the policy's weights format)."""
        return tuple(name for name, _, done in self.layers if done is False)

    def _rows(self) -> list[tuple[str, str, str]]:
        why = {name: (policy, reason) for name, policy, reason in self.reasons}
        rows = []
        for name, kind, done in self.layers:
            policy, reason = why.get(name, (self.policy, None))
            if done is None:
                text = "nested model"
            elif done and policy is not None:
                text = "emulated: " + describe(policy)
            else:
                text = "float32"
            if reason is not None and reason.split(";")[0] == f"policy {self.name}":
                reason = reason.partition("; ")[2] or None
            if reason is not None:
                text += f" ({reason})"
            rows.append((name, kind, text))
        return rows

    def _footer(self) -> str:
        weights = self.policy.weights or "float32"
        if self.policy.weights is not None:
            weights += f" ({self.policy.weight_rounding.replace('_', ' ')}"
            weights += ", float32 master copy)" if self.policy.master_weights else ")"
        return f"accumulation in {self._accumulation()}; weights {weights}"

    def _accumulation(self) -> str:
        """How the layers' GEMMs sum: the most layers' accumulator, and the others'
        (``"float32, except head (h100_fp8_promoted)"``)."""
        groups: dict[str, list[str]] = {}
        why = {name: (policy, reason) for name, policy, reason in self.reasons}
        for name, _, done in self.layers:
            if done is None or (not done and name not in why):
                continue  # a nested model, or a layer of no GEMM
            policy, reason = why.get(name, (self.policy, ""))
            groups.setdefault(_summed(policy if done else None, reason), []).append(name)
        if not groups:
            return "float32"
        base = max(groups, key=lambda label: (len(groups[label]), label == "float32"))
        others = [f"{_some(names)} ({label})" for label, names in groups.items() if label != base]
        if not others:
            return base
        shown = f"({base})" if "," in base else base  # one model per GEMM: kept together
        return f"{shown}, except {', '.join(others)}"

    def __str__(self) -> str:
        rows = self._rows()
        n, m = len(self.emulated), len(self.float32)
        head = (
            f"fpexplore emulation (policy {self.name}): "
            f"{n} layer{'s' * (n != 1)} emulated, {m} in float32"
        )
        widths = [max((len(r[i]) for r in rows), default=0) for i in range(2)]
        lines = [head]
        lines += [f"  {a:{widths[0]}}  {b:{widths[1]}}  {c}" for a, b, c in rows]
        lines.append(f"  {self._footer()}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        body = "".join(
            f"<tr><td>{html.escape(a)}</td><td>{html.escape(b)}</td><td>{html.escape(c)}</td></tr>"
            for a, b, c in self._rows()
        )
        head = html.escape(str(self).splitlines()[0])
        return (
            f"<p>{head}</p><table><tr><th>layer</th><th>class</th><th>computes</th></tr>"
            f"{body}</table><p>{html.escape(self._footer())}</p>"
        )

"""Which layers of a model an emulation rounds, and which run in float32.

Examples
--------
>>> from fpexplore.keras.policy import FormatPolicy
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

__all__ = ["EmulationReport"]


@dataclass(frozen=True)
class EmulationReport:
    """What :func:`~fpexplore.keras.emulate` did to a model.

    ``layers`` holds one ``(name, class name, emulated)`` triple per layer, in the
    model's order, top-down: a nested model's row, then its layers; ``emulated`` is
    None for a nested model itself, whose layers have rows of their own. Layers that
    Keras makes later (when it builds a layer that makes them) are emulated as they
    are made, and ``model.fpexplore_report`` is then made again with their rows.
    """

    policy: FormatPolicy
    name: str
    layers: tuple[tuple[str, str, bool | None], ...]

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
        parts = []
        for label, spec in (("forward", self.policy.forward_spec),
                            ("backward", self.policy.backward_spec)):  # fmt: skip
            if spec is not None:
                parts.append(f"{label} {spec.short()}")
        what = {True: "emulated: " + ", ".join(parts), False: "float32", None: "nested model"}
        return [(name, kind, what[done]) for name, kind, done in self.layers]

    def _footer(self) -> str:
        weights = self.policy.weights or "float32"
        if self.policy.weights is not None:
            weights += f" ({self.policy.weight_rounding.replace('_', ' ')}"
            weights += ", float32 master copy)" if self.policy.master_weights else ")"
        return f"accumulation in float32; weights {weights}"

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

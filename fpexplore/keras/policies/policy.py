"""A format policy: where a training step rounds, into which format, and how.

A :class:`FormatPolicy` names three places of a training step where numbers are
rounded, each with a format of its own (``None`` keeps float32 there):

* ``forward``: the two operands of every matmul and convolution, the layer's input
  and its kernel, rounded before they are multiplied. The products are summed in
  float32, as tensor cores accumulate, and the layer's output stays float32;
* ``backward``: the gradient flowing into each such layer's output (``dY``),
  rounded before it meets the transposed operands in the two gradient matmuls;
* ``weights``: the trainable variables as they are stored after each optimizer
  step, optionally behind a float32 master copy that the optimizer updates.

An operand may be scaled before it is rounded: ``"per_tensor"`` (by the tensor's own
amax), ``"delayed"`` (by the largest amax of the previous steps, as Transformer Engine
and Keras' float8 layers do) or a block format (``"mxfp8_e4m3"``, ``"mxfp4"``,
``"nvfp4"``...: a scale per block of 32 or 16 values along the summed axis).

Nothing here imports Keras or JAX: a policy is plain data, checked when it is made.

Examples
--------
>>> p = FormatPolicy("float8_e4m3fn", "float8_e5m2", scaling="delayed")
>>> p
FormatPolicy(forward='float8_e4m3fn', backward='float8_e5m2', scaling='delayed')
>>> p.backward_spec.scaling  # the backward pass follows the forward's scaling
'delayed'
>>> FormatPolicy("e4m3", scaling="per_tensor").forward  # aliases become names
'float8_e4m3fn'
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...formats import warn_custom_format
from .roles import GEMMS, ROLES, FrozenMap, check_accumulate, check_roles
from .specs import (
    SCALINGS,
    WEIGHT_ROUNDINGS,
    OperandSpec,
    backward_block,
    check_format,
    check_rounding,
    check_scaling,
    is_positive,
    operand,
    quiet_notices,
)

__all__ = ["ROLES", "SCALINGS", "WEIGHT_ROUNDINGS", "FormatPolicy", "OperandSpec"]


@dataclass(frozen=True)
class FormatPolicy:
    """Where a Keras model's training step rounds, and into which formats.

    Parameters
    ----------
    forward : format spec or None
        Format of the operands of every matmul and convolution (layer inputs and
        kernels). ``None``: float32.
    backward : format spec or None
        Format of the gradient into each such layer's output (``dY``).
    weights : format spec or None
        Storage format of the trainable variables after each optimizer step.
    scaling : str
        ``"none"``, ``"per_tensor"``, ``"delayed"`` or a block format name
        (``"mxfp8_e4m3"``, ``"mxfp4"``, ``"nvfp4"``...) for the forward operands.
        With a block format, ``forward`` may be omitted: it is the block's element
        format.
    backward_scaling : str or None
        The same for ``dY``; ``None`` follows ``scaling`` (a block format
        switches to its sibling with ``backward``'s elements, e.g. ``mxfp8_e5m2``)
        when ``backward`` is given. With a block format, ``backward`` may be omitted:
        it is the block's element format.
    rounding, backward_rounding : str
        Rounding mode of the forward operands, and of ``dY`` (``None``: as
        ``rounding``). Any of ``fpexplore.ROUNDING_MODES``; ``"stochastic"`` draws
        fresh random bits at every step.
    weight_rounding : str
        ``"nearest_even"`` or ``"stochastic"``: how the weights are rounded into
        ``weights`` after each step.
    master_weights : bool
        Keep a float32 master copy of each weight: the optimizer updates the master,
        and the stored (and used) weight is its rounding into ``weights``.
    seed : int
        Seed of every stochastic rounding.
    loss_scale : None, "dynamic" or float
        Multiply the loss before differentiating it (and divide the gradients
        after): ``"dynamic"`` as Keras' ``LossScaleOptimizer`` does, or a fixed
        factor. Keeps small float16 gradients from underflowing.
    amax_history_len : int
        Steps remembered by ``"delayed"`` scaling.
    roles : mapping or None
        Per operand of each GEMM (the keys of :data:`ROLES`: ``"fprop.x"``,
        ``"fprop.w"``, ``"dgrad.dy"``, ``"dgrad.w"``, ``"wgrad.x"``, ``"wgrad.dy"``) an
        :class:`OperandSpec`, a format name or None (float32), overriding the
        shorthand. The roles not given follow it: ``forward`` (with ``scaling``,
        ``rounding``) describes ``fprop.x``, ``fprop.w``, ``dgrad.w`` and ``wgrad.x``,
        ``backward`` describes ``dgrad.dy`` and ``wgrad.dy``. Each role is quantized
        from the float32 tensor along its GEMM's summed axis.
    accumulate : str, Accumulator or mapping
        How each GEMM sums its products: ``"float32"`` (exact products summed in
        float32 order), an accumulator name of ``fpexplore.ACCUMULATORS`` or an
        ``fpexplore.Accumulator``, or a mapping of ``"fprop"``, ``"dgrad"``,
        ``"wgrad"`` to one (the GEMMs not named: float32).
    overrides : mapping or None
        Layers this policy itself leaves to another policy (a recipe's own rule, such
        as NVFP4's last layers in BF16): keys select layers as
        :func:`~fpexplore.keras.emulate`'s ``overrides`` do, values are a policy, a
        preset name or None (float32). ``emulate``'s own ``overrides`` come after.

    Notes
    -----
    Products are accumulated in float32 unless ``accumulate`` says otherwise, as
    tensor cores accumulate FP16, BF16, FP8 and FP4 products: only the operands are
    rounded, never the running sums. Biases,
    activations, normalizations and the loss run in float32; so do the layers that
    :func:`~fpexplore.keras.emulate` does not emulate.

    Examples
    --------
    >>> print(FormatPolicy("bfloat16", "bfloat16", "bfloat16", master_weights=True))
    FormatPolicy
      forward    bfloat16, no scaling, nearest even   (inputs and kernels of each matmul/conv)
      backward   bfloat16, no scaling, nearest even   (gradient into each matmul/conv output)
      weights    bfloat16, nearest even, float32 master copy
      accumulate float32
    >>> FormatPolicy(scaling="mxfp4").forward
    'float4_e2m1fn'
    >>> FormatPolicy("float8_e4m3fn", scaling="zoom")
    Traceback (most recent call last):
    ...
    ValueError: scaling: unknown scaling 'zoom'; expected one of 'none', 'per_tensor', \
'delayed', 'mxfp8_e4m3', 'mxfp8_e5m2', 'mxfp6_e3m2', 'mxfp6_e2m3', 'mxfp4', 'mxint8', 'nvfp4'
    """

    forward: str | None = None
    backward: str | None = None
    weights: str | None = None
    _: dataclasses.KW_ONLY
    scaling: str = "none"
    backward_scaling: str | None = None
    rounding: str = "nearest_even"
    backward_rounding: str | None = None
    weight_rounding: str = "nearest_even"
    master_weights: bool = False
    seed: int = 0
    loss_scale: str | float | None = None
    amax_history_len: int = 16
    roles: Mapping[str, OperandSpec | str | None] | None = None
    accumulate: Any = "float32"
    overrides: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        put = object.__setattr__
        roles = self.roles if isinstance(self.roles, Mapping) else {}
        named = [r for r in roles.values() if isinstance(r, str)]  # role specs by name
        given = (self.forward, self.backward, self.weights, *named)
        put(self, "roles", check_roles(self.roles))
        put(self, "accumulate", check_accumulate(self.accumulate))
        if self.overrides is not None:
            if not isinstance(self.overrides, Mapping):
                raise TypeError(f"overrides must be a mapping, got {self.overrides!r}")
            put(self, "overrides", FrozenMap(self.overrides))
        put(self, "forward", check_format(self.forward, "forward"))
        put(self, "backward", check_format(self.backward, "backward"))
        put(self, "weights", check_format(self.weights, "weights"))
        put(self, "scaling", check_scaling(self.scaling, "scaling"))
        if self.backward_scaling is not None:
            put(self, "backward_scaling", check_scaling(self.backward_scaling, "backward_scaling"))
        check_rounding(self.rounding, "rounding")
        if self.backward_rounding is not None:
            check_rounding(self.backward_rounding, "backward_rounding")
        check_rounding(self.weight_rounding, "weight_rounding", WEIGHT_ROUNDINGS)
        if not isinstance(self.master_weights, bool):
            raise TypeError(f"master_weights must be True or False, got {self.master_weights!r}")
        if self.master_weights and self.weights is None:
            raise ValueError("master_weights=True needs a weights format to round the master into")
        for name in ("seed", "amax_history_len"):
            value = getattr(self, name)
            integral = isinstance(value, numbers.Integral) and not isinstance(value, bool)
            if not integral or value < (name != "seed"):
                least = "0" if name == "seed" else "1"
                raise ValueError(f"{name} must be an int >= {least}, got {value!r}")
            put(self, name, int(value))  # numpy integers too, kept as Python ints
        scale = self.loss_scale
        if not (scale is None or (isinstance(scale, str) and scale == "dynamic")):
            if not is_positive(scale):
                raise ValueError(
                    f"loss_scale: expected None, 'dynamic' or a positive number, got {scale!r}"
                )
            put(self, "loss_scale", float(scale))
        self.forward_spec  # noqa: B018  (resolves and checks both operand kinds)
        self.backward_spec  # noqa: B018
        if self.forward_spec is not None and self.forward is None:
            put(self, "forward", self.forward_spec.format)
        if self.backward_spec is not None and self.backward is None:
            put(self, "backward", self.backward_spec.format)
        for spec in given:  # "e4m4": a custom format, or a typo of e4m3?
            warn_custom_format(spec, stacklevel=4)

    @property
    def forward_spec(self) -> OperandSpec | None:
        """The forward operands' format, scaling and rounding (None: float32)."""
        return operand(self.forward, self.scaling, self.rounding, "forward", self.amax_history_len)

    @property
    def backward_spec(self) -> OperandSpec | None:
        """The format, scaling and rounding of ``dY`` (None: float32)."""
        scaling = self.backward_scaling
        if scaling is None:
            if self.backward is None:  # float32, whatever the forward's scaling
                return None
            scaling = self.scaling
            if scaling not in SCALINGS:
                scaling = backward_block(scaling, self.backward)
        rounding = self.backward_rounding or self.rounding
        return operand(self.backward, scaling, rounding, "backward", self.amax_history_len)

    def role_spec(self, role: str) -> OperandSpec | None:
        """How the operand ``role`` (one of :data:`ROLES`) is quantized (None: float32)."""
        if role not in ROLES:
            allowed = ", ".join(repr(r) for r in ROLES)
            raise ValueError(f"role: unknown role {role!r}; expected one of {allowed}")
        if self.roles is not None and role in self.roles:
            spec = self.roles[role]
            assert not isinstance(spec, str)  # check_roles made each an OperandSpec
            if spec is None or spec.history_len == self.amax_history_len:
                return spec
            with quiet_notices():  # said when the spec was made
                return dataclasses.replace(spec, history_len=self.amax_history_len)
        return self.backward_spec if role.endswith(".dy") else self.forward_spec

    @property
    def role_specs(self) -> dict[str, OperandSpec | None]:
        """Every role's :class:`OperandSpec` (None: float32), in the order of :data:`ROLES`."""
        return {role: self.role_spec(role) for role in ROLES}

    def accumulator(self, gemm: str) -> Any:
        """The accumulator of ``gemm`` (``"fprop"``, ``"dgrad"`` or ``"wgrad"``)."""
        if gemm not in GEMMS:
            allowed = ", ".join(repr(g) for g in GEMMS)
            raise ValueError(f"gemm: unknown GEMM {gemm!r}; expected one of {allowed}")
        if isinstance(self.accumulate, Mapping):
            return self.accumulate.get(gemm, "float32")
        return self.accumulate

    @property
    def rounds_operands(self) -> bool:
        """True when some operand of some GEMM is quantized, or some GEMM accumulates
        otherwise than in float32."""
        accumulators = {self.accumulator(g) for g in GEMMS}
        return any(s is not None for s in self.role_specs.values()) or accumulators != {"float32"}

    @property
    def is_float32(self) -> bool:
        """True when the policy rounds nothing (plain float32 training)."""
        nothing = (self.weights, self.loss_scale)
        return not self.rounds_operands and all(part is None for part in nothing)

    def __repr__(self) -> str:
        defaults = {f.name: f.default for f in dataclasses.fields(self) if f.name != "_"}
        changed = [
            f"{name}={getattr(self, name)!r}"
            for name, default in defaults.items()
            if getattr(self, name) != default
        ]
        return f"FormatPolicy({', '.join(changed)})"

    def __str__(self) -> str:
        lines = ["FormatPolicy"]
        for label, spec, where in (
            ("forward", self.forward_spec, "inputs and kernels of each matmul/conv"),
            ("backward", self.backward_spec, "gradient into each matmul/conv output"),
        ):
            text = "float32" if spec is None else spec.describe()
            lines.append(f"  {label:10} {text}   ({where})")
        for role in self.roles or {}:
            given = self.role_spec(role)
            lines.append(f"  {role:10} {'float32' if given is None else given.describe()}")
        if self.weights is None:
            lines.append("  weights    float32")
        else:
            master = ", float32 master copy" if self.master_weights else ""
            rounding = self.weight_rounding.replace("_", " ")
            lines.append(f"  weights    {self.weights}, {rounding}{master}")
        if self.loss_scale is not None:
            lines.append(f"  loss scale {self.loss_scale}")
        for key, value in (self.overrides or {}).items():
            text = "float32" if value is None else value if isinstance(value, str) else repr(value)
            lines.append(f"  layers {key}: {text}")
        accumulate = self.accumulate
        if isinstance(accumulate, Mapping):
            accumulate = ", ".join(f"{g} {self.accumulator(g)}" for g in GEMMS)
        lines.append(f"  accumulate {accumulate}")
        return "\n".join(lines)

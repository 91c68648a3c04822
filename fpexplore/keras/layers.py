"""Emulated layers: Dense, EinsumDense and Conv1D/2D/3D computing under a policy.

:func:`emulate_layer` changes one layer in place (built or not). Its matmul (or einsum,
or convolution) takes operands rounded into the policy's forward format, sums in float32
or with the policy's accumulator model (:mod:`fpexplore.keras.gemm`,
:mod:`fpexplore.keras.patches`), and rounds the gradient of its output into the backward
format on the way back (:mod:`fpexplore.keras.operands`); the bias, the activation and
everything else stay as Keras wrote them. Dense and EinsumDense get a ``call`` of the
same steps as Keras' own; a convolution keeps Keras' ``call`` and gets its
``convolution_op`` wrapped. A subclass with a ``call`` of its own keeps it: its
``super().call`` reaches the emulated steps (:mod:`fpexplore.keras.subclasses`), and a
``call`` that never reaches them raises ``TypeError`` rather than computing in float32
unseen. The state this needs (amax histories, a seed generator) lives in a small
:class:`FormatState` sublayer, which ``model.save`` writes beside the layer's weights: a
saved model loads as a plain Keras model, and ``load_weights`` into the model emulated
again restores it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax

from .. import jax as fpx_jax
from ._backend import keras
from .einsums import Axes, einsum_matrices, letters_axes
from .gemm import Matrices, Operand, Plan, product
from .patches import Convolution
from .policies.policy import FormatPolicy
from .subclasses import behind_own_call, refuse_quantize, with_training

__all__ = ["EMULATED", "FormatState", "emulate_layer", "kind_of"]

EMULATED = (
    keras.layers.Dense,
    keras.layers.EinsumDense,
    keras.layers.Conv1D,
    keras.layers.Conv2D,
    keras.layers.Conv3D,
)
"""The layer classes :func:`emulate_layer` knows (and their subclasses)."""


def kind_of(layer: Any) -> str | None:
    """``"dense"``, ``"einsum"``, ``"conv"`` or None (not emulated)."""
    if isinstance(layer, keras.layers.EinsumDense):
        return "einsum"
    if isinstance(layer, keras.layers.Dense):
        return "dense"
    if isinstance(layer, keras.layers.Conv1D | keras.layers.Conv2D | keras.layers.Conv3D):
        return "conv"
    return None


class FormatState(keras.layers.Layer):
    """The state of one emulated layer: amax histories and stochastic seeds.

    ``inputs_amax_history`` and ``kernel_amax_history`` (non-trainable) are updated
    by the forward pass in training when a role of ``x`` (or of ``w``) has delayed
    scaling; ``grad_amax_history`` is trainable with ``overwrite_with_gradient``: the
    backward pass returns its new value as its gradient, as Keras' float8 layers do.
    ``model.save`` and ``save_weights`` write them (and the seed generator's state) by
    name; ``load_weights`` restores them into a model emulated again.
    """

    def __init__(self, policy: FormatPolicy, seed: int, **kwargs: Any) -> None:
        super().__init__(dtype="float32", **kwargs)
        specs = policy.role_specs
        history = {
            "shape": (policy.amax_history_len,),
            "initializer": "zeros",
            "dtype": "float32",
            "autocast": False,
        }

        def delayed(tensor: str) -> bool:
            return any(
                s is not None and s.scaling == "delayed"
                for role, s in specs.items()
                if role.endswith("." + tensor)
            )

        self.inputs_amax_history = self.kernel_amax_history = self.grad_amax_history = None
        if delayed("x"):
            self.inputs_amax_history = self.add_weight(
                name="inputs_amax_history", trainable=False, **history
            )
        if delayed("w"):
            self.kernel_amax_history = self.add_weight(
                name="kernel_amax_history", trainable=False, **history
            )
        if delayed("dy"):
            self.grad_amax_history = self.add_weight(
                name="grad_amax_history", trainable=True, overwrite_with_gradient=True, **history
            )
        stochastic = any(s is not None and s.rounding == "stochastic" for s in specs.values())
        self.seed_generator = keras.random.SeedGenerator(seed) if stochastic else None
        self.built = True

    def key(self) -> Any:
        """A fresh key of this step, or None without stochastic rounding."""
        if self.seed_generator is None:
            return None
        state = self.seed_generator.next()
        return jax.random.fold_in(jax.random.fold_in(jax.random.key(0), state[0]), state[1])

    def _state(self) -> dict[str, Any]:
        named = {
            "inputs_amax_history": self.inputs_amax_history,
            "kernel_amax_history": self.kernel_amax_history,
            "grad_amax_history": self.grad_amax_history,
        }
        if self.seed_generator is not None:
            named["seed_generator_state"] = self.seed_generator.state
        return {name: v for name, v in named.items() if v is not None}

    def save_own_variables(self, store: Any) -> None:
        """The amax histories and the seed generator's state, by name (a plain Keras
        model loading the file skips them: its layers have no such state)."""
        for name, variable in self._state().items():
            store[name] = variable.value

    def load_own_variables(self, store: Any) -> None:
        """The state :meth:`save_own_variables` wrote; a file without it (saved from a
        model not emulated) leaves the state as it is, and one of another policy's
        state raises ``ValueError``."""
        if len(store) == 0:
            return
        own = self._state()
        if set(store.keys()) != set(own):
            raise ValueError(
                f"{self.name}: the file holds emulation state {sorted(store.keys())}, this "
                f"policy has {sorted(own)}: emulate the model with the policy it was saved with"
            )
        for name, variable in own.items():
            variable.assign(store[name])


class _Emulation:
    """One layer's rounding: the policy's specs, its state, and the training flag."""

    def __init__(self, layer: Any, policy: FormatPolicy, state: FormatState) -> None:
        self.layer = layer
        self.specs = policy.role_specs
        self.policy = policy
        self.state = state
        self.training = False
        self.products = 0  # how many products ran: a call that ran none did not emulate

    def plan(
        self, axes: Axes, groups: int = 1, *, matrices: Matrices | Convolution | None = None
    ) -> Plan:
        """The layer's six operands, given each tensor's pair of summed axes; with the
        ``matrices`` of its GEMMs, the policy's accumulators."""
        (xk, xm), (wk, wn), (yn, ym) = axes
        s = self.specs
        g = (groups, 1), (1, groups)
        operands = (
            Operand(s["fprop.x"], xk, xm, g[0], "fprop.x"),
            Operand(s["fprop.w"], wk, wn, g[1], "fprop.w"),
            Operand(s["dgrad.dy"], yn, ym, g[0], "dgrad.dy"),
            Operand(s["dgrad.w"], wn, wk, g[0], "dgrad.w"),
            Operand(s["wgrad.x"], xm, xk, g[1], "wgrad.x"),
            Operand(s["wgrad.dy"], ym, yn, g[1], "wgrad.dy"),
        )
        accumulate = ("float32",) * 3
        if matrices is not None:  # accumulator models sum GEMMs (an einsum: if it is one)
            accumulate = tuple(self.policy.accumulator(g) for g in ("fprop", "dgrad", "wgrad"))
        return Plan(operands, seed=self.policy.seed, accumulate=accumulate, matrices=matrices)

    def _history(self, variable: Any, x: Any) -> Any:
        if variable is None:
            return None
        history = keras.ops.convert_to_tensor(variable)
        if self.training:
            variable.assign(fpx_jax.record_amax(history, x))
        return history

    def product(self, op: Callable[[Any, Any], Any], inputs: Any, kernel: Any, plan: Plan) -> Any:
        """``op(inputs, kernel)``, its three GEMMs quantized as ``plan`` says (float32
        products and sums, on a GPU too, where JAX's default precision multiplies
        float32 in TF32)."""
        self.products += 1
        kernel = keras.ops.convert_to_tensor(kernel)
        inputs = keras.ops.convert_to_tensor(inputs)
        state = self.state
        hdy = state.grad_amax_history
        histories = (
            self._history(state.inputs_amax_history, inputs),
            self._history(state.kernel_amax_history, kernel),
            None if hdy is None else keras.ops.convert_to_tensor(hdy),
        )
        return product(op, inputs, kernel, plan, histories=histories, key=state.key())


def _conv1d_steps(layer: Any) -> tuple[Callable[[Any], Any], Callable[[Any, Any], Any]]:
    """Conv1D's ``call`` convolves with ``ops.conv`` itself, not through
    ``convolution_op``: the same steps (its causal padding first), through it."""

    def call(inputs: Any) -> Any:
        if layer.padding == "causal":
            inputs = keras.ops.pad(inputs, layer._compute_causal_padding())
        return keras.layers.Conv2D.call(layer, inputs)  # the convolutions' shared call

    def convolve(inputs: Any, kernel: Any) -> Any:
        padding = "valid" if layer.padding == "causal" else layer.padding
        return keras.ops.conv(
            inputs,
            kernel,
            strides=list(layer.strides),
            padding=padding,
            dilation_rate=layer.dilation_rate,
            data_format=layer.data_format,
        )

    return call, convolve


def emulate_layer(layer: Any, policy: FormatPolicy, seed: int) -> FormatState:
    """Make ``layer`` compute under ``policy`` (in place); returns its state."""
    kind = kind_of(layer)
    if kind is None:
        raise TypeError(f"{type(layer).__name__} layers are not emulated")
    locked = layer._tracker.locked
    layer._tracker.unlock()  # a built layer is locked against new state, as in Keras' quantize
    state = FormatState(policy, seed, name=f"{layer.name}_format_state")
    layer._fpexplore_state = state
    if locked:
        layer._tracker.lock()
    emulation = _Emulation(layer, policy, state)
    refuse_quantize(layer)

    if kind == "conv":
        convolve = layer.convolution_op
        call = layer.call
        if isinstance(layer, keras.layers.Conv1D):  # its call convolves without convolution_op
            steps, convolve = _conv1d_steps(layer)
            if type(layer).call is keras.layers.Conv1D.call:
                call = steps
            else:  # its own call, whose super().call reaches the steps
                behind_own_call(layer, "conv1d", steps)

        def convolution_op(inputs: Any, kernel: Any) -> Any:
            rank = len(inputs.shape)  # channels, and the batch the wgrad sums
            channels = rank - 1 if layer.data_format == "channels_last" else 1
            k = len(kernel.shape)
            axes = (channels, 0), (k - 2, k - 1), (channels, 0)
            groups = getattr(layer, "groups", 1)
            padding = "valid" if layer.padding == "causal" else layer.padding  # padded already
            first = layer.data_format == "channels_first"
            geometry = Convolution(rank - 2, first, tuple(layer.strides), padding,
                                   tuple(layer.dilation_rate), groups)  # fmt: skip
            plan = emulation.plan(axes, groups=groups, matrices=geometry)
            return emulation.product(convolve, inputs, kernel, plan)

        layer.convolution_op = convolution_op
        with_training(layer, emulation, call)
        return state

    def op(a: Any, b: Any) -> Any:
        if kind == "dense":
            return keras.ops.matmul(a, b)
        return keras.ops.einsum(layer.equation, a, b)

    def plan_of(inputs: Any) -> Plan:
        """The roles' summed axes and the GEMM's matrices, for inputs of this rank."""
        rank = len(inputs.shape)
        if kind == "dense":  # the tokens (or the batch) next to the features
            axes = (rank - 1, max(rank - 2, 0)), (0, 1), (rank - 1, max(rank - 2, 0))
            return emulation.plan(axes, matrices=Matrices.dense(rank))
        ndims = (rank, len(layer.kernel.shape), len(layer.compute_output_shape(inputs.shape)))
        return emulation.plan(letters_axes(layer.equation, ndims),
                              matrices=einsum_matrices(layer.equation, ndims))  # fmt: skip

    def dense_steps(inputs: Any) -> Any:
        plan = plan_of(inputs)
        x = emulation.product(op, inputs, layer.kernel, plan)
        if layer.bias is not None:
            x = keras.ops.add(x, layer.bias)
        if layer.activation is not None:
            x = layer.activation(x)
        return x

    base = keras.layers.Dense if kind == "dense" else keras.layers.EinsumDense
    if type(layer).call is base.call:
        with_training(layer, emulation, dense_steps)
    else:  # its own call, whose super().call reaches the steps
        call = layer.call
        behind_own_call(layer, kind, dense_steps)
        with_training(layer, emulation, call)
    return state

"""Emulated layers: Dense, EinsumDense and Conv1D/2D/3D computing under a policy.

:func:`emulate_layer` changes one layer in place (built or not). Its matmul (or einsum, or
convolution) takes operands rounded into the policy's forward format, sums in float32,
and rounds the gradient of its output into the backward format on the way back
(:mod:`fpexplore.keras.operands`); the bias, the activation and everything else
stay as Keras wrote them. Dense and EinsumDense get a ``call`` of the same steps as
Keras' own; a convolution keeps Keras' ``call`` and gets its ``convolution_op``
wrapped. A subclass with a ``call`` of its own keeps it: its ``super().call`` reaches
the emulated steps (:mod:`fpexplore.keras.subclasses`), and a ``call`` that never
reaches them raises ``TypeError`` rather than computing in float32 unseen. The state
this needs (amax histories, a seed generator) lives in a small :class:`FormatState`
sublayer, which ``model.save`` writes beside the layer's weights: a saved model loads
as a plain Keras model, and ``load_weights`` into the model emulated again restores it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax

from .. import jax as fpx_jax
from ._backend import keras
from .operands import backward_rounded, forward_operand
from .policy import FormatPolicy, OperandSpec
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
    by the forward pass in training; ``grad_amax_history`` is trainable with
    ``overwrite_with_gradient``: the backward pass returns its new value as its
    gradient, as Keras' float8 layers do. ``model.save`` and ``save_weights`` write
    them (and the seed generator's state) by name; ``load_weights`` restores them into
    a model emulated again.
    """

    def __init__(self, policy: FormatPolicy, seed: int, **kwargs: Any) -> None:
        super().__init__(dtype="float32", **kwargs)
        forward, backward = policy.forward_spec, policy.backward_spec
        history = {
            "shape": (policy.amax_history_len,),
            "initializer": "zeros",
            "dtype": "float32",
            "autocast": False,
        }
        self.inputs_amax_history = self.kernel_amax_history = self.grad_amax_history = None
        if forward is not None and forward.scaling == "delayed":
            self.inputs_amax_history = self.add_weight(
                name="inputs_amax_history", trainable=False, **history
            )
            self.kernel_amax_history = self.add_weight(
                name="kernel_amax_history", trainable=False, **history
            )
        if backward is not None and backward.scaling == "delayed":
            self.grad_amax_history = self.add_weight(
                name="grad_amax_history", trainable=True, overwrite_with_gradient=True, **history
            )
        stochastic = any(s is not None and s.rounding == "stochastic" for s in (forward, backward))
        self.seed_generator = keras.random.SeedGenerator(seed) if stochastic else None
        self.built = True

    def keys(self) -> tuple[Any, Any, Any]:
        """Three fresh keys (inputs, kernel, gradient), or Nones without stochastic rounding."""
        if self.seed_generator is None:
            return None, None, None
        state = self.seed_generator.next()
        key = jax.random.fold_in(jax.random.fold_in(jax.random.key(0), state[0]), state[1])
        return jax.random.fold_in(key, 0), jax.random.fold_in(key, 1), jax.random.fold_in(key, 2)

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
        self.forward: OperandSpec | None = policy.forward_spec
        self.backward: OperandSpec | None = policy.backward_spec
        self.state = state
        self.training = False
        self.products = 0  # how many products ran: a call that ran none did not emulate

    def _operand(self, x: Any, spec: OperandSpec, variable: Any, axis: int, key: Any) -> Any:
        history = None
        if variable is not None:
            history = keras.ops.convert_to_tensor(variable)
            if self.training:
                variable.assign(fpx_jax.record_amax(history, x))
        return forward_operand(x, spec, axis=axis, key=key, history=history)

    def product(
        self,
        op: Callable[[Any, Any], Any],
        inputs: Any,
        kernel: Any,
        axes: tuple[int, int],
        out_axis: int = -1,
    ) -> Any:
        """``op(inputs, kernel)`` on rounded operands, its gradient rounded on the way back
        (in blocks along ``out_axis``, the output's features or channels)."""
        self.products += 1
        keys = self.state.keys()
        kernel = keras.ops.convert_to_tensor(kernel)
        if self.forward is not None:
            inputs = self._operand(
                inputs, self.forward, self.state.inputs_amax_history, axes[0], keys[0]
            )
            kernel = self._operand(
                kernel, self.forward, self.state.kernel_amax_history, axes[1], keys[1]
            )
        # Float32 products and sums, on a GPU too, where JAX's default precision multiplies
        # float32 in TF32 (the gradients' matmuls inherit the forward's precision).
        with jax.default_matmul_precision("float32"):
            outputs = op(inputs, kernel)
        if self.backward is not None:
            history = self.state.grad_amax_history
            if history is not None:
                history = keras.ops.convert_to_tensor(history)
            outputs = backward_rounded(
                outputs, self.backward, axis=out_axis, key=keys[2], history=history
            )
        return outputs


def _einsum_axes(equation: str) -> tuple[int, int]:
    """The axis of each operand that the einsum sums over (the last such letter)."""
    operands, output = equation.replace(" ", "").split("->")
    left, right = operands.split(",")
    summed = [c for c in left if c in right and c not in output and c != "."]
    if not summed:
        return -1, 0
    letter = summed[-1]

    def axis(term: str) -> int:
        if "..." not in term:
            return term.index(letter)
        head, tail = term.split("...")  # the ellipsis stands for any number of axes
        return head.index(letter) if letter in head else tail.index(letter) - len(tail)

    return axis(left), axis(right)


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
        channels = -1 if layer.data_format == "channels_last" else 1
        convolve = layer.convolution_op
        call = layer.call
        if isinstance(layer, keras.layers.Conv1D):  # its call convolves without convolution_op
            steps, convolve = _conv1d_steps(layer)
            if type(layer).call is keras.layers.Conv1D.call:
                call = steps
            else:  # its own call, whose super().call reaches the steps
                behind_own_call(layer, "conv1d", steps)

        def convolution_op(inputs: Any, kernel: Any) -> Any:
            return emulation.product(convolve, inputs, kernel, (channels, -2), channels)

        layer.convolution_op = convolution_op
        with_training(layer, emulation, call)
        return state

    if kind == "dense":
        axes = (-1, 0)

        def op(a: Any, b: Any) -> Any:
            return keras.ops.matmul(a, b)

    else:
        axes = _einsum_axes(layer.equation)

        def op(a: Any, b: Any) -> Any:
            return keras.ops.einsum(layer.equation, a, b)

    def dense_steps(inputs: Any) -> Any:
        x = emulation.product(op, inputs, layer.kernel, axes)
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

"""How an emulated layer's ``call`` is installed: the training flag, subclasses, quantize.

* :func:`with_training` installs a layer's ``call`` (its emulated steps, or a subclass's
  own ``call``) with a ``training`` argument that Keras passes, tells the emulation
  whether it trains (delayed scaling records amax histories only then), and raises
  ``TypeError`` when a call ran no emulated product: a subclass that computes without
  its base class' ``call`` would otherwise run in float32 while listed as emulated;
* :func:`behind_own_call` serves a subclass with a ``call`` of its own (``return
  super().call(x) * 2``): the layer's class becomes a subclass of its class and of a
  step class (:class:`DenseSteps`, :class:`EinsumDenseSteps`, :class:`Conv1DSteps`),
  which comes after it in the method order, so its ``super().call`` runs the emulated
  steps. The class keeps its name, module and registered name, so that it saves and
  loads as before;
* :func:`refuse_quantize` makes ``layer.quantize`` raise: Keras' quantization would
  replace the computation that emulate rounds.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ._backend import keras

__all__ = [
    "Conv1DSteps",
    "DenseSteps",
    "EinsumDenseSteps",
    "behind_own_call",
    "refuse_quantize",
    "with_training",
]

_STEPS = "_fpexplore_steps"


def _steps_call(base: Any) -> Callable[..., Any]:
    def call(self: Any, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        steps = getattr(self, _STEPS, None)
        if steps is None:  # a layer of the class made anew (a clone): Keras' own call
            return base.call(self, inputs, *args, **kwargs)
        return steps(inputs)

    call.__doc__ = f"The emulated steps of {base.__name__}.call (a subclass' super().call)."
    return call


class DenseSteps(keras.layers.Dense):
    """Behind a Dense subclass' own ``call``: its ``super().call`` runs the emulated steps."""

    call = _steps_call(keras.layers.Dense)


class EinsumDenseSteps(keras.layers.EinsumDense):
    """Behind an EinsumDense subclass' own ``call``, as :class:`DenseSteps`."""

    call = _steps_call(keras.layers.EinsumDense)


class Conv1DSteps(keras.layers.Conv1D):
    """Behind a Conv1D subclass' own ``call``: Conv1D's ``call`` convolves without
    ``convolution_op``; the steps convolve through it."""

    call = _steps_call(keras.layers.Conv1D)


_KINDS = {"dense": DenseSteps, "einsum": EinsumDenseSteps, "conv1d": Conv1DSteps}
_CLASSES: dict[tuple[type, type], type] = {}


def behind_own_call(layer: Any, kind: str, steps: Callable[[Any], Any]) -> None:
    """Make ``super().call`` in the ``call`` of ``layer``'s class run ``steps``."""
    from keras.src.saving import object_registration  # type: ignore[import-untyped]

    cls, mixin = type(layer), _KINDS[kind]
    if not issubclass(cls, mixin):
        swapped = _CLASSES.get((cls, mixin))
        if swapped is None:
            namespace = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
            swapped = type(cls.__name__, (cls, mixin), namespace)
            names = object_registration.GLOBAL_CUSTOM_NAMES
            if cls in names:  # saved under the name it was registered with
                names[swapped] = names[cls]
            _CLASSES[(cls, mixin)] = swapped
        layer.__class__ = swapped
    object.__setattr__(layer, _STEPS, steps)


def with_training(layer: Any, emulation: Any, call: Callable[..., Any]) -> None:
    """Install ``call`` as ``layer.call``, with a ``training`` argument Keras passes.

    ``emulation.training`` holds the flag while ``call`` runs; a ``call`` that ran no
    emulated product (``emulation.products`` unchanged) raises ``TypeError``.
    """
    signature = inspect.signature(call)
    takes = "training" in signature.parameters
    if not takes:
        parameters = list(signature.parameters.values())
        at = next(
            (i for i, p in enumerate(parameters) if p.kind is inspect.Parameter.VAR_KEYWORD),
            len(parameters),
        )
        flag = inspect.Parameter("training", inspect.Parameter.KEYWORD_ONLY, default=None)
        signature = signature.replace(parameters=[*parameters[:at], flag, *parameters[at:]])

    def emulated_call(*args: Any, **kwargs: Any) -> Any:
        if takes:
            training = signature.bind(*args, **kwargs).arguments.get("training")
        else:
            training = kwargs.pop("training", None)
        before = emulation.products
        emulation.training = bool(training)
        try:
            outputs = call(*args, **kwargs)
        finally:
            emulation.training = False
        if emulation.products == before:
            keras_classes = (c for c in type(layer).__mro__ if c.__module__.startswith("keras"))
            name = next(keras_classes).__name__
            raise TypeError(
                f"layer {layer.name!r} ({type(layer).__name__}) computed its output without "
                f"{name}.call, so emulate cannot round its product: reach it through "
                f"super().call, or leave the layer in float32 with exclude=[{layer.name!r}]"
            )
        return outputs

    emulated_call.__signature__ = signature  # type: ignore[attr-defined]
    emulated_call.__doc__ = getattr(call, "__doc__", None)
    layer.call = emulated_call
    layer._call_signature = signature
    layer.call_signature_parameters = list(signature.parameters)
    layer._call_has_training_arg = True
    layer._call_has_context_arg = {**layer._call_has_context_arg, "training": True}


def refuse_quantize(layer: Any) -> None:
    """Make ``layer.quantize`` raise ``ValueError``."""

    def quantize(mode: Any = None, *args: Any, **kwargs: Any) -> None:
        raise ValueError(
            f"quantize({mode!r}) on layer {layer.name!r}, which fpexplore.keras.emulate "
            "emulates: Keras' quantization would replace the products emulate rounds. "
            "Quantize a model that is not emulated (emulate refuses quantized layers too)"
        )

    object.__setattr__(layer, "quantize", quantize)

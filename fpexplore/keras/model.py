"""``emulate(model, policy)``: a Keras model made to train under a format policy.

How a model changes, in place:

* its trainable variables are rounded into ``policy.weights`` (to nearest) at once, or,
  for a model not built yet, when Keras builds it for ``fit``, ``evaluate`` or ``predict``;
* each Dense, EinsumDense and Conv1D/2D/3D layer gets its rounding
  (:mod:`fpexplore.keras.layers`); every other layer runs in float32;
* ``model.compile`` is wrapped: the optimizer it makes is wrapped in a
  :class:`~fpexplore.keras.optimizer.FormatOptimizer` (weights, masters), over a
  ``LossScaleOptimizer`` for ``loss_scale="dynamic"``;
* ``model.summary()`` ends with the :class:`~fpexplore.keras.EmulationReport`, also
  at ``model.fpexplore_report``; the policy is ``model.fpexplore_policy``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .. import round_to
from .policy import FormatPolicy
from .presets import PRESETS
from .roles import GEMMS

__all__ = ["emulate_model"]


def _check(model: Any, keras: Any, layers: list[Any]) -> None:
    if getattr(model, "fpexplore_policy", None) is not None:
        raise ValueError(f"model {model.name!r} is emulated already; build a fresh model")
    if getattr(model, "compiled", False):
        raise ValueError(
            f"model {model.name!r} is compiled already: call emulate before compile "
            "(a loaded model: keras.saving.load_model(path, compile=False))"
        )
    from .layers import kind_of

    for layer in layers:
        if kind_of(layer) is None:
            continue
        if layer.compute_dtype != "float32" or layer.variable_dtype != "float32":
            raise ValueError(
                f"layer {layer.name!r} has dtype policy {layer.dtype_policy.name!r}; emulate "
                "rounds in float32: build the model under the 'float32' dtype policy"
            )
        if getattr(layer, "quantization_mode", None) is not None:
            raise ValueError(
                f"layer {layer.name!r} is quantized already ({layer.quantization_mode!r})"
            )


def _round_weights(variables: list[Any], fmt: str) -> None:
    for variable in variables:
        stored = round_to(np.asarray(variable.value, dtype=np.float32), fmt)
        variable.assign(stored.astype(np.float32))


def _wrap_compile(model: Any, policy: FormatPolicy, keras: Any) -> None:
    from .optimizer import FormatOptimizer

    compile_model = model.compile

    def compile(*args: Any, **kwargs: Any) -> None:
        compile_model(*args, **kwargs)
        inner = given = model.optimizer
        if inner is None:
            return
        if policy.loss_scale == "dynamic":
            if not isinstance(inner, keras.optimizers.LossScaleOptimizer):
                inner = keras.optimizers.LossScaleOptimizer(inner)
        elif policy.loss_scale is not None:
            inner.loss_scale_factor = float(policy.loss_scale)
        model.optimizer = FormatOptimizer(inner, policy, given_optimizer=given)

    compile.__doc__ = compile_model.__doc__
    object.__setattr__(model, "compile", compile)


def _wrap_step_makers(model: Any, fmt: str) -> None:
    """Store a model built after ``emulate`` in the format before it predicts, evaluates
    or trains (Keras builds it just before it makes the step function)."""
    for name in ("make_train_function", "make_test_function", "make_predict_function"):
        make = getattr(model, name)

        def make_step(*args: Any, _make: Any = make, **kwargs: Any) -> Any:
            if model.built:  # to nearest: a no-op on weights on the grid already
                _round_weights(_weights(model), fmt)
            return _make(*args, **kwargs)

        make_step.__doc__ = make.__doc__
        object.__setattr__(model, name, make_step)


def _weights(model: Any) -> list[Any]:
    """The trainable variables the weights format applies to (not the amax histories)."""
    return [v for v in model.trainable_variables if not v.overwrite_with_gradient]


def _wrap_summary(model: Any) -> None:
    summarize = model.summary

    def summary(*args: Any, print_fn: Any = None, **kwargs: Any) -> None:
        summarize(*args, print_fn=print_fn, **kwargs)
        text = str(model.fpexplore_report)
        if print_fn is None:
            print(text)
        else:
            for line in text.splitlines():
                print_fn(line)

    summary.__doc__ = summarize.__doc__
    object.__setattr__(model, "summary", summary)


def emulate_model(
    model: Any,
    policy: FormatPolicy,
    *,
    exclude: tuple[str, ...] = (),
    overrides: Mapping[str, Any] | None = None,
) -> Any:
    """The body of :func:`fpexplore.keras.emulate` (``policy`` already resolved)."""
    from ._backend import require_jax

    keras = require_jax()
    from .layers import FormatState, emulate_layer, kind_of
    from .report import EmulationReport
    from .selection import assign

    if not isinstance(model, keras.Model):
        raise TypeError(f"emulate needs a keras.Model, got {type(model).__name__}")
    layers = [
        layer
        for layer in model._flatten_layers(include_self=False, recursive=True)
        if not isinstance(layer, FormatState | keras.layers.InputLayer)
    ]
    _check(model, keras, layers)
    emulable = [layer for layer in layers if not isinstance(layer, keras.Model) and kind_of(layer)]
    name = next((k for k, v in PRESETS.items() if v is policy), "custom")
    chosen = assign(policy, name, layers, emulable, exclude=exclude, overrides=overrides,
                    model_name=model.name)  # fmt: skip
    if policy.weights is not None and model.built:  # else when Keras builds it
        _round_weights(_weights(model), policy.weights)
    rows: list[tuple[str, str, bool | None]] = []
    reasons: list[tuple[str, FormatPolicy | None, str]] = []
    for index, layer in enumerate(layers):
        if isinstance(layer, keras.Model):  # a sub-model: its layers have rows of their own
            rows.append((layer.name, type(layer).__name__, None))
            continue
        layer_policy, reason = chosen.get(id(layer), (None, "not an emulated kind"))
        emulated = layer_policy is not None and layer_policy.rounds_operands
        if layer_policy is not None and emulated:
            emulate_layer(layer, layer_policy, seed=layer_policy.seed * 7919 + index)
        rows.append((layer.name, type(layer).__name__, emulated))
        if id(layer) in chosen:
            models = {"float32"}
            if layer_policy is not None and emulated:
                models = {layer_policy.accumulator(g) for g in GEMMS}
            if models != {"float32"} and kind_of(layer) != "dense":
                reason += "; sums in float32 (accumulator models sum Dense layers' GEMMs)"
            reasons.append((layer.name, layer_policy if emulated else None, reason))
    report = EmulationReport(policy, name, tuple(rows), tuple(reasons))
    object.__setattr__(model, "fpexplore_policy", policy)
    object.__setattr__(model, "fpexplore_report", report)
    _wrap_compile(model, policy, keras)
    if policy.weights is not None:
        _wrap_step_makers(model, policy.weights)
    _wrap_summary(model)
    return model

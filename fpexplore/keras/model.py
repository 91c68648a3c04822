"""``emulate(model, policy)``: a Keras model made to train under a format policy.

How a model changes, in place:

* its trainable variables are rounded into ``policy.weights`` (to nearest) at once, or,
  for a model not built yet, when Keras builds it for ``fit``, ``evaluate`` or ``predict``;
* each Dense, EinsumDense and Conv1D/2D/3D layer gets its rounding
  (:mod:`fpexplore.keras.layers`), also one that Keras makes later, when it builds the
  layer holding it (:mod:`fpexplore.keras.coverage`); every other layer runs in float32;
* the predict, evaluate and train functions Keras made before (``predict`` called on
  the float32 model) are dropped, so that the next call makes them emulated;
* ``model.quantize`` raises: Keras' quantization would replace what emulate rounds;
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
from .policies.policy import FormatPolicy
from .policies.presets import PRESETS
from .policies.roles import GEMMS
from .seeds import stream_seed

__all__ = ["emulate_model"]


def _check(model: Any) -> None:
    if getattr(model, "fpexplore_policy", None) is not None:
        raise ValueError(f"model {model.name!r} is emulated already; build a fresh model")
    if getattr(model, "compiled", False):
        raise ValueError(
            f"model {model.name!r} is compiled already: call emulate before compile "
            "(a loaded model: keras.saving.load_model(path, compile=False))"
        )


def _check_layer(layer: Any) -> None:
    """A layer emulate would round: float32, and not quantized by Keras."""
    if layer.compute_dtype != "float32" or layer.variable_dtype != "float32":
        raise ValueError(
            f"layer {layer.name!r} has dtype policy {layer.dtype_policy.name!r}; emulate "
            "rounds in float32: build the model under the 'float32' dtype policy"
        )
    if getattr(layer, "quantization_mode", None) is not None:
        raise ValueError(f"layer {layer.name!r} is quantized already ({layer.quantization_mode!r})")


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


STEP_FUNCTIONS = ("train_function", "test_function", "predict_function")


def _wrap_step_makers(model: Any, fmt: str | None, coverage: Any) -> None:
    """Drop the step functions Keras made before ``emulate`` (``predict`` on the float32
    model), and, before Keras makes one, visit the model for layers made since and store
    a model built after ``emulate`` in the format (Keras builds it just before)."""
    for name in STEP_FUNCTIONS:
        setattr(model, name, None)
    for name in ("make_train_function", "make_test_function", "make_predict_function"):
        make = getattr(model, name)

        def make_step(*args: Any, _make: Any = make, **kwargs: Any) -> Any:
            coverage.visit()
            if fmt is not None and model.built:  # to nearest: a no-op on the grid already
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


def _refuse_quantize(model: Any) -> None:
    def quantize(mode: Any = None, *args: Any, **kwargs: Any) -> None:
        raise ValueError(
            f"model.quantize({mode!r}) on model {model.name!r}, which fpexplore.keras."
            "emulate emulates: Keras' quantization would replace the products emulate "
            "rounds. Quantize a model that is not emulated (emulate refuses quantized "
            "layers too)"
        )

    object.__setattr__(model, "quantize", quantize)


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
    from .coverage import Coverage, model_layers
    from .einsums import is_one_gemm
    from .layers import emulate_layer, kind_of
    from .policies.report import SUMS_IN_FLOAT32, EmulationReport
    from .policies.selection import assign

    if not isinstance(model, keras.Model):
        raise TypeError(f"emulate needs a keras.Model, got {type(model).__name__}")
    _check(model)
    layers = model_layers(model)
    for layer in layers:
        if kind_of(layer) is not None:
            _check_layer(layer)
    emulable = [layer for layer in layers if not isinstance(layer, keras.Model) and kind_of(layer)]
    name = next((k for k, v in PRESETS.items() if v is policy), "custom")
    chosen = assign(policy, name, layers, emulable, exclude=exclude, overrides=overrides,
                    model_name=model.name)  # fmt: skip
    if policy.weights is not None and model.built:  # else when Keras builds it
        _round_weights(_weights(model), policy.weights)
    reasons: dict[int, tuple[str, FormatPolicy | None, str]] = {}

    def decide(layer: Any, index: int, excluded: bool) -> bool | None:
        if isinstance(layer, keras.Model):  # a sub-model: its layers have rows of their own
            return None
        if kind_of(layer) is None:
            return False
        if excluded and id(layer) not in chosen:  # made later, inside an excluded layer
            layer_policy, reason = None, "inside an excluded layer"
        else:  # a layer made later gets the model's policy
            layer_policy, reason = chosen.get(id(layer), (policy, f"policy {name}, made later"))
        emulated = layer_policy is not None and layer_policy.rounds_operands
        if layer_policy is not None and emulated:
            _check_layer(layer)
            emulate_layer(layer, layer_policy, seed=stream_seed(layer_policy.seed, 0, index))
            models = {layer_policy.accumulator(g) for g in GEMMS}
            if (
                models != {"float32"}
                and kind_of(layer) == "einsum"
                and not is_one_gemm(layer.equation)
            ):
                reason += f"; {SUMS_IN_FLOAT32}"
        reasons[id(layer)] = (layer.name, layer_policy if emulated else None, reason)
        return emulated

    def report() -> None:
        rows = coverage.rows()
        said = tuple(reasons.values())
        object.__setattr__(model, "fpexplore_report", EmulationReport(policy, name, rows, said))

    named = [
        layer
        for layer in layers
        if layer.name in set(exclude) or chosen.get(id(layer), (None, ""))[1].startswith("excl")
    ]
    coverage = Coverage(model, decide, named, on_change=report)
    coverage.visit()
    coverage.hook_model()
    report()
    object.__setattr__(model, "fpexplore_policy", policy)
    _wrap_compile(model, policy, keras)
    _wrap_step_makers(model, policy.weights, coverage)
    _wrap_summary(model)
    _refuse_quantize(model)
    return model

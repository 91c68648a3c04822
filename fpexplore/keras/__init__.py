"""Training in any format: a format policy for Keras 3 models on the JAX backend.

:func:`emulate` makes a Keras model train with plain ``model.fit`` as if its
matmuls and convolutions took their operands in one format, its gradients flowed in
another, and its weights were stored in a third, each correctly rounded by
``fpexplore.jax`` inside the jitted training step. :class:`FormatPolicy` says where
and how; :data:`PRESETS` names the usual recipes (``"bfloat16"``, ``"fp8"``,
``"mxfp4"``, ``"nvfp4"``...). Products accumulate in float32, as on tensor cores.

This folder holds the emulation: ``model`` (``emulate``), ``layers``, ``gemm`` and
``operands`` (each GEMM's operands rounded through ``fpexplore.jax``), ``optimizer``
(:class:`~fpexplore.keras.optimizer.FormatOptimizer`), ``subclasses``, ``coverage`` and
``seeds``; what a policy says and which layer gets which is
:mod:`fpexplore.keras.policies` (plain Python: no Keras, no JAX).

Needs the ``keras`` extra (``pip install -e ".[keras]"`` from a clone). If Keras is
not imported yet and ``KERAS_BACKEND`` is unset, :func:`emulate` chooses JAX.

Examples
--------
>>> from fpexplore.keras import PRESETS, FormatPolicy
>>> PRESETS["bfloat16_weights"].weights
'bfloat16'
>>> model = emulate(model, "fp8")  # doctest: +SKIP
>>> model.fit(x, y)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .._moved import alias_moved_modules as _alias_moved_modules
from .policies.policy import ROLES, SCALINGS, FormatPolicy, OperandSpec
from .policies.presets import PRESETS, get_policy

if TYPE_CHECKING:
    from .policies.report import EmulationReport

# Module paths that moved (docs/changelog.md, "Old names that still work"): the old
# names stay importable as aliases of the modules that replaced them, also as
# attributes (``from fpexplore.keras import presets``). None of them imports Keras.
_MOVED_MODULES = {
    "policy": "policies.policy",
    "specs": "policies.specs",
    "roles": "policies.roles",
    "presets": "policies.presets",
    "selection": "policies.selection",
    "report": "policies.report",
}


_alias_moved_modules(__name__, _MOVED_MODULES)

__all__ = [
    "PRESETS",
    "ROLES",
    "SCALINGS",
    "EmulationReport",
    "FormatPolicy",
    "OperandSpec",
    "emulate",
]


def emulate(
    model: Any,
    policy: FormatPolicy | str,
    *,
    exclude: Iterable[str] | str | None = (),
    overrides: Mapping[str, FormatPolicy | str | None] | None = None,
) -> Any:
    """Make ``model`` predict and train under ``policy``; returns the same model.

    Parameters
    ----------
    model : keras.Model
        A model not yet compiled, of float32 layers (the default dtype policy), on
        Keras' JAX backend. Built or not: the weights of a model built later are
        stored in the format when ``fit``, ``evaluate`` or ``predict`` builds it.
    policy : FormatPolicy or str
        A policy, or the name of one of :data:`PRESETS`.
    exclude : selectors of layers (or one), or None
        Layers to leave in float32, as ``dtype="float32"`` opts one layer out of
        Keras' mixed precision (the weights format still applies to their weights).
        A selector is a layer's name, a glob over the names (``"block_*"``), a layer
        class name (``"Conv2D"``: that class and its subclasses), or a position among
        the layers of an emulated kind in the model's order (``"first:2"``,
        ``"last:8"``; a ``k`` past their number selects them all, ``k`` is at least 1);
        one that selects nothing is a ValueError. None excludes nothing.
    overrides : mapping or None
        Selectors (as ``exclude``) to the policy those layers compute under instead: a
        :class:`FormatPolicy`, a preset name or None (float32). They come after the
        policy's own ``overrides`` (a recipe's rule, such as NVFP4's last layers in
        BF16), a later key wins, and ``exclude`` comes last. A layer's policy chooses
        its GEMMs' operands and accumulators; the weights format, master weights and
        loss scaling are ``policy``'s, for every layer.

    Returns
    -------
    keras.Model
        ``model`` itself. Its ``Dense``, ``EinsumDense`` and ``Conv1D/2D/3D`` layers
        round their operands into ``policy.forward`` and the gradient of their
        output into ``policy.backward``; other layers run in float32.
        ``model.fpexplore_report`` lists which layer is which, with the policy each
        layer got and why (``model.summary()`` prints it too; ``policy_of`` and
        ``reason`` answer for one layer), ``model.fpexplore_policy`` is the policy. At ``compile``
        the optimizer is wrapped to round the weights into ``policy.weights`` after
        each step (keeping float32 masters if asked) and to scale the loss.

    Notes
    -----
    Every layer has a row in ``model.fpexplore_report``, in model order, emulated or
    float32, also the layers Keras makes when it builds a layer after ``emulate``
    (``MultiHeadAttention``'s projections): they are emulated as they are made. A
    subclass with its own ``call`` keeps it, and its ``super().call`` computes
    emulated; a ``call`` that never reaches it raises ``TypeError`` (exclude the
    layer). Predict functions that Keras made before are dropped, and
    ``model.quantize`` raises.

    ``model.save`` keeps the architecture and the weights as stored (on the
    ``weights`` grid), and the emulation's state (the amax histories of delayed
    scaling, the stochastic rounding's seed state): ``keras.saving.load_model``
    gives a plain float32 model, which skips that state. Load it with
    ``compile=False``, call ``emulate`` again, then ``model.load_weights(path)``
    to restore the state: it then predicts bit for bit as the saved model. Not
    saved: the float32 master weights (they start again from the stored weights).
    """
    from .model import emulate_model

    if exclude is None:
        names: tuple[str, ...] = ()
    else:
        names = (exclude,) if isinstance(exclude, str) else tuple(exclude)
    return emulate_model(model, get_policy(policy), exclude=names, overrides=overrides)


def __getattr__(name: str) -> Any:
    if name == "EmulationReport":
        from .policies.report import EmulationReport

        return EmulationReport
    raise AttributeError(f"module 'fpexplore.keras' has no attribute {name!r}")

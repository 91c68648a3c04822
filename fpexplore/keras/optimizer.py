"""The optimizer of an emulated model: weights stored in a format, float32 masters.

:class:`FormatOptimizer` wraps the optimizer given to ``compile`` (as Keras'
``LossScaleOptimizer`` wraps one) and does three things inside the jitted step:

* without master weights, the inner optimizer updates each weight in float32 and the
  result is rounded into the policy's ``weights`` format, to nearest or
  stochastically: an update smaller than half a spacing of the format is lost (or
  kept with the probability of its size);
* with ``master_weights=True`` it keeps a float32 master copy of each weight (an
  optimizer variable, ``master_weights``), the inner optimizer updates the masters,
  and each stored weight becomes its master's rounding;
* the loss is scaled by the inner optimizer (``scale_loss``): for
  ``loss_scale="dynamic"`` the inner optimizer is a ``LossScaleOptimizer``.

What the inner optimizer does per variable acts on the float32 value it updates (the
weight, or its master), and the stored weight is its rounding: a master has its
weight's ``constraint`` (``NonNeg``, ``MaxNorm``... applied after each update) and is
decayed, or excluded from weight decay (``exclude_from_weight_decay``), as its weight
would be; gradient clipping, ``use_ema`` and gradient accumulation are the inner
optimizer's own.

Its saved state is that of the optimizer given to ``compile``, so a saved model loads
as a plain one; the masters are not saved (a loaded model's masters start from its
stored weights).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from .. import jax as fpx_jax
from ._backend import keras
from .policies.policy import FormatPolicy
from .seeds import stream_seed

__all__ = ["FormatOptimizer"]


class FormatOptimizer(keras.optimizers.Optimizer):
    """Wraps ``inner_optimizer``; stores the weights it updates in ``policy.weights``.

    The weights are the variables it is built with, but for those with
    ``overwrite_with_gradient`` (the amax histories of delayed scaling), which hold
    state rather than weights.

    Parameters
    ----------
    inner_optimizer : keras.optimizers.Optimizer
    policy : FormatPolicy
    given_optimizer : keras.optimizers.Optimizer, optional
        The optimizer given to ``compile``, whose state ``model.save`` writes (a loaded
        model has that one): ``inner_optimizer`` itself (the default) or the optimizer
        inside the ``LossScaleOptimizer`` that ``emulate`` added for dynamic loss scaling.
    """

    def __init__(
        self,
        inner_optimizer: Any,
        policy: FormatPolicy,
        name: Any = None,
        *,
        given_optimizer: Any = None,
    ) -> None:
        super().__init__(learning_rate=0.0, name=name or "format_optimizer")
        self.inner_optimizer = inner_optimizer
        self._given = inner_optimizer if given_optimizer is None else given_optimizer
        self.policy = policy
        self.master_weights: list[Any] = []
        self._layout: list[int | None] = []

    def build(self, var_list: Sequence[Any]) -> None:
        """Create the master copies (if asked), store the weights in the format (to
        nearest), and build the inner optimizer."""
        var_list = list(var_list)
        fmt = self.policy.weights
        self._round = [fmt is not None and not v.overwrite_with_gradient for v in var_list]
        masters: list[Any] = []
        layout: list[int | None] = []  # per variable: its master's index, or None
        for variable, rounded in zip(var_list, self._round, strict=True):
            if self.policy.master_weights and rounded:
                master = self.add_variable_from_reference(variable, name="master")
                master.assign(jnp.array(variable.value, copy=True))  # a buffer of its own
                master.constraint = variable.constraint  # applied by the inner optimizer
                layout.append(len(masters))
                masters.append(master)
            else:
                layout.append(None)
            if fmt is not None and rounded:
                variable.assign(fpx_jax.round_to(variable.value, fmt))
        self.master_weights = masters
        self._layout = layout
        targets = [v if j is None else masters[j] for v, j in zip(var_list, layout, strict=True)]
        self.inner_optimizer.build(targets)
        for variable, j in zip(var_list, layout, strict=True):
            if j is not None:
                _decay_as(self._given, masters[j], variable)
        super().build(var_list)

    @property
    def variables(self) -> list[Any]:
        return self._variables + self.inner_optimizer.variables

    def _store(self, values: Sequence[Any], step: Any) -> list[Any]:
        """Each updated value rounded into the weights format where it is a weight."""
        if self.policy.weights is None:
            return list(values)
        stochastic = self.policy.weight_rounding == "stochastic"
        seed = stream_seed(self.policy.seed, 1)
        key = jax.random.fold_in(jax.random.key(seed), step) if stochastic else None
        stored = []
        for index, (value, rounded) in enumerate(zip(values, self._round, strict=True)):
            if rounded:
                k = None if key is None else jax.random.fold_in(key, index)
                value = fpx_jax.round_to(
                    value, self.policy.weights, self.policy.weight_rounding, key=k
                )
            stored.append(value)
        return stored

    def stateless_apply(
        self,
        optimizer_variables: Sequence[Any],
        grads: Sequence[Any],
        trainable_variables: Sequence[Any],
    ) -> tuple[list[Any], list[Any]]:
        """Update the weights (or their masters) with the inner optimizer, then round them."""
        own = len(self._variables)
        own_values, inner_values = list(optimizer_variables[:own]), optimizer_variables[own:]
        slot = {id(v): i for i, v in enumerate(self._variables)}
        master_slots = [slot[id(m)] for m in self.master_weights]
        iterations = own_values[slot[id(self._iterations)]]
        targets = [
            value if j is None else own_values[master_slots[j]]
            for value, j in zip(trainable_variables, self._layout, strict=True)
        ]
        updated, new_inner = self.inner_optimizer.stateless_apply(
            list(inner_values), list(grads), targets
        )
        for value, j in zip(updated, self._layout, strict=True):
            if j is not None:
                own_values[master_slots[j]] = value
        own_values[slot[id(self._iterations)]] = iterations + 1
        return self._store(updated, iterations), own_values + list(new_inner)

    def apply(self, grads: Sequence[Any], trainable_variables: Sequence[Any] | None = None) -> None:
        """The stateful form of :meth:`stateless_apply`."""
        variables = list(trainable_variables or self._trainable_variables)
        if not self.built:
            self.build(variables)
        new_values, new_state = self.stateless_apply(
            [v.value for v in self.variables], grads, [v.value for v in variables]
        )
        for variable, value in zip(variables, new_values, strict=True):
            variable.assign(value)
        for variable, value in zip(self.variables, new_state, strict=True):
            variable.assign(value)

    def scale_loss(self, loss: Any) -> Any:
        return self.inner_optimizer.scale_loss(loss)

    @property
    def learning_rate(self) -> Any:
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, learning_rate: Any) -> None:
        self.inner_optimizer.learning_rate = learning_rate

    def finalize_variable_values(self, var_list: Sequence[Any]) -> None:
        """The inner optimizer's last word (``use_ema`` writes the moving averages into
        the weights, or into their masters), stored in the format to nearest."""
        var_list = list(var_list)
        if not self.built or len(var_list) != len(self._layout):
            self.inner_optimizer.finalize_variable_values(var_list)
            return
        targets = [
            v if j is None else self.master_weights[j]
            for v, j in zip(var_list, self._layout, strict=True)
        ]
        before = [t.value for t in targets]
        self.inner_optimizer.finalize_variable_values(targets)
        fmt = self.policy.weights
        for variable, target, old, rounded in zip(
            var_list, targets, before, self._round, strict=True
        ):
            if fmt is not None and rounded and not bool(jnp.array_equal(target.value, old)):
                variable.assign(fpx_jax.round_to(target.value, fmt))

    def exclude_from_weight_decay(self, var_list: Any = None, var_names: Any = None) -> None:
        """As the given optimizer's (before the first step): the weights named, or matched,
        and their masters are not decayed."""
        self._given.exclude_from_weight_decay(var_list=var_list, var_names=var_names)

    def save_own_variables(self, store: Any) -> None:
        """The given optimizer's state only: the model loads as a plain one."""
        self._given.save_own_variables(store)

    def load_own_variables(self, store: Any) -> None:
        self._given.load_own_variables(store)


def _decay_as(optimizer: Any, master: Any, variable: Any) -> None:
    """Make ``optimizer`` decay ``master`` (or not) as it would ``variable``: its
    ``exclude_from_weight_decay`` names and lists the model's variables."""
    decays = optimizer._use_weight_decay(variable)  # fills the cache it reads
    optimizer._exclude_from_weight_decay_cache[optimizer._var_key(master)] = decays

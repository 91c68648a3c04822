"""Which layers of an emulated model are emulated, in model order, as Keras makes them.

How a layer travels through :class:`Coverage`:

* ``emulate`` visits every layer of the model, depth first in the order each layer
  holds its sublayers (:func:`model_layers`: a nested model's row, then its layers,
  top-down), and decides for each, once, whether it is emulated (``decide``);
* a layer that is not built yet may make layers when Keras builds it
  (``MultiHeadAttention`` makes its query, key, value and output projections in its
  ``build``): its ``build`` is hooked, and the layers it made are visited as soon as it
  returns, before anything calls them;
* before Keras makes a predict, evaluate or train function, the model is visited again
  (:meth:`Coverage.visit`), for layers made any other way;
* each visit that finds a layer calls ``on_change``, which makes the report again: every
  layer of the model has a row, emulated or not.

A layer inside an excluded layer is excluded, whenever it is made.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["Coverage", "model_layers"]


def model_layers(layer: Any) -> list[Any]:
    """Every layer inside ``layer`` (not itself), each once, depth first in the order each
    holds its sublayers; without the emulation's own state and the input layers."""
    from ._backend import keras
    from .layers import FormatState

    found: list[Any] = []
    seen: set[int] = set()

    def walk(outer: Any) -> None:
        for inner in outer._layers:
            if id(inner) in seen:
                continue
            seen.add(id(inner))
            if not isinstance(inner, FormatState | keras.layers.InputLayer):
                found.append(inner)
                walk(inner)

    walk(layer)
    return found


class Coverage:
    """The layers of one emulated model and what each computes.

    Parameters
    ----------
    model : keras.Model
    decide : callable
        ``decide(layer, index, excluded)`` emulates ``layer`` (the ``index``-th layer
        visited) or not, and returns True (emulated), False (float32) or None (a
        nested model, whose layers have rows of their own).
    excluded : layers
        Layers left in float32, with every layer inside them.
    on_change : callable
        Called after a visit that found layers.
    """

    def __init__(
        self,
        model: Any,
        decide: Callable[[Any, int, bool], bool | None],
        excluded: Iterable[Any] = (),
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        self.model = model
        self.decide = decide
        self.on_change = on_change
        self._excluded = list(excluded)
        self._status: dict[int, tuple[Any, bool | None]] = {}

    def visit(self) -> None:
        """Decide every layer of the model not decided yet, in model order."""
        layers = model_layers(self.model)
        new = [layer for layer in layers if id(layer) not in self._status]
        if not new:
            return
        excluded = {id(layer) for layer in self._excluded}
        for outer in self._excluded:
            excluded.update(id(inner) for inner in model_layers(outer))
        for layer in new:
            status = self.decide(layer, len(self._status), id(layer) in excluded)
            self._status[id(layer)] = (layer, status)
        for layer in new:  # hooked once all are decided: a build may run at once
            if not layer.built:
                self._hook(layer)
        self.on_change()

    def hook_model(self) -> None:
        """Hook the model's own build, if it is not built."""
        if not self.model.built:
            self._hook(self.model)

    def _hook(self, layer: Any) -> None:
        build = layer.build

        @functools.wraps(build)
        def build_then_visit(*args: Any, **kwargs: Any) -> Any:
            result = build(*args, **kwargs)
            self.visit()
            return result

        object.__setattr__(layer, "build", build_then_visit)

    def rows(self) -> tuple[tuple[str, str, bool | None], ...]:
        """One ``(name, class name, emulated)`` row per layer, in model order."""
        return tuple(
            (layer.name, type(layer).__name__, self._status[id(layer)][1])
            for layer in model_layers(self.model)
            if id(layer) in self._status
        )

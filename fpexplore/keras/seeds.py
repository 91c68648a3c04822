"""Seeds of the random streams of an emulated model, from any seed a policy accepts.

A :class:`~fpexplore.keras.FormatPolicy` takes any ``int >= 0`` as its ``seed``; Keras'
``SeedGenerator`` and ``jax.random.key`` take 32 bits. :func:`stream_seed` mixes the
policy's seed with the stream's place (a layer's position in the model, the weights'
rounding, as a spawn key) through numpy's ``SeedSequence``, which takes integers of
any size, so that every seed gives streams of its own and no seed overflows.

Examples
--------
>>> stream_seed(0, 1) == stream_seed(0, 1)
True
>>> stream_seed(10**30, 1) < 2**32 and stream_seed(0, 1) != stream_seed(0, 2)
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["stream_seed"]


def stream_seed(seed: int, *place: int) -> int:
    """A seed in ``[0, 2**32)`` for the stream at ``place`` of a policy seeded ``seed``.

    Parameters
    ----------
    seed : int
        The policy's seed, any integer ``>= 0``.
    *place : int
        Integers ``>= 0`` naming the stream: ``(0, i)`` for the ``i``-th emulated layer's
        rounding, ``(1,)`` for the weights' stochastic rounding.

    Returns
    -------
    int
    """
    spawned = np.random.SeedSequence(int(seed), spawn_key=tuple(map(int, place)))
    return int(spawned.generate_state(1)[0])

"""numpy simulations of what goes wrong in float16 training, and their fixes.

``simulations``: overflow, softmax, crossentropy, stalled sums, float32
accumulation; ``loss_scaling``: gradients that underflow and the scale that saves
them. A front end of its own: it uses the public API of :mod:`fpexplore`.
"""

from . import simulations
from .simulations import *  # noqa: F403 - the simulations' public names, listed there

__all__ = list(simulations.__all__)

"""numpy simulations of what goes wrong in float16 training, and their fixes.

``simulations``: overflow, softmax, crossentropy, stalled sums, float32
accumulation; ``loss_scaling``: gradients that underflow and the scale that saves
them; ``bounds``: the error bounds of summation, and sums measured against
them. A front end of its own: it uses the public API of :mod:`fpexplore`.
"""

from . import bounds, simulations
from .bounds import *  # noqa: F403 - SumErrors, sum_error_bound, summation_errors
from .simulations import *  # noqa: F403 - the simulations' public names, listed there

__all__ = [*simulations.__all__, *bounds.__all__]

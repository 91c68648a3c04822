"""Numpy code in a format: :class:`FormatArray` and :func:`flag_counter`.

A value travels through this folder as follows: :mod:`.core` rounds the input
into the format once and holds float64 values of it; each ufunc call is looked
up in :mod:`.elementwise` and computed by the arithmetic kernels
(:func:`fpexplore.codes.arith_values`) or, for transcendental functions, by
:mod:`.transcendental`; reductions go through :mod:`.reduce` and
:mod:`.accumulate`, products through :mod:`.products` and :mod:`.einsum`, other
numpy functions through :mod:`.functions`. Each result carries a record
(:mod:`.records`) that computes its flags (:mod:`.flags`) when first read, and
explains one element.

>>> import numpy as np
>>> import fpexplore as fpx
>>> x = fpx.FormatArray([0.5, 1.0, 2.0], "float16")
>>> (x + 1).tolist(), np.exp(x).format.name
([1.5, 2.0, 3.0], 'float16')
"""

from .core import FormatArray
from .flags import FlagCounter, flag_counter

__all__ = ["FlagCounter", "FormatArray", "flag_counter"]

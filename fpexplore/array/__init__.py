"""Numpy code in a format: the :class:`FormatArray` type and :func:`flag_counter`.

This folder holds the type and how numpy reaches it: :mod:`.core` (the class, its
indexing and numpy's protocols), :mod:`.base` (what every operation reads: the values
on the format's grid, the modes, the inputs rounded in), :mod:`.calls` (one ufunc call,
``where=`` and ``out=``, and the ufunc methods), :mod:`.functions` (which numpy
functions are emulated, through ``__array_function__``) and :mod:`.html` (its face in
Jupyter). What each operation computes, and the flags it raises, is the concern of
:mod:`fpexplore.array.ops`, which imports nothing from here.

A value travels as follows: :mod:`.core` rounds the input into the format once and
holds float64 values of it (float32 for the formats of the float32 path); each ufunc
call is looked up in the ufunc table (:mod:`fpexplore.array.ops.elementwise`) and
computed by the arithmetic kernels (:func:`fpexplore.codes.arith_values`) or the
transcendental functions; reductions and products go through ``ops/`` too, other numpy
functions through :mod:`.functions`. Each result carries a record
(:mod:`fpexplore.array.ops.records`) that computes its flags when first read, and
explains one element.

>>> import numpy as np
>>> import fpexplore as fpx
>>> x = fpx.FormatArray([0.5, 1.0, 2.0], "float16")
>>> (x + 1).tolist(), np.exp(x).format.name
([1.5, 2.0, 3.0], 'float16')
"""

from .core import FormatArray
from .ops.flags import FlagCounter, flag_counter

__all__ = ["FlagCounter", "FormatArray", "flag_counter"]

"""Vectorized bit-level kernels on integer code arrays.

Codes are unsigned integers laid out sign | exponent | mantissa. Every kernel
here works on whole numpy arrays, in cache-sized blocks written straight into
preallocated outputs, so that temporaries stay small and the work runs close to
memory speed (arrays of millions of values are shared among a few threads, see
:func:`set_threads`). Rounding is integer and float64 arithmetic on the bits, with no
per-element branches, and is tested bit for bit against the exact reference in
:mod:`fpexplore.exact`.

Examples
--------
>>> import numpy as np
>>> from fpexplore.codes import round_codes, codes_to_values
>>> codes = round_codes(np.array([1.0, 0.1, 70000.0]), "float16")
>>> [hex(c) for c in codes]
['0x3c00', '0x2e66', '0x7c00']
>>> codes_to_values(codes, "float16")
array([1.        , 0.09997559,        inf])
"""

from __future__ import annotations

# The kernels live in the private package fpexplore._kernels, one job a module;
# this module is their public face.
import sys
import types

from ._kernels import blocks as _kernel_blocks
from ._kernels.arith import add_in_float32, arith_values, float64_path
from ._kernels.blocks import BLOCK, set_threads
from ._kernels.blocks import threads_for as threads_for
from ._kernels.dtypes import as_float64 as as_float64
from ._kernels.dtypes import check_codes as check_codes
from ._kernels.dtypes import code_dtype
from ._kernels.dtypes import real_array as real_array
from ._kernels.errors import rounding_errors
from ._kernels.errors import spacing_exponents as spacing_exponents
from ._kernels.fields import (
    KIND_CODES,
    Kind,
    classify,
    codes_to_values,
    fields,
    split_code,
    split_codes,
)
from ._kernels.integers import exact_float64 as exact_float64
from ._kernels.neighbours import next_down_codes, next_up_codes
from ._kernels.rounding import round_codes, round_values

__all__ = [
    "BLOCK",
    "KIND_CODES",
    "Kind",
    "add_in_float32",
    "arith_values",
    "classify",
    "code_dtype",
    "codes_to_values",
    "fields",
    "float64_path",
    "next_down_codes",
    "next_up_codes",
    "round_codes",
    "round_values",
    "rounding_errors",
    "set_threads",
    "split_code",
    "split_codes",
]


class _CodesModule(types.ModuleType):
    """Keeps ``fpexplore.codes.THREADS = 1`` (the 0.1 spelling) working: the
    settings live in the kernels' own module, which reads them at each call."""

    THREADS = property(
        lambda self: _kernel_blocks.THREADS,
        lambda self, value: set_threads(value, parallel_min=_kernel_blocks.PARALLEL_MIN),
    )
    PARALLEL_MIN = property(
        lambda self: _kernel_blocks.PARALLEL_MIN,
        lambda self, value: set_threads(_kernel_blocks.THREADS, parallel_min=value),
    )


sys.modules[__name__].__class__ = _CodesModule

"""Vectorized bit-level kernels on integer code arrays.

Codes are unsigned integers laid out sign | exponent | mantissa. Every kernel
here works on whole numpy arrays, in cache-sized blocks written straight into
preallocated outputs, so that temporaries stay small and the work runs close to
memory speed (arrays of millions of values are shared among a few threads, see
``THREADS``). Rounding is integer and float64 arithmetic on the bits, with no
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

# The kernels live in private modules of one job each; this module is their
# public face, and holds the thread settings that fpexplore._blocks reads.
from ._blocks import BLOCK
from ._blocks import _threads as _threads
from ._dtypes import _as_float64 as _as_float64
from ._dtypes import check_codes as check_codes
from ._dtypes import code_dtype
from ._errors_kernel import rounding_errors
from ._errors_kernel import spacing_exponents as spacing_exponents
from ._fields import KIND_CODES, Kind, classify, codes_to_values, fields, split_codes
from ._neighbours import next_down_codes, next_up_codes
from ._rounding import round_codes, round_values

__all__ = [
    "BLOCK",
    "KIND_CODES",
    "Kind",
    "classify",
    "code_dtype",
    "codes_to_values",
    "fields",
    "next_down_codes",
    "next_up_codes",
    "round_codes",
    "round_values",
    "rounding_errors",
    "split_codes",
]


THREADS: int | None = None
"""Threads for arrays of at least ``PARALLEL_MIN`` elements: None for the CPU
count (at most 4), 1 to stay on the calling thread. numpy releases the GIL in
its loops, so independent chunks of blocks run side by side; results do not
depend on the number of threads."""

PARALLEL_MIN = 1 << 21
"""The smallest array that ``THREADS`` applies to; smaller ones stay on the calling thread."""

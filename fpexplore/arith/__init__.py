"""Computing in a format: each operation rounded once, sums and dot products.

How a value travels: an operand (any real input, or an array) is first rounded into
the format by :mod:`fpexplore.core` (the first step an explanation shows); the exact
result is computed with :mod:`fpexplore.exact` (Fractions and integers) for a scalar,
or by the vectorized kernels of :mod:`fpexplore._kernels.arith` for arrays; then it
is rounded once into the format, raising the IEEE 754 flags.

- :mod:`~fpexplore.arith.arithmetic`: ``add``, ``sub``, ``mul``, ``div``, ``sqrt``,
  ``fma``, ``remainder``, ``neg``, ``abs`` (scalars give an :class:`Operation`, arrays
  give arrays);
- :mod:`~fpexplore.arith.operation`: :class:`Operation`, the result that explains itself;
- :mod:`~fpexplore.arith.accumulate`: ``sum`` and ``dot`` with an accumulator format
  and an order (sequential, pairwise, Kahan), measured against
  :mod:`~fpexplore.arith.exact_sums`; :mod:`~fpexplore.arith.pairwise` is the
  vectorized pairwise order;
- :mod:`~fpexplore.arith.gemm`: ``gemm``, matrix products with a tensor core's
  accumulator model (:class:`Accumulator`, ``ACCUMULATORS``).

Imports :mod:`fpexplore.core` and below; renders itself through lazy imports of
:mod:`fpexplore.render`.

>>> from fpexplore.arith import add
>>> add("0.1", "0.2", "bfloat16").value
0.30078125
"""

from .accumulate import ORDERS, Accumulation, dot, sum
from .accumulation_error import AccumulationError, accumulation_error
from .arithmetic import FLAGS, abs, add, div, fma, mul, neg, remainder, sqrt, sub
from .gemm import ACCUMULATORS, Accumulator, gemm
from .operation import Operation

__all__ = [
    "ACCUMULATORS",
    "FLAGS",
    "ORDERS",
    "Accumulation",
    "AccumulationError",
    "Accumulator",
    "Operation",
    "abs",
    "accumulation_error",
    "add",
    "div",
    "dot",
    "fma",
    "gemm",
    "mul",
    "neg",
    "remainder",
    "sqrt",
    "sub",
    "sum",
]

"""Private vectorized kernels on integer code arrays; :mod:`fpexplore.codes` is their face.

One job a module: ``blocks`` (cache-sized blocks, threads), ``dtypes`` (code and
field dtypes, input arrays), ``integers`` (int64/uint64 beyond 2**53), ``fields``
(split codes, classify, codes to values), ``rounding`` (float64 and float32 arrays to
codes: the dispatcher, whose routes live in :mod:`.round`), ``tables`` (the tabulated
formats), ``errors`` (fused rounding errors), ``neighbours`` (next up / down), ``arith``
(arithmetic on arrays) and ``scaled`` (a value times a scale, rounded once). They
import only :mod:`fpexplore.formats` and :mod:`fpexplore.exact`, never upward.
"""

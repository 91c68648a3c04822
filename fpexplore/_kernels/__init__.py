"""Private vectorized kernels on integer code arrays; :mod:`fpexplore.codes` is their face.

One job a module: ``blocks`` (cache-sized blocks, threads), ``dtypes`` (code and
field dtypes, input arrays), ``fields`` (split codes, classify, codes to values),
``round_blocked`` / ``round_general`` / ``rounding`` (float64 arrays to codes),
``round_f32`` (float32 arrays on their own 32-bit codes),
``errors`` (fused rounding errors), ``neighbours`` (next up / down). They import
only :mod:`fpexplore.formats` and :mod:`fpexplore.exact`, never upward.
"""

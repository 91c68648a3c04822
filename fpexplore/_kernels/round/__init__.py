"""The routes of rounding an array to codes; :mod:`fpexplore._kernels.rounding` picks one.

``blocked`` (float64 arrays of IEEE-like formats, cache-sized blocks, every mode but
stochastic), ``f32`` (float32 arrays on their own 32-bit codes), ``general`` (any
format and mode, the fallback), ``nearest`` and ``magnitudes`` (the reports'
nearest-even kernels on float64 and float32 magnitudes). They import the kernels'
blocks and dtypes from the folder above, and :mod:`fpexplore.formats`.
"""

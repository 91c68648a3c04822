"""dask arrays in the array functions, without importing dask until one arrives.

How a value travels: a dask array given to :func:`fpexplore.round_to`,
:func:`fpexplore.representation_error`, :func:`fpexplore.decode_array` or
:func:`fpexplore.tensor_report` is recognised here (:func:`is_dask`), and the
function maps itself over the array's chunks with the result's dtype declared, so the
graph stays lazy (stochastic rounding draws from a stream of its own per chunk,
:func:`map_seeded`); :func:`from_npy` reads a ``.npy`` file chunk by chunk.

Imports :mod:`fpexplore.codes`, :mod:`fpexplore.exact` (``check_rng``) and
:mod:`fpexplore.formats` only.
"""

from .dask_arrays import (
    check_known_chunks,
    from_npy,
    is_dask,
    lazy_rounding_errors,
    map_elementwise,
    map_seeded,
)

__all__ = [
    "check_known_chunks",
    "from_npy",
    "is_dask",
    "lazy_rounding_errors",
    "map_elementwise",
    "map_seeded",
]

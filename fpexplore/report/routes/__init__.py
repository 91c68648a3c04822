"""How a report counts one tensor: chunks, rows, the two routes and their statistics.

A tensor's values travel as follows: :mod:`.chunks` cuts the tensor into chunks
bounded in bytes (whole blocks along the block axis) and each chunk into cache-sized
pieces; :mod:`.rows` plans one row per (format, scaling) and sends each piece through
every row by the narrow float32 route (:mod:`.narrow`) or the wide float64 one
(:mod:`.wide`), 2-D tiles laid out as 1-D blocks first (:mod:`.tiles`), blocks of any
length at one cost a value (:mod:`.blocks`), NVFP4 rows of float32-valued inputs by
one division a value (:mod:`.nvfp4`); the counts, maxima and error histograms of each
row are partials that add up (:mod:`.stats`).
:mod:`.stream` runs a numpy array (a memory map too) chunk by chunk on a few threads,
:mod:`.dask_run` a dask array one task per chunk.

Nothing here knows a report object: :mod:`fpexplore.report.tensor` and the checkpoint
report, one folder up, build their results from these statistics. Imports
:mod:`fpexplore.scaling`, :mod:`fpexplore.lazy`, the kernels and below.
"""

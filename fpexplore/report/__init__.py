"""Reports: will this tensor, or this checkpoint, survive this format?

How a value travels: :func:`~fpexplore.report.tensor.tensor_report` plans one row
per (format, scaling) (:mod:`~fpexplore.report.rows`), reads the tensor in chunks
sized in bytes (:mod:`~fpexplore.report.chunks`), works each chunk through in
cache-sized pieces by the narrow float32 route (:mod:`~fpexplore.report.narrow`)
or the wide one (:mod:`~fpexplore.report.wide`), and accumulates the counts and
error histograms (:mod:`~fpexplore.report.stats`); dask arrays go through
:mod:`~fpexplore.report.dask_run`. :func:`~fpexplore.report.checkpoint.checkpoint_report`
does the same for every floating-point tensor of a checkpoint, one tensor at a
time, each scaled on its own, and collects the rows in a
:class:`~fpexplore.report.checkpoint_result.CheckpointReport`.

Imports :mod:`fpexplore.scaling`, :mod:`fpexplore.io`, :mod:`fpexplore.lazy` and
below; renders itself through lazy imports of :mod:`fpexplore.render` and
:mod:`fpexplore.plot`.

>>> import numpy as np
>>> from fpexplore.report import tensor_report
>>> [row["overflow"] for row in tensor_report(np.array([1.0, 1e6]), ["e4m3"]).to_records()]
[1, 0, 0]
"""

from .checkpoint import CheckpointReport, CheckpointSummary, checkpoint_report
from .tensor import SCALINGS, TensorReport, tensor_report

__all__ = [
    "SCALINGS",
    "CheckpointReport",
    "CheckpointSummary",
    "TensorReport",
    "checkpoint_report",
    "tensor_report",
]

"""Reports: will this tensor, or this checkpoint, survive this format?

This folder holds the reports themselves, what they return and how they are asked for:
:func:`~fpexplore.report.tensor.tensor_report` (:mod:`.tensor`: one tensor, a
:class:`~fpexplore.report.tensor.TensorReport`) and
:func:`~fpexplore.report.checkpoint.checkpoint_report` (:mod:`.checkpoint`: every
floating-point tensor of a checkpoint, one tensor at a time, each scaled on its own),
which chooses the tensors and their block axes (:mod:`.selection`), makes each tensor's
records (:mod:`.records`), locally with a progress bar (:mod:`.progress`) or one task
per tensor on a dask.distributed cluster (:mod:`.distributed`), and collects the rows in
a :class:`~fpexplore.report.checkpoint_result.CheckpointReport`
(:mod:`.checkpoint_result`).

How a tensor's values are counted (chunks sized in bytes, one row per format and
scaling, the narrow float32 route or the wide one, the statistics that add up chunk by
chunk, dask arrays) is the concern of :mod:`fpexplore.report.routes`, which imports
nothing from here.

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

"""Scaled formats: per-tensor scales, OCP MX and NVFP4 blocks, and tensor reports.

How a value travels: a tensor's amax (or an amax history) gives a per-tensor scale
(:mod:`~fpexplore.scaling.per_tensor`), or each block (32 values for MX, 16 for
NVFP4, any size along any axis, or a 2-D tile) gets a shared scale
(:mod:`~fpexplore.scaling.block_formats` defines the block formats,
:mod:`~fpexplore.scaling.tiles` the block shapes and scale rules,
:mod:`~fpexplore.scaling.block_kernels` the three kinds of scale,
:mod:`~fpexplore.scaling.blocks` quantizes and dequantizes, and
:mod:`~fpexplore.scaling.hadamard` spreads outliers before blocking); the
scaled values are rounded into the element format by :mod:`fpexplore.codes`, and
multiplied back. :mod:`~fpexplore.scaling.report` measures what a tensor loses in
each format and scaling, with :mod:`~fpexplore.scaling.report_stats` accumulating
the counts and error histograms chunk by chunk.

Imports :mod:`fpexplore.codes`, :mod:`fpexplore.lazy` and below; renders itself
through lazy imports of :mod:`fpexplore.render` and :mod:`fpexplore.plot`.

>>> from fpexplore.scaling import quantize_blocks
>>> quantize_blocks([0.1, 0.5, 3.0, 100.0], "mxfp4").values.tolist()
[0.0, 0.0, 0.0, 96.0]
"""

from .blocks import (
    BLOCK_FORMATS,
    BlockFormat,
    QuantizedBlocks,
    dequantize_blocks,
    get_block_format,
    quantize_blocks,
)
from .per_tensor import DelayedScaling, ScaledTensor, compute_scale, scale_per_tensor
from .report import SCALINGS, TensorReport, tensor_report

__all__ = [
    "BLOCK_FORMATS",
    "SCALINGS",
    "BlockFormat",
    "DelayedScaling",
    "QuantizedBlocks",
    "ScaledTensor",
    "TensorReport",
    "compute_scale",
    "dequantize_blocks",
    "get_block_format",
    "quantize_blocks",
    "scale_per_tensor",
    "tensor_report",
]

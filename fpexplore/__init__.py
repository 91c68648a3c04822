"""fpexplore: an educational floating-point explorer.

Decode float16/32/64, bfloat16, TF32, FP8, FP6, FP4 and custom formats into
sign, exponent and mantissa; round any real number exactly; measure
representation error; count the values between two numbers.

>>> import fpexplore as fpx
>>> p = fpx.decode(3.14159, "float32")
>>> (p.sign, p.exponent, p.mantissa)
(0, 128, 4788176)
"""

from ._moved import alias_moved_modules as _alias_moved_modules
from .arith.accumulate import ORDERS, Accumulation, dot, sum
from .arith.accumulation_error import AccumulationError, accumulation_error
from .arith.arithmetic import (
    FLAGS,
    Operation,
    abs,
    add,
    div,
    fma,
    mul,
    neg,
    remainder,
    sqrt,
    sub,
)
from .arith.gemm import ACCUMULATORS, Accumulator, gemm
from .array import FlagCounter, FormatArray, flag_counter
from .codes import Kind
from .core.arrays import ArrayParts, decode_array
from .core.census import Census, float_census
from .core.decode import FloatParts, decode, from_bits
from .core.density import Binade, BinadeTable, binade_table, count_between, values_between
from .core.error import RepresentationError, next_down, next_up, representation_error, round_to, ulp
from .exact import ROUNDING_MODES
from .formats import FORMATS, Format, FormatLike, format_names, get_format
from .io import open_checkpoint
from .render.comparison import compare, format_table
from .report.checkpoint import CheckpointReport, CheckpointSummary, checkpoint_report
from .report.tensor import TensorReport, tensor_report
from .scaling.blocks import (
    BLOCK_FORMATS,
    BlockFormat,
    QuantizedBlocks,
    dequantize_blocks,
    get_block_format,
    quantize_blocks,
)
from .scaling.hadamard import hadamard
from .scaling.per_tensor import DelayedScaling, ScaledTensor, compute_scale, scale_per_tensor

# Module paths that moved (docs/changelog.md, "Old names that still work"): the old
# names stay importable as aliases of the modules that replaced them.
_MOVED_MODULES = {
    "core.arithmetic": "arith.arithmetic",
    "core.operation": "arith.operation",
    "core.accumulate": "arith.accumulate",
    "core.pairwise": "arith.pairwise",
    "core.exact_sums": "arith.exact_sums",
    "core.scaling": "scaling.per_tensor",
    "core.blocks": "scaling.blocks",
    "core.block_formats": "scaling.block_formats",
    "core.report": "report.tensor",
    "core.report_stats": "report.routes.stats",
    "scaling.report": "report.tensor",
    "scaling.report_stats": "report.routes.stats",
    "scaling.report_chunks": "report.routes.chunks",
    "scaling.report_dask": "report.routes.dask_run",
    "scaling.report_narrow": "report.routes.narrow",
    "scaling.report_rows": "report.routes.rows",
    "scaling.report_stream": "report.routes.stream",
    "scaling.report_wide": "report.routes.wide",
    "scaling.report_tiles": "report.routes.tiles",
    "scaling.checkpoint": "report.checkpoint",
    "scaling.checkpoint_result": "report.checkpoint_result",
    "scaling.progress": "report.progress",
    "core.lazy": "lazy.dask_arrays",
    # 0.2.0: the explanations left render/ for explain/
    "render.accumulate": "explain.accumulate",
    "render.arithmetic": "explain.arithmetic",
    "render.arithmetic_round": "explain.arithmetic_round",
    "render.arithmetic_steps": "explain.arithmetic_steps",
    "render.binary": "explain.binary",
    "render.blocks": "explain.blocks",
    "render.rounding": "explain.rounding",
    # the course's tools left the command line for their own folder
    "cli.outline": "course.outline",
    "cli.pacing": "course.pacing",
    "cli.requirements": "course.requirements",
    "cli.course_tables": "course.tables",
    "cli.course": "course.copying",
    # how a report counts a tensor left report/ for report/routes/
    "report.stats": "report.routes.stats",
    "report.chunks": "report.routes.chunks",
    "report.rows": "report.routes.rows",
    "report.tiles": "report.routes.tiles",
    "report.wide": "report.routes.wide",
    "report.narrow": "report.routes.narrow",
    "report.stream": "report.routes.stream",
    "report.dask_run": "report.routes.dask_run",
    # what each operation of a FormatArray computes left array/ for array/ops/
    "array.accumulate": "array.ops.accumulate",
    "array.einsum": "array.ops.einsum",
    "array.elementwise": "array.ops.elementwise",
    "array.fast": "array.ops.fast",
    "array.flags": "array.ops.flags",
    "array.products": "array.ops.products",
    "array.records": "array.ops.records",
    "array.reduce": "array.ops.reduce",
    "array.transcendental": "array.ops.transcendental",
}


_alias_moved_modules(__name__, _MOVED_MODULES)

__version__ = "0.2.0"

__all__ = [
    "ACCUMULATORS",
    "BLOCK_FORMATS",
    "FLAGS",
    "FORMATS",
    "ORDERS",
    "ROUNDING_MODES",
    "Accumulation",
    "AccumulationError",
    "Accumulator",
    "ArrayParts",
    "Binade",
    "BinadeTable",
    "BlockFormat",
    "Census",
    "CheckpointReport",
    "CheckpointSummary",
    "DelayedScaling",
    "FlagCounter",
    "FloatParts",
    "Format",
    "FormatArray",
    "FormatLike",
    "Kind",
    "Operation",
    "QuantizedBlocks",
    "RepresentationError",
    "ScaledTensor",
    "TensorReport",
    "__version__",
    "abs",
    "accumulation_error",
    "add",
    "binade_table",
    "checkpoint_report",
    "compare",
    "compute_scale",
    "count_between",
    "decode",
    "decode_array",
    "dequantize_blocks",
    "div",
    "dot",
    "flag_counter",
    "float_census",
    "fma",
    "format_names",
    "format_table",
    "from_bits",
    "gemm",
    "get_block_format",
    "get_format",
    "hadamard",
    "mul",
    "neg",
    "next_down",
    "next_up",
    "open_checkpoint",
    "quantize_blocks",
    "remainder",
    "representation_error",
    "round_to",
    "scale_per_tensor",
    "sqrt",
    "sub",
    "sum",
    "tensor_report",
    "ulp",
    "values_between",
]

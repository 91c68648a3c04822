"""numpy simulations of what goes wrong in float16 training, and their fixes.

``simulations``: overflow, softmax, crossentropy, stalled sums, float32
accumulation; ``loss_scaling``: gradients that underflow and the scale that saves
them. A front end of its own: it uses the public API of :mod:`fpexplore`.
"""

from .simulations import (
    AccumulationDemo,
    DotAccumulation,
    LossScaleLog,
    LossScaleSweep,
    MatmulError,
    SoftmaxDemo,
    UnderflowStats,
    accumulation_demo,
    crossentropy,
    dot_product_accumulation,
    dynamic_loss_scaling,
    format_limits,
    gradient_underflow,
    loss_scale_roundtrip,
    loss_scale_sweep,
    matmul_error,
    matmul_float16,
    round_values,
    running_sum,
    sample_gradients,
    softmax,
    softmax_overflow_demo,
    stall_point,
)

__all__ = [
    "AccumulationDemo",
    "DotAccumulation",
    "LossScaleLog",
    "LossScaleSweep",
    "MatmulError",
    "SoftmaxDemo",
    "UnderflowStats",
    "accumulation_demo",
    "crossentropy",
    "dot_product_accumulation",
    "dynamic_loss_scaling",
    "format_limits",
    "gradient_underflow",
    "loss_scale_roundtrip",
    "loss_scale_sweep",
    "matmul_error",
    "matmul_float16",
    "round_values",
    "running_sum",
    "sample_gradients",
    "softmax",
    "softmax_overflow_demo",
    "stall_point",
]

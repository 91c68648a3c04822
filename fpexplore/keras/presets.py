"""Named format policies: the training recipes a course compares.

=================================  ==========================================================
``float32``                        nothing rounded: the baseline
``mixed_float16``                  float16 operands and gradients, dynamic loss scaling,
                                   float32 weights (Keras' ``mixed_float16``, claims 13-14)
``bfloat16``                       bfloat16 operands, gradients and weights, behind float32
                                   master weights that the optimizer updates
``bfloat16_weights``               the same with the weights *stored* in bfloat16, rounded to
                                   nearest after each step, and no master copy
``bfloat16_weights_stochastic``    the same, the weights rounded stochastically
``fp8``                            E4M3 operands, E5M2 gradients, delayed scaling (amax history)
``mxfp8``                          OCP MXFP8: E4M3 operands, E5M2 gradients, a power-of-two
                                   scale per 32 values along the summed axis
``mxfp4``                          OCP MXFP4 operands and gradients, gradients rounded
                                   stochastically
``nvfp4``                          NVIDIA's NVFP4 (16-value blocks, E4M3 block scales and a
                                   float32 tensor scale), gradients rounded stochastically
=================================  ==========================================================

Examples
--------
>>> sorted(PRESETS)[:3]
['bfloat16', 'bfloat16_weights', 'bfloat16_weights_stochastic']
>>> PRESETS["fp8"]
FormatPolicy(forward='float8_e4m3fn', backward='float8_e5m2', scaling='delayed')
"""

from __future__ import annotations

import difflib

from .policy import FormatPolicy

__all__ = ["PRESETS", "get_policy"]

_BF16 = ("bfloat16", "bfloat16", "bfloat16")
_FP8 = ("float8_e4m3fn", "float8_e5m2")
_FP4 = ("float4_e2m1fn", "float4_e2m1fn")

PRESETS: dict[str, FormatPolicy] = {
    "float32": FormatPolicy(),
    "mixed_float16": FormatPolicy("float16", "float16", loss_scale="dynamic"),
    "bfloat16": FormatPolicy(*_BF16, master_weights=True),
    "bfloat16_weights": FormatPolicy(*_BF16),
    "bfloat16_weights_stochastic": FormatPolicy(*_BF16, weight_rounding="stochastic"),
    "fp8": FormatPolicy(*_FP8, scaling="delayed"),
    "mxfp8": FormatPolicy(*_FP8, scaling="mxfp8_e4m3"),
    "mxfp4": FormatPolicy(*_FP4, scaling="mxfp4", backward_rounding="stochastic"),
    "nvfp4": FormatPolicy(*_FP4, scaling="nvfp4", backward_rounding="stochastic"),
}
"""The named policies, by name (see the table above)."""


def get_policy(policy: FormatPolicy | str) -> FormatPolicy:
    """A :class:`FormatPolicy` itself, or the preset of that name.

    >>> get_policy("bfloat16_weights").weights
    'bfloat16'
    >>> get_policy("fp9")
    Traceback (most recent call last):
    ...
    ValueError: unknown preset 'fp9'; did you mean 'fp8'? expected a FormatPolicy or one of \
float32, mixed_float16, bfloat16, bfloat16_weights, bfloat16_weights_stochastic, fp8, mxfp8, \
mxfp4, nvfp4
    """
    if isinstance(policy, FormatPolicy):
        return policy
    if isinstance(policy, str) and policy in PRESETS:
        return PRESETS[policy]
    close = difflib.get_close_matches(str(policy), list(PRESETS), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise ValueError(
        f"unknown preset {policy!r}; {hint}expected a FormatPolicy or one of {', '.join(PRESETS)}"
    )

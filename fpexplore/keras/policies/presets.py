"""Named format policies: the training recipes a course compares.

The course's recipes, each a shorthand ``forward`` / ``backward`` policy whose six
GEMM operands (:data:`~fpexplore.keras.ROLES`) follow ``forward`` (x and w) and
``backward`` (dY), each quantized from float32 along its own GEMM's summed axis:

=================================  ==========================================================
``float32``                        nothing rounded: the baseline
``mixed_float16``                  float16 operands and gradients, dynamic loss scaling,
                                   float32 weights (Keras' ``mixed_float16``, claims 13-14)
``bfloat16``                       bfloat16 operands, gradients and weights, behind float32
                                   master weights that the optimizer updates
``bfloat16_weights``               the same with the weights *stored* in bfloat16, rounded to
                                   nearest after each step, and no master copy
``bfloat16_weights_stochastic``    the same, the weights rounded stochastically
``fp8``                            E4M3 operands, E5M2 gradients, delayed scaling (amax
                                   history of 16)
``mxfp4``                          OCP MXFP4 operands and gradients (1x32 blocks, E8M0 floor
                                   scales), gradients rounded stochastically
=================================  ==========================================================

The published recipes, as their sources describe them (what is emulated, and what
is not, after the table):

=======================  =====================================================================
``te_delayed``           NVIDIA Transformer Engine ``DelayedScaling`` (recipe/__init__.py):
                         format HYBRID (E4M3 x and w, E5M2 dY), per-tensor float32 scales
                         ``max / amax`` from an amax history of 1024 steps,
                         ``amax_compute_algo="max"``, margin 0
``te_current``           Transformer Engine ``Float8CurrentScaling``: HYBRID formats, each
                         tensor scaled by its own current amax
``deepseek_v3``          DeepSeek-V3 (arXiv 2412.19437, sections 3.3 and 3.5.2) and Transformer
                         Engine's ``Float8BlockScaling``: E4M3 for all three GEMMs,
                         activations and gradients in 1x128 tiles, weights in 128x128 blocks,
                         power-of-two scales rounded up (``rceil``: no element saturates;
                         E8M0 scales, whose powers of two are float32's from 2**-127 to
                         2**127), Hopper's FP8 accumulation promoted to float32 every 128
                         products (``accumulate="h100_fp8_promoted"``, every GEMM)
``mxfp8``                MXFP8 pretraining (arXiv 2506.08027) and Transformer Engine's
                         ``MXFP8BlockScaling``: E4M3 for every tensor, 1x32 blocks along each
                         GEMM's summed axis (row-wise and column-wise copies, each from the
                         float32 tensor), E8M0 scales rounded up (``scale_rule="rceil"``)
``nvfp4``                NVFP4 pretraining (arXiv 2509.25149) and Transformer Engine's
                         ``NVFP4BlockScaling``: E2M1 elements, E4M3 scales per block and a
                         float32 tensor scale; weights in 16x16 tiles (W in fprop and Wᵀ in
                         dgrad the same quantized matrix), activations and gradients in 1x16
                         blocks; dY rounded stochastically (both of its roles), x and w to
                         nearest even; a 16x16 random Hadamard transform on both wgrad
                         operands; the last emulated layer's GEMMs in BF16
``nvfp4_no_hadamard``    the ``nvfp4`` ablation without the Hadamard transform
``nvfp4_no_sr``          the ``nvfp4`` ablation with dY rounded to nearest even
``nvfp4_1d_weights``     the ``nvfp4`` ablation with 1x16 weight blocks along each GEMM's
                         summed axis (W and Wᵀ quantized differently)
=======================  =====================================================================

What is emulated: the formats, scales, block shapes, rounding modes, Hadamard
transforms of every Dense, EinsumDense and Conv1D/2D/3D layer's three GEMMs and
(``deepseek_v3``) the accumulation of each of those GEMMs (a convolution's as
patches), bit for bit, and which layers stay in higher precision. What is not:
the recipes' choices of layers beyond that (the NVFP4 paper kept about 15% of a
62-block model in BF16, the first 2 and last 8 blocks: pass ``emulate(...,
overrides={"first:2": None, "last:8": None})`` for a model of that depth, where
``nvfp4`` keeps only the last layer; DeepSeek-V3 keeps the embedding, output head,
MoE gating, norms and attention in BF16, which are float32 here unless they are
Dense layers you exclude); attention's own products (softmax(QKᵀ)V) stay float32 in
every recipe; Transformer Engine's fast (limited) fprop accumulation in
``te_delayed`` and ``te_current``; storage in BF16 of the tensors between GEMMs
(here float32); the BF16 tail of training before the learning-rate decay; and
communication or kernel fusion (no effect on the values).

Where the shorthand changed: each role is now quantized from float32 for its own
GEMM. For per-tensor scaling (``fp8``, ``te_*``) and unscaled formats this gives the
values the old single rounding gave (the forward's copy is reused), but for block
formats (``mxfp4``) the copies of x and w in the gradient GEMMs are blocked along
those GEMMs' summed axes (the batch for dW, the output features for dX), and dY's
copy for dW along the batch; stochastic rounding draws separate bits per role.
``mxfp8`` changed from E5M2 gradients with floor scales to the paper's E4M3 with
rounded-up scales, and ``nvfp4`` from 1x16 blocks reused in the backward pass to the
paper's recipe above.

Examples
--------
>>> sorted(PRESETS)[:3]
['bfloat16', 'bfloat16_weights', 'bfloat16_weights_stochastic']
>>> PRESETS["fp8"]
FormatPolicy(forward='float8_e4m3fn', backward='float8_e5m2', scaling='delayed')
>>> PRESETS["nvfp4"].role_spec("fprop.w").block_size
(16, 16)
"""

from __future__ import annotations

import difflib

from .policy import FormatPolicy
from .specs import OperandSpec

__all__ = ["PRESETS", "get_policy"]

_BF16 = ("bfloat16", "bfloat16", "bfloat16")
_FP8 = ("float8_e4m3fn", "float8_e5m2")
_FP4 = ("float4_e2m1fn", "float4_e2m1fn")
_E4M3 = ("float8_e4m3fn", "float8_e4m3fn")
_BF16_GEMMS = FormatPolicy("bfloat16", "bfloat16")
"""The NVFP4 recipe's higher-precision layers: BF16 operands and gradients."""


def _all(spec: OperandSpec) -> dict[str, OperandSpec]:
    return dict.fromkeys(("fprop.x", "fprop.w", "dgrad.dy", "dgrad.w", "wgrad.x", "wgrad.dy"), spec)


def _deepseek_v3() -> FormatPolicy:
    tile = OperandSpec("mxfp8_e4m3", block_size=128, scale_rule="rceil")
    block = OperandSpec("mxfp8_e4m3", block_size=(128, 128), scale_rule="rceil")
    roles = {**_all(tile), "fprop.w": block, "dgrad.w": block}
    return FormatPolicy(*_E4M3, scaling="mxfp8_e4m3", roles=roles, accumulate=_PROMOTED)


def _nvfp4(*, hadamard: int | None = 16, stochastic: bool = True, tiles: bool = True):
    rounding = "stochastic" if stochastic else "nearest_even"
    weights = OperandSpec("nvfp4", block_size=(16, 16) if tiles else None)
    roles = {
        "fprop.x": OperandSpec("nvfp4"),
        "fprop.w": weights,
        "dgrad.dy": OperandSpec("nvfp4", rounding=rounding),
        "dgrad.w": weights,
        "wgrad.x": OperandSpec("nvfp4", hadamard=hadamard),
        "wgrad.dy": OperandSpec("nvfp4", rounding=rounding, hadamard=hadamard),
    }
    return FormatPolicy(*_FP4, scaling="nvfp4", backward_rounding=rounding, roles=roles,
                        overrides={"last:1": _BF16_GEMMS})  # fmt: skip


_PROMOTED = "h100_fp8_promoted"  # Hopper's FP8 accumulation, promoted every 128

PRESETS: dict[str, FormatPolicy] = {
    "float32": FormatPolicy(),
    "mixed_float16": FormatPolicy("float16", "float16", loss_scale="dynamic"),
    "bfloat16": FormatPolicy(*_BF16, master_weights=True),
    "bfloat16_weights": FormatPolicy(*_BF16),
    "bfloat16_weights_stochastic": FormatPolicy(*_BF16, weight_rounding="stochastic"),
    "fp8": FormatPolicy(*_FP8, scaling="delayed"),
    "mxfp8": FormatPolicy(
        *_E4M3, scaling="mxfp8_e4m3", roles=_all(OperandSpec("mxfp8_e4m3", scale_rule="rceil"))
    ),
    "mxfp4": FormatPolicy(*_FP4, scaling="mxfp4", backward_rounding="stochastic"),
    "nvfp4": _nvfp4(),
    "te_delayed": FormatPolicy(*_FP8, scaling="delayed", amax_history_len=1024),
    "te_current": FormatPolicy(*_FP8, scaling="per_tensor"),
    "deepseek_v3": _deepseek_v3(),
    "nvfp4_no_hadamard": _nvfp4(hadamard=None),
    "nvfp4_no_sr": _nvfp4(stochastic=False),
    "nvfp4_1d_weights": _nvfp4(tiles=False),
}
"""The named policies, by name (see the tables above); each preset's ``__doc__`` says
what it is, its source, and what of the source is emulated."""

_COURSE = "A recipe of the course (no single published source). "
_TE = "Source: NVIDIA Transformer Engine, transformer_engine/common/recipe/__init__.py. "
_NVFP4 = (
    "Source: NVFP4 pretraining (arXiv 2509.25149) and Transformer Engine's "
    "NVFP4BlockScaling. Emulated: E2M1 elements, E4M3 block scales and a "
    "float32 tensor scale; weights in 16x16 tiles, so that W in fprop and its transpose in "
    "dgrad are one quantized matrix; x and dY in 1x16 blocks along each GEMM's summed axis; dY "
    "rounded stochastically (both roles), x and w to nearest even; a 16x16 random Hadamard "
    "transform on both wgrad operands; the last emulated layer's GEMMs in BF16. Not emulated: "
    "the paper's choice of about 15% of layers in BF16 (the first 2 and last 8 blocks of its "
    "model: pass overrides for a model that deep), BF16 storage between GEMMs, the BF16 tail "
    "of training."
)
_DOCS = {
    "float32": "Nothing rounded: the float32 baseline that every other preset is compared with.",
    "mixed_float16": _COURSE + "Keras' mixed_float16: float16 operands and gradients of every "
    "GEMM, dynamic loss scaling, float32 weights (claims 13-14).",
    "bfloat16": _COURSE + "bfloat16 operands, gradients and weights, behind float32 master "
    "weights that the optimizer updates.",
    "bfloat16_weights": _COURSE + "bfloat16 operands and gradients, the weights stored in "
    "bfloat16 and rounded to nearest after each step, with no master copy: small updates are "
    "lost.",
    "bfloat16_weights_stochastic": _COURSE + "bfloat16_weights with the weights rounded "
    "stochastically after each step, which keeps small updates on average.",
    "fp8": _COURSE + "E4M3 operands, E5M2 gradients, per-tensor delayed scaling from an amax "
    "history of 16 steps (Transformer Engine's DelayedScaling with a short history).",
    "mxfp8": "Source: MXFP8 pretraining (arXiv 2506.08027) and Transformer Engine's "
    "MXFP8BlockScaling. Emulated: E4M3 for every tensor, "
    "1x32 blocks along each GEMM's summed axis (row-wise and column-wise copies, each quantized "
    "from the float32 tensor), E8M0 scales rounded up (scale_rule='rceil'). Not emulated: BF16 "
    "storage between GEMMs.",
    "mxfp4": _COURSE + "OCP MXFP4 (OCP Microscaling Formats v1.0): E2M1 elements in 1x32 blocks "
    "with E8M0 floor scales for operands and gradients, the gradients rounded stochastically.",
    "nvfp4": _NVFP4,
    "te_delayed": _TE + "DelayedScaling: format HYBRID (E4M3 x and w, E5M2 dY), per-tensor "
    "float32 scales max / amax from an amax history of 1024 steps, amax_compute_algo='max', "
    "margin 0. Not emulated: Transformer Engine's fast (limited) fprop accumulation, BF16 "
    "storage between GEMMs.",
    "te_current": _TE + "Float8CurrentScaling: HYBRID formats, each tensor scaled by its own "
    "current amax. Not emulated: the fast fprop accumulation, BF16 storage between GEMMs.",
    "deepseek_v3": "Source: DeepSeek-V3 (arXiv 2412.19437, sections 3.3 and 3.5.2) and "
    "Transformer Engine's Float8BlockScaling. Emulated: E4M3 for "
    "all three GEMMs, activations and gradients in 1x128 tiles, weights in 128x128 blocks, "
    "power-of-two scales rounded up (rceil), and Hopper's FP8 accumulation promoted to float32 "
    "every 128 products (accumulate='h100_fp8_promoted', on every GEMM, a convolution's as "
    "patches). Not emulated: the embedding, output head, MoE "
    "gating, norms and attention that DeepSeek-V3 keeps in BF16 (float32 here unless they are "
    "Dense layers you exclude), BF16 storage between GEMMs.",
    "nvfp4_no_hadamard": "The nvfp4 ablation without the Hadamard transform (arXiv "
    "2509.25149's ablation of it); otherwise nvfp4.",
    "nvfp4_no_sr": "The nvfp4 ablation with dY rounded to nearest even, not stochastically "
    "(arXiv 2509.25149's ablation of stochastic rounding); otherwise nvfp4.",
    "nvfp4_1d_weights": "The nvfp4 ablation with 1x16 weight blocks along each GEMM's summed "
    "axis, so that W and its transpose are quantized differently (arXiv 2509.25149's "
    "ablation of 2-D weight blocks); otherwise nvfp4.",
}
for _name, _policy in PRESETS.items():
    object.__setattr__(_policy, "__doc__", _DOCS[_name])  # the class's docstring otherwise


def get_policy(policy: FormatPolicy | str) -> FormatPolicy:
    """A :class:`FormatPolicy` itself, or the preset of that name.

    >>> get_policy("bfloat16_weights").weights
    'bfloat16'
    >>> get_policy("fp9")
    Traceback (most recent call last):
    ...
    ValueError: unknown preset 'fp9'; did you mean 'fp8'? expected a FormatPolicy or one of \
float32, mixed_float16, bfloat16, bfloat16_weights, bfloat16_weights_stochastic, fp8, mxfp8, \
mxfp4, nvfp4, te_delayed, te_current, deepseek_v3, nvfp4_no_hadamard, nvfp4_no_sr, \
nvfp4_1d_weights
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

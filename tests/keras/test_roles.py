"""Operands by role: one SGD step of each emulated layer kind against a numpy oracle.

The oracle quantizes each of the six operands from the float32 tensor with
fpexplore's numpy functions, along the axis its GEMM sums (fprop: the input
features; dgrad: the output features; wgrad: the batch, or the tokens next to the
features), computes y, dX and dW in float64, and the SGD update in float32. The
data make every float32 sum exact (checked: every product a multiple of one quantum
and the sum of their magnitudes below 2**24 quanta), so the layer's float32 GEMMs,
in whatever order XLA sums, must agree bit for bit.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.keras import PRESETS, FormatPolicy, OperandSpec, emulate

pytest.importorskip("jax")

LR = np.float32(2.0**-6)
# Per format of a per-tensor scaled operand: an amax whose scale is a power of two.
ANCHOR = {"float8_e4m3fn": 448.0, "float8_e5m2": 57344.0, "float4_e2m1fn": 2688.0}


def _quantum(a: np.ndarray) -> int:
    """The largest k such that every element of ``a`` is a multiple of 2**k."""
    nonzero = np.abs(a[a != 0]).astype(np.float64)
    if nonzero.size == 0:
        return 0
    m, e = np.frexp(nonzero)  # a = m * 2**e, m in [0.5, 1): m * 2**53 is an integer
    ints = (m * 2.0**53).astype(np.int64)
    zeros = np.array([(int(i) & -int(i)).bit_length() - 1 for i in ints])  # trailing zeros
    return int(np.min(e - 53 + zeros))


def _exact(a: np.ndarray, b: np.ndarray, subscripts: str) -> np.ndarray:
    """einsum in float64, checked to be exact in float32 in any order, as float32."""
    q = _quantum(a) + _quantum(b)
    total = np.einsum(subscripts, np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    assert np.all(total < 2.0 ** (24 + q)), "the oracle's data do not sum exactly"
    return np.einsum(subscripts, a.astype(np.float64), b.astype(np.float64)).astype(np.float32)


def _q(
    a: np.ndarray,
    spec: OperandSpec | None,
    axis: int,
    groups: int = 1,
    *,
    other: int | None = None,
    seed: int = 0,
) -> np.ndarray:
    """The numpy oracle of one role: ``a`` quantized as ``spec`` says along ``axis``
    (2-D tiles over ``axis`` and ``other``; a grouped axis blocked group by group)."""
    if spec is None:
        return a
    if spec.hadamard is not None:
        a = fpx.hadamard(a, spec.hadamard, axis=axis, seed=seed).astype(np.float32)
    if spec.scaling == "none":
        return fpx.round_to(a, spec.format, spec.rounding).astype(np.float32)
    if spec.scaling in ("per_tensor", "delayed"):  # delayed: the first step, its own amax
        return fpx.scale_per_tensor(a, spec.format, spec.rounding).values.astype(np.float32)
    axis %= a.ndim
    kwargs = {"block_size": spec.block_size, "scale_rule": spec.scale_rule}
    if spec.is_2d:
        return fpx.quantize_blocks(a, spec.scaling, spec.rounding, axis=(axis, other % a.ndim),
                                   **kwargs).values.astype(np.float32)  # fmt: skip
    if spec.scaling == "nvfp4" and groups > 1:
        pytest.skip("NVFP4's tensor scale spans the groups")
    size = a.shape[axis] // groups
    parts = []
    for g in range(groups):  # each group's blocks on its own
        part = np.take(a, range(g * size, (g + 1) * size), axis=axis)
        q = fpx.quantize_blocks(part, spec.scaling, spec.rounding, axis=axis, **kwargs)
        parts.append(q.values.astype(np.float32))
    return np.concatenate(parts, axis=axis)


def _data(rng, shape, spec: OperandSpec | None, *, unit: float = 1.0) -> np.ndarray:
    """Magnitudes in [0.5, 4) * unit with random signs, on a grid of 4 bits, and one
    element at the anchor of ``spec``'s tensor scale (a power-of-two scale)."""
    a = np.round(rng.uniform(0.5, 4.0, shape) * 8) / 8 * rng.choice([-1, 1], shape)
    a = (a * unit).astype(np.float32)
    per_tensor = spec is not None and spec.scaling in ("per_tensor", "delayed", "nvfp4")
    if per_tensor:
        a.flat[0] = ANCHOR[spec.format] * unit / 64  # amax = anchor * 2**k
        a[np.abs(a) > np.abs(a.flat[0])] /= 64
    return a


def _roles(policy: FormatPolicy) -> dict:
    return policy.role_specs


def _gemm(policy, gemm, a, b, subscripts, contract):
    """One GEMM of the oracle: the accumulator model's product (fpexplore.gemm, on the
    operands flattened to matrices), or the exact float32 sum; after a Hadamard
    transform, whose values sum exactly in no order, XLA's own float32 product of the
    oracle's operands (the same dot_general the layer's gradient is)."""
    accumulate = policy.accumulator(gemm)
    if accumulate != "float32":
        left, right = contract
        return fpx.gemm(left(a), right(b), accumulate=accumulate).astype(np.float32)
    if gemm == "wgrad" and policy.role_spec("wgrad.x").hadamard:
        import jax
        import jax.numpy as jnp

        with jax.default_matmul_precision("float32"):  # the transpose of x @ w in w
            weights = jax.ShapeDtypeStruct((a.shape[-1], b.shape[-1]), np.float32)
            (dw,) = jax.linear_transpose(lambda w: jnp.matmul(a, w), weights)(b)
        return np.asarray(dw)
    return _exact(a, b, subscripts)


def _dense_oracle(policy, x, w, t, tokens):
    s = policy.role_specs
    dy = (t / np.float32(t.shape[0])).astype(np.float32)
    lead = "ab" if tokens else "a"
    k, n = w.shape

    def rows(a):
        return a.reshape(-1, a.shape[-1])

    def same(a):
        return a

    y = _gemm(policy, "fprop", _q(x, s["fprop.x"], -1, other=-2),
              _q(w, s["fprop.w"], 0, other=1), f"{lead}k,kn->{lead}n",
              (rows, same)).reshape(*x.shape[:-1], n)  # fmt: skip
    dx = _gemm(policy, "dgrad", _q(dy, s["dgrad.dy"], -1, other=-2),
               _q(w, s["dgrad.w"], 1, other=0), f"{lead}n,kn->{lead}k",
               (rows, lambda b: b.T)).reshape(*x.shape[:-1], k)  # fmt: skip
    xw = _q(x, s["wgrad.x"], -2, other=-1, seed=policy.seed)
    dyw = _q(dy, s["wgrad.dy"], -2, other=-1, seed=policy.seed)
    dw = _gemm(policy, "wgrad", xw, dyw, f"{lead}k,{lead}n->kn", (lambda a: rows(a).T, rows))
    return y, dx, (w - LR * dw).astype(np.float32)


def _nearest(policy: FormatPolicy) -> FormatPolicy:
    """``policy`` with every stochastic role rounded to nearest even (an oracle draws
    no random bits) and no layer overrides."""
    roles = {
        role: None if spec is None else dataclasses.replace(spec, rounding="nearest_even")
        for role, spec in policy.role_specs.items()
    }
    return dataclasses.replace(
        policy, roles=roles, backward_rounding=None, rounding="nearest_even", overrides=None
    )


def _step(keras, model, layer, x, t):
    import jax

    def loss(t, y):
        return keras.ops.sum(y * t, axis=tuple(range(1, len(y.shape))))

    model.compile(optimizer=keras.optimizers.SGD(float(LR)), loss=loss)

    y = np.asarray(model(x))
    grads = jax.grad(lambda v: keras.ops.sum(model(v) * t) / t.shape[0])(x)
    model.train_on_batch(x, t)
    return y, np.asarray(grads), np.array(layer.kernel.value)


ONE_D = {
    "bfloat16": FormatPolicy("bfloat16", "bfloat16"),
    "te_current": PRESETS["te_current"],
    "te_delayed": PRESETS["te_delayed"],
    "mxfp4": _nearest(PRESETS["mxfp4"]),
    "nvfp4_1d_roles": FormatPolicy(
        roles={
            "fprop.x": "nvfp4",
            "fprop.w": "nvfp4",
            "dgrad.dy": "nvfp4",
            "dgrad.w": "nvfp4",
            "wgrad.x": "nvfp4",
            "wgrad.dy": "nvfp4",
        }
    ),
    "mxfp8": PRESETS["mxfp8"],
    "nvfp4": _nearest(PRESETS["nvfp4"]),
    "nvfp4_no_hadamard": _nearest(PRESETS["nvfp4_no_hadamard"]),
    "nvfp4_1d_weights": _nearest(PRESETS["nvfp4_1d_weights"]),
    "deepseek_v3": PRESETS["deepseek_v3"],
    "mixed_roles": FormatPolicy(
        roles={
            "fprop.x": OperandSpec("mxfp8_e4m3"),
            "fprop.w": "float8_e4m3fn",
            "dgrad.dy": OperandSpec("mxfp8_e5m2", block_size=8),
            "dgrad.w": None,
            "wgrad.x": "bfloat16",
            "wgrad.dy": OperandSpec("mxfp4", block_size=4),
        }
    ),
}


@pytest.mark.parametrize("tokens", [False, True])
@pytest.mark.parametrize("name", list(ONE_D))
def test_a_dense_step_quantizes_each_role_for_its_gemm(keras, name, tokens):
    policy = ONE_D[name]
    s = policy.role_specs
    rng = np.random.default_rng(1)
    n, t_len, k, m = 16, 16, 32, 16
    shape = (n, t_len, k) if tokens else (n, k)
    x = _data(rng, shape, s["fprop.x"])
    w = _data(rng, (k, m), s["fprop.w"], unit=2.0**-3)
    t = _data(rng, (*shape[:-1], m), s["dgrad.dy"], unit=2.0**-2)
    layer = keras.layers.Dense(m, use_bias=False)
    model = emulate(keras.Sequential([keras.Input(shape[1:]), layer]), policy)
    layer.kernel.assign(w)
    y, dx, kernel = _step(keras, model, layer, x, t)
    y_ref, dx_ref, kernel_ref = _dense_oracle(policy, x, w, t, tokens)
    np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(dx, dx_ref)
    np.testing.assert_array_equal(kernel, kernel_ref)


def test_an_einsum_step_blocks_each_role_along_its_gemms_letter(keras):
    """abc,cde->abde: fprop sums c, dgrad sums e (the last letter of w and y not in x),
    wgrad sums b (the last letter of x and y not in w)."""
    policy = ONE_D["mxfp4"]
    s = policy.role_specs
    rng = np.random.default_rng(2)
    x = _data(rng, (4, 8, 16), None)
    w = _data(rng, (16, 3, 8), None, unit=2.0**-3)
    t = _data(rng, (4, 8, 3, 8), None, unit=2.0**-2)
    layer = keras.layers.EinsumDense("abc,cde->abde", output_shape=(8, 3, 8))
    model = emulate(keras.Sequential([keras.Input((8, 16)), layer]), policy)
    layer.kernel.assign(w)
    y, dx, kernel = _step(keras, model, layer, x, t)
    dy = (t / np.float32(4)).astype(np.float32)
    np.testing.assert_array_equal(
        y, _exact(_q(x, s["fprop.x"], 2), _q(w, s["fprop.w"], 0), "abc,cde->abde")
    )
    dx_ref = _exact(_q(dy, s["dgrad.dy"], 3), _q(w, s["dgrad.w"], 2), "abde,cde->abc")
    np.testing.assert_array_equal(dx, dx_ref)
    dw = _exact(_q(x, s["wgrad.x"], 1), _q(dy, s["wgrad.dy"], 1), "abc,abde->cde")
    np.testing.assert_array_equal(kernel, (w - LR * dw).astype(np.float32))


def _conv_oracle(s, x, w, dy, groups):
    """A valid, stride-1 2-D convolution (channels last) and its two gradients, each
    GEMM's operands quantized along its summed axis, group by group."""
    from numpy.lib.stride_tricks import sliding_window_view

    kh, kw, cg, out = w.shape
    og = out // groups
    qx, qw = _q(x, s["fprop.x"], -1, groups), _q(w, s["fprop.w"], -2)
    qdy, qwd = _q(dy, s["dgrad.dy"], -1, groups), _q(w, s["dgrad.w"], -1, groups)
    xw, dyw = _q(x, s["wgrad.x"], 0), _q(dy, s["wgrad.dy"], 0)
    y, dw = [], []
    for g in range(groups):
        win = sliding_window_view(qx[..., g * cg : (g + 1) * cg], (kh, kw), axis=(1, 2))
        y.append(_exact(win, qw[..., g * og : (g + 1) * og], "nijcab,abco->nijo"))
        win = sliding_window_view(xw[..., g * cg : (g + 1) * cg], (kh, kw), axis=(1, 2))
        dw.append(_exact(win, dyw[..., g * og : (g + 1) * og], "nijcab,nijo->abco"))
    # dX: dY padded by the kernel's size less one, against the kernel turned round
    pad = np.pad(qdy, [(0, 0), (kh - 1, kh - 1), (kw - 1, kw - 1), (0, 0)])
    dx = []
    for g in range(groups):
        win = sliding_window_view(pad[..., g * og : (g + 1) * og], (kh, kw), axis=(1, 2))
        turned = qwd[::-1, ::-1, :, g * og : (g + 1) * og]
        dx.append(_exact(win, turned, "nijoab,abco->nijc"))
    return np.concatenate(y, -1), np.concatenate(dx, -1), np.concatenate(dw, -1)


@pytest.mark.parametrize(
    ("data_format", "groups", "name"),
    [
        ("channels_last", 1, "mxfp4"),
        ("channels_first", 1, "mxfp4"),
        ("channels_last", 2, "mxfp4"),
        ("channels_first", 2, "te_current"),
    ],
)
def test_a_conv2d_step_blocks_each_role_along_its_gemms_axis(keras, data_format, groups, name):
    """fprop blocks x along its channels (each group's own), w along its input
    channels; dgrad blocks dY and w along the output channels (each group's own);
    wgrad blocks x and dY along the batch."""
    policy = ONE_D[name]
    s = policy.role_specs
    rng = np.random.default_rng(3)
    n, h, c, out = 4, 5, 8, 6
    x = _data(rng, (n, h, h, c), s["fprop.x"])
    w = _data(rng, (3, 3, c // groups, out), s["fprop.w"], unit=2.0**-3)
    t = _data(rng, (n, h - 2, h - 2, out), s["dgrad.dy"], unit=2.0**-2)
    if groups > 1:  # groups of different magnitudes: blocks across them would differ
        x[..., : c // 2] *= 8
        t[..., : out // 2] *= 8
    first = data_format == "channels_first"

    def to_layout(a):
        return np.ascontiguousarray(np.moveaxis(a, -1, 1)) if first else a

    layer = keras.layers.Conv2D(out, 3, use_bias=False, groups=groups, data_format=data_format)
    model = emulate(keras.Sequential([keras.Input(to_layout(x).shape[1:]), layer]), policy)
    layer.kernel.assign(w)
    y, dx, kernel = _step(keras, model, layer, to_layout(x), to_layout(t))
    y_ref, dx_ref, dw = _conv_oracle(s, x, w, (t / np.float32(n)).astype(np.float32), groups)
    np.testing.assert_array_equal(y, to_layout(y_ref))
    np.testing.assert_array_equal(dx, to_layout(dx_ref))
    np.testing.assert_array_equal(kernel, (w - LR * dw).astype(np.float32))


@pytest.mark.parametrize(
    "equation, shapes, axes",
    [  # (x, w, y) shapes; the summed axes (xk, xm), (wk, wn), (yn, ym)
        ("abc,cde->abde", ((4, 8, 16), (16, 3, 8), (4, 8, 3, 8)), ((2, 1), (0, 2), (3, 1))),
        ("abcd,cdf->abf", ((4, 8, 4, 8), (4, 8, 12), (4, 8, 12)), ((3, 1), (1, 2), (2, 1))),
    ],
)
def test_an_einsum_step_sums_its_gemms_with_the_accumulator_model(keras, equation, shapes, axes):
    """deepseek_v3 on EinsumDense: each GEMM is the matrix product of its operands
    flattened (rows: x's letters alone; summed: x's and the kernel's; columns: the
    kernel's alone, each in its operand's order), summed by Hopper's FP8 model."""
    policy = PRESETS["deepseek_v3"]
    s = policy.role_specs
    (xk, xm), (wk, wn), (yn, ym) = axes
    x_shape, w_shape, y_shape = shapes
    rng = np.random.default_rng(3)
    x = _data(rng, x_shape, None)
    w = _data(rng, w_shape, None, unit=2.0**-3)
    t = _data(rng, y_shape, None, unit=2.0**-2)
    layer = keras.layers.EinsumDense(equation, output_shape=y_shape[1:])
    model = emulate(keras.Sequential([keras.Input(x_shape[1:]), layer]), policy)
    assert "sums in float32" not in str(model.fpexplore_report)
    layer.kernel.assign(w)
    y, dx, kernel = _step(keras, model, layer, x, t)
    dy = (t / np.float32(x_shape[0])).astype(np.float32)
    m, k = 32, int(np.prod(x_shape[2:]))  # rows a, b; summed the rest of x

    def gemm(gemm_name, a, b):
        acc = policy.accumulator(gemm_name)
        return fpx.gemm(a, b, accumulate=acc).astype(np.float32)

    qx, qw = _q(x, s["fprop.x"], xk, other=xm), _q(w, s["fprop.w"], wk, other=wn)
    np.testing.assert_array_equal(y, gemm("fprop", qx.reshape(m, k), qw.reshape(k, -1))
                                  .reshape(y_shape))  # fmt: skip
    qdy, qwd = _q(dy, s["dgrad.dy"], yn, other=ym), _q(w, s["dgrad.w"], wn, other=wk)
    dx_ref = gemm("dgrad", qdy.reshape(m, -1), qwd.reshape(k, -1).T).reshape(x_shape)
    np.testing.assert_array_equal(dx, dx_ref)
    qxw = _q(x, s["wgrad.x"], xm, other=xk)
    qdyw = _q(dy, s["wgrad.dy"], ym, other=yn)
    dw = gemm("wgrad", qxw.reshape(m, k).T, qdyw.reshape(m, -1)).reshape(w_shape)
    np.testing.assert_array_equal(kernel, (w - LR * dw).astype(np.float32))


def test_an_einsum_that_is_no_single_gemm_sums_in_float32(keras):
    from fpexplore.keras.einsums import einsum_matrices

    assert einsum_matrices("abc,cd->abd", (3, 2, 3)) is not None
    assert einsum_matrices("...b,bc->...c", (4, 2, 4)) is not None
    assert einsum_matrices("abc,acd->abd", (3, 3, 3)) is None  # a: in x, w and y (a batch)
    assert einsum_matrices("abc,cd->ad", (3, 2, 2)) is None  # b: summed in x alone
    layer = keras.layers.EinsumDense("abc,cd->ad", output_shape=(6,))
    model = emulate(keras.Sequential([keras.Input((4, 5)), layer]), "deepseek_v3")
    assert "sums in float32 (its einsum equation is no single GEMM)" in str(model.fpexplore_report)


def _same_pads(n: int, k: int, s: int, d: int, padding: str) -> tuple[int, int]:
    """The padding of one spatial axis, as XLA's "SAME" (more at the end) or none."""
    if padding == "valid":
        return 0, 0
    total = max((-(-n // s) - 1) * s + d * (k - 1) + 1 - n, 0)
    return total // 2, total - total // 2


def _conv_gemm_oracle(x, w, dy, strides, padding, dilation, groups, accumulate):
    """A convolution's three GEMMs (channels last) from their definition, summed by
    ``fpx.gemm``: rows an output position's (channel, kernel offsets) for fprop and
    wgrad; for dgrad an input position's (output channel, flipped offsets), zeros
    where no output reads it. Each group on its own."""
    import itertools

    n, spatial, cin = x.shape[0], x.shape[1:-1], x.shape[-1]
    kernel, cg, out_c = w.shape[:-2], w.shape[-2], w.shape[-1]
    og, out = out_c // groups, dy.shape[1:-1]
    geometry = list(zip(spatial, kernel, strides, dilation, strict=True))
    pads = [_same_pads(m, k, s, d, padding) for m, k, s, d in geometry]
    xp = np.pad(x, [(0, 0), *pads, (0, 0)])
    offsets = list(itertools.product(*(range(k) for k in kernel)))
    positions = list(itertools.product(*(range(m) for m in out)))

    def at(q, off):  # the padded input a patch reads at output q, kernel offset off
        return tuple(p * s + o * d for p, s, o, d in zip(q, strides, off, dilation, strict=True))

    rows = np.array(
        [[xp[(b, *at(q, off), c)] for c in range(cin) for off in offsets]
         for b in range(n) for q in positions],
        np.float32,
    )  # fmt: skip
    kmat = np.array(
        [[w[(*off, c, o)] for o in range(out_c)] for c in range(cg) for off in offsets], np.float32
    )
    grads, width = dy.reshape(-1, out_c), cg * len(offsets)

    def gemm(a, b):
        return fpx.gemm(a, b, accumulate=accumulate).astype(np.float32)

    def cols(a, g, step):
        return a[:, g * step : (g + 1) * step]

    y = np.concatenate([gemm(cols(rows, g, width), cols(kmat, g, og)) for g in range(groups)], 1)
    dw = np.concatenate(
        [gemm(cols(rows, g, width).T, cols(grads, g, og)) for g in range(groups)], 1
    )

    def read(b, h, o, flipped):  # dy at the output that reads x[h] through offset k-1-flipped
        index = []
        for hi, f, (_, k, s, d), (lo, _), m in zip(h, flipped, geometry, pads, out, strict=True):
            t = hi + lo - (k - 1 - f) * d
            if t % s or not 0 <= t // s < m:
                return 0.0
            index.append(t // s)
        return dy[(b, *index, o)]

    inputs = list(itertools.product(*(range(m) for m in spatial)))
    dx = []
    for g in range(groups):
        outputs = range(g * og, (g + 1) * og)
        drows = np.array(
            [
                [read(b, h, o, f) for o in outputs for f in offsets]
                for b in range(n)
                for h in inputs
            ],
            np.float32,
        )
        turned = [tuple(k - 1 - fi for k, fi in zip(kernel, f, strict=True)) for f in offsets]
        dk = np.array([[w[(*t, c, o)] for c in range(cg)] for o in outputs for t in turned],
                      np.float32)  # fmt: skip
        dx.append(gemm(drows, dk))
    dw = np.moveaxis(dw.reshape(cg, *kernel, out_c), 0, -2)  # rows (c, offsets): as the kernel
    return y.reshape(n, *out, out_c), np.concatenate(dx, axis=1).reshape(x.shape), dw


@pytest.mark.parametrize(
    ("layer_kind", "data_format", "strides", "padding", "dilation", "groups"),
    [
        ("Conv2D", "channels_last", 1, "valid", 1, 1),
        ("Conv2D", "channels_last", 2, "same", 1, 2),
        ("Conv2D", "channels_first", 1, "same", 2, 1),
        ("Conv1D", "channels_last", 2, "same", 1, 1),
        ("Conv3D", "channels_last", 1, "valid", 1, 1),
    ],
)
def test_a_conv_step_sums_its_gemms_with_the_accumulator_model(
    keras, layer_kind, data_format, strides, padding, dilation, groups
):
    """Hopper's FP8 accumulator on a convolution's three GEMMs, against the GEMMs built
    from the convolution's definition (bfloat16 operands: values that stay as they are)."""
    policy = FormatPolicy("bfloat16", "bfloat16", accumulate="h100_fp8")
    rank = {"Conv1D": 1, "Conv2D": 2, "Conv3D": 3}[layer_kind]
    rng = np.random.default_rng(4)
    n, size, cin, out_c = 2, 5 if rank < 3 else 4, 4, 6
    spread = rng.integers(-6, 7, (n, *(size,) * rank, cin)).astype(np.float32)
    x = fpx.round_to(rng.standard_normal(spread.shape) * 2.0**spread, "bfloat16").astype(np.float32)
    w = fpx.round_to(rng.standard_normal((*(3,) * rank, cin // groups, out_c)) * 0.25,
                     "bfloat16").astype(np.float32)  # fmt: skip
    layer = getattr(keras.layers, layer_kind)(out_c, 3, strides=strides, padding=padding,
                                              dilation_rate=dilation, groups=groups,
                                              data_format=data_format, use_bias=False)  # fmt: skip
    first = data_format == "channels_first"

    def to_layout(a):
        return np.ascontiguousarray(np.moveaxis(a, -1, 1)) if first else a

    model = emulate(keras.Sequential([keras.Input(to_layout(x).shape[1:]), layer]), policy)
    assert "sums in float32" not in str(model.fpexplore_report)
    layer.kernel.assign(w)
    out_shape = np.asarray(model(to_layout(x))).shape
    out_last = (out_shape[0], *out_shape[2:], out_shape[1]) if first else out_shape
    t = fpx.round_to(rng.standard_normal(out_last), "bfloat16").astype(np.float32)
    y, dx, kernel = _step(keras, model, layer, to_layout(x), to_layout(t))
    dy = fpx.round_to(t / np.float32(n), "bfloat16").astype(np.float32)
    y_ref, dx_ref, dw = _conv_gemm_oracle(x, w, dy, (strides,) * rank, padding, (dilation,) * rank,
                                          groups, "h100_fp8")  # fmt: skip
    np.testing.assert_array_equal(y, to_layout(y_ref))
    np.testing.assert_array_equal(dx, to_layout(dx_ref))
    np.testing.assert_array_equal(kernel, (w - LR * dw).astype(np.float32))
    exact = _conv_gemm_oracle(x, w, dy, (strides,) * rank, padding, (dilation,) * rank, groups,
                              fpx.Accumulator(group=1, bits=27))[0]  # fmt: skip
    assert not np.array_equal(y_ref, exact)  # the 13-bit accumulator dropped bits here

"""Which layers get which policy: exclude and overrides by name, glob, class and
position; the report says which policy each layer got and why; bad selectors."""

from __future__ import annotations

import pytest

from fpexplore.keras import PRESETS, FormatPolicy, OperandSpec, emulate

pytest.importorskip("jax")


def _model(keras):
    inputs = keras.Input((8, 8, 2))
    x = keras.layers.Conv2D(4, 3, name="conv")(inputs)
    x = keras.layers.Flatten(name="flat")(x)
    for i in range(4):
        x = keras.layers.Dense(8, name=f"block_{i}")(x)
    x = keras.layers.Dense(2, name="head")(x)
    return keras.Model(inputs, x)


def _policies(model):
    report = model.fpexplore_report
    return {name: report.policy_of(name) for name, _, done in report.layers if done is not None}


def test_selectors_by_name_glob_class_and_position(keras):
    fp8 = PRESETS["fp8"]
    model = emulate(_model(keras), "fp8", exclude=["block_*"])
    assert model.fpexplore_report.emulated == ("conv", "head")
    assert model.fpexplore_report.reason("block_2") == "excluded by 'block_*'"
    model = emulate(_model(keras), "fp8", exclude="Conv2D")
    assert model.fpexplore_report.float32 == ("conv", "flat")
    model = emulate(_model(keras), "fp8", exclude=["first:2", "last:1"])
    assert model.fpexplore_report.emulated == ("block_1", "block_2", "block_3")
    model = emulate(_model(keras), "fp8", overrides={"last:2": "bfloat16", "head": None})
    policies = _policies(model)
    assert policies["conv"] is fp8 and policies["block_2"] is fp8
    assert policies["block_3"] == PRESETS["bfloat16"]
    assert policies["head"] is None and policies["flat"] is None
    report = model.fpexplore_report
    assert report.reason("block_3") == "override 'last:2' -> bfloat16"
    assert report.reason("head") == "override 'head' -> float32"  # the later key wins
    assert report.reason("conv") == "policy fp8"
    assert report.reason("flat") == "not an emulated kind"
    text = str(report)
    assert "block_3" in text and "(override 'last:2' -> bfloat16)" in text


def test_exclude_comes_after_overrides_and_first_k_counts_emulated_kinds(keras):
    model = emulate(_model(keras), "fp8", overrides={"first:1": "bfloat16"}, exclude=["conv"])
    assert model.fpexplore_report.policy_of("conv") is None
    assert model.fpexplore_report.reason("conv") == "excluded by 'conv'"
    custom = FormatPolicy(roles={"fprop.x": "bfloat16"})
    model = emulate(_model(keras), "float32", overrides={"block_0": custom})
    assert model.fpexplore_report.emulated == ("block_0",)
    assert "fprop.x bfloat16" in str(model.fpexplore_report)


def test_nvfp4_keeps_its_last_layer_in_bfloat16(keras):
    model = emulate(_model(keras), "nvfp4")
    report = model.fpexplore_report
    assert report.policy_of("head") == FormatPolicy("bfloat16", "bfloat16")
    assert (
        report.reason("head") == "nvfp4's override 'last:1' -> forward bfloat16, backward bfloat16"
    )
    assert report.policy_of("block_3") is PRESETS["nvfp4"]
    model = emulate(_model(keras), "nvfp4", overrides={"last:1": "nvfp4"})  # the user's wins
    assert model.fpexplore_report.policy_of("head") is PRESETS["nvfp4"]


def test_bad_selectors_and_values_are_named(keras):
    with pytest.raises(ValueError, match=r"exclude: model '.*' has no layers named \['nope'\]"):
        emulate(_model(keras), "fp8", exclude=["nope"])
    with pytest.raises(ValueError, match=r"overrides: .* has no layers named \['Dropout'\]"):
        emulate(_model(keras), "fp8", overrides={"Dropout": None})
    with pytest.raises(ValueError, match=r"overrides\['head'\]: unknown preset 'fp9'"):
        emulate(_model(keras), "fp8", overrides={"head": "fp9"})
    with pytest.raises(TypeError, match="overrides must be a mapping"):
        emulate(_model(keras), "fp8", overrides=["head"])


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: FormatPolicy(roles={"fprop.z": "bf16"}), "roles: unknown role 'fprop.z'"),
        (lambda: FormatPolicy(roles={"x": None}), "expected one of 'fprop.x', 'fprop.w'"),
        (lambda: FormatPolicy(roles={"fprop.x": "fp9"}), r"roles\['fprop.x'\]: format"),
        (lambda: OperandSpec("bfloat16", block_size=16), "block_size: 16 needs a block scaling"),
        (lambda: OperandSpec("nvfp4", block_size=(16, 0)), "block_size: expected None, a posi"),
        (lambda: OperandSpec("nvfp4", block_size=(2, 2, 2)), "pair of positive ints"),
        (lambda: OperandSpec("mxfp4", scale_rule="round"), "scale_rule: unknown rule 'round'"),
        (lambda: OperandSpec("nvfp4", scale_rule="rceil"), "scaling 'nvfp4' has none"),
        (lambda: OperandSpec("nvfp4", hadamard=12), "hadamard: expected None or a power of two"),
        (
            lambda: FormatPolicy(roles={"fprop.x": OperandSpec("nvfp4", hadamard=16)}),
            "for the wgrad operands only",
        ),
        (
            lambda: FormatPolicy(accumulate="fp9"),
            "unknown accumulator 'fp9'; expected an Accumulator or 'float32', 'h100_fp8',",
        ),
        (lambda: FormatPolicy(accumulate={"xgrad": "float32"}), "accumulate: unknown GEMM"),
        (lambda: PRESETS["fp8"].role_spec("fprop.y"), "role: unknown role 'fprop.y'"),
    ],
)
def test_bad_roles_blocks_and_accumulators_are_named(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_partial_batch_is_padded_for_the_hadamard_transform(keras):
    """12 rows and a Hadamard transform of 16: both wgrad operands get 4 zero rows,
    which add nothing to dW: the same step as the 16 rows with 4 of them zero."""
    import numpy as np

    spec = OperandSpec("mxfp4", hadamard=16)
    kernels = []
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 8)).astype(np.float32)
    t = rng.standard_normal((16, 4)).astype(np.float32)
    x[12:], t[12:] = 0, 0
    for rows in (12, 16):
        keras.utils.set_random_seed(0)
        model = emulate(
            keras.Sequential([keras.Input((8,)), keras.layers.Dense(4, use_bias=False)]),
            FormatPolicy(roles={"wgrad.x": spec, "wgrad.dy": spec}),
        )
        model.layers[0].kernel.assign(np.ones((8, 4), np.float32))

        def loss(t, y, rows=rows):  # the mean over 12 rows as over 16
            return keras.ops.sum(y * t, -1) * rows / 16

        model.compile(optimizer="sgd", loss=loss)
        model.train_on_batch(x[:rows], t[:rows])
        kernels.append(np.array(model.layers[0].kernel.value))
    np.testing.assert_array_equal(*kernels)
    assert not np.array_equal(kernels[0], np.ones((8, 4)))


def test_accumulator_models_sum_every_layer_kind_and_the_report_says_so(keras):
    model = emulate(_model(keras), "deepseek_v3")
    report = model.fpexplore_report
    assert report.reason("conv") == "policy deepseek_v3"  # its GEMMs, as patches
    assert report.reason("head") == "policy deepseek_v3"
    assert "accumulate fprop h100_fp8_promoted" in str(report)


def test_a_position_past_the_emulated_layers_selects_them_all(keras):
    """6 emulated layers: ``last:8`` and ``first:8`` select all 6, as ``last:6`` does."""
    everything = ("conv", "block_0", "block_1", "block_2", "block_3", "head")
    for selector in ("last:8", "last:7", "last:6", "first:8"):
        model = emulate(_model(keras), "fp8", overrides={selector: "bfloat16"})
        report = model.fpexplore_report
        assert {n for n in everything if report.policy_of(n) == PRESETS["bfloat16"]} == set(
            everything
        ), selector
        model = emulate(_model(keras), "fp8", exclude=[selector])
        assert model.fpexplore_report.emulated == (), selector
    model = emulate(_model(keras), "fp8", exclude=["last:2"])
    assert model.fpexplore_report.emulated == ("conv", "block_0", "block_1", "block_2")


@pytest.mark.parametrize("selector", ["first:0", "last:0"])
def test_a_position_of_no_layers_is_refused_by_name(keras, selector):
    with pytest.raises(ValueError, match=rf"overrides: {selector!r} selects no .*at least 1"):
        emulate(_model(keras), "fp8", overrides={selector: "bfloat16"})
    with pytest.raises(ValueError, match=rf"exclude: {selector!r} selects no layers"):
        emulate(_model(keras), "fp8", exclude=selector)


def test_exclude_none_excludes_nothing(keras):
    model = emulate(_model(keras), "fp8", exclude=None)
    plain = emulate(_model(keras), "fp8").fpexplore_report
    assert model.fpexplore_report.emulated == plain.emulated
    assert "conv" in plain.emulated


@pytest.mark.parametrize(
    "roles",
    [
        {"wgrad.x": OperandSpec("float32", hadamard=16)},
        {"wgrad.dy": OperandSpec("nvfp4", hadamard=16)},
        {"wgrad.x": OperandSpec("nvfp4", hadamard=16), "wgrad.dy": OperandSpec("nvfp4")},
        {"wgrad.x": OperandSpec("nvfp4", hadamard=16), "wgrad.dy": None},
        {
            "wgrad.x": OperandSpec("mxfp4", hadamard=16),
            "wgrad.dy": OperandSpec("e4m3", hadamard=32),
        },
    ],
)
def test_a_hadamard_transform_on_one_wgrad_operand_or_of_two_sizes_is_refused(roles):
    with pytest.raises(ValueError, match=r"roles: hadamard must be the same on 'wgrad.x' and"):
        FormatPolicy(roles=roles)


def test_the_nvfp4_presets_keep_one_hadamard_on_both_wgrad_operands():
    for name in ("nvfp4", "nvfp4_no_sr", "nvfp4_1d_weights", "nvfp4_no_hadamard"):
        specs = PRESETS[name].role_specs
        assert specs["wgrad.x"].hadamard == specs["wgrad.dy"].hadamard, name
    assert PRESETS["nvfp4"].role_spec("wgrad.x").hadamard == 16
    assert PRESETS["nvfp4_no_hadamard"].role_spec("wgrad.dy").hadamard is None
    both = OperandSpec("float32", hadamard=16)
    assert FormatPolicy(roles={"wgrad.x": both, "wgrad.dy": both}).rounds_operands


def test_the_footer_says_which_layers_accumulate_with_which_model(keras):
    model = emulate(_model(keras), "fp8", overrides={"head": "deepseek_v3"})
    footer = str(model.fpexplore_report).splitlines()[-1]
    assert footer == "  accumulation in float32, except head (h100_fp8_promoted); weights float32"
    assert "except head (h100_fp8_promoted)" in model.fpexplore_report._repr_html_()
    model = emulate(_model(keras), "deepseek_v3", exclude="head")
    footer = str(model.fpexplore_report).splitlines()[-1]
    assert footer == "  accumulation in h100_fp8_promoted, except head (float32); weights float32"
    model = emulate(_model(keras), "deepseek_v3")
    footer = str(model.fpexplore_report).splitlines()[-1]
    assert footer.startswith("  accumulation in h100_fp8_promoted; weights")
    split = FormatPolicy("bfloat16", accumulate={"fprop": "h100_fp8"})
    model = emulate(_model(keras), "fp8", overrides={"block_*": split})
    footer = str(model.fpexplore_report).splitlines()[-1]
    assert footer == (
        "  accumulation in (fprop h100_fp8, dgrad float32, wgrad float32), except conv, head "
        "(float32); weights float32"
    )
    model = emulate(_model(keras), "fp8", overrides={"block_*": split, "first:1": split})
    footer = str(model.fpexplore_report).splitlines()[-1]
    assert footer.startswith("  accumulation in (fprop h100_fp8, dgrad float32, wgrad float32)")
    model = emulate(_model(keras), "fp8", overrides={"block_*": "deepseek_v3"})
    footer = str(model.fpexplore_report).splitlines()[-1]
    assert footer == (
        "  accumulation in h100_fp8_promoted, except conv, head (float32); weights float32"
    )
    dense = [keras.Input((4,))] + [keras.layers.Dense(4, name=f"d{i}") for i in range(9)]
    model = emulate(keras.Sequential(dense), "fp8", overrides={"last:4": "deepseek_v3"})
    assert str(model.fpexplore_report).endswith(
        "accumulation in float32, except d5, d6, d7 and 1 more (h100_fp8_promoted); weights float32"
    )
    assert str(emulate(_model(keras), "fp8").fpexplore_report).endswith(
        "accumulation in float32; weights float32"
    )


def test_an_einsum_of_no_single_gemm_sums_in_float32_in_the_footer(keras):
    inputs = keras.Input((4, 8))
    x = keras.layers.EinsumDense("abc,cd->abd", (4, 16), name="ein_gemm")(inputs)
    x = keras.layers.EinsumDense("abc,bcd->abd", (4, 8), name="ein_batched")(x)
    model = emulate(keras.Model(inputs, x), FormatPolicy("bfloat16", accumulate="h100_fp8"))
    footer = str(model.fpexplore_report).splitlines()[-1]
    assert footer == "  accumulation in float32, except ein_gemm (h100_fp8); weights float32"

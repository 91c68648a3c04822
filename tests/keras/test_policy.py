"""FormatPolicy and PRESETS: plain data, checked when made (no Keras, no JAX)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import warnings

import pytest

from fpexplore.keras import PRESETS, ROLES, FormatPolicy, OperandSpec
from fpexplore.keras.policies.presets import get_policy

PRESET_NAMES = (
    "float32",
    "mixed_float16",
    "bfloat16",
    "bfloat16_weights",
    "bfloat16_weights_stochastic",
    "fp8",
    "mxfp8",
    "mxfp4",
    "nvfp4",
    "te_delayed",
    "te_current",
    "deepseek_v3",
    "nvfp4_no_hadamard",
    "nvfp4_no_sr",
    "nvfp4_1d_weights",
)


def test_every_preset_is_there_and_a_policy():
    assert tuple(PRESETS) == PRESET_NAMES
    assert all(isinstance(p, FormatPolicy) for p in PRESETS.values())


def test_presets_say_what_the_recipes_are():
    assert PRESETS["float32"].is_float32
    mixed = PRESETS["mixed_float16"]
    assert (mixed.forward, mixed.backward, mixed.weights, mixed.loss_scale) == (
        "float16", "float16", None, "dynamic",
    )  # fmt: skip
    bf16 = PRESETS["bfloat16"]
    assert (bf16.weights, bf16.master_weights) == ("bfloat16", True)
    pure = PRESETS["bfloat16_weights"]
    assert (pure.weights, pure.master_weights, pure.weight_rounding) == (
        "bfloat16", False, "nearest_even",
    )  # fmt: skip
    assert PRESETS["bfloat16_weights_stochastic"].weight_rounding == "stochastic"
    fp8 = PRESETS["fp8"]
    assert fp8.forward_spec == OperandSpec("float8_e4m3fn", "delayed", "nearest_even")
    assert fp8.backward_spec == OperandSpec("float8_e5m2", "delayed", "nearest_even")
    mx = PRESETS["mxfp8"]  # the MXFP8 paper's: E4M3 everywhere, scales rounded up
    assert set(mx.role_specs.values()) == {OperandSpec("mxfp8_e4m3", scale_rule="rceil")}
    for name, block in (("mxfp4", "mxfp4"), ("nvfp4", "nvfp4")):
        p = PRESETS[name]
        assert p.forward_spec == OperandSpec("float4_e2m1fn", block, "nearest_even")
        assert p.backward_spec == OperandSpec("float4_e2m1fn", block, "stochastic")


def test_the_published_recipes_by_role():
    te = PRESETS["te_delayed"]
    assert (te.forward, te.backward, te.scaling, te.amax_history_len) == (
        "float8_e4m3fn", "float8_e5m2", "delayed", 1024,
    )  # fmt: skip
    assert te.role_spec("wgrad.dy").history_len == 1024
    assert PRESETS["te_current"].role_spec("dgrad.w").scaling == "per_tensor"
    ds = PRESETS["deepseek_v3"].role_specs
    assert {s.format for s in ds.values()} == {"float8_e4m3fn"}
    assert ds["fprop.w"].block_size == ds["dgrad.w"].block_size == (128, 128)
    assert {ds[r].block_size for r in ("fprop.x", "dgrad.dy", "wgrad.x", "wgrad.dy")} == {128}
    assert PRESETS["deepseek_v3"].accumulator("wgrad") == "h100_fp8_promoted"
    nv = PRESETS["nvfp4"].role_specs
    assert nv["fprop.w"] == nv["dgrad.w"] == OperandSpec("nvfp4", block_size=(16, 16))
    assert nv["fprop.x"] == OperandSpec("nvfp4")
    assert [nv[r].rounding for r in ("dgrad.dy", "wgrad.dy")] == ["stochastic"] * 2
    assert [nv[r].hadamard for r in ("wgrad.x", "wgrad.dy")] == [16, 16]
    assert PRESETS["nvfp4"].overrides == {"last:1": FormatPolicy("bfloat16", "bfloat16")}
    assert PRESETS["nvfp4_no_hadamard"].role_spec("wgrad.x").hadamard is None
    assert PRESETS["nvfp4_no_sr"].role_spec("dgrad.dy").rounding == "nearest_even"
    assert PRESETS["nvfp4_1d_weights"].role_spec("fprop.w").block_size is None


def test_roles_default_to_the_shorthand():
    p = FormatPolicy("e4m3", "e5m2", scaling="per_tensor", roles={"wgrad.x": None})
    assert p.role_spec("fprop.x") == p.role_spec("dgrad.w") == p.forward_spec
    assert p.role_spec("dgrad.dy") == p.role_spec("wgrad.dy") == p.backward_spec
    assert p.role_spec("wgrad.x") is None
    assert FormatPolicy(roles={"dgrad.dy": "bf16"}).role_spec("dgrad.dy").format == "bfloat16"
    assert not FormatPolicy(roles={r: None for r in ROLES}).rounds_operands
    assert (
        len({p, FormatPolicy("e4m3", "e5m2", scaling="per_tensor", roles={"wgrad.x": None})}) == 1
    )


def test_defaults_mean_float32():
    p = FormatPolicy()
    assert (p.forward, p.backward, p.weights) == (None, None, None)
    assert p.forward_spec is None and p.backward_spec is None and p.is_float32
    assert repr(p) == "FormatPolicy()"


def test_names_are_canonical_and_repr_round_trips():
    p = FormatPolicy("e4m3", "e5m2", "bf16", scaling="per_tensor", weight_rounding="stochastic")
    assert (p.forward, p.backward, p.weights) == ("float8_e4m3fn", "float8_e5m2", "bfloat16")
    assert eval(repr(p), {"FormatPolicy": FormatPolicy}) == p
    for policy in PRESETS.values():
        names = {"FormatPolicy": FormatPolicy, "OperandSpec": OperandSpec}
        assert eval(repr(policy), names) == policy


def test_str_names_every_place_and_float32_accumulation():
    text = str(PRESETS["fp8"])
    assert "float8_e4m3fn, delayed scaling (amax history of 16), nearest even" in text
    assert "float8_e5m2, delayed scaling" in text
    assert "weights    float32" in text and "accumulate float32" in text
    assert "loss scale dynamic" in str(PRESETS["mixed_float16"])
    assert "bfloat16, stochastic" in str(PRESETS["bfloat16_weights_stochastic"])


def test_backward_scaling_follows_forward_unless_given():
    p = FormatPolicy("e4m3", "e5m2", scaling="per_tensor")
    assert p.backward_spec.scaling == "per_tensor"
    p = FormatPolicy("e4m3", "e5m2", scaling="per_tensor", backward_scaling="none")
    assert p.backward_spec.scaling == "none"
    assert FormatPolicy("e4m3", scaling="delayed").backward_spec is None  # backward float32
    assert FormatPolicy(backward_scaling="nvfp4").backward == "float4_e2m1fn"  # inferred
    assert FormatPolicy(scaling="mxfp4").forward == "float4_e2m1fn"
    p = FormatPolicy("bfloat16", "bfloat16", rounding="toward_zero")
    assert p.backward_spec.rounding == "toward_zero"
    p = FormatPolicy("bfloat16", "bfloat16", backward_rounding="stochastic")
    assert (p.forward_spec.rounding, p.backward_spec.rounding) == ("nearest_even", "stochastic")


def test_policies_are_frozen_and_hashable():
    p = PRESETS["fp8"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.forward = "bfloat16"  # type: ignore[misc]
    assert len({p, PRESETS["fp8"], FormatPolicy("e4m3", "e5m2", scaling="delayed")}) == 1
    assert dataclasses.replace(p, scaling="per_tensor").backward_spec.scaling == "per_tensor"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"forward": "float9"}, "forward: unknown format 'float9'"),
        ({"backward": "bogus"}, "backward: unknown format 'bogus'"),
        ({"backward": "e9m7"}, "backward: e9m7 has values that float32 cannot hold"),
        ({"weights": "float64"}, "weights: float64 has values that float32 cannot hold"),
        ({"forward": "e4m3", "scaling": "zoom"}, "scaling: unknown scaling 'zoom'"),
        ({"backward": "e5m2", "backward_scaling": "mxfp9"}, "unknown scaling 'mxfp9'"),
        ({"forward": "e4m3", "rounding": "nearest"}, "rounding: unknown rounding mode 'nearest'"),
        ({"backward_rounding": "odd"}, "backward_rounding: unknown rounding mode 'odd'"),
        ({"weights": "bf16", "weight_rounding": "up"}, "weight_rounding: unknown rounding mode"),
        ({"master_weights": True}, "master_weights=True needs a weights format"),
        ({"scaling": "per_tensor"}, "forward: scaling 'per_tensor' needs a format"),
        ({"forward": "bf16", "scaling": "mxfp4"}, "'bfloat16' is not the element format of"),
        ({"scaling": "mxint8"}, "mxint8 has integer elements"),
        ({"forward": "e4m3", "backward": "bf16", "scaling": "mxfp8_e4m3"}, "no sibling"),
        ({"seed": -1}, "seed must be an int >= 0"),
        ({"amax_history_len": 0}, "amax_history_len must be an int >= 1"),
        ({"loss_scale": "static"}, "loss_scale: expected None, 'dynamic' or a positive number"),
        ({"loss_scale": -2.0}, "loss_scale"),
    ],
)
def test_bad_values_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        FormatPolicy(**kwargs)


def test_bad_types():
    with pytest.raises(TypeError, match="master_weights must be True or False"):
        FormatPolicy(weights="bf16", master_weights=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="scaling must be a string"):
        FormatPolicy("e4m3", scaling=None)  # type: ignore[arg-type]


def test_unknown_preset_is_named():
    with pytest.raises(ValueError, match="unknown preset 'fp9'"):
        get_policy("fp9")
    assert get_policy(PRESETS["fp8"]) is PRESETS["fp8"]


def test_import_fpexplore_imports_neither_jax_nor_keras():
    code = (
        "import sys, fpexplore, fpexplore.keras\n"
        "fpexplore.keras.PRESETS['fp8']\n"
        "print(sorted(m for m in ('jax', 'keras') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_doctests():
    import doctest

    import fpexplore.keras
    from fpexplore.keras.policies import policy, presets, report, roles, selection, specs

    for module in (policy, specs, presets, report, roles, selection, fpexplore.keras):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_backward_none_is_float32_whatever_the_forward_scaling():
    """backward=None means float32 with a block scaling too, as with a per-tensor one."""
    for scaling in ("per_tensor", "delayed", "mxfp8_e4m3", "mxfp4", "nvfp4"):
        forward = "float4_e2m1fn" if scaling in ("mxfp4", "nvfp4") else "float8_e4m3fn"
        p = FormatPolicy(forward, scaling=scaling)
        assert p.backward is None and p.backward_spec is None, scaling
        assert "backward   float32" in str(p)
    assert FormatPolicy(scaling="mxfp4").backward_spec is None
    assert FormatPolicy(backward="e5m2", scaling="mxfp8").backward_spec.scaling == "mxfp8_e5m2"


def test_a_custom_format_name_warns_with_the_nearest_names() -> None:
    with pytest.warns(UserWarning, match=r"custom format e4m4 .*did you mean e4m3"):
        policy = FormatPolicy("e4m4", "e5m2")
    assert policy.forward_spec.format == "e4m4"  # accepted as it is


@pytest.mark.parametrize(
    "make",
    [
        lambda: OperandSpec("e4m4"),
        lambda: FormatPolicy(roles={"fprop.x": "e4m4"}),
        lambda: FormatPolicy(roles={"wgrad.dy": OperandSpec("e4m4", "per_tensor")}),
        lambda: FormatPolicy("e4m4", "e5m2", amax_history_len=8),
        lambda: FormatPolicy(weights="e4m4"),
    ],
    ids=["spec", "role-name", "role-spec", "shorthand", "weights"],
)
def test_each_custom_format_name_warns_once_where_it_is_given(make) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = make()
        for _ in range(2):  # the specs a policy derives say nothing more
            getattr(made, "role_specs", None)
            getattr(made, "forward_spec", None)
    notices = [w for w in caught if "custom format e4m4" in str(w.message)]
    assert len(notices) == 1 and notices[0].filename == __file__
    assert "did you mean e4m3" in str(notices[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # catalogue names: no notice
        FormatPolicy(roles={"fprop.x": "e4m3", "dgrad.dy": OperandSpec("e5m2")})

"""quantize_blocks: OCP MX v1.0 and NVFP4, against exact oracles, the spec's
tables and gfloat's block functions."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from fpexplore import BLOCK_FORMATS, dequantize_blocks, get_format, quantize_blocks
from tests.oracle import oracle_round

MX = ["mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8"]
RNG = np.random.default_rng(16)


def _tensor(shape: tuple[int, ...]) -> np.ndarray:
    x = RNG.standard_normal(shape) * np.exp2(RNG.integers(-12, 12, shape))
    return x.astype(np.float32).astype(np.float64)


def test_spec_table_1_parameters() -> None:
    # OCP MX v1.0 table 1: k = 32, scale E8M0, and the element formats' emax
    # (section 5.3: E4M3 8, E5M2 15, E3M2 4, E2M3 2, E2M1 2; MXINT8 0).
    emax = {"mxfp8_e4m3": 8, "mxfp8_e5m2": 15, "mxfp6_e3m2": 4, "mxfp6_e2m3": 2, "mxfp4": 2,
            "mxint8": 0}  # fmt: skip
    for name, e in emax.items():
        spec = BLOCK_FORMATS[name]
        assert (spec.block_size, spec.scale, spec.emax_elem) == (32, "e8m0", e)
    assert (BLOCK_FORMATS["nvfp4"].block_size, BLOCK_FORMATS["nvfp4"].scale) == (16, "e4m3")


def _oracle_mx(block: np.ndarray, name: str) -> tuple[int, list[Fraction]]:
    """Section 6.3 with Fractions: shared_exp, then each V / X rounded (nearest
    even), saturating; the dequantized values."""
    spec = BLOCK_FORMATS[name]
    amax = max(abs(Fraction(float(v))) for v in block)
    if amax == 0:
        shared = -127
    else:
        shared = math.floor(math.log2(amax))
        while Fraction(2) ** shared > amax:  # exact floor(log2), whatever log2 rounds
            shared -= 1
        while Fraction(2) ** (shared + 1) <= amax:
            shared += 1
        shared = max(shared - spec.emax_elem, -127)
    scale = Fraction(2) ** shared
    values = []
    for v in block:
        t = Fraction(float(v)) / scale
        if name == "mxint8":
            q = Fraction(round(t * 64), 64)  # Python's round: ties to even
            q = min(max(q, Fraction(-2)), Fraction(127, 64))
        else:
            fmt = get_format(spec.element)
            top = Fraction(fmt.max)
            q = oracle_round(min(max(t, -top), top), fmt, "nearest_even")
        values.append(q * scale)
    return shared, values


@pytest.mark.parametrize("name", MX)
def test_mx_matches_exact_oracle(name: str) -> None:
    x = _tensor((3, 70))  # ragged: 70 = 2 * 32 + 6
    x[1, 32:64] = 0.0
    q = quantize_blocks(x, name)
    assert q.scales.shape == (3, 3) and q.codes.shape == x.shape
    for r in range(3):
        for b in range(3):
            shared, values = _oracle_mx(x[r, 32 * b : 32 * b + 32], name)
            assert int(q.scales[r, b]) == shared + 127
            got = q.values[r, 32 * b : 32 * b + 32]
            assert [Fraction(float(g)) for g in got] == values


@pytest.mark.parametrize("name", [*MX, "nvfp4"])
def test_every_axis_and_shape(name: str) -> None:
    x = _tensor((5, 33, 4))
    for axis in (0, 1, 2, -1, -3):
        q = quantize_blocks(x, name, axis=axis)
        moved = quantize_blocks(np.moveaxis(x, axis, -1), name)
        assert np.array_equal(np.moveaxis(q.values, axis, -1), moved.values)
        assert np.array_equal(np.moveaxis(q.codes, axis, -1), moved.codes)
        assert np.array_equal(np.moveaxis(q.scales, axis, -1), moved.scales)
        assert np.array_equal(q.dequantize(), q.values)


def test_ragged_block_is_its_own_block() -> None:
    x = np.concatenate([np.full(32, 1000.0), [0.75, -0.5, 0.25]])
    q = quantize_blocks(x, "mxfp4")
    assert list(q.scales) == [127 + 9 - 2, 127 - 1 - 2]
    assert list(q.values[32:]) == [0.75, -0.5, 0.25]


def test_special_blocks() -> None:
    x = np.zeros((3, 32))
    x[1, 3], x[2, 4] = np.nan, -np.inf
    for name in MX:
        q = quantize_blocks(x, name)
        assert list(q.scales) == [0, 0xFF, 0xFF]  # zero block: X = 2**-127, as gfloat
        assert np.isnan(q.values[1:]).all() and (q.values[0] == 0).all()
    q = quantize_blocks(x[:, :16], "nvfp4")
    assert q.scales[1] == 0x7F and np.isnan(q.values[1]).all() and q.tensor_scale == 1.0


def test_mxint8_elements() -> None:
    # MXINT8: two's complement k/64, k in -128..127 (OCP MX v1.0 section 5.3.4)
    x = np.array([1.0, -1.0, 1.99, 0.5 / 64 + 1e-9, -1.9999, 0.0] + [0.0] * 26)
    q = quantize_blocks(x, "mxint8")
    assert int(q.scales[0]) == 127
    assert list(q.codes[:6]) == [64, 0xC0, 127, 1, 0x80, 0]
    assert list(q.values[:6]) == [1.0, -1.0, 127 / 64, 1 / 64, -2.0, 0.0]


def test_nvfp4_recipe() -> None:
    x = _tensor((2, 40))
    q = quantize_blocks(x, "nvfp4")
    amax = float(np.abs(x).max())
    g = float(np.float32(amax / 2688))
    assert q.tensor_scale == g
    for r in range(2):
        for b in range(3):
            block = x[r, 16 * b : 16 * b + 16]
            target = Fraction(float(np.abs(block).max())) / (6 * Fraction(g))
            s = oracle_round(min(target, Fraction(448)), get_format("e4m3"), "nearest_even")
            assert Fraction(float(q.scale_values[r, b])) == s
            for i, v in enumerate(block):
                e = oracle_round(min(max(Fraction(float(v)) / (s * Fraction(g)), Fraction(-6)),
                                     Fraction(6)), get_format("e2m1"), "nearest_even")  # fmt: skip
                assert Fraction(float(q.values[r, 16 * b + i])) == e * s * Fraction(g)
    assert np.array_equal(dequantize_blocks(q.scales, q.codes, "nvfp4", tensor_scale=g), q.values)


def test_rendering() -> None:
    q = quantize_blocks(np.linspace(-4, 4, 40), "mxfp4")
    text = str(q)
    assert "shared scale X = 2**(2 - 2)" in text and "E8M0 code 0x7f" in text
    assert "<table" in q._repr_html_() and "mxfp4" in repr(q)
    assert q.block(1)["codes"].size == 8


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="unknown block format 'mxfp5'"):
        quantize_blocks(np.ones(4), "mxfp5")
    with pytest.raises(ValueError, match="block_size must be a positive int, got 0"):
        quantize_blocks(np.ones(4), "mxfp4", block_size=0)
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        quantize_blocks(np.ones((2, 3)), "mxfp4", axis=2)
    with pytest.raises(ValueError, match="beyond E8M0's largest 2\\*\\*127"):
        quantize_blocks(np.array([2.0**200]), "mxfp8_e4m3")
    with pytest.raises(TypeError, match="axis must be an int"):
        quantize_blocks(np.ones(3), "mxfp4", axis=1.0)
    with pytest.raises(ValueError, match="at least one dimension"):
        quantize_blocks(np.float64(1.0), "mxfp4")
    with pytest.raises(ValueError, match="rounding"):
        quantize_blocks(np.ones(3), "mxfp4", rounding="nearest")


@pytest.mark.parametrize("name", MX)
def test_bit_for_bit_with_gfloat(name: str) -> None:
    pytest.importorskip("gfloat")
    from gfloat import formats as gf
    from gfloat.block import compute_scale_amax, encode_block, quantize_block

    info = {"mxfp8_e4m3": gf.format_info_mxfp8_e4m3, "mxfp8_e5m2": gf.format_info_mxfp8_e5m2,
            "mxfp6_e3m2": gf.format_info_mxfp6_e3m2, "mxfp6_e2m3": gf.format_info_mxfp6_e2m3,
            "mxfp4": gf.format_info_mxfp4_e2m1, "mxint8": gf.format_info_mxint8}[name]  # fmt: skip
    x = _tensor((6, 64))
    x[2, :32] = 0.0
    q = quantize_blocks(x, name)
    for r in range(6):
        for b in range(2):
            v = x[r, 32 * b : 32 * b + 32]
            scale = compute_scale_amax(info.etype.emax, v)
            encoded = list(encode_block(info, scale, v / scale))
            assert encoded[0] == q.scales[r, b]
            assert encoded[1:] == list(q.codes[r, 32 * b : 32 * b + 32])
            got = q.values[r, 32 * b : 32 * b + 32]
            assert np.array_equal(quantize_block(info, v, compute_scale_amax), got)

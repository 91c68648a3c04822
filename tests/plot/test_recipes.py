"""The recipes' figures draw what they measure: the accumulation error of each
accumulator against K, and one block quantized with and without the Hadamard transform."""

import doctest

import matplotlib.pyplot as plt
import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.plot import recipes


def test_doctests():
    assert doctest.testmod(recipes, optionflags=doctest.ELLIPSIS).failed == 0


def test_accumulation_lines_are_the_measured_errors_on_the_given_axes():
    result = fpx.accumulation_error(ks=(256, 512, 1024), rows=2, cols=2)
    _, given = plt.subplots()
    ax = recipes.plot_accumulation_error(result, title="three K", ax=given)
    assert ax is given and ax.get_title() == "three K"
    lines = ax.get_lines()
    assert len(lines) == 2
    for line, name in zip(lines, ("h100_fp8", "h100_fp8_promoted"), strict=True):
        np.testing.assert_array_equal(line.get_xdata(), [256, 512, 1024])
        np.testing.assert_array_equal(line.get_ydata(), result.errors[name])


def test_a_mapping_of_results_keeps_each_accumulators_colour_and_names_its_inputs():
    runs = {
        f"{d} inputs": fpx.accumulation_error(ks=(256, 512), rows=2, cols=2, distribution=d)
        for d in ("uniform", "normal")
    }
    ax = recipes.plot_accumulation_error(runs, reference=(512, 0.02), reference_label="paper")
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == [
        "FP8 tensor core, 14 bits, no promotion, uniform inputs",
        "promoted to float32 every 128, uniform inputs",
        "FP8 tensor core, 14 bits, no promotion, normal inputs",
        "promoted to float32 every 128, normal inputs",
        "paper",
    ]
    assert lines[0].get_color() == lines[2].get_color() != lines[1].get_color()
    assert lines[0].get_linestyle() != lines[2].get_linestyle()
    with pytest.raises(ValueError, match="no results"):
        recipes.plot_accumulation_error({})


def test_hadamard_block_draws_the_quantized_values_both_ways():
    rng = np.random.default_rng(0)
    block = rng.standard_normal(16)
    block[3] = 30.0  # an outlier: its neighbours fall below the smallest step
    ax = recipes.plot_hadamard_block(block, "nvfp4")
    heights = np.array([p.get_height() for p in ax.patches]).reshape(3, 16)
    np.testing.assert_array_equal(heights[0], block)
    direct = fpx.quantize_blocks(block, "nvfp4").values
    np.testing.assert_array_equal(heights[1], direct)
    back = fpx.hadamard(
        fpx.quantize_blocks(fpx.hadamard(block, 16), "nvfp4").values, 16, inverse=True
    )
    np.testing.assert_allclose(heights[2], back, rtol=0, atol=1e-12)
    zeroed = int(np.count_nonzero(direct == 0))
    assert zeroed > 0
    assert ax.get_legend().get_texts()[1].get_text() == (
        f"quantized: {zeroed} of 16 nonzero values become 0"
    )
    with pytest.raises(ValueError, match="one block"):
        recipes.plot_hadamard_block(np.ones((2, 16)))

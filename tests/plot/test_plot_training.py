"""The training figures draw measured runs and count the updates a format loses."""

import doctest

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.plot import training


def test_doctests():
    assert doctest.testmod(training, optionflags=doctest.ELLIPSIS).failed == 0


def test_learning_curves_one_line_per_run_on_the_given_axes():
    runs = {name: {"loss": [3.0, 2.0, 1.0]} for name in ("a", "b", "c")}
    _, given = plt.subplots()
    ax = training.plot_learning_curves(runs, "loss", title="three runs", ax=given)
    assert ax is given and ax.get_title() == "three runs"
    assert [line.get_label() for line in ax.get_lines()] == ["a", "b", "c"]
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), [1, 2, 3])
    with pytest.raises(ValueError, match="run 'a' has no 'accuracy'"):
        training.plot_learning_curves(runs, "accuracy")


def test_a_run_keeps_its_colour_and_style_from_one_figure_to_the_next():
    order = ["float32", "fp8", "mxfp4", "nvfp4"]
    curve = {"val_accuracy": [0.5, 0.9]}
    left = training.plot_learning_curves({n: curve for n in order}, order=order)
    right = training.plot_learning_curves({"float32": curve, "nvfp4": curve}, order=order)
    style = {line.get_label(): (line.get_color(), line.get_linestyle(), line.get_marker())
             for line in left.get_lines()}  # fmt: skip
    for line in right.get_lines():
        assert (line.get_color(), line.get_linestyle(), line.get_marker()) == style[
            line.get_label()
        ]
    with pytest.raises(ValueError, match="not in order"):
        training.plot_learning_curves({"bf16": curve}, order=order)


def test_coinciding_curves_stay_visible_and_the_axis_says_what_it_measures():
    """Identical runs: each later line is thinner and styled apart, so every one shows."""
    runs = {name: {"val_accuracy": [0.2, 0.6, 0.8]} for name in "abcde"}
    ax = training.plot_learning_curves(runs, ylabel="test accuracy")
    lines = ax.get_lines()
    widths = [line.get_linewidth() for line in lines]
    assert widths == sorted(widths, reverse=True) and len(set(widths)) == len(widths)
    assert len({(line.get_linestyle(), line.get_marker()) for line in lines}) == len(lines)
    assert ax.get_ylabel() == "test accuracy" and ax.get_title() == "test accuracy after each epoch"
    assert ax.get_legend().get_texts()[0].get_fontsize() >= 12  # readable on a projector


def test_update_sizes_counts_exactly_the_updates_rounding_to_nearest_loses():
    rng = np.random.default_rng(0)
    w = fpx.round_to(rng.standard_normal(5000) * 0.1, "bfloat16").astype(np.float32)
    u = (rng.standard_normal(5000) * 1e-4).astype(np.float32)
    ax = training.plot_update_sizes(w, u, "bfloat16")
    lost = int(np.count_nonzero(fpx.round_to(w + u, "bfloat16") == w))
    assert 0 < lost < 5000
    assert ax.get_title() == f"{lost} of 5000 updates vanish in bfloat16"
    ratios = training.update_ratios(w, u, "bfloat16")
    # below half a spacing (above the weight) is necessary for an update to be lost
    assert lost >= np.count_nonzero(ratios < 0.5) and lost <= np.count_nonzero(ratios <= 1)
    total = sum(p.get_height() for p in ax.patches)
    assert total == 5000


def test_a_run_of_several_seeds_is_its_mean_in_a_band_of_its_range():
    seeds = [
        {"val_accuracy": [0.2, 0.6]},
        {"val_accuracy": [0.4, 0.9]},
        {"val_accuracy": [0.3, 0.6]},
    ]
    ax = training.plot_learning_curves({"fp8": seeds, "float32": {"val_accuracy": [0.5, 0.8]}})
    fp8, float32 = ax.get_lines()
    np.testing.assert_allclose(fp8.get_ydata(), [0.3, 0.7])
    np.testing.assert_array_equal(float32.get_ydata(), [0.5, 0.8])
    (band,) = ax.collections  # a single history has no band
    corners = band.get_paths()[0].vertices
    assert corners[:, 1].min() == 0.2 and corners[:, 1].max() == 0.9
    np.testing.assert_allclose(
        band.get_facecolor()[0][:3], matplotlib.colors.to_rgb(fp8.get_color())
    )


def test_seeds_of_different_lengths_or_no_seeds_are_refused_by_name():
    with pytest.raises(ValueError, match=r"run 'fp8'.*\[2, 3\] epochs"):
        training.plot_learning_curves(
            {"fp8": [{"val_accuracy": [0.1, 0.2]}, {"val_accuracy": [0.1, 0.2, 0.3]}]}
        )
    with pytest.raises(ValueError, match="run 'fp8' has no seeds"):
        training.plot_learning_curves({"fp8": []})
    with pytest.raises(TypeError, match="run 'fp8': expected a Keras history dict"):
        training.plot_learning_curves({"fp8": [[0.1, 0.2]]})

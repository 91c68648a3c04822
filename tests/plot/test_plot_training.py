"""The training figures draw measured runs and count the updates a format loses."""

import matplotlib

matplotlib.use("Agg")

import doctest

import matplotlib.pyplot as plt
import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.plot import training


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


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

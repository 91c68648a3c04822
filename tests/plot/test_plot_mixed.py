"""The mixed-precision figures draw the simulated data, with labels that say what it is."""

import doctest

import matplotlib.pyplot as plt
import numpy as np
import pytest

from fpexplore import mixed
from fpexplore.plot import mixed as plot_mixed


def _line(ax, label_start):
    matches = [line for line in ax.get_lines() if line.get_label().startswith(label_start)]
    assert len(matches) == 1, [line.get_label() for line in ax.get_lines()]
    return matches[0]


def test_exp_overflow_stops_the_float16_curve_at_log_65504():
    ax = plot_mixed.plot_exp_overflow("float16")
    x16 = _line(ax, "exp(x) in float16").get_xdata()
    assert x16.max() <= np.log(65504) < x16.max() + 0.05
    assert _line(ax, "largest float16").get_ydata()[0] == 65504
    assert "11.09" in ax.get_title()
    assert ax.get_yscale() == "log"
    assert ax.get_xlabel() and ax.get_ylabel()


def test_exp_overflow_draws_on_a_given_axes():
    _, given = plt.subplots()
    assert plot_mixed.plot_exp_overflow(ax=given) is given


def test_softmax_demo_bars_and_nan_labels():
    demo = mixed.softmax_overflow_demo((12.0, 1.0, 0.0))
    ax = plot_mixed.plot_softmax_demo(demo)
    assert len(ax.containers) == 4  # naive, stable, float32, exact
    heights = [rect.get_height() for rect in ax.containers[3]]
    assert heights == pytest.approx(demo.probs_exact.tolist())
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("NaN") == 1 and texts.count("0") == 2
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0] == "naive float16: loss nan"
    assert "probability" in ax.get_ylabel()


def test_gradient_histogram_shifts_by_log2_scale():
    g = mixed.sample_gradients(2000, seed=0)
    ax = plot_mixed.plot_gradient_histogram(g, scale=2.0**15)
    unscaled, scaled = ax.containers
    assert sum(r.get_height() for r in unscaled) == sum(r.get_height() for r in scaled) == 2000
    centre = np.average(
        [r.get_x() for r in scaled], weights=[r.get_height() for r in scaled]
    ) - np.average([r.get_x() for r in unscaled], weights=[r.get_height() for r in unscaled])
    assert centre == pytest.approx(15, abs=0.5)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "rounds to 0 in float16" in labels and "gradients x 2**15" in labels
    assert ax.get_xlabel() == "log2 |gradient|"


def test_loss_scale_sweep_plots_percentages_on_a_log_axis():
    sweep = mixed.loss_scale_sweep(mixed.sample_gradients(1000), scales=2.0 ** np.arange(0, 41, 5))
    ax = plot_mixed.plot_loss_scale_sweep(sweep)
    assert ax.get_yscale() == "log"  # small overflow fractions decide the window
    zero = _line(ax, "became 0")
    assert zero.get_xdata().tolist() == list(range(0, 41, 5))
    drawn = sweep.fraction_zero > 0
    assert zero.get_ydata()[drawn] == pytest.approx(100 * sweep.fraction_zero[drawn])
    assert np.all(np.isnan(zero.get_ydata()[~drawn]))  # exactly 0: a gap, not a fake value
    overflow = _line(ax, "became inf").get_ydata()
    drawn = sweep.fraction_overflow > 0
    assert overflow[drawn] == pytest.approx(100 * sweep.fraction_overflow[drawn])
    assert ax.get_ylabel().startswith("% of gradients")


def test_loss_scale_sweep_marks_the_usable_window():
    sweep = mixed.loss_scale_sweep(mixed.sample_gradients(10_000))
    lo, hi = sweep.window(1e-3)
    ax = plot_mixed.plot_loss_scale_sweep(sweep, tolerance=1e-3)
    (span,) = [p for p in ax.patches if p.get_gid() == "usable window"]
    x = [span.get_x(), span.get_x() + span.get_width()]  # a Rectangle in axes-x units
    assert (min(x), max(x)) == (np.log2(lo) - 0.5, np.log2(hi) + 0.5)
    assert f"2**{np.log2(lo):g} to 2**{np.log2(hi):g}" in span.get_label()
    assert _line(ax, "tolerance: 0.1%").get_ydata()[0] == pytest.approx(0.1)
    none = mixed.loss_scale_sweep(mixed.sample_gradients(1000), scales=[1.0, 2.0**40])
    ax = plot_mixed.plot_loss_scale_sweep(none)
    assert not [p for p in ax.patches if p.get_gid() == "usable window"]


def test_dynamic_loss_scale_marks_skips_and_doublings():
    log = mixed.dynamic_loss_scaling([0.5, 0.5, 4.0, 0.5, 0.5], growth_steps=2)
    ax = plot_mixed.plot_dynamic_loss_scale(log)
    assert _line(ax, "loss scale used").get_ydata() == pytest.approx(np.log2(log.scale))
    assert _line(ax, "not finite").get_xdata().tolist() == [2]
    assert _line(ax, "2 good steps").get_xdata().tolist() == [1, 4]
    assert [t.get_text() for t in ax.get_yticklabels()][:2] == ["2**15", "2**16"]
    assert ax.get_xlabel() == "training step"


def test_running_sums_show_the_stall():
    demo = mixed.accumulation_demo(1.0, 2500, formats=("float16", "bfloat16"))
    ax = plot_mixed.plot_running_sums(demo)
    float16 = _line(ax, "float16 accumulator (stalls at 2048)")
    assert float16.get_ydata().max() == 2048
    assert _line(ax, "bfloat16 accumulator (stalls at 256)").get_ydata()[-1] == 256
    exact = _line(ax, "exact")
    assert exact.get_ydata()[-1] == 2500
    # The exact line is drawn on top of the accumulators, thinner and dashed, so that it
    # stays visible where a sum is still exact.
    others = [line for line in ax.get_lines() if line is not exact]
    assert all(exact.get_zorder() > line.get_zorder() for line in others)
    assert all(exact.get_linewidth() < line.get_linewidth() for line in others)
    assert exact.get_linestyle() != "-"


def test_dot_accumulation_lines_are_the_errors():
    acc = mixed.dot_product_accumulation(512)
    ax = plot_mixed.plot_dot_accumulation(acc)
    y = _line(ax, "float16 products").get_ydata()
    positive = acc.rel_error["float16"] > 0
    assert y[positive] == pytest.approx(acc.rel_error["float16"][positive])
    assert np.all(np.isnan(y[~positive]))
    assert ax.get_xscale() == ax.get_yscale() == "log"
    # Partial sums with error exactly 0 cannot sit on a log axis: they are marked at the
    # bottom, so that the float32 curve's late start is explained.
    exact = acc.rel_error["float32"] == 0
    marks = _line(ax, "float32 sum exact (error 0)")
    assert marks.get_xdata().tolist() == acc.n_terms[exact].tolist() == [1, 2]
    assert marks.get_ydata().max() < np.nanmin(_line(ax, "exact products").get_ydata())


def test_matmul_error_lines():
    err = mixed.matmul_error((16, 64), size=8)
    ax = plot_mixed.plot_matmul_error(err)
    assert len(ax.get_lines()) == 4
    line = _line(ax, "float16 accumulation, max")
    assert line.get_xdata().tolist() == [16, 64]
    assert line.get_ydata() == pytest.approx(err.max_rel_error["float16"])
    assert ax.get_xlabel() == "inner dimension k"


def test_policy_comparison_one_panel_per_metric():
    results = {
        "float32": {"accuracy": 0.97, "loss": 0.10, "ms_per_step": 2.0},
        "mixed_float16": {"accuracy": 0.96, "loss": 0.11, "ms_per_step": 5.0},
    }
    axes = plot_mixed.plot_policy_comparison(results)
    assert len(axes) == 3
    assert [a.get_title() for a in axes] == ["test accuracy", "test loss", "time per step (ms)"]
    assert [r.get_height() for r in axes[2].containers[0]] == [2.0, 5.0]
    assert [t.get_text() for t in axes[0].get_xticklabels()] == ["float32", "mixed_float16"]
    _, given = plt.subplots(1, 3)
    assert plot_mixed.plot_policy_comparison(results, ax=given)[1] is given[1]


def test_docstring_examples():
    result = doctest.testmod(plot_mixed)
    assert result.attempted > 0
    assert result.failed == 0

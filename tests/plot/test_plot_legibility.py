"""The course's figures can be read: no label on another, no format hidden, every mark
explained, every format asked for drawn, and bounds drawn with the errors they bound.

Overlap is measured on the rendered figure: each text's window extent, in pixels,
from the Agg renderer after the figure is drawn.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from matplotlib.colors import to_rgb
from matplotlib.text import Text

import fpexplore.plot as fpplot
from fpexplore import FORMATS, mixed, tensor_report
from fpexplore.plot import mixed as plot_mixed
from fpexplore.plot._style import TICK_SIZE, TITLE_SIZE

DL_FORMATS = [
    "float32",
    "tf32",
    "bfloat16",
    "float16",
    "float8_e4m3fn",
    "float8_e5m2",
    "float4_e2m1fn",
]


def _extents(texts):
    """Window extents (pixels) of the visible, non-empty texts, once their figure is
    drawn: of the text alone (an annotation's extent would include its arrow)."""
    texts = [t for t in texts if t.get_visible() and t.get_text().strip()]
    if not texts:
        return []
    fig = texts[0].figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return [(t.get_text(), Text.get_window_extent(t, renderer)) for t in texts]


def _overlapping(texts):
    return [
        (a, b)
        for (a, box_a), (b, box_b) in itertools.combinations(_extents(texts), 2)
        if box_a.overlaps(box_b)
    ]


def _pixels_of(fig, color, tolerance=0.02):
    """How many pixels of the rendered figure have exactly this colour."""
    fig.canvas.draw()
    rgb = np.asarray(fig.canvas.buffer_rgba())[..., :3] / 255.0
    return int(np.sum(np.all(np.abs(rgb - np.array(to_rgb(color))) < tolerance, axis=-1)))


# -- the number line (notebook 02) ---------------------------------------------------


def _power_labels(ax):
    return [t for t in ax.texts if t.get_gid() == "power of two"]


@pytest.mark.parametrize(
    ("window", "zoom"),
    [((0, 16), (0, 2**-4)), ((None, None), None), ((0, 16), None), ((-1, 1), None)],
)
def test_number_line_labels_never_overlap(window, zoom):
    ax = fpplot.number_line("float8_e4m3fn", *window, zoom=zoom)
    panels = [ax] + [a for a in ax.figure.axes if a.get_gid() == "zoom"]
    for panel in panels:
        labels = _power_labels(panel)
        assert labels, "no power of two labelled"
        assert not _overlapping(labels)
        assert not _overlapping([*panel.texts, panel.title])


def test_number_line_zoom_shows_zero_and_every_subnormal():
    ax = fpplot.number_line("float8_e4m3fn", 0, 16, zoom=(0, 2**-4))
    (zoomed,) = [a for a in ax.figure.axes if a.get_gid() == "zoom"]
    ticks = {c.get_gid(): len(c.get_segments()) for c in zoomed.collections}
    assert ticks["zero"] == 1 and ticks["subnormal"] == 7  # 2**-9 ... 7 * 2**-9
    labels = {t.get_text() for t in _power_labels(zoomed)}
    assert "2$^{-6}$" in labels  # the smallest normal number is named
    left, right = zoomed.get_xlim()
    assert left < 0 < 2**-9 < right
    # the panel is marked on the line above it
    assert any(p.get_gid() == "zoom box" for p in ax.patches)


# -- the spacing staircase (notebook 02) ---------------------------------------------


def test_spacing_hides_no_format():
    formats = ["float16", "bfloat16", "float32"]
    ax = fpplot.spacing(formats)
    lines = {line.get_gid(): line for line in ax.get_lines() if line.get_gid()}
    assert set(lines) == set(formats)  # every format asked for is drawn
    for name in formats:  # and shows: enough pixels of its own colour
        assert _pixels_of(ax.figure, lines[name].get_color()) > 300, name
    # float16 runs 3 binades under bfloat16 over hundreds: drawn above it, and named
    assert lines["float16"].get_zorder() > lines["bfloat16"].get_zorder()
    pointers = [t for t in ax.texts if t.get_gid() == "float16 pointer"]
    assert len(pointers) == 1 and "3 binades under bfloat16" in pointers[0].get_text()


def test_spacing_points_nothing_out_on_a_short_window():
    ax = fpplot.spacing(["float16", "bfloat16"], 0.25, 64)
    assert not [t for t in ax.texts if "pointer" in str(t.get_gid())]


# -- the format map (notebook 04) ----------------------------------------------------


@pytest.mark.parametrize("formats", [DL_FORMATS, None], ids=["course", "catalogue"])
def test_format_map_names_never_overlap(formats):
    ax = fpplot.format_map(formats)
    names = [t for t in ax.texts if str(t.get_gid()).endswith(" name")]
    expected = DL_FORMATS if formats else list(FORMATS)
    assert [t.get_text() for t in names] == expected
    assert not _overlapping(names)


def test_format_map_names_of_the_course_clear_the_markers_and_legend():
    ax = fpplot.format_map(DL_FORMATS)
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [Text.get_window_extent(t, renderer) for t in ax.texts]
    legend = ax.get_legend().get_window_extent(renderer)
    inside = ax.get_window_extent(renderer)
    for box in boxes:
        assert not box.overlaps(legend)
        assert inside.contains(box.x0, box.y0) and inside.contains(box.x1, box.y1)
    for line in ax.get_lines():
        if line.get_marker() == "o":
            for x, y in ax.transData.transform(line.get_xydata()):
                assert not any(b.contains(x, y) for b in boxes)


# -- the tensor report's figure (notebook 07) ----------------------------------------


def test_report_figure_draws_every_format_and_explains_its_marks():
    x = np.random.default_rng(0).standard_normal(4096) * 1e-3
    formats = ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "mxfp4", "nvfp4", "mxint8"]
    ax = tensor_report(x, formats).plot()
    gids = {c.get_gid() for c in ax.collections}
    for name in formats:  # block formats too: none is left out
        assert {f"{name} subnormal", f"{name} normal"} <= gids, name
    for name in formats[:3]:
        assert f"{name} overflow" in gids
    lines = {line.get_gid() for line in ax.get_lines()}
    assert {"mxfp4 reach", "nvfp4 reach", "float8_e4m3fn per-tensor normal range"} <= lines
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    for mark in ("light", "solid", "hatched", "dashed", "dotted"):
        assert any(f"({mark})" in text for text in legend), mark
    assert "binade" in ax.get_ylabel() and "octave" not in ax.get_ylabel()
    names = [t for t in ax.texts if t.get_text()]
    assert len(names) == len(formats) and not _overlapping(names)


def test_report_figure_nvfp4_window_ends_at_the_amax():
    x = np.random.default_rng(1).standard_normal(4096)
    report = tensor_report(x, ["nvfp4", "mxfp4"])
    ax = report.plot()
    bars = {c.get_gid(): c for c in ax.collections}
    right = bars["nvfp4 normal"].get_paths()[0].vertices[:, 0].max()
    assert np.isclose(right, np.log2(report.amax))  # E2M1's 6 times s * g = amax
    top = bars["mxfp4 normal"].get_paths()[0].vertices[:, 0].max()
    assert top >= np.log2(report.amax) - 1  # the amax lands in E2M1's top binade


def test_report_figure_log_count_axis_shows_a_single_outlier():
    x = np.random.default_rng(0).standard_normal(10_000)
    x[0] = 1e4
    ax = tensor_report(x, ["float8_e4m3fn"]).plot(log=True)
    assert ax.get_yscale() == "log"
    bottom, _ = ax.get_ylim()
    outlier = [b for b in ax.patches if b.get_gid() == "log2 histogram" and b.get_x() > 12]
    assert outlier and max(b.get_height() for b in outlier) > bottom  # one value shows
    assert tensor_report(x, ["float8_e4m3fn"]).plot().get_yscale() == "linear"


# -- error bounds against measured errors (notebooks 04b and 05) ---------------------


def test_sum_errors_figure_draws_each_order_under_its_bound():
    errors = mixed.summation_errors(sizes=(2, 16, 256, 4096), trials=3)
    ax = fpplot.plot_sum_errors(errors)
    lines = {line.get_gid(): line for line in ax.get_lines() if line.get_gid()}
    for order in ("sequential", "pairwise", "kahan"):
        bound = lines[f"{order} bound"].get_ydata()
        assert np.all(errors.worst(order) <= bound)
    assert ax.get_legend() is not None


def test_dot_accumulation_bounds_lie_above_the_errors():
    acc = mixed.dot_product_accumulation(1024)
    ax = plot_mixed.plot_dot_accumulation(acc, bounds=True)
    lines = {line.get_gid(): line for line in ax.get_lines() if line.get_gid()}
    for name, err in acc.rel_error.items():
        bound = np.asarray(lines[f"{name} bound"].get_ydata())
        drawn = np.isfinite(bound)  # a bound of 0 (one exact term) is left out
        assert drawn[1:].all() and np.all(err[drawn] <= bound[drawn]), name
        assert np.all(err[~drawn] == 0)


def test_cancellation_figure_in_the_course_style():
    ax = fpplot.plot_cancellation("float16")
    assert ax.title.get_fontsize() == TITLE_SIZE
    assert all(t.get_fontsize() >= TICK_SIZE for t in ax.get_xticklabels())
    lines = {line.get_gid(): line for line in ax.get_lines()}
    error, bound = lines["relative error"].get_ydata(), lines["bound"].get_ydata()
    assert np.all(error <= bound * (1 + 1e-12)) and bound.max() == 1
    assert not _overlapping(ax.get_legend().get_texts())


@pytest.mark.parametrize("name", ["bounds", "lines", "formats", "report", "binades", "errors"])
def test_examples_of_the_figures_run(name):
    import doctest
    import importlib

    module = importlib.import_module(f"fpexplore.plot.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0

"""The figures draw what they say: counts, positions and bounds read back from the Axes."""

import math
import subprocess
import sys

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import LineCollection
from matplotlib.patches import Rectangle

import fpexplore.plot as fpplot
from fpexplore import FORMATS, count_between, from_bits, get_format, representation_error
from fpexplore.plot import mixed as plot_mixed
from fpexplore.plot.__main__ import main
from fpexplore.plot.export import FIGURES
from fpexplore.render.text import FIELD_COLORS


def _line(ax, gid):
    matches = [line for line in ax.get_lines() if line.get_gid() == gid]
    assert len(matches) == 1, [line.get_gid() for line in ax.get_lines()]
    return matches[0]


def _is_power_of_two(x):
    mantissa, _ = math.frexp(x)
    return x > 0 and mantissa == 0.5


# -- bits ---------------------------------------------------------------------------


def test_bits_pi_float32_is_the_book_figure():
    ax = fpplot.bits(from_bits(0x40490FDB, "float32"))
    boxes = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(boxes) == 32
    texts = [t.get_text() for t in ax.texts]
    assert "128" in texts and "4788187" in texts and "0" in texts
    assert texts.count("1") + texts.count("0") == 32 + 1  # 32 bit digits, sign field's value
    colours = [matplotlib.colors.to_hex(b.get_facecolor()).upper() for b in boxes]
    assert (
        colours
        == [FIELD_COLORS["sign"]] + [FIELD_COLORS["exponent"]] * 8 + [FIELD_COLORS["mantissa"]] * 23
    )
    digits = [
        t.get_text()
        for t in ax.texts
        if t.get_text() in "01" and t.get_fontfamily()[0] == "monospace"
    ]
    assert "".join(digits) == format(0x40490FDB, "032b")
    assert "0x40490FDB" in ax.get_title()


def test_bits_label_and_the_bits_that_differ():
    book, card = from_bits(0x40490FDB, "float32"), from_bits(0x40490FD0, "float32")
    ax = fpplot.bits(book, label="pi", compare_to=card)
    title = ax.get_title()
    assert title.startswith("pi in float32: stored as 3.1415927410125732, bits 0x40490FDB")
    boxes = [p for p in ax.patches if isinstance(p, Rectangle)]
    marked = [i for i, box in enumerate(boxes) if box.get_gid() == "differs"]
    xor = format(0x40490FDB ^ 0x40490FD0, "032b")
    assert marked == [i for i, bit in enumerate(xor) if bit == "1"]
    assert f"{len(marked)} bits (outlined) differ from 0x40490FD0" in title
    other = fpplot.bits(3.14159, "float32", label="3.14159", compare_to=book)
    assert other.get_title().startswith("3.14159 in float32: stored as 3.141590118408203")
    assert [b.get_gid() for b in other.patches] == [b.get_gid() for b in boxes]
    same = fpplot.bits(1.0, "float16", compare_to=1.0)
    assert "0 bits (outlined) differ" in same.get_title()
    assert not any(b.get_gid() == "differs" for b in same.patches)
    with pytest.raises(ValueError, match="compare_to must be a value of float16"):
        fpplot.bits(1.0, "float16", compare_to=from_bits(0, "float32"))


def test_bits_rounds_a_number_into_the_format():
    ax = fpplot.bits(3.14159, "float32")
    assert "4788176" in [t.get_text() for t in ax.texts]
    ax16 = fpplot.bits("1e-6", "float16")
    assert len(ax16.patches) == 16
    assert any("0 + 17/2^{10}" in t.get_text() for t in ax16.texts)  # subnormal formula


@pytest.mark.parametrize("fmt", ["float64", "bfloat16", "float8_e5m2", "float4_e2m1fn"])
def test_bits_one_box_per_bit(fmt):
    assert len(fpplot.bits(1.0, fmt).patches) == get_format(fmt).bits


def test_bits_special_values():
    ax = fpplot.bits(from_bits(0x7E00, "float16"))
    assert any("NaN" in t.get_text() for t in ax.texts)


# -- number line --------------------------------------------------------------------


def _ticks(ax):
    segments = {
        c.get_gid(): c.get_segments() for c in ax.collections if isinstance(c, LineCollection)
    }
    return {kind: np.array([s[0][0] for s in segs]) for kind, segs in segments.items()}


@pytest.mark.parametrize(
    "fmt", ["float8_e4m3fn", "float8_e5m2", "float6_e3m2fn", "float4_e2m1fn", "e3m2"]
)
def test_number_line_draws_every_value_of_a_small_format(fmt):
    f = get_format(fmt)
    ticks = _ticks(fpplot.number_line(fmt))
    n = sum(len(v) for v in ticks.values())
    assert n == count_between(-f.max, f.max, f) + 1 == f.n_finite  # [-max, max], max included
    assert len(ticks["zero"]) == 1
    assert len(ticks["subnormal"]) == 2 * (2**f.mantissa_bits - 1)
    assert np.all(np.abs(ticks["subnormal"]) < f.smallest_normal)


def test_number_line_window_has_exactly_count_between_ticks():
    ax = fpplot.number_line("float16", 1, "1.5")  # 1.5 is representable: the window is closed
    ticks = _ticks(ax)
    assert sum(len(v) for v in ticks.values()) == count_between(1, "1.5", "float16") + 1 == 513
    ax = fpplot.number_line("bfloat16", 3, "3.99")  # 3.99 is not representable
    values = _ticks(ax)["normal"]
    assert len(values) == count_between(3, "3.99", "bfloat16") == 64
    assert np.all(np.diff(values) == 2.0**-6)


def test_number_line_marks_binades_and_subnormals():
    ax = fpplot.number_line("float8_e4m3fn", 0, 0.0625)
    ticks = _ticks(ax)
    assert len(ticks["subnormal"]) == 7 and len(ticks["normal"]) == 17
    binades = sorted(line.get_xdata()[0] for line in ax.get_lines() if line.get_gid() == "binade")
    assert binades == [2.0**k for k in range(-9, -3)]


def test_number_line_refuses_too_many_ticks():
    with pytest.raises(ValueError, match="1025 values of float16.*max_ticks=1000"):
        fpplot.number_line("float16", 1, 2, max_ticks=1000)


@pytest.mark.parametrize(("name", "count"), [("float16", 1025), ("float32", 257), ("float64", 257)])
def test_number_line_of_a_wide_format_defaults_to_a_window_at_one(name, count):
    ax = fpplot.number_line(name)
    assert sum(len(c.get_segments()) for c in ax.collections) == count
    lo, hi = fpplot.lines.default_window(name)
    assert lo == 1.0 and count_between(lo, hi, name) + 1 == count


# -- spacing ------------------------------------------------------------------------


def test_spacing_staircase_steps_at_powers_of_two():
    ax = fpplot.spacing(["float16", "bfloat16"], lo=2.0**-20, hi=2.0**10)
    for line, fmt in zip(ax.get_lines(), ["float16", "bfloat16"], strict=True):
        f = get_format(fmt)
        log_x, log_gap = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())  # log2 data
        steps = log_x[1:-1][np.diff(log_gap)[:-1] != 0]  # where the spacing changes
        assert len(steps) > 10
        assert np.all(steps == np.round(steps))  # at powers of two
        assert set(np.diff(log_gap)[:-1]) <= {0, 1}  # flat (subnormals) or doubling
        normal = log_x[:-1] >= f.emin
        assert np.all(log_gap[:-1][normal] == log_x[:-1][normal] - f.mantissa_bits)  # eps * 2^k
    flat = ax.get_lines()[0].get_ydata()[:6]  # float16 subnormals, 2^-20 .. 2^-14
    assert np.all(np.asarray(flat) == -24)
    assert ax.xaxis.get_major_formatter()(3, 0) == "$2^{3}$"


def test_spacing_whole_range_ends_at_max_and_handles_float64():
    ax = fpplot.spacing("float8_e4m3fn")
    x = ax.get_lines()[0].get_xdata()
    assert x[0] == -9 and x[-1] == math.log2(448)
    ax = fpplot.spacing(["float64", "float16"])
    x64, y64 = ax.get_lines()[0].get_xdata(), ax.get_lines()[0].get_ydata()
    assert (x64[0], y64[0], y64[-1]) == (-1074, -1074, 971)
    ax.figure.canvas.draw()  # float64's range is drawable


# -- errors -------------------------------------------------------------------------


@pytest.mark.parametrize(("fmt", "lo", "hi"), [("float16", 1, 8), ("float8_e4m3fn", 0.02, 400)])
def test_relative_error_sawtooth_stays_under_eps_over_2(fmt, lo, hi):
    f = get_format(fmt)
    ax = fpplot.relative_error(fmt, lo, hi)
    points = _line(ax, "relative error").get_ydata()
    assert len(points) == 2000
    assert 0 < points.max() <= f.eps / 2
    bound = np.asarray(_line(ax, "eps/2").get_ydata())
    assert np.all(bound == f.eps / 2)
    sawtooth = _line(ax, "bound")
    x, y = sawtooth.get_xdata(), sawtooth.get_ydata()
    assert y.max() <= f.eps / 2 and y.min() >= f.eps / 4
    x_pts = _line(ax, "relative error").get_xdata()
    assert np.all(points <= np.interp(x_pts, x, y) * (1 + 1e-9))


def test_relative_error_can_exceed_the_bound_among_subnormals():
    ax = fpplot.relative_error("float8_e4m3fn", 2.0**-9, 2.0**-6)
    assert _line(ax, "relative error").get_ydata().max() > get_format("e4m3").eps / 2


def test_absolute_error_grows_under_a_doubling_staircase():
    ax = fpplot.absolute_error("float16", 2.0**-26, 2.0**15)
    x, err = _line(ax, "absolute error").get_xdata(), _line(ax, "absolute error").get_ydata()
    stairs = _line(ax, "ulp/2")
    edges, half = stairs.get_xdata(), stairs.get_ydata()
    assert all(_is_power_of_two(e) for e in edges[1:-1])
    envelope = half[np.searchsorted(edges, x, side="right") - 1]
    assert np.all(err <= envelope)
    assert err[x > 2**10].min() > err[x < 2**-10].max()  # grows with magnitude
    assert ax.get_xscale() == ax.get_yscale() == "log"
    with pytest.raises(ValueError, match="0 < lo < hi"):
        fpplot.absolute_error("float16", 0, 1)


def _bars(ax):
    """The step histograms, one per format, as {gid: StepPatch}."""
    return {p.get_gid(): p for p in ax.patches if p.get_gid()}


def test_error_histogram_counts_every_input():
    w = np.random.default_rng(0).normal(0, 0.05, 5000)
    formats = ["float16", "bfloat16", "float8_e4m3fn"]
    ax = fpplot.error_histogram(w, formats)
    bars = _bars(ax)
    assert list(bars) == formats
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    for fmt, label in zip(formats, labels, strict=False):
        rel = representation_error(w, fmt).rel_error
        data = bars[fmt].get_data()
        counts, edges = data.values, data.edges
        below = np.sum((rel > 0) & (rel < edges[0]))
        assert counts.sum() + np.sum(rel == 0) + np.sum(~np.isfinite(rel)) + below == 5000
        assert (f"{below} left of axis" in label) == (below > 0)
    assert any(label.startswith("float8_e4m3fn (") and "became 0" in label for label in labels)
    eps_lines = sorted(line.get_xdata()[0] for line in ax.get_lines())
    assert eps_lines == sorted(get_format(f).eps / 2 for f in formats)


def test_error_histogram_axis_starts_near_the_data_and_leaves_room_for_the_legend():
    w = np.random.default_rng(0).normal(0, 0.02, 100_000)
    formats = ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2"]
    ax = fpplot.error_histogram(w, formats)
    positive = np.concatenate([representation_error(w, f).rel_error for f in formats])
    positive = positive[np.isfinite(positive) & (positive > 0)]
    left = ax.get_xlim()[0]
    assert np.quantile(positive, 0.001) < left < np.quantile(positive, 0.01)  # not decades early
    tallest = max(bar.get_data().values.max() for bar in _bars(ax).values())
    assert ax.get_ylim()[1] >= 1.35 * tallest
    ax.figure.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    top_of_bars = ax.transData.transform((1, tallest))[1]
    assert legend.y0 > top_of_bars  # the legend sits above every bar


def _overlaps_data(ax, box):
    """Whether any drawn line (of ``ax`` or its twins) passes through ``box`` (display units)."""
    from matplotlib.cbook import STEP_LOOKUP_MAP
    from matplotlib.path import Path

    for axes in ax.figure.axes:
        for line in axes.get_lines():
            x, y = STEP_LOOKUP_MAP[line.get_drawstyle()](*np.asarray(line.get_xydata()).T)
            path = Path(line.get_transform().transform(np.column_stack([x, y])))
            if path.intersects_bbox(box, filled=False):
                return True
    return False


@pytest.mark.parametrize(
    ("fmt", "lo", "hi"), [("float16", 1e-2, 6e4), ("float8_e4m3fn", 2**-9, 448)]
)
def test_relative_error_legend_sits_off_the_data(fmt, lo, hi):
    ax = fpplot.relative_error(fmt, lo, hi)
    ax.figure.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert legend.y1 < ax.get_window_extent().y0  # below the axes
    assert not _overlaps_data(ax, legend)


def test_error_histogram_ulp_and_overflow():
    values = np.array([1.0, 1.0 + 2**-12, 3.0e5, 0.1])
    ax = fpplot.error_histogram(values, "float16", kind="ulp")
    assert _bars(ax)["float16"].get_data().values.sum() == 3  # the overflow is left out
    assert "1 overflowed" in ax.get_legend().get_texts()[0].get_text()
    with pytest.raises(ValueError, match="kind must be one of"):
        fpplot.error_histogram(values, "float16", kind="bits")


# -- density and format map ---------------------------------------------------------


@pytest.mark.parametrize("fmt", ["float16", "float8_e4m3fn", "float4_e2m1fn", "float64"])
def test_density_equal_count_per_binade_and_where_it_stops(fmt):
    f = get_format(fmt)
    ax = fpplot.density(fmt)
    twin = next(a for a in ax.figure.axes if a is not ax)
    counts = _line(twin, "count per binade")  # log2 data
    x, y = np.asarray(counts.get_xdata()[:-1]), 2 ** np.asarray(counts.get_ydata()[:-1])
    normal = x >= f.emin
    full = 2**f.mantissa_bits
    top_count = full - (f.nan_encoding == "fn")
    assert np.all(y[normal][:-1] == full) and y[normal][-1] == top_count
    assert list(y[~normal]) == [2**k for k in range(f.mantissa_bits)]  # subnormals: 1, 2, 4...
    log_density = np.asarray(_line(ax, "density").get_ydata()[:-1])
    assert np.all(log_density == f.mantissa_bits - np.maximum(x, f.emin))  # 1 / spacing
    notes = " ".join(t.get_text() for t in twin.texts)
    assert "subnormals" in notes and f"max = {f.max:g}" in notes
    assert ("last pattern is NaN" in notes) == (f.nan_encoding == "fn")
    ax.figure.canvas.draw()
    if fmt in ("float16", "float8_e4m3fn"):  # the figures of the course
        for note in twin.texts:
            assert not _overlaps_data(ax, note.get_bbox_patch().get_window_extent()), note


def test_format_map_points():
    ax = fpplot.format_map()
    assert [t.get_text() for t in ax.texts] == list(FORMATS)
    points = {line.get_gid(): line for line in ax.get_lines() if line.get_gid()}
    for name in ("float64", "float32", "bfloat16", "float16", "float8_e4m3fn", "float4_e2m1fn"):
        f = get_format(name)
        line = points[name]
        assert line.get_xdata()[0] == f.mantissa_bits + 1
        assert line.get_ydata()[0] == pytest.approx(
            math.log10(f.max) - math.log10(f.smallest_subnormal)
        )
    normal = {name: points[f"{name} normal range"].get_ydata()[0] for name in FORMATS}
    assert normal["bfloat16"] == pytest.approx(normal["float32"], abs=0.01)  # same range
    assert points["bfloat16"].get_xdata()[0] == 8 < points["float32"].get_xdata()[0] == 24
    assert points["float16"].get_ydata()[0] < 13


# -- conventions --------------------------------------------------------------------


@pytest.mark.parametrize(
    "draw",
    [
        lambda ax: fpplot.bits(1.5, "float16", ax=ax),
        lambda ax: fpplot.number_line("float4_e2m1fn", ax=ax),
        lambda ax: fpplot.spacing("float16", ax=ax),
        lambda ax: fpplot.density("float64", ax=ax),
        lambda ax: fpplot.relative_error("float16", 1, 2, ax=ax),
        lambda ax: fpplot.absolute_error("float16", 1, 2, ax=ax),
        lambda ax: fpplot.density("float16", ax=ax),
        lambda ax: fpplot.format_map(ax=ax),
        lambda ax: fpplot.error_histogram([0.1, 0.2], "float16", ax=ax),
    ],
)
def test_draws_on_the_given_axes_and_labels_it(draw):
    _, given = plt.subplots()
    before = dict(plt.rcParams)
    assert draw(given) is given
    assert given.get_title()
    assert dict(plt.rcParams) == before
    assert len(plt.get_fignums()) == 1


def test_import_fpexplore_does_not_import_matplotlib():
    code = "import sys, fpexplore; fpexplore.decode(1.0); print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_missing_matplotlib_names_the_extra():
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "try:\n    import fpexplore.plot\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 'pip install -e ".[plot]"' in out.stdout


def test_mixed_figures_are_reexported_and_in_the_gallery():
    for name in plot_mixed.__all__:
        assert getattr(fpplot, name) is getattr(plot_mixed, name)
        if name != "plot_policy_comparison":  # needs measured training results
            assert f"mixed_{name.removeprefix('plot_')}" in FIGURES, name


@pytest.mark.slow
def test_gallery_writes_every_figure(tmp_path):
    paths = fpplot.gallery(tmp_path / "out")
    assert [p.stem for p in paths] == list(FIGURES)
    for path in paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plt.get_fignums() == []  # nothing left registered with pyplot


def test_cli(tmp_path, capsys):
    assert main(["--list"]) == 0
    assert capsys.readouterr().out.split() == list(FIGURES)
    with pytest.raises(SystemExit):
        main([])


def test_relative_error_in_the_subnormal_range_reads_on_its_own():
    f16 = get_format("float16")
    normal = fpplot.relative_error("float16", 1e-2, 6e4)
    ax = fpplot.relative_error("float16", 1e-8, 1e-2)
    assert ax.get_yscale() == "log" and normal.get_yscale() == "linear"
    assert "subnormal" in ax.get_title() and ax.get_title() != normal.get_title()
    bottom, top = ax.get_ylim()
    lines = {line.get_gid(): line for line in ax.get_lines()}
    half_eps = lines["eps/2"].get_ydata()[0]
    assert half_eps == f16.eps / 2 and bottom < half_eps / 1.5 and half_eps < top
    bound = np.asarray(lines["bound"].get_ydata())
    # the bound is drawn whole, and never above 1: below 2**-25 every value rounds to 0
    assert bound.max() == 1 and bound.max() <= top
    x = np.asarray(lines["bound"].get_xdata())
    assert np.all(bound[x <= f16.smallest_subnormal / 2] == 1)
    points = np.asarray(lines["relative error"].get_ydata())
    assert points.max() <= top and points[points > 0].min() >= bottom


@pytest.mark.parametrize(
    ("fmt", "n", "fields"),
    [("float8_e8m0fnu", 8, {"exponent"}), ("p3109_p1", 8, {"sign", "exponent"})],
)
def test_bits_of_formats_without_sign_or_mantissa(fmt: str, n: int, fields: set) -> None:
    for x in ("0.3", "inf", "nan"):
        ax = fpplot.bits(x, fmt)
        boxes = [p for p in ax.patches if isinstance(p, Rectangle)]
        assert len(boxes) == n and {b.get_label() for b in boxes} == fields
        plt.close(ax.figure)

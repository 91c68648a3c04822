"""The 90-minute lesson as a teacher gives it: a calibrated pace, nothing false, nothing
undefined, nothing given away.

The pace model (fpexplore.course.pace) is calibrated on a walk of the lesson as a class
takes it; the lesson, measured by that model after it runs, fits its 90 minutes
(tests/test_notebooks.py runs it and checks each part). These tests read the files and
compute the facts the lesson states.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.course import glossary, outline, pacing
from fpexplore.course import tables as course_tables
from fpexplore.course.pace import CALIBRATION, Content, Pace, without_notes

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
LESSON = NOTEBOOKS / f"{course_tables.LESSON}.ipynb"
ANSWERS = NOTEBOOKS / "solutions" / f"{course_tables.LESSON}-solutions.ipynb"


def _markdown(path: Path) -> str:
    return "\n".join(outline.markdown_cells(path))


def _code(path: Path) -> str:
    cells = outline.load(path)["cells"]
    return "\n".join(outline.cell_source(c) for c in cells if c["cell_type"] == "code")


# --- the pace model ---------------------------------------------------------------------


def test_the_pace_model_agrees_with_the_walk_it_is_calibrated_on() -> None:
    """Every part within 3 minutes of the walk, the whole within 5 of its 110 minutes; the
    old rates (half a minute a code cell, no time for a new term) said 78."""
    pace = Pace()
    walked = sum(minutes for *_, minutes in CALIBRATION)
    assert walked == 110
    modelled = 0.0
    for title, shown, questions, minutes in CALIBRATION:
        needed = pace.minutes(shown) + questions
        assert abs(needed - minutes) <= 3, f"{title}: the model says {needed}, the walk {minutes}"
        modelled += needed
    assert abs(modelled - walked) <= 5, modelled
    old = Pace(minutes_per_code_cell=0.5, minutes_per_term=0.0)
    assert round(sum(old.minutes(s) + q for _, s, q, _ in CALIBRATION)) == 78


def test_the_pace_rates() -> None:
    pace = Pace()
    assert (pace.words_per_minute, pace.minutes_per_code_cell) == (120.0, 1.2)
    assert (pace.seconds_per_output_line, pace.minutes_per_figure) == (3.0, 1.0)
    assert pace.minutes_per_term == 0.5
    assert pace.minutes(Content(code_cells=5, terms=2)) == 7.0


def test_the_lesson_states_the_pace_it_is_checked_against() -> None:
    box = outline.markdown_cells(LESSON)[0]
    pace = Pace()
    for rate in (pace.words_per_minute, pace.minutes_per_code_cell):
        assert f"{rate:g}" in box
    assert "half a minute on each new term" in box and "calibrated" in box


def test_a_new_term_counts_where_the_notebook_first_uses_it() -> None:
    cells = [
        {"cell_type": "markdown", "source": "> **Teacher's box**\n> the mantissa"},
        {"cell_type": "markdown", "source": "The *mantissa* and a binade."},
        {"cell_type": "markdown", "source": "A binade again.\n\n> **Cut if late.** NaN."},
    ]
    nb = {"cells": cells}
    assert pacing.content(nb, range(1, 2)).terms == 2  # the box is not the class's
    assert pacing.content(nb, range(2, 3)) == Content(words=3)  # the note is not read


def test_every_glossary_term_is_met_in_the_lesson() -> None:
    met = glossary.first_uses(without_notes(LESSON))
    names = [term.name for index in sorted(met) for term in met[index]]
    assert sorted(names) == sorted(t.name for t in glossary.GLOSSARY)


# --- the lesson -------------------------------------------------------------------------


def test_every_part_says_what_to_cut_if_late() -> None:
    cells = outline.load(LESSON)["cells"]
    for part in pacing.lesson_plan(LESSON):
        text = "\n".join(outline.cell_source(cells[i]) for i in part.cells)
        assert "> **Cut if late.**" in text, f"part {part.section.number} has no 'Cut if late'"


def test_terms_are_defined_before_a_question_uses_them() -> None:
    """The mantissa and the hidden leading 1 are defined before questions 2 and 4 use
    "mantissa bits" and "significant bits"."""
    met = glossary.first_uses(without_notes(LESSON))
    first = {term.name: index for index, terms in met.items() for term in terms}
    asked = {task.number: index for index, task in pacing.tasks(LESSON)}
    assert first["mantissa"] < asked[2] and first["hidden leading 1"] < asked[2]
    assert first["bfloat16"] <= asked[4]
    cells = outline.load(LESSON)["cells"]
    assert "*mantissa*" in outline.cell_source(cells[first["mantissa"]])


def test_the_prerequisites_are_the_real_ones() -> None:
    box = outline.markdown_cells(LESSON)[0]
    for needed in ("Sequential", "Dense", "logits", "softmax", "crossentropy", "Adam"):
        assert needed in box, needed
    assert "[glossary](#Glossary)" in box
    assert "## Glossary" in _markdown(LESSON) and 'glossary_markdown("en")' in _code(LESSON)


@pytest.mark.parametrize(
    "path",
    [LESSON, NOTEBOOKS / "04-formats-for-deep-learning.ipynb"],
    ids=lambda p: p.name,
)
def test_no_notebook_says_a_cpu_has_no_16_bit_units(path: Path) -> None:
    """Recent CPUs have them (AVX-512 FP16/BF16, AMX); numpy does not use them."""
    text = " ".join(_markdown(path).split())
    assert "CPU has no such units" not in text and "a CPU has no" not in text
    assert "numpy" in text and "no fast float16 path" in text


def test_the_lesson_measures_the_cpu_rather_than_asserting() -> None:
    code = _code(LESSON)
    assert "/proc/cpuinfo" in code and "amx_bf16" in code and "perf_counter" in code
    assert "jax.numpy.asarray" in code  # Keras's backend is timed, not described


def test_part_4_prints_half_the_spacing_beside_each_error() -> None:
    """The absolute errors the lesson prints grow only in their bound, half the spacing."""
    assert "half spacing" in _code(LESSON)
    values = re.search(r"for text in \[([^\]]+)\]:\n    q = fpx.decode", _code(LESSON))
    assert values is not None
    halves = []
    for text in (v.strip().strip('"') for v in values[1].split(",")):
        q = fpx.decode(text, "float16")
        half = float(fpx.ulp(q.value, "float16")) / 2
        assert q.abs_error <= half and q.rel_error <= fpx.get_format("float16").eps / 2
        halves.append(half)
    assert halves == sorted(halves) and halves[-1] / halves[0] > 100


def test_loss_scaling_is_explained_whole() -> None:
    text = " ".join(_markdown(LESSON).split())
    assert "divided by $S$ again, in float32" in text
    assert "skipped and the scale halved" in text and "it doubles" in text
    assert "dynamic_growth_steps" in _code(LESSON)


def test_the_keras_run_has_a_float32_baseline() -> None:
    code = _code(LESSON)
    assert 'for policy in ("float32", "mixed_float16")' in code
    assert "mixed minus float32" in code


def test_the_lesson_says_which_claims_it_does_not_measure() -> None:
    text = " ".join(_markdown(LESSON).split())
    assert "Every claim held where the lesson ran it" not in text
    assert "claims 2, 3 and 12 (speed) were stated rather than measured" in text


def test_the_number_line_shows_its_subnormals_in_a_zoomed_panel() -> None:
    assert 'number_line("float8_e4m3fn", 0, 16, zoom=(0, 2**-4))' in _code(LESSON)


@pytest.mark.parametrize("path", [LESSON, ANSWERS], ids=lambda p: p.name)
def test_no_broken_latex_and_no_repl_jargon(path: Path) -> None:
    for text in outline.markdown_cells(path):
        plain = re.sub(r"`[^`]*`", "", text)
        assert plain.count("$") % 2 == 0, f"unbalanced $ in {text[:80]!r}"
        assert not re.search(r"(?<![\d$])0\^\{", plain), text[:80]
        assert "REPL" not in text


def test_the_answer_key_answers_the_lessons_questions_in_order() -> None:
    asked = [task.number for _, task in pacing.tasks(LESSON) if task.what == "Question"]
    answered = [
        int(s.title.split()[1]) for s in outline.headings(ANSWERS) if s.title.startswith("Question")
    ]
    assert answered == asked == list(range(1, len(asked) + 1))


def test_teachers_page_is_honest_about_run_times_and_says_what_to_project() -> None:
    text = " ".join((REPO / "docs" / "teachers.md").read_text(encoding="utf-8").split())
    assert "each takes seconds" not in text
    assert "notebook 08 several minutes" in text
    assert "projector copy" in text and "fpexplore.course.projector" in text


def test_notebook_04_says_tf32_is_used_only_when_enabled() -> None:
    text = " ".join(_markdown(NOTEBOOKS / "04-formats-for-deep-learning.ipynb").split())
    assert "when the framework enables it" in text and "1.12" in text


# --- figures, measured ------------------------------------------------------------------


def test_notebook_07s_two_reports_figure_lays_out_with_legends_apart() -> None:
    """Run 07's cell that draws two tensor reports (on stand-in tensors): constrained
    layout applies (a collapsed layout warns, an error here), and no legend overlaps
    another legend or the other panel."""
    plt = pytest.importorskip("matplotlib.pyplot")
    path = NOTEBOOKS / "07-scaled-formats.ipynb"
    cells = outline.load(path)["cells"]
    source = next(
        outline.cell_source(c)
        for c in cells
        if 'reports["heavy-tailed"].plot' in outline.cell_source(c)
    )
    rng = np.random.default_rng(0)
    tensors = {
        "gradients": (rng.standard_normal((64, 256)) * 1e-4).astype("float32"),
        "heavy-tailed": (rng.standard_t(2, (64, 256)) * 0.05).astype("float32"),
    }
    formats = ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "nvfp4"]
    reports = {name: fpx.tensor_report(t, formats) for name, t in tensors.items()}
    scope = {"plt": plt, "reports": reports}
    exec(source, scope)  # the notebook's own cell
    fig = scope["fig"]
    try:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        axes = list(scope["axes"])
        legends = [ax.get_legend().get_window_extent(renderer) for ax in axes]
        panels = [ax.get_window_extent(renderer) for ax in axes]
        assert not legends[0].overlaps(legends[1])
        assert not legends[0].overlaps(panels[1]) and not legends[1].overlaps(panels[0])
        page = fig.bbox
        for box in legends:
            assert page.x0 <= box.x0 and box.x1 <= page.x1, "a legend runs off the figure"
    finally:
        plt.close(fig)


def test_notebook_08_does_not_say_fp8_products_are_summed_in_float32_on_gpus() -> None:
    text = " ".join(_markdown(NOTEBOOKS / "08-train-in-any-format.ipynb").split())
    assert "as tensor cores accumulate them" not in text
    assert "about 14 bits" in text and "arXiv:2412.19437" in text

"""Reading the course from its notebooks: fpexplore.course.outline, requirements, pacing and
course_tables, on small notebooks written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fpexplore.course import outline, pacing, requirements
from fpexplore.course import tables as course_tables


def _notebook(*cells: tuple[str, str]) -> dict:
    kinds = {"md": "markdown", "code": "code"}
    return {"cells": [{"cell_type": kinds[k], "source": s} for k, s in cells]}


def _write(folder: Path, name: str, nb: dict) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


SESSION = _notebook(
    ("md", "# 06 · Keras, for real\n\n> **Duration.** Walk-through: 30 min. Exercises: 15 min."),
    ("code", "import keras\nimport numpy as np"),
    ("md", "## 1. Why float16 needs help (claim 15)\n\ntext\n\n### The `dtype` of a layer"),
    ("md", "```python\n## not a heading\n```\n## 2. One line switches (claims 13 and 14)"),
    ("md", "## Exercises\n\n**Exercise 1** (predict, then check; ★, 5 min). Predict."),
    ("md", "**Exercise 2** (compute, then why; ★★★, 10 min). Compute."),
)


@pytest.fixture
def course(tmp_path: Path) -> Path:
    _write(tmp_path, "00-index.ipynb", _notebook(("md", "# Index")))
    _write(tmp_path, "06-keras.ipynb", SESSION)
    lesson = _notebook(
        ("md", "# A lesson"),
        ("md", "## 0. Warm-up · 5 min\n\n**Question 1** (why; ★, 2 min). Why?"),
        ("code", "print('hello')"),
        ("md", "## 1. Keras (claims 13 and 14) · 10 min\n\nSome words here."),
    )
    _write(tmp_path, "lesson-1.ipynb", lesson)
    _write(tmp_path, "solutions/06-solutions.ipynb", _notebook(("md", "## Exercise 1")))
    return tmp_path


def test_headings_number_sections_and_subsections(course: Path) -> None:
    found = outline.headings(course / "06-keras.ipynb")
    assert [(s.level, s.number, s.title) for s in found] == [
        (1, "", "06 · Keras, for real"),
        (2, "1", "Why float16 needs help (claim 15)"),
        (3, "1", "The dtype of a layer"),
        (2, "2", "One line switches (claims 13 and 14)"),
        (2, "", "Exercises"),
    ]
    assert [s.cell for s in found] == [0, 2, 2, 3, 4]
    assert found[1].anchor == "1.-Why-float16-needs-help-(claim-15)"
    assert found[1].short_title == "Why float16 needs help"
    assert found[2].markdown("course/") == (
        "[06 §1, The dtype of a layer](course/06-keras.ipynb#The-dtype-of-a-layer)"
    )


def test_section_finds_one_heading_or_says_what_there_is(course: Path) -> None:
    assert outline.section("06", "one LINE", folder=course).label == "06 §2"
    with pytest.raises(LookupError, match="no heading .* 'Three policies'.*06 §1 Why"):
        outline.section("06", "Three policies", folder=course)
    with pytest.raises(LookupError, match="5 headings"):
        outline.section("06", "e", folder=course)
    with pytest.raises(FileNotFoundError, match="no notebook '09'"):
        outline.find_notebook("09", course)
    with pytest.raises(FileNotFoundError, match="several notebooks"):
        outline.find_notebook("0", course)


def test_course_order_counts_and_citations(course: Path) -> None:
    names = [p.name for p in outline.course_notebooks(course)]
    assert names == ["00-index.ipynb", "06-keras.ipynb", "lesson-1.ipynb"]
    assert outline.course_counts(course) == {
        "notebooks": 3,
        "sessions": 1,
        "lessons": 1,
        "solutions": 1,
    }
    assert [s.label for s in outline.citing([14], course)] == ["06 §2"]
    assert outline.cited_claims("Claim 7; claims 2, 3 and 11") == [7, 2, 3, 11]


def test_imports_tell_required_from_optional() -> None:
    code = (
        "import os\nfrom fpexplore.plot import mixed\nfrom sklearn.datasets import load_digits\n"
        "try:\n    import jax\nexcept ImportError:\n    jax = None\n%matplotlib inline"
    )
    found = requirements.imports(_notebook(("code", code)))
    assert found.required == {"matplotlib", "scikit-learn"}
    assert found.optional == {"jax"}


@pytest.mark.parametrize(
    ("kind", "steps"),
    [
        ("compute", ("compute",)),
        ("predict, then check", ("predict", "check")),
        ("predict, then check, then why", ("predict", "check", "why")),
        ("explore", ("explore",)),
    ],
)
def test_kinds_of_the_scheme(kind: str, steps: tuple[str, ...]) -> None:
    assert pacing.parse_kind(kind) == steps


@pytest.mark.parametrize(
    "label",
    [
        "**Exercise 1** (predict; ★, 5 min).",  # predict without check
        "**Exercise 1** (check; ★, 5 min).",
        "**Exercise 1** (recall; ★, 5 min).",
        "**Exercise 1** (why; ★★★★, 5 min).",
        "**Exercise 1** (★★ why, 5 min).",  # the older labels
        "**Exercise 1** (why · medium · 10 min).",
        "**Exercise 1 (why; ★★, 10 min).**",
        "**Exercise 1** (why; ★★, 10 minutes).",
    ],
)
def test_labels_outside_the_scheme_are_refused(label: str) -> None:
    with pytest.raises(ValueError, match=r"not labelled|unknown step|predict|difficulty"):
        pacing.parse_label(label + " Text.")


def test_label_problems_and_budget(course: Path) -> None:
    path = course / "06-keras.ipynb"
    assert pacing.label_problems(path) == []
    found = [(t.number, t.level, t.minutes) for _, t in pacing.tasks(path)]
    assert found == [(1, 1, 5), (2, 3, 10)]
    assert pacing.budget(path) == pacing.Budget(30, 15)
    bad = _notebook(("md", "**Exercise 2** (why; ★, 5 min). A\n\n**Exercise 3** (★ why, 5 min)"))
    problems = pacing.label_problems(bad)
    assert len(problems) == 2 and "numbered [2]" in problems[1]
    assert pacing.budget(bad) is None


def test_lesson_plan_and_content(course: Path) -> None:
    plan = pacing.lesson_plan(course / "lesson-1.ipynb")
    assert [(p.section.number, p.minutes, p.claims, p.cells) for p in plan] == [
        ("0", 5, (), range(1, 3)),
        ("1", 10, (13, 14), range(3, 4)),
    ]
    nb = outline.load(course / "lesson-1.ipynb")
    nb["cells"][2]["outputs"] = [
        {"output_type": "stream", "text": ["a\n", "b\n"]},
        {"output_type": "display_data", "data": {"image/png": "", "text/plain": "<Figure>"}},
    ]
    parts = pacing.part_contents(nb)
    assert parts[0][1] == pacing.Content(words=10, code_cells=1, output_lines=2, figures=1)
    assert parts[0][2] == 2  # Question 1's minutes


def test_tables(course: Path) -> None:
    table = course_tables.notebook_table(course)
    row = next(line for line in table.splitlines() if "06-keras" in line)
    assert "[§1 Why float16 needs help](06-keras.ipynb#1.-Why-float16-needs-help-(claim-15))" in row
    solutions = "[solutions](solutions/06-solutions.ipynb)"
    assert f"| 30 + 15 min | 2 exercises (15 min) · {solutions} |" in row
    assert row.endswith("| the `keras` extra |")
    assert table._repr_markdown_() == str(table)
    plan = course_tables.plan_table("lesson-1", course, deeper={"Warm-up": (("06", "Exercises"),)})
    assert "| 5 |  | [06 Exercises](06-keras.ipynb#Exercises) |" in plan
    assert "| 13, 14 | [06 §2 One line switches](06-keras.ipynb#2.-One-line-switches" in plan
    assert plan.splitlines()[-1] == "| total | 15 | | |"
    short = course_tables.plan_table("lesson-1", course, with_course=False)
    assert short.splitlines()[0] == "| part | min | claims |"
    with pytest.raises(LookupError):
        course_tables.plan_table("lesson-1", course, deeper={"Warm-up": (("06", "nothing"),)})

"""What the course says about itself is true of the notebooks: section references,
counts, exercise labels and budgets, and the 90-minute lesson's plan.

Nothing here runs a notebook (``tests/test_notebooks.py`` does, and measures the
lesson's parts against its pace after running it); these read the files.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import pytest

from fpexplore.course import outline, pacing
from fpexplore.course import tables as course_tables

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
DOCS = REPO / "docs"
LESSON = NOTEBOOKS / f"{course_tables.LESSON}.ipynb"
LESSON_ANSWERS = NOTEBOOKS / "solutions" / f"{course_tables.LESSON}-solutions.ipynb"
LESSON_MINUTES = 90
INDEX = "00-index.ipynb"


def _course() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb")) + sorted((NOTEBOOKS / "solutions").glob("*.ipynb"))


def _param(path: Path):
    return pytest.param(path, id=path.relative_to(REPO).as_posix())


def _docs_pages() -> list[Path]:
    return sorted(p for p in DOCS.glob("*.md"))


def _texts(path: Path) -> list[str]:
    """The Markdown of a page, or of each Markdown cell of a notebook."""
    if path.suffix == ".md":
        return [path.read_text(encoding="utf-8")]
    return outline.markdown_cells(path)


_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+\.ipynb)#([^)\s]+)\)")
_BARE_SECTION = re.compile(r"§\s*\d+")


def _notebook_of(page: Path, target: str) -> Path:
    """The notebook a link points at (pages of the docs link to ``course/...``)."""
    if page.suffix == ".md":
        return NOTEBOOKS / target.removeprefix("course/")
    return page.parent / target


@pytest.mark.parametrize("page", [_param(p) for p in _course() + _docs_pages()])
def test_section_references_resolve(page: Path) -> None:
    """A link to a notebook's heading names a heading it has, and a "§N" in the link's
    text is that heading's number; a "§N" outside such a link is refused (it would be a
    reference typed by hand, which drifts: compute it with fpexplore.course.outline)."""
    broken = []
    for text in _texts(page):
        for label, target, anchor in _LINK.findall(text):
            found = {s.anchor: s for s in outline.headings(_notebook_of(page, target))}
            if anchor not in found:
                broken.append(f"{target}#{anchor}: no such heading")
            elif (number := re.search(r"§\s*(\d+)", label)) and number[1] != found[anchor].number:
                broken.append(f"{label!r} links to §{found[anchor].number} {found[anchor].title}")
        bare = _BARE_SECTION.findall(_LINK.sub("", text))
        broken += [f"{ref!r} is not a link to the heading" for ref in bare]
    assert not broken, f"{page.name}: " + "; ".join(broken)


@pytest.mark.parametrize("path", [_param(p) for p in _course()])
def test_numbered_sections_run_in_order(path: Path) -> None:
    """Section numbers are what references cite: they run 0 or 1, 2, 3... with no gap."""
    numbers = [int(s.number) for s in outline.headings(path) if s.level == 2 and s.number]
    if numbers:
        assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), numbers
        assert numbers[0] in (0, 1), numbers


def _section_calls(path: Path) -> list[tuple[str, str]]:
    """(notebook, title) of every ``section("06", "title")`` call in the code cells."""
    calls = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        code = "\n".join(
            line
            for line in outline.cell_source(cell).splitlines()
            if not line.lstrip().startswith(("%", "!"))
        )
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "section":
                args = [a.value for a in node.args if isinstance(a, ast.Constant)]
                if len(args) == 2:
                    calls.append((str(args[0]), str(args[1])))
    return calls


def test_generated_references_resolve() -> None:
    """Every section the notebooks or the lesson's table ask for by title exists once."""
    wanted = [pair for path in _course() for pair in _section_calls(path)]
    wanted += [ref for refs in course_tables.LESSON_DEEPER.values() for ref in refs]
    for notebook, title in wanted:
        outline.section(notebook, title, folder=NOTEBOOKS)  # raises LookupError naming it
    assert course_tables.plan_table(LESSON, NOTEBOOKS).count("ipynb#") > 16


def test_every_part_of_the_lesson_has_sections_in_the_course() -> None:
    plan = pacing.lesson_plan(LESSON)
    table = course_tables.plan_table(LESSON, NOTEBOOKS).splitlines()[2:-1]
    assert len(table) == len(plan)
    for part, row in zip(plan, table, strict=True):
        cited = row.rsplit("|", 2)[-2]
        teaching = part.claims or any(
            piece.casefold() in part.section.title.casefold()
            for piece in course_tables.LESSON_DEEPER
        )
        assert not teaching or "ipynb#" in cited, f"nothing in the course for {row[:60]}"


def test_the_index_shows_the_computed_tables() -> None:
    """00's map of the course and the lesson's plan are computed, not typed: it calls
    the functions, and the map links every notebook of the course."""
    code = "\n".join(
        outline.cell_source(c)
        for c in outline.load(NOTEBOOKS / INDEX)["cells"]
        if c["cell_type"] == "code"
    )
    assert "course_tables.notebook_table()" in code
    assert "course_tables.plan_table()" in code
    table = course_tables.notebook_table(NOTEBOOKS)
    for path in NOTEBOOKS.glob("*.ipynb"):
        if path.name != INDEX:
            assert f"]({path.name})" in table, f"{path.name} is missing from the index's map"


# --- counts -------------------------------------------------------------------------------

_NUMBERS = r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+"
_TYPED_COUNT = re.compile(rf"\b(?:{_NUMBERS})\s+(?:notebooks|sessions|lessons)\b", re.I)


@pytest.mark.parametrize("page", [_param(p) for p in [*_docs_pages(), NOTEBOOKS / INDEX]])
def test_counts_of_the_course_are_not_typed(page: Path) -> None:
    """ "seven notebooks", "six sessions": counts are computed (docs: the substitutions
    of conf.py, ``{{ course_sessions }}``; the index: a cell), never typed."""
    typed = [m[0] for text in _texts(page) for m in _TYPED_COUNT.finditer(text)]
    assert not typed, f"{page.name} types counts of the course by hand: {typed}"


def test_docs_substitutions_count_the_notebooks() -> None:
    """The counts the docs show, against a count made here by file name."""
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        from fpx_facts import course_substitutions, handout_substitutions
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    found = course_substitutions(NOTEBOOKS)
    names = [p.name for p in NOTEBOOKS.glob("*.ipynb")]
    sessions = [n for n in names if re.match(r"\d+[a-z]?-", n) and "index" not in n]
    assert found["course_notebooks"] == str(len(names))
    assert found["course_sessions"] == str(len(sessions))
    assert found["lesson_minutes"] == str(LESSON_MINUTES)
    pages = "\n".join(page.read_text(encoding="utf-8") for page in _docs_pages())
    used = set(re.findall(r"\{\{\s*(\w+)\s*\}\}", pages))
    known = set(found) | set(handout_substitutions())
    assert used <= known, f"substitutions the docs use but conf.py lacks: {used - known}"
    assert {"course_notebooks", "course_sessions"} <= used


# --- exercise labels and budgets ----------------------------------------------------------


def _budgeted() -> list[Path]:
    return [p for p in sorted(NOTEBOOKS.glob("*.ipynb")) if pacing.budget(p) is not None]


@pytest.mark.parametrize("path", [_param(p) for p in _budgeted()])
def test_exercises_follow_the_scheme_and_fill_the_budget(path: Path) -> None:
    """A notebook that states its budget (``**Duration.** Walk-through: W min. Exercises:
    E min.``) labels every exercise by the scheme of fpexplore.course.pacing, numbers them
    1, 2, 3..., answers each under "## Exercise N" of its solutions, and E is the sum of
    the exercises' minutes."""
    problems = pacing.label_problems(path)
    assert not problems, f"{path.name}: " + "; ".join(problems)
    exercises = [task for _, task in pacing.tasks(path) if task.what == "Exercise"]
    stated = pacing.budget(path)
    assert stated is not None
    total = sum(task.minutes for task in exercises)
    assert total == stated.exercises, (
        f"{path.name} states {stated.exercises} min of exercises; its exercises add up to {total}"
    )
    solutions = NOTEBOOKS / "solutions" / f"{outline.short_name(path)}-solutions.ipynb"
    headings = {s.title for s in outline.headings(solutions)} if solutions.exists() else set()
    missing = [t.number for t in exercises if f"Exercise {t.number}" not in headings]
    assert not missing, f"{solutions.name} has no '## Exercise N' for {missing}"


@pytest.mark.parametrize("path", [_param(p) for p in _budgeted()])
def test_the_walkthrough_text_alone_fits_its_minutes(path: Path) -> None:
    """The prose and code cells of the walk-through, read at the lesson's pace, fit in
    the minutes the teacher's box states, before any output is counted
    (tests/test_notebooks.py measures it again after running, outputs included)."""
    stated = pacing.budget(path)
    assert stated is not None
    needed = pacing.Pace().minutes(pacing.walkthrough_content(path))
    assert needed <= stated.walkthrough, (
        f"{path.name}: {needed} min of prose and code, {stated.walkthrough} min stated"
    )


# --- the 90-minute lesson -----------------------------------------------------------------


def test_the_lesson_fills_90_minutes_with_the_claims_in_order() -> None:
    plan = pacing.lesson_plan(LESSON)
    assert sum(part.minutes for part in plan) == LESSON_MINUTES
    claims = [claim for part in plan for claim in part.claims]
    assert claims == list(range(1, 17)), f"the parts cite claims {claims}, not 1 to 16 in order"
    titles = [part.section.title.casefold() for part in plan]
    assert titles[0].startswith("warm-up") and any(t.startswith("exit ticket") for t in titles)
    for part in plan:  # the part's cells are what it shows: its heading opens its cell
        first = outline.cell_source(outline.load(LESSON)["cells"][part.section.cell])
        assert first.startswith("## "), f"part {part.section.number} starts inside a cell"


def test_the_lesson_checks_its_own_minutes() -> None:
    code = [
        outline.cell_source(c) for c in outline.load(LESSON)["cells"] if c["cell_type"] == "code"
    ]
    assert "lesson_plan" in code[0] and f"== {LESSON_MINUTES}" in code[0]


def test_the_lessons_questions_are_labelled_timed_and_answered() -> None:
    assert pacing.label_problems(LESSON) == []
    questions = [task for _, task in pacing.tasks(LESSON) if task.what == "Question"]
    assert len(questions) >= 10
    answers = {s.title for s in outline.headings(LESSON_ANSWERS)}
    missing = [q.number for q in questions if f"Question {q.number}" not in answers]
    assert not missing, f"no answer to questions {missing}"
    for part, _shown, minutes in pacing.part_contents(LESSON):
        assert minutes <= part.minutes, f"part {part.section.number}: questions overfill it"

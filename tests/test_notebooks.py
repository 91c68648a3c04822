"""The notebook course: every notebook runs top to bottom, is committed without outputs,
cites every claim of the source text, and links back to the index and on to the Keras demo.

Running the notebooks needs the notebook extras (``pip install "fpexplore[notebooks]"``);
the notebooks that import Keras outside a ``try`` block (06, the 90-minute lesson, and
their solutions) also need Keras and are skipped without it. A lesson that plans its
minutes is measured after it runs: each part must fit its minutes at the course's pace
(fpexplore.course.pace.Pace, calibrated on a walk of the lesson), and a notebook's stated
walk-through must be what that pace gives, give or take ten minutes.
Run only these tests with ``pytest -m notebooks``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from fpexplore.course.pacing import Pace, budget, part_contents, tasks, walkthrough_content
from fpexplore.course.requirements import imports
from tests.notebook_runs import course_notebooks, executed, shared_folder

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
CLAIMS = range(1, 17)
INDEX = "00-index.ipynb"
KERAS_DEMO = "06-mixed-precision-keras.ipynb"


def _param(path: Path):
    return pytest.param(path, id=path.relative_to(NOTEBOOKS).as_posix())


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _markdown(path: Path) -> str:
    return "\n".join(
        "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for cell in _load(path)["cells"]
        if cell["cell_type"] == "markdown"
    )


def _tracked_notebooks() -> list[Path]:
    """Notebooks under notebooks/ known to git (all of them outside a git checkout)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--", "notebooks"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return course_notebooks()
    return sorted(REPO / name for name in listed if name.endswith(".ipynb"))


def test_the_course_is_there():
    names = {path.relative_to(NOTEBOOKS).as_posix() for path in course_notebooks()}
    expected = {
        INDEX,
        "01-anatomy-of-a-float.ipynb",
        "02-precision-density.ipynb",
        "03-representation-error.ipynb",
        "04-formats-for-deep-learning.ipynb",
        "04b-computing-in-a-format.ipynb",
        "05-when-float16-breaks.ipynb",
        "lesson-90min.ipynb",
        "solutions/lesson-90min-solutions.ipynb",
        "lesson-90min-ru.ipynb",  # the Russian edition (fpexplore.course.russian)
        "solutions/lesson-90min-ru-solutions.ipynb",
    } | {f"solutions/0{k}-solutions.ipynb" for k in (*"123456", "4b")}
    assert expected <= names


@pytest.mark.notebooks
@pytest.mark.parametrize("path", [_param(p) for p in course_notebooks()])
def test_notebook_runs(
    path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
):
    """Execute the notebook in a fresh python3 kernel, in its own folder (once per test
    run: the documentation site shows the same executed copy, tests/notebook_runs.py)."""
    keras = "keras" in imports(path).required
    if keras:
        # The notebook picks its own backend (JAX); import Keras the same way to check it.
        monkeypatch.setenv("KERAS_BACKEND", os.environ.get("KERAS_BACKEND", "jax"))
        pytest.importorskip("keras")
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    done = executed(path, shared_folder(tmp_path_factory), keras)
    notebook = nbformat.read(done, as_version=4)
    pace, over = Pace(), []
    for part, shown, questions in part_contents(notebook):
        needed = pace.minutes(shown) + questions
        if not needed <= part.minutes <= needed + 3:
            over.append(f"part {part.section.number} needs {needed} min of {part.minutes}: {shown}")
    assert not over, f"{path.name} does not state its parts' minutes truly: " + "; ".join(over)
    stated = budget(notebook)
    if stated is not None:  # the walk-through, outputs counted, fits the minutes it states
        shown = walkthrough_content(notebook)
        needed = pace.minutes(shown)
        assert needed <= stated.walkthrough <= needed + 10, (
            f"{path.name}: its walk-through needs {needed} min at the course's pace, "
            f"its teacher's box states {stated.walkthrough}: {shown}"
        )


@pytest.mark.parametrize("path", [_param(p) for p in _tracked_notebooks()])
def test_committed_notebook_has_no_outputs(path: Path):
    """Outputs are stripped before committing (``nbstripout notebooks/**/*.ipynb``)."""
    dirty = [
        index
        for index, cell in enumerate(_load(path)["cells"])
        if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count"))
    ]
    assert not dirty, f"code cells {dirty} of {path.name} have outputs or execution counts"


_CITATION = re.compile(r"\bclaims?\s+(\d+(?:\s*(?:,|and|&)\s*\d+)*)", re.IGNORECASE)


def cited_claims(text: str) -> set[int]:
    """Claim numbers cited as "claim 7", "claims 13 and 14", "Claims 2, 3 and 11"."""
    return {int(n) for match in _CITATION.finditer(text) for n in re.findall(r"\d+", match[1])}


def test_cited_claims_parser():
    text = "Claim 7 holds; claims 13 and 14, and claims 2, 3 and 11 (claim 1)."
    assert cited_claims(text) == {1, 2, 3, 7, 11, 13, 14}
    assert cited_claims("a claimant of 5") == set()


def test_every_claim_is_cited():
    cited = set().union(*(cited_claims(_markdown(path)) for path in course_notebooks()))
    missing = sorted(set(CLAIMS) - cited)
    assert not missing, f"claims never cited in the notebooks' text: {missing}"


_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _links(path: Path) -> set[str]:
    return set(_LINK.findall(_markdown(path)))


@pytest.mark.parametrize("path", [_param(p) for p in sorted(NOTEBOOKS.glob("0[1-5]*-*.ipynb"))])
def test_lesson_links_to_index_and_keras_demo(path: Path):
    targets = _links(path)
    assert INDEX in targets, f"{path.name} does not link to {INDEX}"
    assert KERAS_DEMO in targets, f"{path.name} does not link to {KERAS_DEMO}"


def test_index_links_to_the_lesson_and_computes_the_rest():
    """The index links the lesson in its text; its map of the numbered notebooks is
    computed (tests/test_course_outline.py checks that it links every one)."""
    targets = _links(NOTEBOOKS / INDEX)
    assert "lesson-90min.ipynb" in targets
    code = [t for kind, t in _cells(NOTEBOOKS / INDEX) if kind == "code"]
    assert any("notebook_table()" in text for text in code)


@pytest.mark.parametrize("path", [_param(p) for p in course_notebooks()])
def test_relative_links_resolve(path: Path):
    broken = [
        target
        for target in _links(path)
        if not re.match(r"[a-z]+:", target) and not (path.parent / target.split("#")[0]).exists()
    ]
    assert not broken, f"{path.name} links to missing files: {broken}"


def _cells(path: Path) -> list[tuple[str, str]]:
    return [
        (
            cell["cell_type"],
            "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"],
        )
        for cell in _load(path)["cells"]
    ]


def _exercise_cells(path: Path) -> list[tuple[str, str]]:
    """The cells from the "## Exercises" heading to the next level-2 heading."""
    cells, inside = [], False
    for kind, text in _cells(path):
        headings = re.findall(r"^## (.+)$", text, re.MULTILINE) if kind == "markdown" else []
        if headings:
            inside = headings[-1].strip() == "Exercises"
        if inside:
            cells.append((kind, text))
    return cells


_LESSONS = sorted(NOTEBOOKS.glob("0[1-9]-*.ipynb"))


@pytest.mark.parametrize("path", [_param(p) for p in _LESSONS])
def test_exercises_print_no_solutions_and_have_a_solutions_notebook(path: Path):
    """Solutions live in solutions/NN-solutions.ipynb, not in code cells under the exercises."""
    exercises = _exercise_cells(path)
    if not exercises:
        pytest.skip(f"{path.name} has no exercises")
    code = [text.splitlines()[0] for kind, text in exercises if kind == "code" and text.strip()]
    assert not code, f"{path.name} runs code under its exercises: {code}"
    solutions = NOTEBOOKS / "solutions" / f"{path.name[:2]}-solutions.ipynb"
    assert solutions.exists(), f"{path.name} has exercises but no {solutions.name}"


@pytest.mark.parametrize("path", [_param(p) for p in sorted(NOTEBOOKS.glob("0[1-7]*-*.ipynb"))])
def test_every_notebook_states_its_budget_where_its_exercises_are(path: Path):
    """Every numbered notebook states its budget in the course's form (so that
    tests/test_course_outline.py checks its labels against it), its exercises section
    says the same ``Exercises: T min.``, and some exercises ask to predict, some why."""
    stated = budget(path)
    assert stated is not None, f"{path.name}: no '**Duration.** Walk-through: W min. ...'"
    text = "\n".join(t for kind, t in _exercise_cells(path) if kind == "markdown")
    assert re.findall(r"Exercises: (\d+) min\.", text) == [str(stated.exercises)], path.name
    steps = {step for _, task in tasks(path) if task.what == "Exercise" for step in task.steps}
    assert {"predict", "why"} <= steps, f"{path.name}: no predict-then-check or no why exercise"

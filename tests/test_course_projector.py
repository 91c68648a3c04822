"""The lesson's projector copy: run, with the outputs of the cells that answer a
question cleared (fpexplore.course.projector), so that projecting it gives nothing away."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest

from fpexplore.course import outline, pacing, projector
from fpexplore.course import tables as course_tables

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
LESSON = NOTEBOOKS / f"{course_tables.LESSON}.ipynb"


def _run_everything(nb: dict) -> dict:
    """The lesson as if run: every code cell with an output."""
    ran = copy.deepcopy(nb)
    for cell in ran["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "shown\n"}]
            cell["execution_count"] = 1
    return ran


def test_every_predict_then_check_question_has_its_answer_cell() -> None:
    nb = outline.load(LESSON)
    predicted = [i for i, task in pacing.tasks(nb) if "predict" in task.steps]
    answers = projector.answer_cells(nb)
    assert len(answers) == len(predicted) >= 5
    for question, answer in zip(predicted, answers, strict=True):
        assert question < answer
        between = nb["cells"][question + 1 : answer]
        assert all(c["cell_type"] == "markdown" for c in between), "a cell runs before the check"


def test_the_copy_clears_exactly_the_answers() -> None:
    nb = outline.load(LESSON)
    ran = _run_everything(nb)
    before = json.dumps(ran)
    copied = projector.projector_notebook(ran)
    assert json.dumps(ran) == before  # the run notebook is left alone
    assert projector.NOTE in outline.cell_source(copied["cells"][0])
    answers = {i + 1 for i in projector.answer_cells(nb)}  # the note moved every cell down
    for index, cell in enumerate(copied["cells"]):
        if cell["cell_type"] != "code":
            continue
        if index in answers:
            assert cell["outputs"] == [] and cell["execution_count"] is None
            assert projector.ANSWER_TAG in cell["metadata"]["tags"]
        else:
            assert cell["outputs"], f"cell {index} lost an output that answers nothing"


def test_the_teachers_box_says_which_copy_to_open() -> None:
    box = outline.markdown_cells(LESSON)[0]
    assert "projector copy" in box and "python -m fpexplore.course.projector" in box
    assert "lesson-90min-projector.ipynb" in box


def test_a_missing_lesson_is_one_line_and_exit_2(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert projector.main(["no-such-lesson", "--output", str(tmp_path / "x.ipynb")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("projector: ") and len(err.strip().splitlines()) == 1


@pytest.mark.notebooks
def test_the_command_writes_the_projector_copy(tmp_path, monkeypatch, capsys) -> None:
    """Run the real lesson and check the copy: every answer cleared, every other output
    there (the lesson needs Keras)."""
    pytest.importorskip("nbclient")
    monkeypatch.setenv("KERAS_BACKEND", os.environ.get("KERAS_BACKEND", "jax"))
    pytest.importorskip("keras")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    target = tmp_path / "projector.ipynb"
    assert projector.main([str(LESSON), "--output", str(target)]) == 0
    assert capsys.readouterr().out.strip() == str(target)
    copied = json.loads(target.read_text(encoding="utf-8"))
    answers = {i + 1 for i in projector.answer_cells(LESSON)}
    code = [(i, c) for i, c in enumerate(copied["cells"]) if c["cell_type"] == "code"]
    assert all(not c["outputs"] for i, c in code if i in answers)
    assert all(c["outputs"] for i, c in code if i not in answers)

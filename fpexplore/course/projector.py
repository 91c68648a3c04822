"""The projector copy of a lesson: run top to bottom, with the answers' outputs cleared.

A lesson asks the class to predict, then check: the cell after a "predict, then check"
question shows the answer. Projected after *Run All*, every answer sits under its
question before anyone has predicted anything. :func:`projector_notebook` takes the run
lesson and clears the outputs of exactly those cells (:func:`answer_cells`), so that
each answer appears when the teacher runs its cell in class; :func:`write_projector_copy`
runs the lesson and writes the copy next to it, ``lesson-90min-projector.ipynb``::

    python -m fpexplore.course.projector            # in the course's folder
    python -m fpexplore.course.projector --output /tmp/lesson.ipynb

Running needs the ``notebooks`` extra (nbclient) and what the lesson imports.

Examples
--------
>>> cells = [
...     {"cell_type": "markdown", "source": "**Question 1** (predict, then check; ★, 2 min). 1+1?"},
...     {"cell_type": "code", "source": "1 + 1", "outputs": [{"output_type": "x"}]},
...     {"cell_type": "code", "source": "2 + 2", "outputs": [{"output_type": "x"}]},
... ]
>>> answer_cells({"cells": cells})
[1]
>>> [len(c["outputs"]) for c in projector_notebook({"cells": cells})["cells"][2:]]
[0, 1]
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .outline import NotebookLike, cell_source, find_notebook, language, load
from .pacing import tasks
from .tables import LESSON

__all__ = [
    "ANSWER_TAG",
    "NOTE",
    "NOTE_RU",
    "answer_cells",
    "main",
    "projector_notebook",
    "write_projector_copy",
]

ANSWER_TAG = "answer"
"""The tag a projector copy puts on each cell whose output it cleared."""
NOTE = (
    "> **Projector copy.** Made by `python -m fpexplore.course.projector`: the lesson run "
    "top to bottom, with the outputs of the cells that answer a question cleared (they are "
    'tagged "answer"). Run the cells in order, one by one, as the lesson goes; do not run '
    "them all."
)
"""The note at the top of a projector copy."""
NOTE_RU = (
    "> **Копия для проектора.** Сделана командой `python -m fpexplore.course.projector`: "
    "урок, выполненный сверху вниз, в котором очищены выводы ячеек с ответами на вопросы "
    "(у них метка «answer»). Выполняйте ячейки по порядку, по одной, по ходу урока; не "
    "запускайте их все сразу."
)
"""The note at the top of a projector copy of the Russian edition."""


def answer_cells(notebook: NotebookLike) -> list[int]:
    """The cells that show the answer to a "predict, then check" question: for each, the
    first code cell after the question's cell that is not empty."""
    nb = load(notebook)
    cells = nb["cells"]
    found = []
    for index, task in tasks(nb):
        if "predict" not in task.steps:
            continue
        after = (
            k
            for k in range(index + 1, len(cells))
            if cells[k].get("cell_type") == "code" and cell_source(cells[k]).strip()
        )
        answer = next(after, None)
        if answer is not None and answer not in found:
            found.append(answer)
    return found


def projector_notebook(executed: dict[str, Any]) -> dict[str, Any]:
    """A copy of a run notebook with the outputs (and execution counts) of its
    :func:`answer_cells` cleared, those cells tagged :data:`ANSWER_TAG`, and a note at the
    top saying what the copy is. ``executed`` itself is left unchanged."""
    nb = copy.deepcopy(executed)
    for index in answer_cells(nb):
        cell = nb["cells"][index]
        cell["outputs"] = []
        cell["execution_count"] = None
        tags = cell.setdefault("metadata", {}).setdefault("tags", [])
        if ANSWER_TAG not in tags:
            tags.append(ANSWER_TAG)
    text = NOTE_RU if language(nb) == "ru" else NOTE
    note = {"cell_type": "markdown", "id": "projector-note", "metadata": {}, "source": text}
    nb["cells"] = [note, *nb["cells"]]
    return nb


def _execute(path: Path, timeout: int) -> dict[str, Any]:
    try:
        import nbclient
        import nbformat
    except ImportError as error:
        raise RuntimeError(
            f"running {path.name} needs nbclient and nbformat ({error.name} is missing): "
            'pip install -e ".[notebooks]" from a clone of fpexplore'
        ) from error
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=timeout,
        resources={"metadata": {"path": str(path.parent)}},
    )
    try:
        client.execute()
    except Exception as error:  # a cell failed: say which, in one line
        first = str(error).strip().splitlines()[-1:] or [type(error).__name__]
        raise RuntimeError(f"{path.name} did not run to the end: {first[0]}") from error
    return json.loads(nbformat.writes(notebook))


def write_projector_copy(
    lesson: str | Path = LESSON, output: str | Path | None = None, *, timeout: int = 600
) -> Path:
    """Run ``lesson`` (a name or path, see :func:`~fpexplore.course.outline.find_notebook`)
    in its folder and write its projector copy to ``output`` (by default
    ``<lesson>-projector.ipynb`` next to it). Returns the path written.

    Raises
    ------
    FileNotFoundError
        When no notebook matches ``lesson``.
    RuntimeError
        When nbclient is not installed, or a cell of the lesson fails.
    """
    path = find_notebook(lesson)
    target = Path(output) if output is not None else path.with_name(f"{path.stem}-projector.ipynb")
    copy_ = projector_notebook(_execute(path, timeout))
    target.write_text(json.dumps(copy_, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return target


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m fpexplore.course.projector [LESSON] [--output PATH] [--timeout S]``."""
    parser = argparse.ArgumentParser(
        prog="python -m fpexplore.course.projector",
        description="Write a lesson's projector copy: run, with the answers' outputs cleared.",
    )
    parser.add_argument("lesson", nargs="?", default=LESSON, help=f"default {LESSON}")
    parser.add_argument("--output", help="where to write it (default: next to the lesson)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds a cell may take")
    args = parser.parse_args(argv)
    try:
        written = write_projector_copy(args.lesson, args.output, timeout=args.timeout)
    except (FileNotFoundError, RuntimeError) as error:
        print(f"projector: {error}", file=sys.stderr)
        return 2
    print(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())

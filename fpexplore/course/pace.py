"""The pace of a class: what some cells of a notebook show, and the minutes it takes.

:func:`content` measures cells (words of prose, code cells, lines of output, figures and
new terms of the course's glossary), :class:`Pace` turns a measure into minutes, and
:data:`CALIBRATION` is the walk of the 90-minute lesson that its rates are fitted to.
The notes for the teacher (the teacher's box, "> **Cut if late.** ...") are not counted.

Examples
--------
>>> cells = [{"cell_type": "markdown", "source": "A binade."},
...          {"cell_type": "code", "source": "1 + 1", "outputs": []}]
>>> content({"cells": cells})
Content(words=2, code_cells=1, output_lines=0, figures=0, terms=1)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .glossary import first_uses
from .outline import NotebookLike, cell_source, load

__all__ = [
    "CALIBRATION",
    "DURATION",
    "Content",
    "Pace",
    "content",
    "walkthrough_content",
    "without_notes",
]

DURATION = re.compile(r"\*\*Duration\.\*\* Walk-through: (\d+) min\. Exercises: (\d+) min\.")
"""How a teacher's box states a notebook's budget."""


@dataclass(frozen=True)
class Content:
    """What some cells show: words of Markdown (tokens with a letter or digit, link
    targets left out), code cells, lines of output, figures, and new terms (terms of the
    course's glossary used there for the first time in the notebook)."""

    words: int = 0
    code_cells: int = 0
    output_lines: int = 0
    figures: int = 0
    terms: int = 0

    def __add__(self, other: Content) -> Content:
        return Content(
            self.words + other.words,
            self.code_cells + other.code_cells,
            self.output_lines + other.output_lines,
            self.figures + other.figures,
            self.terms + other.terms,
        )


@dataclass(frozen=True)
class Pace:
    """The pace of a class, with the notebook projected and discussed: the teacher reads
    or retells the prose at ``words_per_minute``, reads, runs and discusses each code cell
    in ``minutes_per_code_cell``, reads ``seconds_per_output_line`` of output per line,
    spends ``minutes_per_figure`` on each figure and ``minutes_per_term`` on each new term
    (its definition and an example).

    The rates are calibrated on a walk of the 90-minute lesson as a class takes it: 110
    minutes for the lesson of December 2026, part by part from 6 minutes for the warm-up
    to 21 for "How a float is built" with its seven new terms (:data:`CALIBRATION`); at
    these rates the model puts every part within 3 minutes of that walk, and the whole
    within 5 of it. The old rates, half a minute a code cell and nothing for a new term,
    put the same lesson at 78 minutes."""

    words_per_minute: float = 120.0
    minutes_per_code_cell: float = 1.2
    seconds_per_output_line: float = 3.0
    minutes_per_figure: float = 1.0
    minutes_per_term: float = 0.5

    def minutes(self, shown: Content) -> float:
        """Minutes in class for ``shown``, rounded to a tenth."""
        total = (
            shown.words / self.words_per_minute
            + shown.code_cells * self.minutes_per_code_cell
            + shown.output_lines * self.seconds_per_output_line / 60
            + shown.figures * self.minutes_per_figure
            + shown.terms * self.minutes_per_term
        )
        return round(total, 1)


CALIBRATION = (
    ("Warm-up", Content(words=64, code_cells=2, output_lines=2), 3, 6),
    ("Why train faster", Content(257, 3, 3, 0, 2), 3, 8),
    ("Precision is resolution", Content(198, 4, 6, 0, 0), 7, 15),
    ("How a float is built", Content(298, 7, 14, 1, 7), 4, 21),
    ("The error of storing a number", Content(221, 5, 10, 1, 5), 4, 15),
    ("Sixteen bits where they suffice", Content(209, 4, 11, 0, 3), 4, 10),
    ("Mixed precision in Keras", Content(185, 4, 4, 0, 2), 3, 10),
    ("Softmax and crossentropy in float16", Content(195, 3, 10, 0, 4), 4, 12),
    ("The softmax layer opts out", Content(108, 2, 3, 0, 0), 3, 7),
    ("Exit ticket", Content(words=83), 4, 5),
    ("Where to go deeper", Content(48, 1, 14, 0, 0), 0, 1),
)
"""The walk :class:`Pace` is calibrated on: for each part of the 90-minute lesson as it
stood in December 2026, what it showed once run (:func:`part_contents`), its questions'
minutes, and the minutes a class took over it (110 in all)."""


_URL = re.compile(r"\]\([^)]*\)|<[^>]+>")
_NOTE = re.compile(
    r"^> \*\*(?:Cut if late\.|Teacher's box|Если не успеваете\.|Для преподавателя)\*\*"
    r".*(?:\n>.*)*",
    re.MULTILINE,
)
"""A note for the teacher, not read to the class: the teacher's box, and "> **Cut if
late.** ..." (what to skip when a class runs behind), each a quoted block; in the Russian
edition "> **Для преподавателя**" and "> **Если не успеваете.**"."""


def without_notes(notebook: NotebookLike) -> dict[str, Any]:
    """The notebook with the notes for the teacher (its teacher's box, and "> **Cut if
    late.** ..." lines) taken out of its Markdown: the class is not read them.

    >>> cell = {"cell_type": "markdown", "source": "Read.\\n\\n> **Cut if late.** X.\\n> Y."}
    >>> without_notes({"cells": [cell]})["cells"][0]["source"]
    'Read.\\n\\n'
    """
    nb = load(notebook)
    cells = [
        {**cell, "source": _NOTE.sub("", cell_source(cell))}
        if cell.get("cell_type") == "markdown"
        else cell
        for cell in nb["cells"]
    ]
    return {**nb, "cells": cells}


def _output_content(output: dict[str, Any]) -> Content:
    data = output.get("data", {})
    if "image/png" in data or "image/svg+xml" in data:
        return Content(figures=1)
    text = output.get("text") or data.get("text/markdown") or data.get("text/plain", "")
    text = "".join(text) if isinstance(text, list) else text
    return Content(output_lines=len(text.rstrip("\n").splitlines()))


def content(notebook: NotebookLike, cells: range | None = None) -> Content:
    """Measure ``cells`` (all by default) of a notebook; outputs count once it has run."""
    nb = without_notes(notebook)
    new = first_uses(nb)
    total = Content()
    for index in cells if cells is not None else range(len(nb["cells"])):
        cell = nb["cells"][index]
        text = cell_source(cell)
        if cell.get("cell_type") == "markdown":
            words = [w for w in _URL.sub("]", text).split() if re.search(r"\w", w)]
            total += Content(words=len(words))
            total += Content(terms=len(new.get(index, [])))
        elif cell.get("cell_type") == "code" and text.strip():
            total += Content(code_cells=1)
            for output in cell.get("outputs", []):
                total += _output_content(output)
    return total


def walkthrough_content(notebook: NotebookLike) -> Content:
    """What a notebook shows in class before its ``## Exercises`` heading, the teacher's
    box (the cell that states the budget) left out: what the budget's W minutes cover.
    Measure it after running the notebook, so that the outputs count.

    Examples
    --------
    >>> cell = {"cell_type": "markdown", "source": "Read this.\\n## Exercises\\nNot this."}
    >>> walkthrough_content({"cells": [cell]}).words
    2
    """
    nb = load(notebook)
    shown = []
    for cell in nb["cells"]:
        text = cell_source(cell)
        if cell.get("cell_type") != "markdown":
            shown.append(cell)
        elif at := re.search(r"^## Exercises\b", text, re.MULTILINE):
            shown.append({**cell, "source": text[: at.start()]})
            break
        elif not DURATION.search(text):
            shown.append(cell)
    return content({**nb, "cells": shown})

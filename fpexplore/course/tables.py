"""The course's tables of contents, as Markdown computed from the notebooks.

:func:`notebook_table` is the index notebook's map of the course: each notebook with its
numbered sections (linked), its time in class, its exercises and what it needs installed.
:func:`plan_table` is a lesson's plan: its parts, their minutes and claims, and the
sections of the course that teach each part at length. Both return :class:`Markdown`,
text that Jupyter shows rendered; nothing in them is typed by hand, so they follow the
notebooks.
"""

from __future__ import annotations

import re
from pathlib import Path

from .outline import (
    NotebookLike,
    citing,
    course_notebooks,
    find_notebook,
    headings,
    language,
    load,
    markdown_cells,
    notebook_kind,
    section,
    short_name,
)
from .pacing import WHAT_RU, budget, label_problems, lesson_plan, tasks
from .requirements import imports

__all__ = [
    "BASE",
    "EXTRAS",
    "LESSON",
    "LESSON_DEEPER",
    "Markdown",
    "needs",
    "notebook_table",
    "plan_table",
    "stated_minutes",
]

LESSON = "lesson-90min"
"""The notebook that is the 90-minute lesson."""
LESSON_DEEPER = {
    "Warm-up": (("04b", "told whole"), ("03", "ties to even")),
    "Sixteen bits where they suffice": (("05", "Sums that stop growing"),),
    "Softmax and crossentropy": (("05", "Gradients that underflow"),),
    # the same parts of the Russian edition (lesson-90min-ru)
    "Разминка": (("04b", "told whole"), ("03", "ties to even")),
    "Шестнадцать бит": (("05", "Sums that stop growing"),),
    "Softmax и перекрёстная энтропия": (("05", "Gradients that underflow"),),
}
"""Sections of the course that teach a part of the lesson at length, beyond those whose
heading cites the part's claims: part title (a piece of it) -> (notebook, heading piece)."""
BASE = frozenset({"numpy", "matplotlib", "ipywidgets"})
"""What every notebook may use: numpy and the ``notebooks`` extra."""
EXTRAS = {"keras": "keras", "jax": "keras", "scikit-learn": "keras"}
"""The extra that installs a package the notebooks import."""


_PLAN_WORDS = {
    "en": ("part", "min", "claims", "in the course", "total"),
    "ru": ("часть", "мин", "утверждения", "в курсе (на английском)", "итого"),
}
"""The words of a lesson's plan table, by the lesson's language (outline.language)."""


class Markdown(str):
    """Markdown text: Jupyter renders it, ``print`` shows it as it is."""

    def _repr_markdown_(self) -> str:
        return str(self)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def needs(notebook: NotebookLike) -> str:
    """What a notebook needs beyond numpy and the ``notebooks`` extra, in words.

    >>> code = "import keras\\nimport numpy as np"
    >>> needs({"cells": [{"cell_type": "code", "source": code}]})
    'the `keras` extra'
    """
    found = imports(notebook)
    required = sorted({EXTRAS.get(name, name) for name in found.required - BASE})
    optional = sorted({EXTRAS.get(name, name) for name in found.optional - BASE} - set(required))
    words = [f"the `{name}` extra" for name in required]
    words += [f"the `{name}` extra, when installed" for name in optional]
    return "; ".join(words) or "nothing more"


def stated_minutes(notebook: NotebookLike) -> str:
    """The time in class the teacher's box states: ``"35 + 45 min"`` (walk-through plus
    exercises), ``"about 50 min"`` from an older "About 50 minutes", or ``""``."""
    stated = budget(notebook)
    if stated is not None:
        return f"{stated.walkthrough} + {stated.exercises} min"
    plan = lesson_plan(notebook)
    if plan:
        return f"{sum(part.minutes for part in plan)} min"
    for text in markdown_cells(notebook):
        if match := re.search(r"\*\*Duration\.\*\*\s+About (\d+) minutes", text):
            return f"about {match[1]} min"
    return ""


def _exercises(path: Path) -> str:
    """ "6 (45 min) · solutions" for a notebook with six exercises labelled as the scheme
    says; the count alone when some labels do not follow it; "" for none."""
    nb = load(path)
    text = "\n".join(markdown_cells(nb))
    parts = []
    for what in ("Exercise", "Question"):
        names = "|".join([what, *(ru for ru, en in WHAT_RU.items() if en == what)])
        starts = len(re.findall(rf"\*\*(?:{names}) \d+", text))
        found = [task.minutes for _, task in tasks(nb) if task.what == what]
        if starts and (label_problems(nb) or len(found) != starts):
            parts.append(f"{starts} {what.lower()}s")
        elif starts:
            parts.append(f"{starts} {what.lower()}s ({sum(found)} min)")
    answers = path.parent / "solutions" / f"{short_name(path)}-solutions.ipynb"
    if parts and answers.is_file():
        parts.append(f"[solutions](solutions/{answers.name})")
    return " · ".join(parts)


def notebook_table(folder: str | Path | None = None) -> Markdown:
    """The course's notebooks after the index, in order: title, numbered sections, time
    in class (walk-through + exercises), exercises (their number and minutes), needs."""
    rows = [
        "| notebook | sections | time | exercises | needs |",
        "| --- | --- | --- | --- | --- |",
    ]
    for path in course_notebooks(folder):
        if notebook_kind(path) == "index":
            continue
        nb = load(path)
        found = headings(path)
        title = next((s.title for s in found if s.level == 1), path.stem)
        sections = " · ".join(
            f"[§{s.number} {_cell(s.short_title)}]({path.name}#{s.anchor})"
            for s in found
            if s.level == 2 and s.number
        )
        cells = [f"[{_cell(title)}]({path.name})", sections]
        cells += [stated_minutes(nb), _exercises(path), needs(nb)]
        rows.append("| " + " | ".join(cells) + " |")
    return Markdown("\n".join(rows))


def plan_table(
    lesson: str | Path = LESSON,
    folder: str | Path | None = None,
    deeper: dict[str, tuple[tuple[str, str], ...]] | None = None,
    *,
    with_course: bool = True,
) -> Markdown:
    """A lesson's plan: each part (linked) with its minutes and claims and, with
    ``with_course``, the sections of the course whose heading cites those claims and
    those ``deeper`` names (by default :data:`LESSON_DEEPER`); a last row adds the
    minutes up.

    Raises
    ------
    LookupError
        When a section named in ``deeper`` is not in its notebook.
    """
    deeper = LESSON_DEEPER if deeper is None else deeper
    path = find_notebook(lesson, folder)
    plan = lesson_plan(path)
    words = _PLAN_WORDS[language(path)]
    rows = [f"| {' | '.join(words[:4])} |", "| --- | --- | --- | --- |"]
    for part in plan:
        more = list(citing(part.claims, path.parent)) if part.claims and with_course else []
        for piece, refs in deeper.items():
            if with_course and piece.casefold() in part.section.title.casefold():
                more += [section(name, title, folder=path.parent) for name, title in refs]
        links = ", ".join(dict.fromkeys(_cell(s.markdown()) for s in more))
        claims = ", ".join(map(str, part.claims))
        link = f"[{part.section.number}. {_cell(part.section.short_title)}]"
        rows.append(f"| {link}({path.name}#{part.section.anchor}) | {part.minutes} "
                    f"| {claims} | {links} |")  # fmt: skip
    rows.append(f"| {words[4]} | {sum(part.minutes for part in plan)} | | |")
    if not with_course:
        rows = [row.rsplit(" |", 2)[0] + " |" for row in rows]
    return Markdown("\n".join(rows))

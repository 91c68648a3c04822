"""Time in class: exercise labels, exercise budgets, a lesson's plan and a pacing model.

The course labels every exercise (and every in-class question of a lesson) the same way,
so that a teacher can pick by kind, difficulty and time, and a test can add the times up::

    **Exercise 3** (predict, then check; ★★, 10 min). Question text...
    **Question 2** (why; ★, 3 min). Question text...
    **Вопрос 2** (объясните; ★, 3 мин). The same label in the Russian edition...

* the kind (:data:`STEPS`) is what the student does, step by step, joined by ", then ":
  ``compute`` (calculate with the tools the notebook showed), ``predict`` (write the
  answer down before running anything; always followed by ``check``, running it),
  ``why`` (explain a mechanism, with a cell as evidence), ``explore`` (search or
  experiment, no single answer known in advance); for example ``compute, then why``;
* the difficulty (:data:`LEVELS`): ★ one step, done as the notebook showed; ★★ two steps,
  or the notebook's idea applied to a new case; ★★★ open, or an idea beyond the notebook;
* the time a student needs in class, in whole minutes.

Exercises are numbered 1, 2, 3... in each notebook and answered under a heading
``## Exercise N`` of its solutions notebook (questions: ``## Question N``). A notebook
states its budget in its teacher's box as ``**Duration.** Walk-through: W min.
Exercises: E min.``, and E is the sum of its exercises' minutes (:func:`budget`).

A lesson is planned in its level-2 headings, each ending with its minutes
(``## 3. Precision is resolution (claims 4, 5 and 6) · 10 min``): :func:`lesson_plan`.
:func:`content` measures what a part shows (words, code cells, output lines, figures, new
terms of :mod:`fpexplore.course.glossary`) and :class:`Pace` turns it into minutes at the
pace of a class, calibrated on a walk of the lesson (:data:`CALIBRATION`).

Examples
--------
>>> task = parse_label("**Exercise 2** (compute, then why; ★★, 10 min). Why?")
>>> task.steps, task.level, task.minutes
(('compute', 'why'), 2, 10)
>>> parse_label("**Вопрос 4** (предскажите, затем проверьте; ★★, 3 мин). Где?")
Task(what='Question', number=4, steps=('predict', 'check'), level=2, minutes=3)
>>> Pace().minutes(Content(words=1200, code_cells=10, output_lines=40, figures=2, terms=4))
28.0
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .outline import NotebookLike, Section, cell_source, cited_claims, headings, load
from .pace import CALIBRATION, DURATION, Content, Pace, content, walkthrough_content, without_notes

__all__ = [
    "CALIBRATION",
    "LEVELS",
    "STEPS",
    "STEPS_RU",
    "WHAT_RU",
    "Budget",
    "Content",
    "Pace",
    "Part",
    "Task",
    "budget",
    "content",
    "label_problems",
    "lesson_plan",
    "parse_kind",
    "parse_label",
    "part_contents",
    "tasks",
    "walkthrough_content",
    "without_notes",
]

STEPS = ("compute", "predict", "check", "why", "explore")
"""The steps an exercise's kind is made of, joined by ", then "."""
LEVELS = {1: "★", 2: "★★", 3: "★★★"}
"""Difficulty: one step as shown; two steps or a new case; open or beyond the notebook."""

STEPS_RU = {
    "вычислите": "compute",
    "предскажите": "predict",
    "проверьте": "check",
    "объясните": "why",
    "исследуйте": "explore",
}
"""The steps in the Russian edition's labels, joined by ", затем ": the step each names."""
WHAT_RU = {"Упражнение": "Exercise", "Вопрос": "Question"}
"""The Russian edition's "Exercise" and "Question"."""

_WHAT = "Exercise|Question|Упражнение|Вопрос"
_START = re.compile(rf"\*\*({_WHAT}) (\d+)")
_LABEL = re.compile(rf"\*\*({_WHAT}) (\d+)\*\* \(([^;()]+); (★+), (\d+) (?:min|мин)\)\.")
_MINUTES = re.compile(r"^(.*?)\s*·\s*(\d+)\s*(?:min|мин)$")


@dataclass(frozen=True)
class Task:
    """One labelled exercise or question: ``what`` is "Exercise" or "Question"."""

    what: str
    number: int
    steps: tuple[str, ...]
    level: int
    minutes: int


def parse_kind(kind: str) -> tuple[str, ...]:
    """The steps of a kind, ``"predict, then check"`` -> ``("predict", "check")``.

    Raises
    ------
    ValueError
        For a step not in :data:`STEPS`, or ``predict`` not followed by ``check``.
    """
    steps = tuple(STEPS_RU.get(step, step) for step in re.split(", then |, затем ", kind))
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        raise ValueError(f"unknown step {unknown[0]!r} in {kind!r}; expected one of {STEPS}")
    for i, step in enumerate(steps):
        after = steps[i + 1] if i + 1 < len(steps) else None
        before = steps[i - 1] if i else None
        if (step == "predict") != (after == "check") or (step == "check") != (before == "predict"):
            raise ValueError(f"{kind!r}: 'predict' must be followed by 'check', and only it")
    return steps


def parse_label(text: str) -> Task:
    """The :class:`Task` of a label at the start of ``text``.

    Raises
    ------
    ValueError
        When ``text`` does not start with a label of the scheme, saying what is wrong.
    """
    match = _LABEL.match(text)
    if not match:
        raise ValueError(
            f"{text[:70]!r} is not labelled as '**Exercise N** (kind; ★★, M min).' "
            "(kind: steps joined by ', then '; ★ to ★★★; M whole minutes)"
        )
    what, number, kind, stars, minutes = match.groups()
    what = WHAT_RU.get(what, what)
    if len(stars) not in LEVELS:
        raise ValueError(f"{text[:70]!r}: difficulty {stars!r}; expected ★, ★★ or ★★★")
    return Task(what, int(number), parse_kind(kind), len(stars), int(minutes))


def _starts(notebook: NotebookLike) -> list[tuple[int, str]]:
    """(cell index, text from the label on) for every label start in Markdown cells."""
    found = []
    for index, cell in enumerate(load(notebook)["cells"]):
        if cell.get("cell_type") == "markdown":
            text = cell_source(cell)
            found += [(index, text[m.start() :]) for m in _START.finditer(text)]
    return found


def label_problems(notebook: NotebookLike) -> list[str]:
    """What is wrong with the notebook's labels: malformed labels, and numbering that
    does not run 1, 2, 3... (empty when all is well)."""
    problems: list[str] = []
    numbers: dict[str, list[int]] = {"Exercise": [], "Question": []}
    for _, text in _starts(notebook):
        try:
            task = parse_label(text)
        except ValueError as error:
            problems.append(str(error))
            continue
        numbers[task.what].append(task.number)
    for what, found in numbers.items():
        if found != list(range(1, len(found) + 1)):
            problems.append(f"{what}s are numbered {found}; expected 1 to {len(found)} in order")
    return problems


def tasks(notebook: NotebookLike) -> list[tuple[int, Task]]:
    """(cell index, :class:`Task`) for every well-formed label, in order."""
    found = []
    for index, text in _starts(notebook):
        try:
            found.append((index, parse_label(text)))
        except ValueError:
            continue
    return found


@dataclass(frozen=True)
class Budget:
    """A notebook's time in class, from its teacher's box."""

    walkthrough: int
    exercises: int


def budget(notebook: NotebookLike) -> Budget | None:
    """The budget the teacher's box states (``**Duration.** Walk-through: W min.
    Exercises: E min.``), or None when it states none in that form."""
    for cell in load(notebook)["cells"]:
        text = cell_source(cell)
        if cell.get("cell_type") == "markdown" and (m := DURATION.search(text)):
            return Budget(int(m[1]), int(m[2]))
    return None


@dataclass(frozen=True)
class Part:
    """One timed part of a lesson: a level-2 heading ending with "· N min"."""

    section: Section
    minutes: int
    claims: tuple[int, ...]
    cells: range = field(compare=False)


def lesson_plan(notebook: NotebookLike) -> list[Part]:
    """The timed parts of a lesson, in order; empty for a notebook without any. A part's
    cells run from its heading's cell to the next level-2 heading's."""
    nb = load(notebook)
    sections = [s for s in headings(nb) if s.level == 2]
    parts = []
    for k, sec in enumerate(sections):
        match = _MINUTES.match(sec.title)
        if match:
            end = sections[k + 1].cell if k + 1 < len(sections) else len(nb["cells"])
            claims = tuple(cited_claims(sec.title))
            parts.append(Part(sec, int(match[2]), claims, range(sec.cell, end)))
    return parts


def part_contents(notebook: NotebookLike) -> list[tuple[Part, Content, int]]:
    """For each part of a lesson: the part, what it shows, and its tasks' minutes."""
    nb = load(notebook)
    timed = tasks(nb)
    return [
        (part, content(nb, part.cells), sum(t.minutes for i, t in timed if i in part.cells))
        for part in lesson_plan(nb)
    ]

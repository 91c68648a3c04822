"""The course's outline, read from the notebooks themselves.

One job, a little longer than most modules: what the course's notebooks say about
themselves, in either edition's language.

Anything the course says about its own notebooks (which section teaches what, how many
notebooks there are, which ones need Keras) is computed here from the notebook files, so
that it follows the notebooks when they change instead of drifting from them:

* :func:`headings` lists a notebook's Markdown headings with the section number the
  reader sees ("## 3. One line switches ..." is section 3) and the anchor JupyterLab
  gives the heading, so that a link to it opens the right place;
* :func:`section` finds one section by a piece of its title, and
  :meth:`Section.markdown` writes the link ("06 §3 One line switches ...");
* :func:`course_notebooks` lists the course in order, with each notebook's kind
  (the index, a session, a lesson), and :func:`course_counts` counts them;
* :func:`fpexplore.course.requirements.imports` says which packages a notebook imports.

A notebook is named by its file, a path, or the start of its name (``"06"``,
``"lesson-90min"``); it is looked for in the current folder (where a notebook runs) and
then in the installed course (:func:`fpexplore.course.copying.course_source`).

Examples
--------
>>> cell = {"cell_type": "markdown", "source": "# 06 · Keras\\n## 3. One line switches"}
>>> sections = headings({"cells": [cell]}, name="06-keras.ipynb")
>>> sections[1].number, sections[1].title, sections[1].anchor
('3', 'One line switches', '3.-One-line-switches')
>>> sections[1].markdown()
'[06 §3 One line switches](06-keras.ipynb#3.-One-line-switches)'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .copying import course_source

__all__ = [
    "Section",
    "cell_source",
    "cited_claims",
    "citing",
    "course_counts",
    "course_notebooks",
    "find_notebook",
    "headings",
    "language",
    "load",
    "markdown_cells",
    "notebook_kind",
    "section",
    "short_name",
]

NotebookLike = str | Path | dict[str, Any]

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_NUMBERED = re.compile(r"^(\d+)\.\s+(.*)$")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
# "claims 13 and 14" and, in the Russian edition, «утверждения 13 и 14» (any case ending)
_CITATION = re.compile(
    r"\b(?:claims?|утвержден(?:ие|ия|ий|ию|ием|иям|иями|иях|ии))\s+"
    r"(\d+(?:\s*(?:,|and|и|&)\s*\d+)*)",
    re.IGNORECASE,
)
_TRAILER = re.compile(
    r"\s*(?:\((?:claims?|see|утвержден\w*)\b[^)]*\)|·\s*\d+\s*(?:min|мин))\s*$", re.IGNORECASE
)


@dataclass(frozen=True)
class Section:
    """One Markdown heading of a notebook.

    Attributes
    ----------
    notebook : str
        The notebook's file name, ``"06-mixed-precision-keras.ipynb"``.
    level : int
        1 for the title, 2 for a section, 3 for a subsection, ...
    number : str
        The section number the reader sees: the number the heading starts with
        ("## 3. ..." is ``"3"``); a subsection takes its section's number; ``""`` for an
        unnumbered heading (the title, "Exercises", "References").
    title : str
        The heading's text, without its number.
    anchor : str
        The fragment of a link to the heading: its text as rendered, spaces as hyphens,
        as JupyterLab (and the docs site) makes it.
    cell : int
        The index of the Markdown cell that holds the heading.
    """

    notebook: str
    level: int
    number: str
    title: str
    anchor: str
    cell: int = field(default=-1, compare=False)

    @property
    def short_title(self) -> str:
        """The title without a trailing "(claims ...)" or "· N min"."""
        title = self.title
        while (trimmed := _TRAILER.sub("", title)) != title:
            title = trimmed
        return title

    @property
    def label(self) -> str:
        """How the course cites the heading: ``"06 §3"``, or the notebook alone."""
        name = short_name(self.notebook)
        return f"{name} §{self.number}" if self.number else name

    def markdown(self, prefix: str = "") -> str:
        """A Markdown link to the heading; ``prefix`` is put before the file name
        (``"course/"`` from a page of the docs site)."""
        text = f"{self.label} {self.short_title}"
        if self.level > 2 and self.number:
            text = f"{self.label}, {self.short_title}"
        return f"[{text}]({prefix}{self.notebook}#{self.anchor})"


def short_name(notebook: str | Path) -> str:
    """The name the course gives a notebook: its number, or its stem when it has none.

    >>> short_name("04b-computing-in-a-format.ipynb"), short_name("lesson-90min.ipynb")
    ('04b', 'lesson-90min')
    """
    stem = Path(notebook).stem
    head = stem.split("-", 1)[0]
    return head if re.fullmatch(r"\d+[a-z]?", head) else stem


def cell_source(cell: dict[str, Any]) -> str:
    """A cell's text (its source is stored as one string or a list of lines)."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def load(notebook: NotebookLike) -> dict[str, Any]:
    """The notebook as a dict (its JSON), from a dict, a path or a name."""
    if isinstance(notebook, dict):
        return notebook
    return json.loads(find_notebook(notebook).read_text(encoding="utf-8"))


def language(notebook: NotebookLike) -> str:
    """The language a notebook is written in: ``"ru"`` for the Russian edition of a
    lesson (its metadata says ``"fpexplore": {"language": "ru"}``), else ``"en"``.

    >>> language({"cells": [], "metadata": {"fpexplore": {"language": "ru"}}})
    'ru'
    >>> language({"cells": []})
    'en'
    """
    meta = load(notebook).get("metadata", {}).get("fpexplore", {})
    found = meta.get("language", "en") if isinstance(meta, dict) else "en"
    return str(found)


def markdown_cells(notebook: NotebookLike) -> list[str]:
    """The text of every Markdown cell, in order."""
    return [cell_source(c) for c in load(notebook)["cells"] if c.get("cell_type") == "markdown"]


def _search_folders(folder: str | Path | None) -> list[Path]:
    if folder is not None:
        return [Path(folder)]
    folders = [Path.cwd()]
    try:
        folders.append(Path(str(course_source())))
    except FileNotFoundError:
        pass
    return folders


def find_notebook(name: str | Path, folder: str | Path | None = None) -> Path:
    """The path of a notebook given by path, file name or the start of its name.

    Raises
    ------
    FileNotFoundError
        When no notebook matches, or several do (naming them).
    """
    path = Path(name)
    if path.suffix == ".ipynb" and path.is_file() and folder is None:
        return path
    for place in _search_folders(folder):
        if (place / path).is_file():
            return place / path
        if (place / f"{name}.ipynb").is_file():  # "lesson-90min", not "lesson-90min-ru"
            return place / f"{name}.ipynb"
        matches = sorted(place.glob(f"{name}*.ipynb"))
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            names = ", ".join(m.name for m in matches)
            raise FileNotFoundError(f"{str(name)!r} names several notebooks: {names}")
    raise FileNotFoundError(
        f"no notebook {str(name)!r} in {', '.join(map(str, _search_folders(folder)))}; "
        "expected a file name or the start of one, such as '06'"
    )


def _plain(text: str) -> str:
    """A heading's text as rendered: links by their text, no code or emphasis marks."""
    text = _LINK.sub(r"\1", text)
    text = text.replace("`", "")
    return re.sub(r"(?<!\w)[*_]+|[*_]+(?!\w)", "", text)


def headings(notebook: NotebookLike, *, name: str | None = None) -> list[Section]:
    """Every Markdown heading of a notebook, in order (see :class:`Section`).

    Parameters
    ----------
    notebook : str, Path or dict
        The notebook: a path or name (see :func:`find_notebook`), or its JSON as a dict.
    name : str, optional
        The file name to record; by default the file's, or ``"notebook.ipynb"`` for a dict.
    """
    if name is None:
        name = "notebook.ipynb" if isinstance(notebook, dict) else find_notebook(notebook).name
    found: list[Section] = []
    current = ""
    for index, cell in enumerate(load(notebook)["cells"]):
        if cell.get("cell_type") != "markdown":
            continue
        fenced = False
        text = cell_source(cell)
        for line in text.splitlines():
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
            match = None if fenced else _HEADING.match(line)
            if not match:
                continue
            level, heading = len(match[1]), _plain(match[2])
            numbered = _NUMBERED.match(heading)
            if level == 2:
                current = numbered[1] if numbered else ""
            number = numbered[1] if numbered and level == 2 else (current if level > 2 else "")
            title = numbered[2] if numbered and level == 2 else heading
            anchor = "-".join(heading.split())
            found.append(Section(name, level, number, title, anchor, index))
    return found


def section(notebook: NotebookLike, title: str, *, folder: str | Path | None = None) -> Section:
    """The one heading of ``notebook`` whose title contains ``title`` (case and spacing
    ignored).

    Raises
    ------
    LookupError
        When no heading or several headings match, listing the notebook's headings.
    """
    if not isinstance(notebook, dict):
        notebook = find_notebook(notebook, folder)
    found = headings(notebook)
    wanted = " ".join(title.split()).casefold()
    matches = [s for s in found if wanted in " ".join(s.title.split()).casefold()]
    if len(matches) != 1:
        listed = "; ".join(f"{s.label} {s.title}" for s in found if s.level >= 2)
        what = "no heading" if not matches else f"{len(matches)} headings"
        raise LookupError(f"{what} of {found[0].notebook} match {title!r}; it has: {listed}")
    return matches[0]


def notebook_kind(path: str | Path) -> str:
    """``"index"``, ``"session"`` (a numbered notebook of the course) or ``"lesson"``.

    >>> [notebook_kind(n) for n in ("00-index.ipynb", "04b-x.ipynb", "lesson-90min.ipynb")]
    ['index', 'session', 'lesson']
    """
    stem = Path(path).stem
    if "index" in stem:
        return "index"
    return "session" if re.match(r"\d+[a-z]?-", stem) else "lesson"


def course_notebooks(folder: str | Path | None = None) -> list[Path]:
    """The course's notebooks (not the solutions, nor a projector copy), in the order of the
    course: the index, the sessions by number, then the lessons (a lesson's Russian
    edition, ``lesson-90min-ru``, right after it)."""
    places = _search_folders(folder)
    place = next((p for p in places if any(p.glob("*-index.ipynb"))), places[-1])
    order = {"index": 0, "session": 1, "lesson": 2}
    found = [p for p in place.glob("*.ipynb") if not p.stem.endswith("-projector")]
    return sorted(
        found, key=lambda p: (order[notebook_kind(p)], p.stem.removesuffix("-ru"), p.stem)
    )


def course_counts(folder: str | Path | None = None) -> dict[str, int]:
    """How many notebooks the course holds: ``notebooks`` (all, solutions aside),
    ``sessions`` (numbered notebooks, one class session each), ``lessons`` (an edition of
    a lesson in another language, such as ``lesson-90min-ru``, is not another lesson) and
    ``solutions`` (notebooks in ``solutions/``)."""
    notebooks = course_notebooks(folder)
    kinds = [notebook_kind(p) for p in notebooks]
    solutions = list((notebooks[0].parent / "solutions").glob("*.ipynb")) if notebooks else []
    return {
        "notebooks": len(notebooks),
        "sessions": kinds.count("session"),
        "lessons": sum(
            kind == "lesson" and language(path) == "en"
            for kind, path in zip(kinds, notebooks, strict=True)
        ),
        "solutions": len(solutions),
    }


def cited_claims(text: str) -> list[int]:
    """The claims of the source text that ``text`` cites, in order of citation.

    >>> cited_claims("claims 13 and 14, then claim 16 (and claims 2, 3 and 11)")
    [13, 14, 16, 2, 3, 11]
    >>> cited_claims("утверждения 13 и 14, затем утверждение 16")
    [13, 14, 16]
    """
    return [int(n) for match in _CITATION.finditer(text) for n in re.findall(r"\d+", match[1])]


def citing(claims: list[int] | tuple[int, ...], folder: str | Path | None = None) -> list[Section]:
    """The sections and subsections of the course's sessions whose heading cites one of
    ``claims``, in the order of the course."""
    wanted = set(claims)
    return [
        found
        for path in course_notebooks(folder)
        if notebook_kind(path) == "session"
        for found in headings(path)
        if found.level >= 2 and wanted & set(cited_claims(found.title))
    ]

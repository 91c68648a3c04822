"""The Russian edition of the 90-minute lesson, generated from the English one.

The source text of the course is the Russian edition of the book, section 13.2.1, and
its readers are Russian-speaking students. The Russian lesson
(``lesson-90min-ru.ipynb``) and its answer key
(``solutions/lesson-90min-ru-solutions.ipynb``) are not kept by hand: they are the
English notebooks with

* every Markdown cell replaced by its Russian text (:mod:`fpexplore.course.russian_text`,
  keyed by the cell's id, with a hash of the English text it translates: an English
  cell that changed since it was translated is refused until its translation is
  brought up to date);
* every code cell kept, with only the listed exact replacements applied to it (the
  strings it prints, its comments, the lesson's own file name), so that the code, and
  so every number and every check, is the English lesson's.

The terms are settled once, in :data:`fpexplore.course.glossary.GLOSSARY_RU` and
:data:`~fpexplore.course.glossary.TERMINOLOGY_RU`; a translation that uses a synonym
instead is refused too. The command writes both notebooks next to the English ones::

    python -m fpexplore.course.russian             # writes the two notebooks
    python -m fpexplore.course.russian --check     # exit 1 if a committed copy is stale
    python -m fpexplore.course.russian --handout handout-ru.html   # and the handout

(``python -m fpexplore.course.handout --language ru`` writes the Russian handout alone.)

Examples
--------
>>> english = {"cells": [{"cell_type": "markdown", "id": "a", "metadata": {},
...     "source": "Hello"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
>>> text = {"a": (english_hash("Hello"), "Привет")}
>>> translate(english, text, {})["cells"][0]["source"]
['Привет']
>>> translate(english, {"a": ("0" * 12, "Привет")}, {})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
fpexplore.course.russian.TranslationError: notebook: markdown cell a changed since it ...
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import russian_text
from .glossary import terminology_problems
from .outline import cell_source, find_notebook, load
from .tables import LESSON

__all__ = [
    "BOOK_SECTION",
    "EDITIONS",
    "Edition",
    "TranslationError",
    "english_hash",
    "main",
    "russian_notebooks",
    "translate",
    "write_russian_edition",
]

BOOK_SECTION = "13.2.1"
"""The section of the book's Russian edition whose claims the lesson demonstrates."""
Replacements = Mapping[str, tuple[tuple[str, str], ...]]
MarkdownText = Mapping[str, tuple[str, str]]


@dataclass(frozen=True)
class Edition:
    """One notebook of the Russian edition: the English notebook it is made from and the
    Russian one (both relative to the course's folder), with its Markdown (cell id ->
    (hash of the English text, Russian text)) and its code's replacements (cell id ->
    ((English, Russian), ...))."""

    english: str
    russian: str
    markdown: MarkdownText
    code: Replacements


EDITIONS = (
    Edition(
        f"{LESSON}.ipynb",
        f"{LESSON}-ru.ipynb",
        russian_text.LESSON_MARKDOWN,
        russian_text.LESSON_CODE,
    ),
    Edition(
        f"solutions/{LESSON}-solutions.ipynb",
        f"solutions/{LESSON}-ru-solutions.ipynb",
        russian_text.ANSWERS_MARKDOWN,
        russian_text.ANSWERS_CODE,
    ),
)
"""The lesson and its answer key."""


class TranslationError(ValueError):
    """The English notebook and its Russian text no longer match; the message lists
    every cell at fault."""


def english_hash(source: str) -> str:
    """The hash a translation records of the English text it translates: the first 12
    hex digits of its SHA-256."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:12]


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def translate(
    english: dict[str, Any],
    markdown: MarkdownText,
    code: Replacements,
    *,
    name: str = "notebook",
) -> dict[str, Any]:
    """The Russian notebook made from ``english`` (its JSON; left unchanged).

    Raises
    ------
    TranslationError
        When a Markdown cell has no Russian text, or changed since it was translated;
        when a replacement is not found in its code cell; when a translation names a cell
        the notebook lacks; when a Russian text uses a synonym of a settled term.
    """
    nb = copy.deepcopy(english)
    problems: list[str] = []
    ids = set()
    for cell in nb["cells"]:
        key, source = str(cell.get("id")), cell_source(cell)
        ids.add(key)
        if cell["cell_type"] == "markdown":
            if key not in markdown:
                problems.append(f"markdown cell {key} has no Russian text: {source[:60]!r}")
                continue
            recorded, text = markdown[key]
            if recorded != english_hash(source):
                problems.append(
                    f"markdown cell {key} changed since it was translated (hash "
                    f"{english_hash(source)}, translated {recorded}): {source[:60]!r}"
                )
                continue
            problems += [f"cell {key}: {p}" for p in terminology_problems(text)]
            cell["source"] = _lines(text)
        elif cell["cell_type"] == "code":
            for old, new in code.get(key, ()):
                if old not in source:
                    problems.append(f"code cell {key} no longer holds {old!r}")
                    continue
                problems += [f"cell {key}: {p}" for p in terminology_problems(new)]
                source = source.replace(old, new)
            cell["source"] = _lines(source)
    stale = sorted((set(markdown) | set(code)) - ids)
    problems += [f"a translation names cell {key}, which the English lacks" for key in stale]
    if problems:
        raise TranslationError(f"{name}: " + "; ".join(problems))
    meta = nb.setdefault("metadata", {})
    meta["fpexplore"] = {"language": "ru", "translated_from": name}
    return nb


def _dumps(nb: dict[str, Any]) -> str:
    """A notebook's JSON as nbformat writes it (so that Jupyter saves it unchanged)."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def russian_notebooks(folder: str | Path | None = None) -> dict[Path, str]:
    """The Russian edition's notebooks as they should be: path -> their JSON text, read
    from the English notebooks in ``folder`` (by default the course's, as
    :func:`~fpexplore.course.outline.find_notebook` finds the lesson).

    Raises
    ------
    FileNotFoundError
        When the English lesson is not found.
    TranslationError
        See :func:`translate`.
    """
    place = Path(folder) if folder is not None else find_notebook(LESSON).parent
    written = {}
    for edition in EDITIONS:
        english = load(place / edition.english)
        made = translate(english, edition.markdown, edition.code, name=edition.english)
        written[place / edition.russian] = _dumps(made)
    return written


def write_russian_edition(folder: str | Path | None = None, *, check: bool = False) -> list[Path]:
    """Write the Russian edition's notebooks (see :func:`russian_notebooks`); with
    ``check``, write nothing and return those whose file is missing or differs."""
    found = []
    for path, text in russian_notebooks(folder).items():
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current != text:
            found.append(path)
            if not check:
                path.write_text(text, encoding="utf-8")
    return found if check else list(russian_notebooks(folder))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m fpexplore.course.russian [--folder DIR] [--check] [--handout PATH]``."""
    parser = argparse.ArgumentParser(
        prog="python -m fpexplore.course.russian",
        description="Write the Russian edition of the 90-minute lesson and its answer key.",
    )
    parser.add_argument("--folder", help="the course's folder (default: where the lesson is)")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a copy is missing or stale"
    )
    parser.add_argument("--handout", help="also write the Russian handout (HTML) there")
    args = parser.parse_args(argv)
    try:
        paths = write_russian_edition(args.folder, check=args.check)
        if args.handout and not args.check:
            from .handout import handout_html

            Path(args.handout).write_text(handout_html("ru"), encoding="utf-8")
            paths.append(Path(args.handout))
    except (FileNotFoundError, TranslationError) as error:
        print(f"russian: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"russian: cannot write {error.filename}: {error.strerror}", file=sys.stderr)
        return 2
    if args.check:
        for path in paths:
            print(f"russian: {path} is stale: run python -m fpexplore.course.russian")
        return 1 if paths else 0
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The Russian edition of the 90-minute lesson, its answer key and its handout: generated
from the English ones (fpexplore.course.russian), so that their code, numbers and checks
are shared; every Markdown cell translated, the terms settled once, every claim linked to
the book's section 13.2.1, and the same plan and pace as the English lesson.

tests/test_notebooks.py runs both Russian notebooks (tests/notebook_runs.py lists them
with the course) and measures the lesson's parts after running, as for the English one.
"""

from __future__ import annotations

import ast
import copy
import json
import re
import shutil
import string
from pathlib import Path

import pytest

from fpexplore.course import glossary, handout, outline, pacing, projector, russian
from fpexplore.course import tables as course_tables
from fpexplore.course.pace import Pace, without_notes
from tests.notebook_runs import course_notebooks

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
LESSON = NOTEBOOKS / f"{course_tables.LESSON}.ipynb"
LESSON_RU = NOTEBOOKS / f"{course_tables.LESSON}-ru.ipynb"
ANSWERS = NOTEBOOKS / "solutions" / f"{course_tables.LESSON}-solutions.ipynb"
ANSWERS_RU = NOTEBOOKS / "solutions" / f"{course_tables.LESSON}-ru-solutions.ipynb"
PAIRS = [(LESSON, LESSON_RU), (ANSWERS, ANSWERS_RU)]
CYRILLIC = re.compile(r"[А-Яа-яЁё]")


def _ids(pair: tuple[Path, Path]) -> str:
    return pair[1].name


def _cells(path: Path) -> list[dict]:
    return outline.load(path)["cells"]


def _markdown(path: Path) -> str:
    return "\n".join(outline.markdown_cells(path))


def _code(path: Path) -> str:
    return "\n".join(outline.cell_source(c) for c in _cells(path) if c["cell_type"] == "code")


def _strings_blanked(source: str) -> str:
    """The code's syntax tree with every string constant emptied (comments are not in
    it): two cells that differ only in their strings and comments give the same dump."""
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("%"))
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
    return ast.dump(tree)


# --- generated, and current ---------------------------------------------------------------


def test_the_committed_copies_are_what_the_generator_makes() -> None:
    """Run ``python -m fpexplore.course.russian`` after changing the English lesson or
    fpexplore/course/russian_text.py, and commit what it writes."""
    made = russian.russian_notebooks(NOTEBOOKS)
    assert sorted(made) == sorted(russian for _, russian in PAIRS)
    for path, text in made.items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name} is stale"
    assert russian.main(["--check", "--folder", str(NOTEBOOKS)]) == 0


def test_the_command_writes_the_edition(tmp_path: Path, capsys) -> None:
    for english, _ in PAIRS:
        target = tmp_path / english.relative_to(NOTEBOOKS)
        target.parent.mkdir(exist_ok=True)
        shutil.copyfile(english, target)
    handout_page = tmp_path / "handout-ru.html"
    argv = ["--folder", str(tmp_path), "--handout", str(handout_page)]
    assert russian.main(argv) == 0
    written = capsys.readouterr().out.split()
    assert len(written) == 3 and str(handout_page) in written
    for _, ours in PAIRS:
        made = tmp_path / ours.relative_to(NOTEBOOKS)
        assert made.read_text(encoding="utf-8") == ours.read_text(encoding="utf-8")
    assert handout_page.read_text(encoding="utf-8") == handout.handout_html("ru")
    (tmp_path / LESSON_RU.name).write_text("{}", encoding="utf-8")
    assert russian.main(["--check", "--folder", str(tmp_path)]) == 1
    assert "is stale" in capsys.readouterr().out


def _english() -> dict:
    return copy.deepcopy(outline.load(LESSON))


def _translate(nb: dict) -> dict:
    edition = russian.EDITIONS[0]
    return russian.translate(nb, edition.markdown, edition.code, name=edition.english)


def test_the_generator_refuses_a_changed_english_cell() -> None:
    nb = _english()
    cell = next(c for c in nb["cells"] if c["id"] == "12")
    cell["source"] = outline.cell_source(cell) + " A new sentence."
    with pytest.raises(russian.TranslationError, match="markdown cell 12 changed"):
        _translate(nb)


def test_the_generator_refuses_an_untranslated_cell_and_a_lost_replacement() -> None:
    nb = _english()
    nb["cells"].insert(3, {"cell_type": "markdown", "id": "new", "metadata": {}, "source": "X"})
    code = next(c for c in nb["cells"] if c["id"] == "35")
    code["source"] = outline.cell_source(code).replace('"float16 sum:"', '"the sum:"')
    with pytest.raises(russian.TranslationError) as error:
        _translate(nb)
    assert "markdown cell new has no Russian text" in str(error.value)
    assert "code cell 35 no longer holds '\"float16 sum:\"'" in str(error.value)


def test_the_generator_refuses_a_stale_entry_and_a_synonym() -> None:
    nb = _english()
    nb["cells"] = [c for c in nb["cells"] if c["id"] != "63"]
    edition = russian.EDITIONS[0]
    text = dict(edition.markdown)
    recorded, words = text["19"]
    text["19"] = (recorded, words.replace("субнормальные", "денормализованные"))
    with pytest.raises(russian.TranslationError) as error:
        russian.translate(nb, text, edition.code)
    assert "names cell 63, which the English lacks" in str(error.value)
    assert "'денормализованные' where the settled term is 'субнормальное число'" in str(error.value)


def test_the_english_notebooks_are_left_alone() -> None:
    for english, _ in PAIRS:
        before = english.read_bytes()
        russian.russian_notebooks(NOTEBOOKS)
        assert english.read_bytes() == before


# --- what is translated, and what is shared -----------------------------------------------


@pytest.mark.parametrize("pair", PAIRS, ids=_ids)
def test_every_markdown_cell_is_translated(pair: tuple[Path, Path]) -> None:
    english, ours = (_cells(p) for p in pair)
    assert [(c["id"], c["cell_type"]) for c in english] == [(c["id"], c["cell_type"]) for c in ours]
    for en, ru in zip(english, ours, strict=True):
        if en["cell_type"] != "markdown":
            continue
        text = outline.cell_source(ru)
        assert text != outline.cell_source(en), f"cell {en['id']} is not translated"
        prose = re.sub(r"`[^`]*`|\$[^$]*\$|\]\([^)]*\)", "", text)
        assert CYRILLIC.search(prose), f"cell {en['id']} has no Russian: {text[:60]!r}"
        english_words = re.findall(r"\b(?:the|and|of|is|with|which|that)\b", prose)
        assert not english_words, f"cell {en['id']} keeps English: {english_words}"
    meta = outline.load(pair[1])["metadata"]
    assert meta["fpexplore"] == {
        "language": "ru",
        "translated_from": pair[0].relative_to(NOTEBOOKS).as_posix(),
    }
    assert outline.language(pair[1]) == "ru" and outline.language(pair[0]) == "en"


@pytest.mark.parametrize("pair", PAIRS, ids=_ids)
def test_the_code_is_the_english_code_with_only_its_strings_replaced(
    pair: tuple[Path, Path],
) -> None:
    edition = next(e for e in russian.EDITIONS if e.russian.endswith(pair[1].name))
    for en, ru in zip(_cells(pair[0]), _cells(pair[1]), strict=True):
        if en["cell_type"] != "code":
            continue
        source = outline.cell_source(en)
        for old, new in edition.code.get(en["id"], ()):
            assert old in source and old != new
            source = source.replace(old, new)
        assert outline.cell_source(ru) == source
        assert _strings_blanked(outline.cell_source(ru)) == _strings_blanked(
            outline.cell_source(en)
        ), f"cell {en['id']}: more than strings and comments changed"


def test_the_printed_strings_are_russian() -> None:
    """Every replacement that puts words in a printed string puts Russian ones, and the
    lesson's code names the Russian lesson and glossary."""
    for edition in russian.EDITIONS:
        for pairs in edition.code.values():
            for old, new in pairs:
                if re.search(r"[A-Za-z]{3,} [a-z]{2,}", old) and "lesson-90min" not in old:
                    assert CYRILLIC.search(new), (old, new)
    code = _code(LESSON_RU)
    assert 'lesson_plan("lesson-90min-ru.ipynb")' in code
    assert 'plan_table("lesson-90min-ru.ipynb")' in code
    assert 'glossary_markdown("ru")' in code and "lesson-90min.ipynb" not in code


# --- terms --------------------------------------------------------------------------------


def test_the_russian_glossary_has_every_term_once() -> None:
    assert len(glossary.GLOSSARY_RU) == len(glossary.GLOSSARY)
    names = [t.name for t in glossary.GLOSSARY_RU]
    assert len(set(names)) == len(names)
    for term in (*glossary.GLOSSARY_RU, *glossary.TERMINOLOGY_RU):
        assert not term.avoided(term.name) and not term.avoided(term.meaning), term.name
    settled = {t.name for t in (*glossary.GLOSSARY_RU, *glossary.TERMINOLOGY_RU)}
    for word in (
        "мантисса",
        "порядок",
        "половинная точность",
        "одинарная точность",
        "двойная точность",
        "субнормальное число",
        "машинный эпсилон",
        "смещение порядка",
        "переполнение",
        "исчезновение порядка",
        "бит знака",
        "округление к ближайшему",
    ):
        assert word in settled, word


def test_the_russian_lesson_meets_each_term_where_the_english_does() -> None:
    """The pace model counts a new term where the lesson first uses it: both editions
    meet the same terms in the same cells, so their parts cost the same."""

    def met(path: Path) -> dict[int, list[str]]:
        found = glossary.first_uses(without_notes(path))
        return {index: [t.name for t in terms] for index, terms in found.items()}

    assert met(LESSON_RU) == met(LESSON)
    assert sum(len(names) for names in met(LESSON_RU).values()) == len(glossary.GLOSSARY)


def _edition_text() -> str:
    texts = [_markdown(p) for p in (LESSON_RU, ANSWERS_RU)]
    for edition in russian.EDITIONS:
        texts += [new for pairs in edition.code.values() for _, new in pairs]
    return "\n".join([*texts, handout.handout_html("ru")])


def test_the_settled_terms_are_used_and_no_synonym() -> None:
    text = _edition_text()
    assert glossary.terminology_problems(text) == []
    for term in glossary.TERMINOLOGY_RU:
        assert term.found(text), f"the edition never says {term.name!r}"
    lesson = _markdown(LESSON_RU)
    for term in glossary.GLOSSARY_RU:
        assert term.found(lesson), f"the lesson never says {term.name!r}"


def test_the_lesson_prints_the_russian_glossary() -> None:
    printed = glossary.glossary_markdown("ru")
    assert printed == glossary.glossary_markdown(glossary.GLOSSARY_RU)
    for term in glossary.GLOSSARY_RU:
        assert f"- **{term.name}**: {term.meaning}" in printed
    assert "## Глоссарий" in _markdown(LESSON_RU)
    assert "[глоссарии](#Глоссарий)" in outline.markdown_cells(LESSON_RU)[0]


# --- claims, plan and pace ----------------------------------------------------------------


def test_every_claim_is_linked_to_the_books_section() -> None:
    box = outline.markdown_cells(LESSON_RU)[0]
    assert f"раздела {russian.BOOK_SECTION} книги" in box
    cells = _cells(LESSON_RU)
    plan = pacing.lesson_plan(LESSON_RU)
    assert [c for part in plan for c in part.claims] == list(range(1, 17))
    for part in plan:
        if part.claims:
            opening = outline.cell_source(cells[part.section.cell])
            assert russian.BOOK_SECTION in opening, f"part {part.section.number}"
    cited = set(outline.cited_claims(_markdown(LESSON_RU)))
    assert cited == set(range(1, 17))


def test_the_plan_and_the_questions_are_the_english_ones() -> None:
    english, ours = pacing.lesson_plan(LESSON), pacing.lesson_plan(LESSON_RU)
    assert [(p.section.number, p.minutes, p.claims) for p in ours] == [
        (p.section.number, p.minutes, p.claims) for p in english
    ]
    assert sum(part.minutes for part in ours) == 90
    assert pacing.label_problems(LESSON_RU) == []
    assert [t for _, t in pacing.tasks(LESSON_RU)] == [t for _, t in pacing.tasks(LESSON)]
    answered = [s.title for s in outline.headings(ANSWERS_RU) if s.level == 2]
    assert answered == [f"Вопрос {n}" for n in range(1, 11)]
    assert projector.answer_cells(LESSON_RU) == projector.answer_cells(LESSON)
    titles = [p.section.short_title for p in ours]
    assert titles[0] == "Разминка" and titles[-1] == "Билет на выход"


def test_every_part_says_what_to_cut_if_late() -> None:
    cells = _cells(LESSON_RU)
    for part in pacing.lesson_plan(LESSON_RU):
        text = "\n".join(outline.cell_source(cells[i]) for i in part.cells)
        assert "> **Если не успеваете.**" in text, f"part {part.section.number}"


def test_the_pace_model_gives_the_russian_lesson_its_90_minutes_or_less() -> None:
    """Measured before running (tests/test_notebooks.py measures again with the
    outputs): each part fits its minutes, and the Russian text takes no longer than the
    English; the teacher's notes are not counted, in either language."""
    pace = Pace()
    english = pacing.part_contents(LESSON)
    ours = pacing.part_contents(LESSON_RU)
    for (part, shown, questions), (_, shown_en, _) in zip(ours, english, strict=True):
        assert pace.minutes(shown) + questions <= part.minutes, part.section.title
        assert shown.words <= shown_en.words * 1.05, part.section.title
        assert (shown.code_cells, shown.terms) == (shown_en.code_cells, shown_en.terms)
    total = sum(pace.minutes(s) + q for _, s, q in ours)
    assert total <= sum(pace.minutes(s) + q for _, s, q in english) <= 90
    box = outline.markdown_cells(LESSON_RU)[0]
    assert "120 слов" in box and "1.2 минуты" in box and "полминуты" in box


def test_the_russian_notes_for_the_teacher_are_not_read_to_the_class() -> None:
    cell = {"cell_type": "markdown", "source": "Текст.\n\n> **Если не успеваете.** Это.\n> И это."}
    box = {"cell_type": "markdown", "source": "> **Для преподавателя**\n> мантисса"}
    nb = without_notes({"cells": [cell, box]})
    assert [outline.cell_source(c) for c in nb["cells"]] == ["Текст.\n\n", ""]


def test_the_outline_reads_the_russian_lesson() -> None:
    sections = [s for s in outline.headings(LESSON_RU) if s.level == 2]
    assert [s.number for s in sections if s.number] == [str(n) for n in range(10)]
    table = course_tables.plan_table(LESSON_RU, NOTEBOOKS)
    assert table.startswith("| часть | мин | утверждения |") and "| итого | 90 |" in table
    assert table.count("ipynb#") > 16
    warm_up = table.splitlines()[2]
    assert "04b-computing-in-a-format.ipynb#" in warm_up  # LESSON_DEEPER reads Russian too
    assert outline.find_notebook(course_tables.LESSON, NOTEBOOKS) == LESSON
    assert outline.find_notebook(f"{course_tables.LESSON}-ru", NOTEBOOKS) == LESSON_RU
    names = [p.name for p in outline.course_notebooks(NOTEBOOKS)]
    assert LESSON_RU.name in names and outline.notebook_kind(LESSON_RU) == "lesson"
    assert f"]({LESSON_RU.name})" in course_tables.notebook_table(NOTEBOOKS)


def test_the_notebook_tests_run_the_russian_edition() -> None:
    assert {LESSON_RU, ANSWERS_RU} <= set(course_notebooks())


def test_the_teachers_box_says_what_to_project_and_what_is_needed() -> None:
    box = outline.markdown_cells(LESSON_RU)[0]
    assert "python -m fpexplore.course.projector lesson-90min-ru" in box
    assert "lesson-90min-ru-projector.ipynb" in box
    assert "python -m fpexplore.course.russian" in box and "russian_text.py" in box
    for needed in ("Sequential", "Dense", "логиты", "softmax", "перекрёстная энтропия", "Adam"):
        assert needed in box, needed
    text = " ".join(_markdown(LESSON_RU).split())
    assert "нет быстрого пути для float16" in text
    assert "снова делят на $S$, в float32" in text and "удваивается" in text
    assert "были сформулированы, но не измерены" in text


def test_the_projector_copy_of_the_russian_lesson_says_so_in_russian() -> None:
    copied = projector.projector_notebook(outline.load(LESSON_RU))
    assert outline.cell_source(copied["cells"][0]) == projector.NOTE_RU
    assert CYRILLIC.search(projector.NOTE_RU)


@pytest.mark.parametrize("path", [LESSON_RU, ANSWERS_RU], ids=lambda p: p.name)
def test_no_broken_latex(path: Path) -> None:
    for text in outline.markdown_cells(path):
        plain = re.sub(r"`[^`]*`", "", text)
        assert plain.count("$") % 2 == 0, f"unbalanced $ in {text[:80]!r}"


# --- the handout --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page() -> str:
    return handout.handout_html("ru")


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_the_russian_handout_has_the_english_numbers(page: str) -> None:
    from fpexplore.course import russian_text

    assert _fields(russian_text.HANDOUT_PAGE) == _fields(handout.PAGE)
    english, ours = handout.handout_numbers("en"), handout.handout_numbers("ru")
    shared = {"layout", "format_rows", "glossary"}
    assert {k: v for k, v in ours.items() if k not in shared} == {
        k: v for k, v in english.items() if k not in shared
    }
    for value in ours.values():
        assert value in page


def test_the_russian_handout_stands_alone_in_russian(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>") and '<html lang="ru">' in page
    assert not re.search(r"<(script|link|img)\b", page) and "{" not in page.split("</style>")[1]
    assert "В нормализованном диапазоне в каждой бинаде" in page
    for term in glossary.GLOSSARY_RU:
        assert f"<b>{term.name}</b>" in page
    for word in ("порядок 8", "мантисса 23", ">з<", ">п4<"):
        assert word in handout.bit_layout_svg(language="ru"), word
    prose = re.sub(r"<code>.*?</code>|<[^>]+>", " ", page.split("</style>")[1])
    prose = re.sub(r"\([^()А-Яа-яЁё]*\)", " ", prose)  # an English gloss: (not a number)
    assert not re.findall(r"\b(?:the|and|of|is|with)\b", prose)


def test_the_handout_command_writes_the_russian_page(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert handout.main(["--language", "ru"]) == 0
    assert capsys.readouterr().out.strip() == "handout-ru.html"
    assert (tmp_path / "handout-ru.html").read_text(encoding="utf-8") == handout.handout_html("ru")
    with pytest.raises(ValueError, match="no handout in 'fr'"):
        handout.handout_html("fr")


def test_the_generated_json_is_what_jupyter_writes() -> None:
    for _, ours in PAIRS:
        text = ours.read_text(encoding="utf-8")
        assert (
            text
            == json.dumps(json.loads(text), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        )

"""Copying the notebook course: ``fpexplore --course DIR`` and fpexplore.course.copying."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fpexplore.cli import main
from fpexplore.course import copying as course


@pytest.fixture
def fake_course(tmp_path, monkeypatch):
    """A small course folder standing in for the real notebooks."""
    source = tmp_path / "source"
    (source / "solutions").mkdir(parents=True)
    (source / ".ipynb_checkpoints").mkdir()
    for name in ("00-index.ipynb", "01-anatomy.ipynb", "solutions/01-anatomy.ipynb"):
        (source / name).write_text(json.dumps({"cells": [], "name": name}))
    (source / "data.csv").write_text("x\n1\n")
    (source / ".ipynb_checkpoints" / "00-index-checkpoint.ipynb").write_text("{}")
    monkeypatch.setattr(course, "course_source", lambda: source)
    return source


def test_the_real_course_is_found():
    source = course.course_source()
    names = [item.name for item in source.iterdir()]
    assert "00-index.ipynb" in names, names
    assert "solutions" in names, names


def test_the_real_course_copy_is_self_sufficient(tmp_path):
    """Every script the notebooks tell the student to run is in the copied course, at
    the path they give, and the same file as in the repository."""
    repo = Path(__file__).resolve().parents[2]
    dest = tmp_path / "fp-course"
    copied = course.copy_course(dest)
    for companion in course.COMPANIONS:
        assert dest / companion in copied
        assert (dest / companion).read_bytes() == (repo / companion).read_bytes()
    scripts = set()
    for notebook in sorted(dest.rglob("*.ipynb")):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            text = "".join(cell["source"])
            scripts |= set(re.findall(r"\bpython\s+(?:-\S+\s+)*([\w./-]+\.py)\b", text))
    missing = sorted(script for script in scripts if not (dest / script).is_file())
    assert not missing, f"the notebooks run scripts the copied course lacks: {missing}"


def test_the_wheel_ships_the_companions():
    tomllib = pytest.importorskip("tomllib")
    repo = Path(__file__).resolve().parents[2]
    config = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))
    include = config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert include["notebooks"] == "fpexplore/_course"
    for companion in course.COMPANIONS:
        assert (repo / companion).is_file()
        assert include[companion] == f"fpexplore/_course/{companion}"


def test_copy_course_copies_every_file_but_checkpoints(fake_course, tmp_path):
    dest = tmp_path / "my-course"
    copied = course.copy_course(dest)
    relative = sorted(path.relative_to(dest).as_posix() for path in copied)
    assert relative == [
        "00-index.ipynb",
        "01-anatomy.ipynb",
        "data.csv",
        "solutions/01-anatomy.ipynb",
    ]
    assert (dest / "solutions/01-anatomy.ipynb").read_text() == (
        fake_course / "solutions/01-anatomy.ipynb"
    ).read_text()
    assert course.index_notebook(dest) == dest / "00-index.ipynb"


def test_into_an_existing_empty_folder(fake_course, tmp_path):
    dest = tmp_path / "empty"
    dest.mkdir()
    assert len(course.copy_course(dest)) == 4


def test_non_empty_folder_needs_force(fake_course, tmp_path):
    dest = tmp_path / "busy"
    dest.mkdir()
    (dest / "00-index.ipynb").write_text("my edits")
    (dest / "notes.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match="not empty"):
        course.copy_course(dest)
    assert (dest / "00-index.ipynb").read_text() == "my edits"
    course.copy_course(dest, force=True)
    assert (dest / "00-index.ipynb").read_text() != "my edits"
    assert (dest / "notes.txt").read_text() == "keep me"


def test_a_file_is_not_a_folder(fake_course, tmp_path):
    target = tmp_path / "course.txt"
    target.write_text("")
    with pytest.raises(FileExistsError, match="not a folder"):
        course.copy_course(target, force=True)


def test_index_notebook_falls_back_to_the_first(tmp_path):
    assert course.index_notebook(tmp_path) is None
    (tmp_path / "02-b.ipynb").write_text("{}")
    (tmp_path / "01-a.ipynb").write_text("{}")
    assert course.index_notebook(tmp_path) == tmp_path / "01-a.ipynb"


def test_cli_copies_and_says_how_to_open(fake_course, tmp_path, capsys):
    dest = tmp_path / "class"
    assert main(["--course", str(dest)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "copied 3 notebooks (4 files)" in out
    assert f"jupyter lab {dest / '00-index.ipynb'}" in out
    assert (dest / "01-anatomy.ipynb").exists()


def test_cli_refuses_a_non_empty_folder_without_force(fake_course, tmp_path, capsys):
    dest = tmp_path / "class"
    dest.mkdir()
    (dest / "homework.ipynb").write_text("{}")
    assert main(["--course", str(dest)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("fpexplore: error: ")
    assert "--force" in err
    assert sorted(path.name for path in dest.iterdir()) == ["homework.ipynb"]
    assert main(["--course", str(dest), "--force"]) == 0
    assert (dest / "00-index.ipynb").exists() and (dest / "homework.ipynb").exists()


def test_cli_reports_a_missing_course(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(course, "_has_notebooks", lambda folder: False)
    with pytest.raises(course.CourseNotFoundError):
        course.course_source()
    assert main(["--course", str(tmp_path / "x")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "course was not found" in err
    assert not Path(tmp_path / "x").exists()


def test_course_options_that_do_not_apply(capsys, tmp_path):
    assert main(["--course", str(tmp_path), "--json"]) == 2
    assert main(["--course", str(tmp_path), "-f", "half"]) == 2
    assert main(["1", "--course", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 3


def test_cli_reports_an_unwritable_target(fake_course, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["--course", str(blocker / "course")]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("fpexplore: error: ")
    assert "Traceback" not in err

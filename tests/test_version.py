"""One version number: ``pyproject.toml``, ``fpexplore.__version__`` (which the docs
site's header shows) and the changelog's newest release agree, numbered
MAJOR.MINOR.PATCH as semantic versioning says."""

from __future__ import annotations

import re
from pathlib import Path

import fpexplore

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_is_one_number_everywhere() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    declared = re.search(r'^version = "([^"]+)"', pyproject, re.MULTILINE)
    assert declared is not None
    assert declared[1] == fpexplore.__version__
    assert re.fullmatch(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)", fpexplore.__version__)


def test_the_changelog_names_every_release_newest_first() -> None:
    changelog = (ROOT / "docs" / "changelog.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## (\d+\.\d+\.\d+)\b", changelog, re.MULTILINE)
    assert releases and releases[0] == fpexplore.__version__, releases
    as_tuples = [tuple(map(int, r.split("."))) for r in releases]
    assert as_tuples == sorted(as_tuples, reverse=True), releases

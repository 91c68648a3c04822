"""The README's figures are current: ``docs/figures/make_figures.py`` draws them again and
they match what is committed (the data they show under any matplotlib release, the SVG
bytes under the release that drew them)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "docs" / "figures"


def _make_figures():
    spec = importlib.util.spec_from_file_location("make_figures", FOLDER / "make_figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def drawn():
    return _make_figures().draw()


def test_the_figures_show_what_fpexplore_computes(drawn) -> None:
    """The decoded fields, the report's SNR grid and the curves, as committed."""
    _, data = drawn
    committed = json.loads((FOLDER / "figures.json").read_text(encoding="utf-8"))
    for key in ("decode", "checkpoint_report", "learning_curves"):
        assert data[key] == committed[key], f"{key}: run python docs/figures/make_figures.py"
    assert data["decode"] == {"sign": 0, "exponent": 128, "mantissa": 4788176}  # the tour's


def test_the_svgs_are_current(drawn) -> None:
    import matplotlib

    svgs, _ = drawn
    recorded = json.loads((FOLDER / "figures.json").read_text(encoding="utf-8"))["matplotlib"]
    if matplotlib.__version__ != recorded:
        pytest.skip(f"drawn with matplotlib {recorded}, this is {matplotlib.__version__}")
    for name, svg in svgs.items():
        stale = f"{name}: run python docs/figures/make_figures.py"
        assert (FOLDER / name).read_bytes() == svg, stale


def test_the_readme_shows_every_figure() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"!\[[^\]]*\]\(docs/figures/([\w.-]+)\)", readme))
    assert shown == set(_make_figures().FIGURES)
    assert all((FOLDER / name).is_file() for name in shown)

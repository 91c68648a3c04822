"""``fpexplore --plot`` at the edges: a figure that cannot be drawn over the asked
range is one line on stderr and exit 2 (and no file); a drawn one prints nothing
on stderr, warnings of numpy and matplotlib included."""

from __future__ import annotations

import pytest

from fpexplore.cli.main import main

pytest.importorskip("matplotlib")


@pytest.mark.parametrize(
    "argv",
    [["--plot", "relative_error", "--range", "1e-320", "1e308"],
     ["--plot", "error_histogram", "--range", "-1e308", "1e308"]],
)  # fmt: skip
def test_undrawable_range_is_one_line(capsys, tmp_path, argv) -> None:
    target = tmp_path / "figure.png"
    assert main([*argv, "-o", str(target)]) == 2
    _, err = capsys.readouterr()
    assert len(err.splitlines()) == 1 and err.startswith("fpexplore: error: --plot")
    assert not target.exists()


@pytest.mark.parametrize(
    "argv",
    [["--plot", "absolute_error", "-f", "float64"],
     ["--plot", "relative_error", "--range", "5e-324", "1e-323", "-f", "float64"]],
)  # fmt: skip
def test_drawn_figures_print_nothing_on_stderr(capsys, tmp_path, argv) -> None:
    target = tmp_path / "figure.png"
    assert main([*argv, "-o", str(target)]) == 0
    assert capsys.readouterr().err == ""
    assert target.stat().st_size > 0

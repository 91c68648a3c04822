"""The fpexplore command over random command lines: exit 0 with nothing on
stderr, or exit 2 with exactly one line on stderr."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fpexplore.cli.main import main
from tests.cpu_time import within
from tests.fuzz.strategies import FORMAT_NAMES, FUZZ, number_texts

OPTIONS = ["-f", "--bits", "--count", "--json", "--rounding", "--saturate", "--list-formats",
           "--color", "--range", "-h", "--version", "--frobnicate", "-", "--"]  # fmt: skip
WORDS = ["all", "never", "always", "up", "down", "nearest_away", "toward_zero", "stochastic",
         "0x3C00", "0b1", "0 1111 000", "half", "e4m3", "fp4", "nope", "", " ", "fp8", "mxfp4",
         "nvfp4", "mxint8", "2**-24", "2^3", "-2**2", "1e-3 * 2**10", "sqrt(-1)", "nan + 1",
         "1 + 1_", "e2m1,e3m2", "0x7C00"]  # fmt: skip

tokens = st.one_of(
    st.sampled_from(OPTIONS),
    st.sampled_from(WORDS),
    st.sampled_from(FORMAT_NAMES),
    number_texts().filter(lambda t: len(t) < 5000),
    st.text(max_size=8),
)


@settings(FUZZ, max_examples=600, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(tokens, max_size=6))
def test_random_command_lines(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    def run() -> int:
        capsys.readouterr()  # a second try starts from empty streams
        return main(argv)

    status, _ = within(run, 2.0)
    _, err = capsys.readouterr()
    assert status in (0, 2), (argv, status, err)
    if status == 2:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("fpexplore: error: "), (argv, err)
    else:
        assert err == "", (argv, err)


@pytest.mark.parametrize(
    "argv",
    [["1e400", "-f", "fp4"], ["1e99999999999999999999"], ["-1e-99999999999999999999", "-f", "all"],
     ["0." + "1" * 100_000], ["--count", "0", "1e5000", "-f", "float64"], ["1/" + "9" * 5000]],
)  # fmt: skip
def test_edge_values_exit_0(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert main(argv) == 0
    assert capsys.readouterr().err == ""


# -- fpexplore report ------------------------------------------------------------------

REPORT_OPTIONS = ["-f", "--format", "--scaling", "--axis", "--top", "--min-snr", "--json",
                  "--csv", "--no-progress", "-h", "--frobnicate", "--"]  # fmt: skip
REPORT_WORDS = ["e4m3", "e5m2,mxfp4", "nvfp4", "bf16", "mxfp4", "fp8", "nope", "", ",", "none",
                "per_tensor,block", "block", "-1", "0", "1", "3", "nan", "1e400", "x"]  # fmt: skip


@pytest.fixture(scope="module")
def report_files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Small real files (a .npy, an .npz, a truncated .npy), a folder, a missing path."""
    import numpy as np

    folder = tmp_path_factory.mktemp("report")
    rng = np.random.default_rng(0)
    np.save(folder / "w.npy", rng.standard_normal((8, 40)).astype(np.float32))
    np.savez(folder / "m.npz", a=rng.standard_normal(70), b=np.arange(4), c=np.zeros((0, 3)))
    (folder / "cut.npy").write_bytes((folder / "w.npy").read_bytes()[:100])
    return [str(folder / name) for name in ("w.npy", "m.npz", "cut.npy", "missing.npy")] + [
        str(folder)
    ]


@settings(FUZZ, max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_random_report_command_lines(
    capsys: pytest.CaptureFixture[str], report_files: list[str], data: st.DataObject
) -> None:
    token = st.one_of(st.sampled_from(REPORT_OPTIONS), st.sampled_from(REPORT_WORDS),
                      st.sampled_from(report_files), st.text(max_size=6))  # fmt: skip
    argv = ["report", *data.draw(st.lists(token, max_size=7))]
    capsys.readouterr()
    status = main(argv)
    _, err = capsys.readouterr()
    assert status in (0, 2), (argv, status, err)
    if status == 2:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("fpexplore report: error: "), (argv, err)
    else:
        assert err == "", (argv, err)

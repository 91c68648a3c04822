"""``fpexplore report`` never dies with a traceback: whatever fails (the file, memory,
the system, a library), the exit status is 2 and stderr holds one line naming it."""

from __future__ import annotations

import errno
from pathlib import Path

import numpy as np
import pytest

from fpexplore.cli import main


def _one_line(capsys, *argv) -> str:
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert (status, out) == (2, ""), (status, out, err)
    assert err.startswith("fpexplore report: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (MemoryError("Unable to allocate 8.00 TiB"), "out of memory"),
        (MemoryError(), "out of memory"),
        (OSError(errno.EIO, "Input/output error"), "Input/output error"),
        (RuntimeError("HDF5 went wrong"), "RuntimeError: HDF5 went wrong"),
        (RecursionError("maximum recursion depth exceeded"), "RecursionError"),
        (NotImplementedError("no"), "NotImplementedError"),
        (AssertionError(), "AssertionError"),
    ],
)
def test_every_failure_of_report_is_one_line(tmp_path, capsys, monkeypatch, error, said) -> None:
    path = tmp_path / "w.npy"
    np.save(path, np.ones(4, np.float32))

    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr("fpexplore.report.checkpoint.checkpoint_report", fail)
    err = _one_line(capsys, "report", str(path), "-f", "e4m3")
    assert said in err


def test_a_memory_error_of_a_real_read_is_one_line(tmp_path, capsys, monkeypatch) -> None:
    path = tmp_path / "w.npz"
    np.savez_compressed(path, w=np.ones(64, np.float32))

    def no_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 256. B for an array")

    monkeypatch.setattr("fpexplore.io.numpy_files._inflate", no_memory)
    err = _one_line(capsys, "report", str(path), "-f", "e4m3")
    assert "w.npz" in err and "out of memory" in err


def test_a_file_that_vanishes_is_one_line(tmp_path: Path, capsys) -> None:
    err = _one_line(capsys, "report", str(tmp_path / "gone.safetensors"), "-f", "e4m3")
    assert "gone.safetensors" in err

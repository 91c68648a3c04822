"""The ``checkpoints`` extra installs what the documented checkpoint examples use."""

from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later

ROOT = Path(__file__).resolve().parents[2]


def test_the_checkpoints_extra_installs_safetensors_as_the_tests_pin_it() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    pins = {e.split("==")[0]: e for extra in ("checkpoints", "test") for e in extras[extra]}
    checkpoints = {e.split("==")[0].split(">=")[0]: e for e in extras["checkpoints"]}
    assert checkpoints["safetensors"] == pins["safetensors"] == "safetensors==0.8.0"
    assert {"h5py", "onnx", "ml_dtypes"} <= checkpoints.keys()

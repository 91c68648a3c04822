"""Hostile checkpoint files for every reader (see checkpoint_corpus.py): each is read
correctly or refused with a CheckpointError (a ValueError) naming the file, in a child
process whose address space is limited, whose traced memory is bounded, and which is
given a time limit: nothing may hang, crash, or allocate what the file does not hold."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.fuzz.checkpoint_corpus import KINDS, write_corpus

pytest.importorskip("h5py")
pytest.importorskip("onnx")
pytest.importorskip("safetensors")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, dict[str, str]]:
    folder = tmp_path_factory.mktemp("hostile")
    written = write_corpus(folder)
    env = {**os.environ, "MALLOC_ARENA_MAX": "2", "OMP_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "tests.fuzz.checkpoint_corpus", str(folder / "corpus")],
        capture_output=True, text=True, timeout=300, env=env, cwd=ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(r["file"] for r in records) == sorted(p.name for p in written)
    return {r["file"]: r for r in records}


def test_every_hostile_file_is_read_or_refused_by_name(outcomes) -> None:
    bad = [r for r in outcomes.values() if r["outcome"] == "bad"]
    assert bad == [], "\n".join(f"{r['file']}: {r.get('message')}" for r in bad)


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_reader_reads_its_good_file_and_refuses_its_lies(outcomes, kind) -> None:
    suffix = KINDS[kind][0]
    assert outcomes[f"{kind}-good{suffix}"]["outcome"] == "ok"
    sniffed = outcomes[f"{kind}-good-nosuffix"]  # read by its first bytes
    assert sniffed["outcome"] == ("refused" if kind == "onnx" else "ok")  # protobuf: no magic
    lies = [r for name, r in outcomes.items() if name.startswith(f"{kind}-")
            and "-good" not in name and "big-endian" not in name]  # fmt: skip
    assert lies and all(r["outcome"] == "refused" for r in lies), lies
    counts = Counter(r["outcome"] for name, r in outcomes.items() if name.startswith(f"{kind}-"))
    assert counts["refused"] >= 5, counts

"""Reading a deflated ``.keras`` file against the same file stored, as Keras writes it.

    python benchmarks/keras_deflated.py            # 2, 6 and 24 MB of weights
    python benchmarks/keras_deflated.py --quick    # 2 and 6 MB

Each round writes one ``model.weights.h5`` (float32 Dense kernels and biases, written
by h5py) into two ``.keras`` archives, one stored and one re-zipped with deflate,
and times ``open_checkpoint`` plus reading every tensor of each, alternately,
``--repeat`` times; the table gives the median of each and the ratio deflated /
stored. The deflated member is inflated once into a temporary file, so the ratio
stays near the cost of inflating (about 1 to 2 here) at every size; read in place,
every backward seek of h5py inflated the member again from its start, and the
time grew with the square of the size (6 MB took about 30 s).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fpexplore import open_checkpoint  # noqa: E402


def _weights(path: Path, megabytes: int) -> None:
    import h5py

    rng = np.random.default_rng(0)
    layers = max(1, megabytes * (1 << 20) // (4 * 256 * 256))
    with h5py.File(path, "w") as f:
        for i in range(layers):
            variables = f.create_group(f"dense_{i}").create_group("vars")
            variables.attrs["name"] = f"dense_{i}"
            variables["0"] = rng.standard_normal((256, 256)).astype(np.float32)
            variables["1"] = np.zeros(256, np.float32)
        f.create_group("vars").attrs["name"] = "model"


def _archive(path: Path, weights: Path, method: int) -> None:
    with zipfile.ZipFile(path, "w", method) as z:
        z.writestr("config.json", "{}")
        z.writestr("metadata.json", "{}")
        z.write(weights, "model.weights.h5")


def _read(path: Path) -> float:
    start = time.perf_counter()
    ckpt = open_checkpoint(path)
    for name in ckpt:
        ckpt[name]
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 and 6 MB only")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per size (default 3)")
    args = parser.parse_args()
    sizes = (2, 6) if args.quick else (2, 6, 24)
    head = f"{'weights':>8}  {'stored':>8}  {'deflated':>8}  ratio"
    print(f"{head}   (machine: {os.cpu_count()} CPUs)")
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        for megabytes in sizes:
            _weights(base / "m.weights.h5", megabytes)
            _archive(base / "stored.keras", base / "m.weights.h5", zipfile.ZIP_STORED)
            _archive(base / "deflated.keras", base / "m.weights.h5", zipfile.ZIP_DEFLATED)
            stored, deflated = [], []
            for _ in range(args.repeat):
                stored.append(_read(base / "stored.keras"))
                deflated.append(_read(base / "deflated.keras"))
            s, d = statistics.median(stored), statistics.median(deflated)
            print(f"{megabytes:>5} MB  {s:>7.2f}s  {d:>7.2f}s  {d / s:5.2f}", flush=True)


if __name__ == "__main__":
    main()

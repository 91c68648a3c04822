"""checkpoint_report on a model's tensors held in memory, and on a sharded checkpoint
on one process against a dask.distributed LocalCluster (benchmarks/checkpoint_report.py
--model, --sharded).

The model: no trained model ships in this environment's packages (the ONNX ones in
onnx's test data are light copies without weights), so :func:`model_tensors` makes
the tensors of a small convolutional network as PyTorch stores them, with
heavy-tailed (Student t, 4 degrees of freedom) values: 3x3, 1x1 and depthwise
convolutions ``(out, in, kh, kw)``, their biases, two Linear layers ``(out, in)``;
about 800,000 float32 values in 23 tensors, the size of a small OCR model.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np


def model_tensors(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)

    def t(shape: tuple[int, ...], s: float = 0.05) -> np.ndarray:
        return (rng.standard_t(4, size=shape) * s).astype(np.float32)

    model: dict[str, np.ndarray] = {}
    chans = [3, 16, 32, 64, 96, 128]
    for i in range(1, len(chans)):
        model[f"conv{i}.weight"] = t((chans[i], chans[i - 1], 3, 3))
        model[f"conv{i}.bias"] = t((chans[i],), 0.01)
        model[f"pw{i}.weight"] = t((chans[i], chans[i], 1, 1))
        model[f"dw{i}.weight"] = t((chans[i], 1, 3, 3))
    model["fc1.weight"] = t((512, 128 * 8))
    model["fc1.bias"] = t((512,), 0.01)
    model["fc2.weight"] = t((96, 512))
    return model


def _best(func, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def model_speed(fpx, repeat: int, table) -> None:
    """The report's rows together, each row alone, blocks of 1 against 32, and the
    overhead of one tensor, as ratios to one ``np.abs(x).max()`` pass in the same run.

    ``e4m3, mxfp4, nvfp4`` with the three scalings are 5 rows (E4M3 none, per_tensor
    and its MX block row; MXFP4's and NVFP4's block rows); the 7 rows of
    ``benchmarks/checkpoint_report.py`` (``e4m3, e5m2, mxfp4``) are timed too. The
    pass is timed before and after the reports, its best time kept."""
    model = model_tensors()
    n = sum(x.size for x in model.values())
    formats = ["e4m3", "mxfp4", "nvfp4"]

    def base() -> None:
        for x in model.values():
            float(np.abs(x).max())

    def report(f=formats, s=("none", "per_tensor", "block")):
        return lambda: fpx.checkpoint_report(model, f, scalings=s, progress=False)

    report()()  # warm
    baseline = _best(base, max(repeat, 5))
    print(f"model: {len(model)} tensors, {n:,} float32 values; np.abs(x).max() over all: "
          f"{baseline * 1e3:.2f} ms", flush=True)  # fmt: skip
    cases = {"5 rows (e4m3, mxfp4, nvfp4 x none, per_tensor, block)": (report(), 150),
             "7 rows (e4m3, e5m2, mxfp4 x none, per_tensor, block)":
             (report(["e4m3", "e5m2", "mxfp4"]), 150)}  # fmt: skip
    for f, s in [("e4m3", "none"), ("e4m3", "per_tensor"), ("e4m3", "block"),
                 ("mxfp4", "block"), ("nvfp4", "block")]:  # fmt: skip
        cases[f"{f} {s} alone"] = (report([f], (s,)), 30)
    took = {name: _best(func, repeat) for name, (func, _) in cases.items()}
    baseline = min(baseline, _best(base, max(repeat, 5)))
    print(f"np.abs(x).max() again after the reports; best: {baseline * 1e3:.2f} ms", flush=True)
    for name, (_, target) in cases.items():
        ratio = took[name] / baseline
        table.add(name, f"{took[name] * 1e3:.1f} ms = {ratio:.0f}x the abs-max pass "
                  f"({took[name] / n * 1e9:.0f} ns a value)", f"{target}x",
                  "yes" if ratio <= target else "NO")  # fmt: skip
    x = np.random.default_rng(1).standard_normal(1 << 20).astype(np.float32)
    for fmt in ("mxfp4", "nvfp4"):
        per = {}
        for length in (32, 16, 4, 1):
            y = x.reshape(-1, length)
            per[length] = _best(lambda y=y, f=fmt: fpx.tensor_report(y, [f], axis=1), repeat)
        worst = max(per[k] for k in (1, 4, 16)) / per[32]
        shown = ", ".join(f"{k}: {per[k] / x.size * 1e9:.0f}" for k in per)
        table.add(
            f"{fmt}: 1M values in blocks of 32, 16, 4, 1 (ns a value)",
            shown,
            "about the cost of 32",
            "yes" if worst < 1.5 else f"NO ({worst:.1f}x)",
        )
    tiny = {f"t{i}": x[i * 64 : (i + 1) * 64] for i in range(200)}
    each = _best(lambda: fpx.checkpoint_report(tiny, formats, progress=False), repeat) / 200
    table.add("per-tensor overhead (5 rows, 64 values)", f"{each * 1e3:.2f} ms", "2 ms",
              "yes" if each < 2e-3 else "NO")  # fmt: skip


def write_sharded(folder: pathlib.Path, total_bytes: int, shards: int = 4) -> int:
    """A sharded float32 checkpoint of about ``total_bytes``: ``shards`` files of 4
    tensors ``(rows, 4096)`` each and their index, written 16 MB at a time."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    per_tensor = total_bytes // (shards * 4) // (4 * 4096) * 4096
    weight_map, values = {}, 0
    for s in range(shards):
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        header, offset = {}, 0
        for t in range(4):
            name = f"layers.{4 * s + t}.weight"
            header[name] = {"dtype": "F32", "shape": [per_tensor // 4096, 4096],
                            "data_offsets": [offset, offset + 4 * per_tensor]}  # fmt: skip
            offset += 4 * per_tensor
            weight_map[name] = file
        head = json.dumps(header).encode()
        head += b" " * (-len(head) % 8)
        with open(folder / file, "wb") as f:
            f.write(len(head).to_bytes(8, "little") + head)
            left = 4 * 4 * per_tensor  # its 4 tensors, 4 bytes a value
            while left:
                k = min(left // 4, 1 << 22)
                f.write((rng.standard_t(4, k) * 0.02).astype("<f4").tobytes())
                left -= 4 * k
        values += 4 * per_tensor
    (folder / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    return values


CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[3])
import fpexplore as fpx
path, mode, formats = sys.argv[1], sys.argv[2], json.loads(sys.argv[4])
def hwm():
    return int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) * 1024
start = time.perf_counter()
workers = {}
if mode == "local":
    r = fpx.checkpoint_report(path, formats, scalings=("none",), progress=False)
else:
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        start = time.perf_counter()
        r = fpx.checkpoint_report(path, formats, scalings=("none",), scheduler=client,
                                  progress=False)
        seconds = time.perf_counter() - start
        workers = client.run(hwm)
if mode == "local":
    seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "rss": hwm(), "workers": list(workers.values()),
                  "rows": len(r.records)}))
"""


def sharded(folder: pathlib.Path, total_bytes: int, code: str, table, formats) -> None:
    """values/s and peak memory of one process and of a LocalCluster of 2 workers."""
    values = write_sharded(folder, total_bytes)
    size = sum(p.stat().st_size for p in folder.iterdir())
    print(f"sharded checkpoint: {size / 1e9:.2f} GB, {values:,} float32 values in 4 shards",
          flush=True)  # fmt: skip
    try:
        for mode in ("local", "cluster"):
            argv = [sys.executable, "-c", CHILD, str(folder), mode, code, json.dumps(formats)]
            done = subprocess.run(argv, capture_output=True, text=True)
            if done.returncode:
                raise RuntimeError(done.stderr[-2000:])
            run = json.loads(done.stdout.strip().splitlines()[-1])
            peak = f"{run['rss'] / 2**20:.0f} MiB"
            if run["workers"]:
                peak += " client; workers " + ", ".join(f"{w / 2**20:.0f}" for w in run["workers"])
            label = "one process" if mode == "local" else "LocalCluster(2 workers, 1 thread each)"
            table.add(label, f"{values / run['seconds'] / 1e6:.1f} M values/s "
                      f"({run['seconds']:.1f} s)", peak)  # fmt: skip
    finally:
        for p in folder.iterdir():
            p.unlink()
        os.rmdir(folder)

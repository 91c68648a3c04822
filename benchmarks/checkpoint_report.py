"""checkpoint_report over a file against a plain numpy pass over the same file.

    python benchmarks/checkpoint_report.py                 # 1e8 values; memory over 1e9 (4 GB)
    python benchmarks/checkpoint_report.py --quick         # 1e7 values; memory over 1e8
    python benchmarks/checkpoint_report.py --memory-n 0    # speed only

Each measurement runs in a child process (its peak resident memory, VmHWM, is its
own): the baseline maps a float32 ``.npy`` file and computes ``np.abs(x).max()``;
the report is ``checkpoint_report(path, ["float8_e4m3fn", "float8_e5m2", "mxfp4"])``
with all three scalings (7 rows: none, per_tensor and MX block for each FP8
format, and MXFP4's block), over the same values as ``.npy`` and as
``.safetensors`` (written by the safetensors library). Times are the median of
``--repeat`` runs of each, taken in turn, so the machine's load hits both alike;
the ratio is what the targets judge. Files go to ``--dir`` and are deleted after.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shutil
import statistics
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import Table, fmt_bytes, fmt_rate, fmt_time, machine_summary, optional  # noqa: E402

FORMATS = ["float8_e4m3fn", "float8_e5m2", "mxfp4"]
CHILD = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[3])
path, mode = sys.argv[1], sys.argv[2]
start = time.perf_counter()
if mode == "numpy":
    x = np.load(path, mmap_mode="r")
    result = float(np.abs(x).max())
else:
    import fpexplore as fpx
    r = fpx.checkpoint_report(path, json.loads(sys.argv[4]), progress=False)
    result = min(row["snr_db"] for row in r.to_records())
seconds = time.perf_counter() - start
status = open("/proc/self/status").read().split("VmHWM:")[1].split()
print(json.dumps({"seconds": seconds, "rss": int(status[0]) * 1024, "result": result}))
"""


def _child(path: pathlib.Path, mode: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), mode, str(ROOT),
                           json.dumps(FORMATS)], capture_output=True, text=True)  # fmt: skip
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    out: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def _write_npy(path: pathlib.Path, n: int) -> None:
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n // 4096, 4096))
    rng = np.random.default_rng(0)
    flat = out.reshape(-1)
    for i in range(0, flat.size, 1 << 24):
        k = min(1 << 24, flat.size - i)
        flat[i : i + k] = (rng.standard_t(3, k) * 1e-2).astype(np.float32)
    out.flush()
    del out, flat


def _write_safetensors(path: pathlib.Path, npy: pathlib.Path) -> bool:
    numpy_io = optional("safetensors.numpy")
    if numpy_io is None:
        print("safetensors not installed: the .safetensors run is skipped", flush=True)
        return False
    numpy_io.save_file({"weights": np.load(npy)}, str(path))
    return True


def speed(n: int, directory: pathlib.Path, repeat: int, targets: Table) -> None:
    npy = directory / "fpexplore-ckpt-bench.npy"
    st = directory / "fpexplore-ckpt-bench.safetensors"
    _write_npy(npy, n)
    files = {"npy": npy}
    if _write_safetensors(st, npy):
        files["safetensors"] = st
    runs: dict[str, list[dict[str, float]]] = {"numpy": []}
    runs.update({f"report {kind}": [] for kind in files})
    for _ in range(repeat):
        runs["numpy"].append(_child(npy, "numpy"))
        for kind, path in files.items():
            runs[f"report {kind}"].append(_child(path, "report"))
    values = (n // 4096) * 4096
    table = Table(f"checkpoint_report({', '.join(FORMATS)}; none, per_tensor, block) over "
                  f"{values:.2e} float32 values ({fmt_bytes(4 * values)}), median of {repeat}",
                  ["task", "time", "values/s", "x numpy pass", "peak RSS"])  # fmt: skip
    base = statistics.median(r["seconds"] for r in runs["numpy"])
    for name, rs in runs.items():
        t = statistics.median(r["seconds"] for r in rs)
        table.add(
            name if name != "numpy" else "numpy pass: np.abs(x).max()",
            fmt_time(t),
            fmt_rate(values / t),
            f"{t / base:.1f}",
            fmt_bytes(max(r["rss"] for r in rs)),
        )
        if name != "numpy":
            targets.add(f"{name} of {values:.0e} values within 10x of the numpy pass",
                        f"{t / base:.1f}x", "yes" if t / base <= 10 else "NO")  # fmt: skip
    print(table.render(), flush=True)
    for path in files.values():
        path.unlink()


def memory(n: int, directory: pathlib.Path, targets: Table) -> None:
    npy = directory / "fpexplore-ckpt-memory.npy"
    _write_npy(npy, n)
    try:
        run = _child(npy, "report")
    finally:
        npy.unlink()
    values = (n // 4096) * 4096
    targets.add(
        f"report of a {fmt_bytes(4 * values)} .npy: peak RSS under 1 GB",
        f"{fmt_bytes(run['rss'])} ({fmt_time(run['seconds'])}, "
        f"{fmt_rate(values / run['seconds'])})",
        "yes" if run["rss"] < 1e9 else "NO",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1e7 values; memory over 1e8")
    parser.add_argument("--n", type=float, default=None, help="values for the speed runs")
    parser.add_argument("--memory-n", type=float, default=None, help="values of the big file")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, in turn")
    parser.add_argument("--dir", default="/tmp", help="where the files go")
    args = parser.parse_args(argv)
    n = int(args.n or (1e7 if args.quick else 1e8))
    big = int(args.memory_n if args.memory_n is not None else (1e8 if args.quick else 1e9))
    print(machine_summary({"safetensors": optional("safetensors")}), flush=True)
    directory = pathlib.Path(args.dir)
    free = shutil.disk_usage(directory).free
    if 4 * (n + big) > free // 2:
        raise SystemExit(f"{fmt_bytes(free)} free in {directory}: not enough for the files")
    targets = Table("Targets", ["target", "measured", "met"])
    speed(n, directory, args.repeat, targets)
    if big:
        memory(big, directory, targets)
    print(targets.render(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

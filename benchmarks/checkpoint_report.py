"""checkpoint_report over a file against a plain numpy pass over the same file.

    python benchmarks/checkpoint_report.py                 # 1e8 values; memory over 1e9 (4 GB)
    python benchmarks/checkpoint_report.py --quick         # 1e7 values; memory over 1e8
    python benchmarks/checkpoint_report.py --memory-n 0    # speed only
    python benchmarks/checkpoint_report.py --n 0           # memory only
    python benchmarks/checkpoint_report.py --model         # a model's tensors in memory
    python benchmarks/checkpoint_report.py --sharded 2     # a 2 GB sharded checkpoint:
                                                           # one process vs LocalCluster(2)

Each measurement runs in a child process (its peak resident memory, VmHWM, is its
own). The baseline maps the file with numpy (``np.load(path, mmap_mode="r")``; a
``.safetensors`` file as an ``np.memmap`` of its data, after its JSON header) and
computes ``np.abs(x).max()``; the report is ``checkpoint_report(path,
["float8_e4m3fn", "float8_e5m2", "mxfp4"])`` with all three scalings (7 rows: none,
per_tensor and MX block for each FP8 format, and MXFP4's block), over the same
values as ``.npy`` and as ``.safetensors`` (written by the safetensors library).
Both children import what they need before their clock starts (importing
fpexplore is timed apart) and time reading the file and computing: wall time,
and CPU time (user and system, all threads). A third child makes the same numpy
pass 16M values at a time through one buffer: ``np.abs(x)`` of the whole file
allocates 400 MB, which the kernel may take seconds to provide (huge pages,
compaction) on a machine whose memory other jobs fragment, so the literal pass
ranges from 0.1 s to several seconds here; the chunked pass shows what reading
and reducing the file costs.

Fairness: each report is judged against the numpy pass over the *same file*, in
the *same cache state*, measured just before it in the same round, so the
machine's load at that moment hits both alike; the ratio of each round is
printed, and the table gives the median ratio with its spread (min-max) over
``--repeat`` rounds, against both passes, and in CPU time against the chunked
pass (on a machine shared with other jobs, a short child gets a larger share of
the processors than a long one, so CPU time compares the work). Cache states
(``--cache``): ``warm``, the file read once right before (the page cache holds
it: what the speed target refers to), and ``cold``, the file's pages dropped
from this system's page cache right before (``posix_fadvise(DONTNEED)`` after
``fsync``; a virtual machine's host may still cache its disk), so that both read
it from the disk. The memory run reports a file of ``--memory-n`` values (4 GB)
once, after the chunked numpy pass over it. Files go to ``--dir`` and are
deleted after.
"""

from __future__ import annotations

import argparse
import json
import os
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
import json, resource, sys, time
import numpy as np
path, mode, code = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, code)
imported = time.perf_counter()
if mode == "report":
    import fpexplore as fpx
imported = time.perf_counter() - imported
before = resource.getrusage(resource.RUSAGE_SELF)
start = time.perf_counter()
if mode != "report":
    if path.endswith(".npy"):
        x = np.load(path, mmap_mode="r")
    else:  # safetensors: 8 bytes of header length, the JSON header, then the data
        with open(path, "rb") as f:
            size = int.from_bytes(f.read(8), "little")
            info = json.loads(f.read(size))["weights"]
        x = np.memmap(path, np.float32, "r", 8 + size + info["data_offsets"][0],
                      tuple(info["shape"]))
if mode == "numpy":
    result = float(np.abs(x).max())
elif mode == "chunks":  # the same pass, 16M values at a time through one buffer
    flat, buffer, result = x.reshape(-1), np.empty(1 << 24, x.dtype), 0.0
    for i in range(0, flat.size, buffer.size):
        part = np.abs(flat[i : i + buffer.size], out=buffer[: min(buffer.size, flat.size - i)])
        result = max(result, float(part.max()))
else:
    r = fpx.checkpoint_report(path, json.loads(sys.argv[4]), progress=False)
    result = min(row["snr_db"] for row in r.to_records())
seconds = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu = usage.ru_utime + usage.ru_stime - before.ru_utime - before.ru_stime
status = open("/proc/self/status").read().split("VmHWM:")[1].split()
print(json.dumps({"seconds": seconds, "rss": int(status[0]) * 1024, "result": result,
                  "import": imported, "cpu": cpu}))
"""


def set_cache(path: pathlib.Path, state: str) -> None:
    """Put the file's pages in the page cache (``warm``) or out of it (``cold``)."""
    with open(path, "rb") as f:
        if state == "warm":
            buffer = bytearray(1 << 24)
            while f.readinto(buffer):
                pass
        else:
            os.fsync(f.fileno())
            os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def _child(path: pathlib.Path, mode: str, code: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), mode, code,
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


def _spread(values: list[float], fmt: object = None) -> str:
    show = fmt or (lambda v: f"{v:.1f}")
    mid = statistics.median(values)
    if len(values) == 1:
        return show(mid)  # type: ignore[operator]
    return f"{show(mid)} ({show(min(values))}-{show(max(values))})"  # type: ignore[operator]


def speed(n: int, directory: pathlib.Path, repeat: int, states: list[str], code: str,
          targets: Table) -> None:  # fmt: skip
    npy = directory / "fpexplore-ckpt-bench.npy"
    st = directory / "fpexplore-ckpt-bench.safetensors"
    _write_npy(npy, n)
    files = {"npy": npy}
    if _write_safetensors(st, npy):
        files["safetensors"] = st
    runs: dict[tuple[str, str, str], list[dict[str, float]]] = {}
    try:
        for round_ in range(repeat):
            for state in states:
                for kind, path in files.items():
                    for mode in MODES:
                        set_cache(path, state)
                        runs.setdefault((state, kind, mode), []).append(_child(path, mode, code))
                    took = {mode: runs[state, kind, mode][-1]["seconds"] for mode in MODES}
                    print(f"round {round_ + 1} {state:4s} {kind:11s}: "
                          + ", ".join(f"{mode} {t:.2f} s" for mode, t in took.items())
                          + f"; report {took['report'] / took['numpy']:.1f}x the numpy pass",
                          flush=True)  # fmt: skip
    finally:
        for path in files.values():
            path.unlink()
    _speed_table(runs, states, list(files), (n // 4096) * 4096, repeat, targets)


MODES = ("numpy", "chunks", "report")
TASKS = {"numpy": "numpy pass: np.abs(x).max()", "chunks": "the same pass, 16M values at a time",
         "report": "checkpoint_report"}  # fmt: skip


def _speed_table(runs: dict[tuple[str, str, str], list[dict[str, float]]], states: list[str],
                 kinds: list[str], values: int, repeat: int, targets: Table) -> None:  # fmt: skip
    table = Table(
        f"checkpoint_report({', '.join(FORMATS)}; none, per_tensor, block) over {values:.2e} "
        f"float32 values ({fmt_bytes(4 * values)}): median (min-max) of {repeat} rounds",
        ["cache", "file", "task", "wall (s)", "CPU (s)", "values/s", "x numpy pass",
         "x chunked pass", "x chunked pass, CPU", "peak RSS"],
    )  # fmt: skip
    for state in states:
        for kind in kinds:
            base, chunks = runs[state, kind, "numpy"], runs[state, kind, "chunks"]
            report = runs[state, kind, "report"]
            pairs = list(zip(report, base, chunks, strict=True))
            ratios = {
                "wall": [r["seconds"] / b["seconds"] for r, b, _ in pairs],
                "chunks": [r["seconds"] / c["seconds"] for r, _, c in pairs],
                "cpu": [r["cpu"] / c["cpu"] for r, _, c in pairs],
            }
            for mode in MODES:
                rs = runs[state, kind, mode]
                seconds = [r["seconds"] for r in rs]
                shown = [_spread(ratios[key]) for key in ratios] if mode == "report" else [""] * 3
                table.add(state, kind, TASKS[mode], _spread(seconds, lambda v: f"{v:.2f}"),
                          _spread([r["cpu"] for r in rs], lambda v: f"{v:.2f}"),
                          fmt_rate(values / statistics.median(seconds)), *shown,
                          fmt_bytes(max(r["rss"] for r in rs)))  # fmt: skip
            if state != "warm":
                continue
            for key, against in (("wall", "the numpy pass"), ("chunks", "the chunked pass"),
                                 ("cpu", "the chunked pass, in CPU time")):  # fmt: skip
                ratio = statistics.median(ratios[key])
                targets.add(f"report of the {kind} ({values:.0e} values, warm cache) within 10x "
                            f"of {against} (same round)", _spread(ratios[key]) + "x",
                            "yes" if ratio <= 10 else "NO")  # fmt: skip
    imports = [r["import"] for key, rs in runs.items() if key[2] == "report" for r in rs]
    print(table.render(), flush=True)
    took = statistics.median(imports)
    print(f"importing fpexplore (not in the times above): median {took:.2f} s", flush=True)


def memory(n: int, directory: pathlib.Path, code: str, targets: Table) -> None:
    npy = directory / "fpexplore-ckpt-memory.npy"
    _write_npy(npy, n)
    try:
        base = _child(npy, "chunks", code)
        run = _child(npy, "report", code)
    finally:
        npy.unlink()
    values = (n // 4096) * 4096
    print(f"memory run over {fmt_bytes(4 * values)}: chunked numpy pass "
          f"{fmt_time(base['seconds'])} (peak RSS {fmt_bytes(base['rss'])}), report "
          f"{fmt_time(run['seconds'])}, CPU {run['cpu']:.1f} s (peak RSS {fmt_bytes(run['rss'])}, "
          f"{run['seconds'] / base['seconds']:.1f}x)", flush=True)  # fmt: skip
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
    parser.add_argument("--repeat", type=int, default=3, help="rounds of every measurement")
    parser.add_argument("--cache", default="warm,cold", help="cache states: warm, cold or both")
    parser.add_argument("--dir", default="/tmp", help="where the files go")
    parser.add_argument("--code", default=str(ROOT), help="the fpexplore tree to time")
    parser.add_argument("--model", action="store_true",
                        help="only the report of a model's tensors held in memory")  # fmt: skip
    parser.add_argument("--sharded", type=float, default=0,
                        help="only a sharded checkpoint of this many GB, one process and "
                        "LocalCluster(2)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.model or args.sharded:
        return _model_and_sharded(args)
    n = int(args.n if args.n is not None else (1e7 if args.quick else 1e8))
    big = int(args.memory_n if args.memory_n is not None else (1e8 if args.quick else 1e9))
    states = [s for s in args.cache.split(",") if s]
    if not set(states) <= {"warm", "cold"}:
        raise SystemExit(f"--cache takes warm and/or cold, got {args.cache!r}")
    print(machine_summary({"safetensors": optional("safetensors")}), flush=True)
    print(f"fpexplore from {args.code}", flush=True)
    directory = pathlib.Path(args.dir)
    free = shutil.disk_usage(directory).free
    if 4 * (2 * n + big) > free // 2:
        raise SystemExit(f"{fmt_bytes(free)} free in {directory}: not enough for the files")
    targets = Table("Targets", ["target", "measured", "met"])
    if n:
        speed(n, directory, args.repeat, states, args.code, targets)
    if big:
        memory(big, directory, args.code, targets)
    print(targets.render(), flush=True)
    return 0


def _model_and_sharded(args: argparse.Namespace) -> int:
    from _checkpoint_model import model_speed, sharded

    sys.path.insert(0, args.code)
    import fpexplore as fpx

    print(machine_summary({"distributed": optional("distributed")}), flush=True)
    if args.model:
        table = Table("A model's tensors in memory (ratios to np.abs(x).max(), same run)",
                      ["measured", "figure", "target", "met"])  # fmt: skip
        model_speed(fpx, args.repeat, table)
        print(table.render(), flush=True)
    if args.sharded:
        formats = ["float8_e4m3fn"]
        table = Table(
            f"A {args.sharded:g} GB sharded checkpoint, checkpoint_report(folder, "
            f"{formats}, scalings=('none',))",
            ["run", "speed", "peak memory (VmHWM)"],
        )
        folder = pathlib.Path(args.dir) / "fpexplore-sharded-bench"
        sharded(folder, int(args.sharded * 1e9), args.code, table, formats)
        print(table.render(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

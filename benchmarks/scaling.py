"""float32 inputs, block scaling and the tensor report against their peers.

    python benchmarks/scaling.py                    # N = 10 million; report over 1e9 values
    python benchmarks/scaling.py --quick            # smoke run: N = 1e6, report over 1e7
    python benchmarks/scaling.py --report-n 2.5e8   # a smaller file for the report

Ratios divide two medians timed in this process, round robin (see
benchmarks/_harness.py), so the machine's load cancels out. Peers: ml_dtypes
(casts) and gfloat (block functions), ``pip install -r benchmarks/requirements.txt``.
gfloat's ``quantize_block`` runs one Python call per element, so it is timed on a
sample of blocks and its rate applied to N. The tensor report runs in a child
process over a .npy file memory-mapped chunk by chunk
(:func:`fpexplore.lazy.from_npy`), whose peak resident memory (VmHWM,
Linux) is the figure reported; a plain numpy pass (the largest
magnitude, chunk by chunk over the same mapping) is the throughput baseline.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import resource
import shutil
import subprocess
import sys
import time
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import Table, fmt_bytes, fmt_rate, fmt_time, machine_summary, median_times, optional  # noqa: E402

import fpexplore as fpx  # noqa: E402

ml_dtypes = optional("ml_dtypes")
gfloat_block = optional("gfloat.block")
gfloat_formats = optional("gfloat.formats")
GFLOAT_BLOCKS = {"mxfp4": "format_info_mxfp4_e2m1", "mxfp8_e4m3": "format_info_mxfp8_e4m3"}
TARGETS = Table("Targets", ["target", "measured", "met"])


def target(name: str, measured: str, met: bool | None) -> None:
    TARGETS.add(name, measured, {True: "yes", False: "NO", None: "not judged"}[met])


def timing(title: str, n: int, times: dict[str, float], baseline: str) -> None:
    table = Table(title, ["task", "N", "median", "values/s", "× baseline"])
    for name, seconds in times.items():
        table.add(name, f"{n:.0e}", fmt_time(seconds), fmt_rate(n / seconds),
                  f"{seconds / times[baseline]:.2f}")  # fmt: skip
    print(table.render(), flush=True)


def bench_casts(x32: np.ndarray, repeat: int) -> None:
    """round_to from float32 against ml_dtypes' casts from float32."""
    for name, limit in (("bfloat16", 3.0), ("float8_e4m3fn", 1.0)):
        dtype = getattr(ml_dtypes, name, None) if ml_dtypes else None
        funcs: dict[str, Any] = {}
        if dtype is not None:
            funcs["ml_dtypes astype, from float32"] = lambda d=dtype: x32.astype(d)
        funcs["fpexplore.round_to(dtype='narrow')"] = lambda n=name: fpx.round_to(
            x32, n, dtype="narrow"
        )
        funcs["fpexplore.round_to (float64 result)"] = lambda n=name: fpx.round_to(x32, n)
        if dtype is not None:
            funcs["fpexplore.round_to(dtype=ml_dtypes)"] = lambda n=name, d=dtype: fpx.round_to(
                x32, n, dtype=d
            )
        with np.errstate(over="ignore", invalid="ignore"):
            times = median_times(funcs, repeat)
        base = "ml_dtypes astype, from float32"
        if dtype is None:
            print(f"ml_dtypes not installed: {name} not compared", flush=True)
            continue
        timing(f"round float32 -> {name} (baseline: ml_dtypes)", x32.size, times, base)
        with np.errstate(over="ignore", invalid="ignore"):
            code = np.uint8 if np.dtype(dtype).itemsize == 1 else np.uint16
            ours = fpx.round_to(x32, name, dtype=dtype).view(code)
            theirs = x32.astype(dtype).view(ours.dtype)
        nan = np.isnan(x32)
        same = bool(np.array_equal(ours[~nan], theirs[~nan]))
        ratio = times["fpexplore.round_to(dtype='narrow')"] / times[base]
        target(f"round_to float32->{name} within {limit:g}x of ml_dtypes' cast",
               f"{ratio:.2f}x" + (", codes identical" if same else ", codes DIFFER"),
               ratio <= limit and same)  # fmt: skip


def bench_blocks(x32: np.ndarray, repeat: int) -> None:
    """quantize_blocks against gfloat's quantize_block, per value."""
    for name, attr in GFLOAT_BLOCKS.items():
        ours = median_times({"q": lambda n=name: fpx.quantize_blocks(x32, n)}, repeat)["q"]
        row = f"{name} quantization of {x32.size:.0e} float32 values >= 10x faster than gfloat"
        if gfloat_block is None:
            print(f"gfloat not installed: {name} only timed ({fmt_time(ours)})", flush=True)
            target(row, f"gfloat not installed; ours {fmt_time(ours)}", None)
            continue
        info = getattr(gfloat_formats, attr)
        blocks = 300
        sample = x32[: blocks * 32].astype(np.float64).reshape(blocks, 32)
        start = time.perf_counter()
        theirs = np.concatenate([gfloat_block.quantize_block(info, b,
                                 gfloat_block.compute_scale_amax) for b in sample])  # fmt: skip
        per_value = (time.perf_counter() - start) / sample.size
        same = bool(np.array_equal(theirs, fpx.quantize_blocks(sample, name).values.ravel()))
        speedup = per_value * x32.size / ours
        table = Table(f"{name}: quantize {x32.size:.0e} float32 values (gfloat: a sample of "
                      f"{sample.size} values, its rate applied to N)",
                      ["task", "median", "values/s"])  # fmt: skip
        table.add("gfloat.block.quantize_block", fmt_time(per_value * x32.size),
                  fmt_rate(1 / per_value))  # fmt: skip
        table.add("fpexplore.quantize_blocks", fmt_time(ours), fmt_rate(x32.size / ours))
        print(table.render(), flush=True)
        target(row, f"{speedup:.0f}x" + (", values identical on the sample" if same else
                                          ", values DIFFER"), speedup >= 10 and same)  # fmt: skip


CHILD = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[3])
import dask
import fpexplore as fpx
from fpexplore.lazy import from_npy
path, mode = sys.argv[1], sys.argv[2]
dask.config.set(scheduler="threads", num_workers=2)
start = time.perf_counter()
if mode == "numpy":
    mapped = np.load(path, mmap_mode="r")
    step, amax = 1 << 22, 0.0
    for i in range(0, mapped.shape[0], step):
        amax = max(amax, float(np.abs(mapped[i : i + step]).max()))
    result = amax
else:
    x = from_npy(path)
    result = fpx.tensor_report(x, ["float8_e4m3fn"]).to_records()[2]["snr_db"]
seconds = time.perf_counter() - start
# VmHWM: this process's peak resident memory (ru_maxrss would carry the parent's over exec)
status = open("/proc/self/status").read().split("VmHWM:")[1].split()
rss = int(status[0]) * 1024
print(json.dumps({"seconds": seconds, "rss": rss, "result": result}))
"""


def bench_report(n: int, directory: pathlib.Path) -> None:
    """tensor_report over a memory-mapped .npy of n float32 values, in a child process."""
    if optional("dask") is None:
        print("dask not installed: the report over a file is skipped", flush=True)
        return
    free = shutil.disk_usage(directory).free
    if 4 * n > free // 2:
        n = int(free // 8) // (1 << 22) * (1 << 22)
        print(f"disk: {fmt_bytes(free)} free, report shrunk to {n:.2e} values", flush=True)
    path = directory / f"fpexplore-report-{n}.npy"
    if not path.exists():
        out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n,))
        rng = np.random.default_rng(0)
        for i in range(0, n, 1 << 24):
            k = min(1 << 24, n - i)
            out[i : i + k] = rng.standard_t(3, k).astype(np.float32) * 1e-2
        out.flush()
        del out
    runs = {}
    for mode in ("numpy", "report"):
        done = subprocess.run([sys.executable, "-c", CHILD, str(path), mode, str(ROOT)],
                              capture_output=True, text=True, check=True)  # fmt: skip
        runs[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    table = Table(f"tensor_report(float8_e4m3fn: none, per_tensor, block) over {n:.2e} float32 "
                  f"values ({fmt_bytes(4 * n)} on disk, memory-mapped chunk by chunk)",
                  ["task", "time", "values/s", "peak RSS"])  # fmt: skip
    for mode, label in (("numpy", "numpy pass (largest magnitude)"), ("report", "tensor_report")):
        r = runs[mode]
        table.add(label, fmt_time(r["seconds"]), fmt_rate(n / r["seconds"]), fmt_bytes(r["rss"]))
    print(table.render(), flush=True)
    ratio = runs["report"]["seconds"] / runs["numpy"]["seconds"]
    target(f"tensor_report over {n:.0e} memory-mapped float32 values: peak RSS under 1 GB",
           f"{fmt_bytes(runs['report']['rss'])}; {ratio:.0f}x the numpy pass's time",
           runs["report"]["rss"] < 1e9)  # fmt: skip
    if n < 10**9:
        TARGETS.add("(the report target names 1e9 values)", f"ran {n:.2e}", "not judged")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 1e6, report over 1e7")
    parser.add_argument("--n", type=float, default=None, help="values for casts and blocks")
    parser.add_argument("--report-n", type=float, default=None, help="values in the file")
    parser.add_argument("--dir", default="/tmp", help="where the report's .npy file goes")
    parser.add_argument("--keep", action="store_true", help="keep the .npy file")
    args = parser.parse_args(argv)
    n = int(args.n or (1e6 if args.quick else 1e7))
    report_n = int(args.report_n or (1e7 if args.quick else 1e9))
    print(machine_summary({"ml_dtypes": ml_dtypes, "gfloat": gfloat_block,
                           "dask": optional("dask")}), flush=True)  # fmt: skip
    rng = np.random.default_rng(0)
    x32 = (rng.standard_normal(n) * np.exp2(rng.integers(-8, 8, n))).astype(np.float32)
    repeat = 5 if args.quick else 9
    bench_casts(x32, repeat)
    bench_blocks(x32, 3)
    directory = pathlib.Path(args.dir)
    bench_report(report_n, directory)
    if not args.keep:
        for path in directory.glob("fpexplore-report-*.npy"):
            path.unlink()
    print(TARGETS.render(), flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"peak RSS of this process: {fmt_bytes(peak)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

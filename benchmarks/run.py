"""fpexplore's vectorized kernels against memory speed, numpy's own casts and peers.

    python benchmarks/run.py                          # every table, N = 10 million
    python benchmarks/run.py --quick                  # smoke run: N = 1 million, a census slice
    python benchmarks/run.py --scaling --max-n 1e8    # also time against N, 1e3 .. 1e8

Every ratio divides two medians timed in this process, round robin, so that the
machine's speed and load cancel out; absolute times are only for orientation.
fpexplore runs large arrays on up to 4 threads (``fpexplore.codes.THREADS``);
rows marked "1 thread" show the same call held to one. Peers (ml_dtypes,
gfloat, bitstring: ``pip install -r benchmarks/requirements.txt``) that are
missing show as "not installed". The checkout's fpexplore is imported,
installed or not.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import struct
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import (  # noqa: E402
    Table,
    fmt_bytes,
    fmt_rate,
    fmt_time,
    machine_summary,
    median_times,
    new_bytes,
    optional,
    peak_memory,
    scalar_time,
)

import fpexplore as fpx  # noqa: E402
from fpexplore import codes as K  # noqa: E402
from fpexplore.core.census import float_census  # noqa: E402
from fpexplore.exact import parse_real, round_real  # noqa: E402

ml_dtypes = optional("ml_dtypes")
gfloat = optional("gfloat")
gfloat_formats = optional("gfloat.formats")
bitstring = optional("bitstring")

GFLOAT_FORMATS = {
    "float16": "format_info_binary16",
    "bfloat16": "format_info_bfloat16",
    "float8_e4m3fn": "format_info_ocp_e4m3",
    "float8_e5m2": "format_info_ocp_e5m2",
    "float32": "format_info_binary32",
}
NOT_INSTALLED = "not installed"
TARGET_N = 10**7  # the targets are ratios measured on 10 million values
ONE_THREAD = " (1 thread)"


class Report:
    """Prints the tables and collects the verdict on each target."""

    def __init__(self, n: int) -> None:
        self.targets = Table("Targets", ["target", "measured", "met"])
        self.all_met = True
        self.smoke = n < TARGET_N

    def target(self, name: str, measured: str, met: bool | None, sized: bool = True) -> None:
        if sized and self.smoke and met is not None:  # ratios are set for 10 million values
            measured, met = f"{measured} at N < {TARGET_N:.0e}", None
        self.all_met &= met is not False
        self.targets.add(name, measured, {True: "yes", False: "NO", None: "not judged"}[met])

    @staticmethod
    def show(table: Table) -> None:
        print(table.render(), flush=True)


def one_thread(func: Callable[[], Any]) -> Callable[[], Any]:
    """``func`` with fpexplore's kernels held to the calling thread."""

    def call() -> Any:
        saved, K.THREADS = K.THREADS, 1
        try:
            return func()
        finally:
            K.THREADS = saved

    return call


def with_one_thread(funcs: dict[str, Callable[[], Any]], n: int) -> dict[str, Callable[[], Any]]:
    """Add a one-thread twin of each fpexplore entry when this N would use threads."""
    if K.threads_for(n) == 1:
        return funcs
    twins = {
        f"{k}{ONE_THREAD}": one_thread(f) for k, f in funcs.items() if k.startswith("fpexplore")
    }
    return {**funcs, **twins}


def timing_table(title: str) -> Table:
    return Table(title, ["task", "N", "median", "values/s", "× baseline", "notes"])


def add_rows(
    table: Table, n: int, times: dict[str, float], baseline: str, notes: dict[str, str]
) -> None:
    reference = times.get(baseline, math.nan)
    for name, seconds in times.items():
        table.add(
            name,
            f"{n:.0e}",
            fmt_time(seconds),
            fmt_rate(n / seconds),
            f"{seconds / reference:.2f}",
            notes.get(name, ""),
        )


def ratio_text(times: dict[str, float], name: str, baseline: str, invert: bool = False) -> str:
    """'4.1x' (and the one-thread figure when there is one)."""

    def ratio(key: str) -> float:
        r = times[key] / times[baseline]
        return 1 / r if invert else r

    text = f"{ratio(name):.1f}x"
    if name + ONE_THREAD in times:
        text += f" (1 thread: {ratio(name + ONE_THREAD):.1f}x)"
    return text


# -- inputs and the exact oracle ---------------------------------------------------------
def wide_values(rng: np.random.Generator, n: int) -> np.ndarray:
    """float64 values spread over 2**-12 .. 2**12 times N(0, 1): the FP8 formats meet
    subnormals and overflow in every block, the slow paths of the rounding kernels."""
    return rng.standard_normal(n) * np.exp2(rng.uniform(-12, 12, n))


def near_ties(fmt: fpx.Format, rng: np.random.Generator, count: int = 600) -> np.ndarray:
    """Midpoints between neighbours and one float64 ULP either side, both signs."""
    codes = np.unique(rng.integers(0, fmt.max_code, size=count, dtype=np.uint64))
    codes = codes.astype(K.code_dtype(fmt))
    low, high = K.codes_to_values(codes, fmt), K.codes_to_values(codes + 1, fmt)
    mids = low + (high - low) / 2
    x = np.concatenate([mids, np.nextafter(mids, 0), np.nextafter(mids, np.inf)])
    return np.concatenate([x, -x])


def exact_values(x: np.ndarray, fmt: fpx.Format) -> np.ndarray:
    codes = np.array([round_real(parse_real(float(v)), fmt) for v in x], dtype=np.uint64)
    return K.codes_to_values(codes.astype(K.code_dtype(fmt)), fmt)


def wrong(ours: np.ndarray, expected: np.ndarray) -> int:
    same = (ours == expected) | (np.isnan(ours) & np.isnan(expected))
    return int((~same).sum())


# -- decode ------------------------------------------------------------------------------
def decode_by_hand(values: np.ndarray) -> tuple[np.ndarray, ...]:
    """What one writes with numpy alone: shifts, masks and np.select."""
    c = values.view(np.uint32)
    sign = (c >> 31).astype(np.uint8)
    exponent = ((c >> 23) & 0xFF).astype(np.uint8)
    mantissa = c & 0x7FFFFF
    with np.errstate(invalid="ignore"):
        classes = [np.isnan(values), np.isinf(values), values == 0, exponent == 0]
        kind = np.select(classes, [4, 3, 0, 1], 2).astype(np.uint8)
    return sign, exponent, mantissa, kind


def bench_decode(report: Report, n: int, repeat: int, rng: np.random.Generator) -> None:
    table = timing_table("decode float32 -> sign, exponent, mantissa, kind (baseline: np.copyto)")
    bits = rng.integers(0, 2**32, size=n, dtype=np.uint32).view(np.float32)
    weights = (rng.standard_normal(n) * 0.02).astype(np.float32)
    target = np.empty_like(bits)
    funcs = {
        "np.copyto (memory speed)": lambda: np.copyto(target, bits),
        "fpexplore.decode_array": lambda: fpx.decode_array(bits, "float32"),
        "fpexplore.decode_array, weights": lambda: fpx.decode_array(weights, "float32"),
        "numpy by hand (shifts, masks, np.select)": lambda: decode_by_hand(bits),
    }
    times = median_times(with_one_thread(funcs, n), repeat)
    d, by_hand = fpx.decode_array(bits, "float32"), decode_by_hand(bits)
    ours = (d.sign, d.exponent, d.mantissa, d.kind.view(np.ndarray))
    same = all(np.array_equal(a, b) for a, b in zip(ours, by_hand, strict=True))
    notes = {
        "np.copyto (memory speed)": "the same float32 array",
        "fpexplore.decode_array": "random bit patterns: every kind, 0.4% NaN",
        "fpexplore.decode_array, weights": "N(0, 0.02) weights: all normal",
        "numpy by hand (shifts, masks, np.select)": "identical results" if same else "DIFFERENT",
    }
    add_rows(table, n, times, "np.copyto (memory speed)", notes)
    report.show(table)
    worst = max(times["fpexplore.decode_array"], times["fpexplore.decode_array, weights"])
    ratio = worst / times["np.copyto (memory speed)"]
    name = max(("fpexplore.decode_array", "fpexplore.decode_array, weights"), key=times.get)
    report.target(
        "decode_array float32 within 8x of np.copyto (worst input)",
        ratio_text(times, name, "np.copyto (memory speed)"),
        ratio <= 8 and same,
    )


# -- rounding ----------------------------------------------------------------------------
def gfloat_round(name: str) -> Callable[[np.ndarray], np.ndarray] | None:
    if gfloat is None or gfloat_formats is None:
        return None
    info = getattr(gfloat_formats, GFLOAT_FORMATS[name])
    return lambda x: gfloat.round_ndarray(info, x)


def bench_float16(report: Report, n: int, repeat: int, rng: np.random.Generator) -> None:
    title = "round float64 -> float16, nearest even (baseline: numpy's astype(float16))"
    table = timing_table(title)
    x = wide_values(rng, n)
    base = "numpy x.astype(float16)"
    funcs = {
        base: lambda: x.astype(np.float16),
        "numpy x.astype(float16).astype(float64)": lambda: x.astype(np.float16).astype(float),
        "fpexplore.round_to": lambda: fpx.round_to(x, "float16"),
    }
    peer = gfloat_round("float16")
    if peer is not None:
        funcs["gfloat.round_ndarray"] = lambda: peer(x)
    with np.errstate(over="ignore"):
        times = median_times(with_one_thread(funcs, n), repeat)
        theirs = x.astype(np.float16).astype(np.float64)
    identical = np.array_equal(fpx.round_to(x, "float16").view(np.uint64), theirs.view(np.uint64))
    fmt = fpx.get_format("float16")
    ties = near_ties(fmt, rng)
    bad = wrong(fpx.round_to(ties, fmt), exact_values(ties, fmt))
    notes = {
        base: "float16 result",
        "numpy x.astype(float16).astype(float64)": "float64 result, as round_to gives",
        "fpexplore.round_to": ("bit-identical to numpy" if identical else "DIFFERS from numpy")
        + f"; near ties: {bad} of {ties.size} wrong",
    }
    add_rows(table, n, times, base, notes)
    if peer is None:
        table.add("gfloat.round_ndarray", f"{n:.0e}", NOT_INSTALLED, "-", "-", "")
    report.show(table)
    ratio = times["fpexplore.round_to"] / times[base]
    report.target(
        "round_to float64->float16 within 4x of numpy's cast, bit-identical",
        ratio_text(times, "fpexplore.round_to", base) + (", identical" if identical else ""),
        ratio <= 4 and identical and bad == 0,
    )


def bench_narrow(report: Report, name: str, n: int, repeat: int, rng: np.random.Generator) -> None:
    fmt = fpx.get_format(name)
    table = timing_table(f"round float64 -> {name}, nearest even (baseline: gfloat.round_ndarray)")
    x = wide_values(rng, n)
    x32 = x.astype(np.float32)
    ties = near_ties(fmt, rng)
    expected = exact_values(ties, fmt)
    base = "gfloat.round_ndarray"
    funcs: dict[str, Callable[[], Any]] = {}
    notes: dict[str, str] = {}
    peer = gfloat_round(name)
    if peer is not None:
        funcs[base] = lambda: peer(x)
        with np.errstate(over="ignore", invalid="ignore"):
            notes[base] = f"near ties: {wrong(peer(ties), expected)} of {ties.size} wrong"
    funcs["fpexplore.round_to"] = lambda: fpx.round_to(x, fmt)
    bad_ours = wrong(fpx.round_to(ties, fmt), expected)
    notes["fpexplore.round_to"] = f"near ties: {bad_ours} of {ties.size} wrong"
    dtype = getattr(ml_dtypes, name, None) if ml_dtypes else None
    if dtype is not None:
        funcs["ml_dtypes astype, from float32"] = lambda: x32.astype(dtype)
        funcs["ml_dtypes astype, from float64"] = lambda: x.astype(dtype)
        with np.errstate(over="ignore", invalid="ignore"):
            via32 = ties.astype(np.float32).astype(dtype).astype(np.float64)
            via64 = ties.astype(dtype).astype(np.float64)
        notes["ml_dtypes astype, from float32"] = (
            f"near ties of the float64 inputs: {wrong(via32, expected)} wrong"
        )
        notes["ml_dtypes astype, from float64"] = f"near ties: {wrong(via64, expected)} wrong"
    with np.errstate(over="ignore", invalid="ignore"):
        times = median_times(with_one_thread(funcs, n), repeat)
    add_rows(table, n, times, base, notes)
    if peer is None:
        table.add(base, f"{n:.0e}", NOT_INSTALLED, "-", "-", "")
    if dtype is None:
        table.add("ml_dtypes astype", f"{n:.0e}", NOT_INSTALLED, "-", "-", "")
    report.show(table)
    label = f"round_to float64->{name} correctly rounded, >= 5x faster than gfloat"
    if peer is None:
        report.target(label, f"gfloat {NOT_INSTALLED}; {bad_ours} near-tie errors", None)
        return
    speedup = times[base] / times["fpexplore.round_to"]
    report.target(
        label,
        ratio_text(times, "fpexplore.round_to", base, invert=True)
        + f" faster; {bad_ours} near-tie errors",
        speedup >= 5 and bad_ours == 0,
    )


def errors_by_hand(x: np.ndarray) -> tuple[np.ndarray, ...]:
    """Representation error with numpy alone (spacing from np.spacing of the float32)."""
    rounded = x.astype(np.float32).astype(np.float64)
    abs_error = np.abs(rounded - x)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel_error = abs_error / np.abs(x)
        ulp_error = abs_error / np.spacing(np.abs(x).astype(np.float32)).astype(np.float64)
    return rounded, abs_error, rel_error, ulp_error


def bench_errors(report: Report, n: int, repeat: int, rng: np.random.Generator) -> None:
    title = "representation error float64 -> float32 (baseline: numpy's astype(float32))"
    table = timing_table(title)
    x = rng.standard_normal(n)
    base = "numpy x.astype(float32)"
    funcs = {
        base: lambda: x.astype(np.float32),
        "fpexplore.representation_error": lambda: fpx.representation_error(x, "float32"),
        "numpy by hand": lambda: errors_by_hand(x),
    }
    kernel = getattr(K, "rounding_errors", None)
    if kernel is not None:
        funcs["fpexplore.codes.rounding_errors"] = lambda: kernel(x, "float32")
    times = median_times(with_one_thread(funcs, n), repeat)
    notes = {
        "fpexplore.representation_error": "rounded, abs, rel and ulp error: four float64 arrays",
        "numpy by hand": "np.spacing of the float32",
    }
    if kernel is not None:
        got, want = kernel(x, "float32"), fpx.representation_error(x, "float32")
        fields = ("rounded", "abs_error", "rel_error", "ulp_error")
        same = all(np.array_equal(a, getattr(want, f)) for a, f in zip(got, fields, strict=True))
        notes["fpexplore.codes.rounding_errors"] = "the same four arrays, one blocked pass: " + (
            "identical" if same else "DIFFERENT"
        )
    add_rows(table, n, times, base, notes)
    report.show(table)
    ratio = times["fpexplore.representation_error"] / times[base]
    report.target(
        "representation_error float64->float32 within 6x of numpy's cast",
        ratio_text(times, "fpexplore.representation_error", base),
        ratio <= 6,
    )
    if kernel is not None:
        ratio = times["fpexplore.codes.rounding_errors"] / times[base]
        report.target(
            "  the same arrays from codes.rounding_errors, within 6x",
            ratio_text(times, "fpexplore.codes.rounding_errors", base),
            ratio <= 6 and same,
        )


# -- scalars -----------------------------------------------------------------------------
def bench_scalars(report: Report) -> None:
    table = Table(
        "One value, one call (baseline: struct)", ["task", "median per call", "× baseline", "notes"]
    )
    x = 3.14159
    x32 = np.float32(x)

    def by_struct() -> tuple[int, int, int]:
        (c,) = struct.unpack("<I", struct.pack("<f", x))
        return c >> 31, (c >> 23) & 0xFF, c & 0x7FFFFF

    def ours() -> Any:
        p = fpx.decode(x32, "float32")
        return p.sign, p.exponent, p.mantissa, p.kind

    rows: list[tuple[str, Callable[[], Any] | None, str]] = [
        ("struct pack/unpack + shifts", by_struct, "fields only"),
        ("fpexplore.decode(np.float32(3.14159)) + fields", ours, "exact value; errors on demand"),
        (
            "str(fpexplore.decode(np.float32(3.14159)))",
            lambda: str(fpx.decode(x32, "float32")),
            "the REPL view",
        ),
    ]
    if bitstring is not None:

        def by_bitstring() -> tuple[int, int, int]:
            b = bitstring.BitArray(float=x, length=32)
            return b[0], b[1:9].uint, b[9:].uint

        rows.append(("bitstring.BitArray(float=...) + fields", by_bitstring, ""))
    else:
        rows.append(("bitstring.BitArray(float=...) + fields", None, ""))
    if gfloat is not None:
        info = getattr(gfloat_formats, GFLOAT_FORMATS["float32"])
        code = int(x32.view(np.uint32))
        rows.append(
            ("gfloat.decode_float (from the code)", lambda: gfloat.decode_float(info, code), "")
        )
    else:
        rows.append(("gfloat.decode_float (from the code)", None, ""))
    rows += [
        ("fpexplore.decode(5e-324)", lambda: fpx.decode(5e-324), "float64's smallest subnormal"),
        (
            "str(fpexplore.decode(5e-324))",
            lambda: str(fpx.decode(5e-324)),
            "with its ~750 exact digits",
        ),
    ]
    times = {}
    for name, func, note in rows:
        if func is None:
            table.add(name, NOT_INSTALLED, "-", note)
            continue
        times[name] = scalar_time(func)
        table.add(name, fmt_time(times[name]), f"{times[name] / times[rows[0][0]]:.0f}", note)
    report.show(table)
    decode32 = times["fpexplore.decode(np.float32(3.14159)) + fields"]
    report.target(
        "scalar decode of a float32 under 100 µs", fmt_time(decode32), decode32 < 100e-6, False
    )
    worst = max(times["fpexplore.decode(5e-324)"], times["str(fpexplore.decode(5e-324))"])
    report.target("decode(5e-324) and its str under 2 ms", fmt_time(worst), worst < 2e-3, False)


# -- memory ------------------------------------------------------------------------------
def bench_memory(report: Report, n: int, rng: np.random.Generator) -> None:
    table = Table(
        "Peak memory of one call (tracemalloc; scratch = peak - new output)",
        ["task", "N", "output", "peak", "scratch", "scratch / output"],
    )
    bits = rng.integers(0, 2**32, size=n, dtype=np.uint32).view(np.float32)
    x = wide_values(rng, n)
    tasks: list[tuple[str, Callable[[], Any], np.ndarray]] = [
        ("decode_array float32", lambda: fpx.decode_array(bits, "float32"), bits),
        ("round_to float16", lambda: fpx.round_to(x, "float16"), x),
        ("round_to bfloat16", lambda: fpx.round_to(x, "bfloat16"), x),
        ("round_to float8_e4m3fn", lambda: fpx.round_to(x, "float8_e4m3fn"), x),
        ("round_to float8_e5m2", lambda: fpx.round_to(x, "float8_e5m2"), x),
        ("representation_error float32", lambda: fpx.representation_error(x, "float32"), x),
    ]
    if hasattr(K, "rounding_errors"):
        tasks.append(("codes.rounding_errors float32", lambda: K.rounding_errors(x, "float32"), x))
    ratios = {}
    for name, func, inputs in tasks:
        with np.errstate(over="ignore"):
            peak, result = peak_memory(func)
        output = new_bytes(result, [inputs])
        scratch = max(peak - output, 0)
        ratios[name] = scratch / output if output else math.inf
        table.add(
            name,
            f"{n:.0e}",
            fmt_bytes(output),
            fmt_bytes(peak),
            fmt_bytes(scratch),
            f"{ratios[name]:.2f}",
        )
        del result
    report.show(table)
    worst = max(ratios, key=ratios.get)
    report.target(
        "no task's scratch memory above ~3x its output",
        f"worst {ratios[worst]:.2f}x ({worst})",
        ratios[worst] <= 3,
    )


# -- census ------------------------------------------------------------------------------
def bench_census(report: Report, quick: bool) -> None:
    stop = 1 << (28 if quick else 32)
    label = "float32 codes [0, 2**28)" if quick else "every float32 code, 2**32"
    table = Table(f"Census: {label}, classified and counted by exponent and kind", ["", ""])
    start = time.perf_counter()
    census = float_census("float32", progress=None, stop=stop)
    seconds = time.perf_counter() - start
    slice_stop = 1 << 26
    peak, traced = peak_memory(lambda: float_census("float32", progress=False, stop=slice_stop))
    rows = census.compare()
    agrees = census.agrees() and traced.agrees()
    table.add("codes", f"{census.total:,}")
    table.add("time", f"{seconds:.1f} s ({fmt_rate(census.total / seconds)})")
    table.add(
        "peak memory (tracemalloc, 2**26 codes: blocks make it independent of N)", fmt_bytes(peak)
    )
    table.add("codes per kind", ", ".join(f"{k} {v:,}" for k, v in census.by_kind().items()))
    table.add(
        "binades against count_between", f"{sum(r.agrees for r in rows)} of {len(rows)} agree"
    )
    report.show(table)
    label = "float32 census under 30 s and 100 MB, agreeing with count_between"
    if quick:
        projected = seconds * (1 << 32) / stop
        report.target(
            label,
            f"~{projected:.0f} s projected from 2**28 codes, {fmt_bytes(peak)}",
            None if agrees and peak < 100e6 else False,
        )
    else:
        verdict = "agrees" if agrees else "DISAGREES"
        report.target(
            label,
            f"{seconds:.1f} s, {fmt_bytes(peak)}, {verdict}",
            seconds < 30 and peak < 100e6 and agrees,
        )


# -- scaling -----------------------------------------------------------------------------
def bench_scaling(max_n: int, repeat: int, rng: np.random.Generator) -> None:
    sizes = [10**k for k in range(3, 10) if 10**k <= max_n]
    table = Table(
        "Time against N (median per call; per value at the largest N)",
        ["task", *(f"N={n:.0e}" for n in sizes), "per value"],
    )
    largest = sizes[-1]
    x = wide_values(rng, largest)
    bits = rng.integers(0, 2**32, size=largest, dtype=np.uint32).view(np.float32)
    out = np.empty_like(x)
    tasks: list[tuple[str, Callable[[int], Any]]] = [
        ("np.copyto float64", lambda n: np.copyto(out[:n], x[:n])),
        ("decode_array float32", lambda n: fpx.decode_array(bits[:n], "float32")),
        ("round_to float16", lambda n: fpx.round_to(x[:n], "float16")),
        ("round_to bfloat16", lambda n: fpx.round_to(x[:n], "bfloat16")),
        ("round_to float8_e4m3fn", lambda n: fpx.round_to(x[:n], "float8_e4m3fn")),
        ("representation_error float32", lambda n: fpx.representation_error(x[:n], "float32")),
    ]
    if hasattr(K, "rounding_errors"):
        tasks.append(
            ("codes.rounding_errors float32", lambda n: K.rounding_errors(x[:n], "float32"))
        )
    for name, func in tasks:
        times = []
        for n in sizes:
            with np.errstate(over="ignore"):
                call = {"call": lambda n=n, f=func: f(n)}
                times.append(median_times(call, repeat if n < 10**8 else 3)["call"])
        table.add(name, *(fmt_time(t) for t in times), f"{times[-1] / largest * 1e9:.2f} ns")
    print(table.render(), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="N = 1e6, 3 repeats, census slice")
    parser.add_argument("-n", type=float, default=None, help="values per array (default 1e7)")
    parser.add_argument("--repeat", type=int, default=None, help="calls per median (default 7)")
    parser.add_argument("--threads", type=int, default=None, help="fpexplore.codes.THREADS")
    parser.add_argument("--scaling", action="store_true", help="time at N = 1e3 .. --max-n")
    parser.add_argument("--max-n", type=float, default=1e7, help="largest N of --scaling")
    parser.add_argument("--no-census", action="store_true", help="skip the float32 census")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    n = int(args.n or (1e6 if args.quick else 1e7))
    repeat = args.repeat or (3 if args.quick else 7)
    K.THREADS = args.threads
    rng = np.random.default_rng(args.seed)
    print(machine_summary({"ml_dtypes": ml_dtypes, "gfloat": gfloat, "bitstring": bitstring}))
    threads = K.threads_for(max(n, K.PARALLEL_MIN))
    print(
        f"fpexplore {fpx.__version__} from {pathlib.Path(fpx.__file__).parent}; "
        f"{threads} thread(s) for arrays of {K.PARALLEL_MIN:,} values or more"
    )
    arguments = " ".join(sys.argv[1:] if argv is None else argv)
    print(f"command: python benchmarks/run.py {arguments}".rstrip())
    began = time.perf_counter()
    report = Report(n)
    bench_decode(report, n, repeat, rng)
    bench_float16(report, n, repeat, rng)
    for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        bench_narrow(report, name, n, repeat, rng)
    bench_errors(report, n, repeat, rng)
    bench_scalars(report)
    bench_memory(report, n, rng)
    if not args.no_census:
        bench_census(report, args.quick)
    if args.scaling:
        bench_scaling(int(args.max_n), repeat, rng)
    report.show(report.targets)
    verdict = "yes" if report.all_met else "no"
    print(f"total {time.perf_counter() - began:.0f} s; every target met: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

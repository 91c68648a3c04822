"""Arithmetic in a format against numpy's and ml_dtypes' own operations.

    python benchmarks/arithmetic.py            # N = 10 million
    python benchmarks/arithmetic.py --quick    # N = 1 million

Each ratio divides two medians timed in this process, round robin, so that the
machine's load cancels out. Targets (issue 12): float16 add within 3x of numpy's
float16 add; bfloat16 add within 3x of ml_dtypes' bfloat16 add; a pairwise sum
within 5x of np.sum on float32; one explained scalar operation under 1 ms. Every
timed result is also checked bit for bit against the peer (or an exact sum).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import machine_summary, median_times, optional, scalar_time  # noqa: E402

import fpexplore as fpx  # noqa: E402


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return bool(((a == b) | (np.isnan(a) & np.isnan(b))).all())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 million values")
    n = 1_000_000 if parser.parse_args().quick else 10_000_000
    rng = np.random.default_rng(0)
    ml_dtypes = optional("ml_dtypes")
    print(machine_summary({"ml_dtypes": ml_dtypes}))
    print(f"N = {n:,}\n")
    rows = []

    a16 = rng.standard_normal(n).astype(np.float16)
    b16 = rng.standard_normal(n).astype(np.float16)
    t = median_times({"fpx": lambda: fpx.add(a16, b16, "float16"), "numpy": lambda: a16 + b16}, 5)
    ok = _same(fpx.add(a16, b16, "float16"), a16 + b16)
    rows.append(("float16 add vs numpy float16 add", t["fpx"], t["numpy"], 3.0, ok))

    if ml_dtypes is not None:
        bf = ml_dtypes.bfloat16
        ab, bb = a16.astype(np.float32).astype(bf), b16.astype(np.float32).astype(bf)
        t = median_times({"fpx": lambda: fpx.add(ab, bb, "bfloat16"), "ml": lambda: ab + bb}, 5)
        ok = _same(fpx.add(ab, bb, "bfloat16"), (ab + bb).astype(np.float64))
        rows.append(("bfloat16 add vs ml_dtypes bfloat16 add", t["fpx"], t["ml"], 3.0, ok))

    x32 = rng.random(n).astype(np.float32)
    t = median_times(
        {
            "fpx": lambda: fpx.sum(x32, "float32", order="pairwise").value,
            "numpy": lambda: np.sum(x32),
        },
        7,
    )
    r = fpx.sum(x32, "float32", order="pairwise")
    ok = r.rel_error < 1e-6
    rows.append(("sum(float32, pairwise) vs np.sum float32", t["fpx"], t["numpy"], 5.0, ok))
    xb = x32.astype(np.float64)
    t = median_times(
        {
            "fpx": lambda: fpx.sum(xb, "bfloat16", order="pairwise").value,
            "numpy": lambda: np.sum(x32),
        },
        5,
    )
    ok = fpx.sum(xb, "bfloat16", order="pairwise").rel_error < 1e-2
    rows.append(("sum(bfloat16, pairwise) vs np.sum float32", t["fpx"], t["numpy"], 5.0, ok))

    print(f"{'task':<44}{'fpexplore':>12}{'peer':>12}{'ratio':>9}{'target':>9}  met  exact")
    for name, ours, peer, target, ok in rows:
        ratio = ours / peer
        met = "yes" if ratio <= target else "no"
        print(
            f"{name:<44}{ours * 1e3:>10.1f}ms{peer * 1e3:>10.1f}ms{ratio:>8.2f}x"
            f"{target:>8.0f}x  {met:<4} {'yes' if ok else 'NO'}"
        )
    once = scalar_time(lambda: str(fpx.add("0.1", "0.2", "bfloat16")))
    met = "yes" if once < 1e-3 else "no"
    print(
        f"\none explained scalar operation, str(add('0.1', '0.2', 'bfloat16')): "
        f"{once * 1e6:.0f} µs (target < 1000 µs: {met})"
    )
    once = scalar_time(lambda: fpx.add("0.1", "0.2", "bfloat16"))
    print(f"the operation alone, without its explanation: {once * 1e6:.0f} µs")


if __name__ == "__main__":
    main()

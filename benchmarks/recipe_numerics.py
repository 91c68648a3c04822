"""The numerics of today's recipes against their baselines: the accumulator model,
blocks of one against blocks of 32, 2-D tiles, the Hadamard transform.

    python benchmarks/recipe_numerics.py            # the 256x1024x256 matmul, N = 2**20
    python benchmarks/recipe_numerics.py --quick    # smoke run: 64x1024x64, N = 2**16
    python benchmarks/recipe_numerics.py --no-jax   # numpy only

Ratios divide two medians timed in this process, round robin (see
benchmarks/_harness.py), so the machine's load cancels out:

* ``gemm(a, b, accumulate="h100_fp8")`` (numpy and ``fpexplore.jax.gemm`` under
  ``jit``) against the float32 matmul of the same library (aim: within 20x);
* ``quantize_blocks`` with blocks of 1 against blocks of 32 (numpy and JAX): the
  cost per value of a block size;
* 16x16 tiles against 1x16 blocks, and ``hadamard(x, 16)`` against
  ``quantize_blocks`` itself.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import Table, fmt_time, machine_summary, median_times  # noqa: E402

import fpexplore as fpx  # noqa: E402


def ratios(title: str, times: dict[str, float], baseline: str) -> None:
    table = Table(title, ["task", "median", "x baseline"])
    for name, seconds in times.items():
        table.add(name, fmt_time(seconds), f"{seconds / times[baseline]:.1f}")
    print(table.render(), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-jax", action="store_true")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    m, k, n = (64, 1024, 64) if args.quick else (256, 1024, 256)
    size = 2**16 if args.quick else 2**20
    print(machine_summary({}))
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    x = rng.standard_normal((size // 256, 256)).astype(np.float32)
    numpy_times = median_times({
        "float32 matmul (a @ b)": lambda: a @ b,
        "gemm h100_fp8": lambda: fpx.gemm(a, b, accumulate="h100_fp8"),
        "gemm h100_fp8_promoted": lambda: fpx.gemm(a, b, accumulate="h100_fp8_promoted"),
    }, args.repeat)  # fmt: skip
    ratios(f"numpy: the accumulator model on a {m}x{k}x{n} matmul", numpy_times,
           "float32 matmul (a @ b)")  # fmt: skip
    block_times = median_times({
        "mxfp8_e4m3, blocks of 32": lambda: fpx.quantize_blocks(x, "mxfp8_e4m3"),
        "mxfp8_e4m3, blocks of 1": lambda: fpx.quantize_blocks(x, "mxfp8_e4m3", block_size=1),
        "nvfp4, 1x16": lambda: fpx.quantize_blocks(x, "nvfp4"),
        "nvfp4, 16x16": lambda: fpx.quantize_blocks(x, "nvfp4", axis=(0, 1), block_size=(16, 16)),
        "hadamard(x, 16)": lambda: fpx.hadamard(x, 16),
    }, args.repeat)  # fmt: skip
    ratios(f"numpy: block shapes, {x.size} float32 values", block_times,
           "mxfp8_e4m3, blocks of 32")  # fmt: skip
    if args.no_jax:
        return
    import jax
    import jax.numpy as jnp

    import fpexplore.jax as fjax

    ja, jb, jx = jnp.asarray(a), jnp.asarray(b), jnp.asarray(x)
    matmul = jax.jit(lambda p, q: jnp.matmul(p, q, precision=jax.lax.Precision.HIGHEST))
    model = jax.jit(lambda p, q: fjax.gemm(p, q, accumulate="h100_fp8"))
    promoted = jax.jit(lambda p, q: fjax.gemm(p, q, accumulate="h100_fp8_promoted"))
    start = time.perf_counter()
    model(ja, jb).block_until_ready()
    compile_s = time.perf_counter() - start
    jax_times = median_times({
        "float32 matmul (jit)": lambda: matmul(ja, jb).block_until_ready(),
        "gemm h100_fp8 (jit)": lambda: model(ja, jb).block_until_ready(),
        "gemm h100_fp8_promoted (jit)": lambda: promoted(ja, jb).block_until_ready(),
    }, args.repeat)  # fmt: skip
    ratios(f"JAX ({jax.devices()[0].platform}): the accumulator model on a {m}x{k}x{n} "
           f"matmul (first call, compile included: {compile_s:.2f} s)", jax_times,
           "float32 matmul (jit)")  # fmt: skip
    q32 = jax.jit(lambda v: fjax.quantize_blocks(v, "mxfp8_e4m3"))
    q1 = jax.jit(lambda v: fjax.quantize_blocks(v, "mxfp8_e4m3", block_size=1))
    t16 = jax.jit(lambda v: fjax.quantize_blocks(v, "nvfp4", axis=(0, 1), block_size=(16, 16)))
    b16 = jax.jit(lambda v: fjax.quantize_blocks(v, "nvfp4"))
    had = jax.jit(lambda v: fjax.hadamard(v, 16))
    jax_blocks = median_times({
        "mxfp8_e4m3, blocks of 32 (jit)": lambda: q32(jx).block_until_ready(),
        "mxfp8_e4m3, blocks of 1 (jit)": lambda: q1(jx).block_until_ready(),
        "nvfp4, 1x16 (jit)": lambda: b16(jx).block_until_ready(),
        "nvfp4, 16x16 (jit)": lambda: t16(jx).block_until_ready(),
        "hadamard(x, 16) (jit)": lambda: had(jx).block_until_ready(),
    }, args.repeat)  # fmt: skip
    ratios(f"JAX: block shapes, {x.size} float32 values", jax_blocks,
           "mxfp8_e4m3, blocks of 32 (jit)")  # fmt: skip


if __name__ == "__main__":
    main()

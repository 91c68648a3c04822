"""fpexplore.jax rounding inside jit against JAX's own casts, on JAX's default device.

    python benchmarks/jax_rounding.py            # N = 10 million float32 values
    python benchmarks/jax_rounding.py --quick    # smoke run: N = 1e6

Needs JAX (``pip install -e ".[keras]"``). Every task is a jitted function of a
device array, timed to ``block_until_ready`` after a warm-up call (compilation is
not timed). The baseline is JAX's own round trip ``x.astype(jnp.bfloat16)
.astype(jnp.float32)``, timed in the same run, round robin with the others (see
benchmarks/_harness.py), so the machine's load cancels out of the ratios. Before
timing, each fpexplore result is checked bit for bit against fpexplore.round_to
on the host (stochastic: against the two neighbours), the scaled ones against
fpexplore.scale_per_tensor and fpexplore.quantize_blocks. The rows marked "for
scale" have no target: they show what the per-tensor and block scalings of the
training presets cost next to a plain rounding.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import Table, fmt_rate, fmt_time, machine_summary, median_times  # noqa: E402

import fpexplore as fpx  # noqa: E402

TARGETS = {"round_to bfloat16": 2.0, "round_to float8_e4m3fn": 2.0,
           "round_to bfloat16, stochastic": 3.0}  # fmt: skip


def _check(jax: object, x: np.ndarray, fjax: object, key: object) -> None:
    """fpexplore.jax's results bit for bit fpexplore.round_to's, on a sample."""
    sample = x[:: max(1, x.size // 200_000)]
    for fmt in ("bfloat16", "float8_e4m3fn"):
        got = np.asarray(fjax.round_to(sample, fmt)).view(np.uint32)
        want = fpx.round_to(sample, fmt).astype(np.float32).view(np.uint32)
        assert (got == want).all(), fmt
    got = np.asarray(fjax.round_to(sample, "bfloat16", "stochastic", key=key))
    down, up = fpx.round_to(sample, "bfloat16", "down"), fpx.round_to(sample, "bfloat16", "up")
    assert ((got == down) | (got == up)).all()
    got = np.asarray(fjax.scale_per_tensor(sample, "float8_e4m3fn").values).view(np.uint32)
    want = fpx.scale_per_tensor(sample, "float8_e4m3fn").values
    assert (got == fpx.round_to(want, "float32").astype(np.float32).view(np.uint32)).all()
    for fmt in ("mxfp4", "nvfp4"):
        got = np.asarray(fjax.quantize_blocks(sample, fmt)).view(np.uint32)
        want = fpx.round_to(fpx.quantize_blocks(sample, fmt).values, "float32")
        assert (got == want.astype(np.float32).view(np.uint32)).all(), fmt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 1e6, fewer repeats")
    parser.add_argument("--n", type=float, default=1e7, help="number of float32 values")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print('needs JAX: pip install -e ".[keras]"', file=sys.stderr)
        return 2
    import fpexplore.jax as fjax

    n = int(1e6 if args.quick else args.n)
    repeat = 5 if args.quick else args.repeat
    print(machine_summary({"jax": jax, "jaxlib": jax}))
    print(f"jax devices: {jax.devices()}")
    rng = np.random.default_rng(0)
    host = (rng.standard_normal(n) * np.exp2(rng.integers(-20, 20, n))).astype(np.float32)
    x = jax.device_put(host)
    key = jax.random.key(0)
    _check(jax, host, fjax, key)

    def timed(f: object) -> object:
        compiled = jax.jit(f)
        return lambda: compiled(x).block_until_ready()

    tasks = {
        "astype bfloat16 and back (baseline)": timed(
            lambda v: v.astype(jnp.bfloat16).astype(jnp.float32)
        ),
        "round_to bfloat16": timed(lambda v: fjax.round_to(v, "bfloat16")),
        "round_to float8_e4m3fn": timed(lambda v: fjax.round_to(v, "float8_e4m3fn")),
        "round_to bfloat16, stochastic": timed(
            lambda v: fjax.round_to(v, "bfloat16", "stochastic", key=key)
        ),
        "round_to float8_e4m3fn, stochastic": timed(
            lambda v: fjax.round_to(v, "float8_e4m3fn", "stochastic", key=key)
        ),
        "astype float8_e4m3fn and back (XLA)": timed(
            lambda v: v.astype(jnp.float8_e4m3fn).astype(jnp.float32)
        ),
        "jax.random.bits, threefry (for scale)": timed(
            lambda v: jax.random.bits(key, v.shape, jnp.uint32)
        ),
        "scale_per_tensor float8_e4m3fn (for scale)": timed(
            lambda v: fjax.scale_per_tensor(v, "float8_e4m3fn").values
        ),
        "quantize_blocks mxfp4 (for scale)": timed(lambda v: fjax.quantize_blocks(v, "mxfp4")),
        "quantize_blocks nvfp4 (for scale)": timed(lambda v: fjax.quantize_blocks(v, "nvfp4")),
        "quantize_blocks nvfp4, stochastic (for scale)": timed(
            lambda v: fjax.quantize_blocks(v, "nvfp4", "stochastic", key=key)
        ),
    }
    times = median_times(tasks, repeat)
    baseline = times["astype bfloat16 and back (baseline)"]
    columns = ["task", "median", "values/s", "x baseline", "target"]
    table = Table(f"Rounding {n:.0e} float32 values inside jit", columns)
    for name, seconds in times.items():
        ratio = seconds / baseline
        limit = TARGETS.get(name)
        verdict = "" if limit is None else f"{limit:g}x: {'met' if ratio <= limit else 'NOT met'}"
        table.add(name, fmt_time(seconds), fmt_rate(n / seconds), f"{ratio:.2f}", verdict)
    print(table.render(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

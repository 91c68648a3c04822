"""Time the first epoch (compilation included) of an MLP under each fpexplore.keras preset.

Compilation is a user's cost: the first ``fit`` of an emulated model traces and
compiles its training step, with every quantizer of every emulated layer inlined.
The issue's target: the first epoch of a 256-256-10 MLP under every preset within 3x
of the float32 model's first epoch. Each preset runs in a fresh Python process (so
that no preset profits from another's traced functions), after a plain float32 run
in the same way, and the table gives each one's seconds, its ratio to float32 and the
seconds JAX reports compiling (XLA) and tracing. Needs the ``keras`` extra::

    python benchmarks/first_epoch.py                    # every preset
    python benchmarks/first_epoch.py --presets fp8 nvfp4
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import subprocess
import sys

TARGET = 3.0
ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout's fpexplore, installed or not

CHILD = r"""
import collections, json, os, sys, time
os.environ.setdefault("KERAS_BACKEND", "jax")
import jax, keras, numpy as np
from fpexplore.keras import emulate
events = collections.defaultdict(float)
jax.monitoring.register_event_duration_secs_listener(
    lambda name, secs, **kw: events.__setitem__(name, events[name] + secs))
name, features, hidden, batch, steps = sys.argv[1], *map(int, sys.argv[2:6])
keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((features,)), keras.layers.Dense(hidden, activation="relu"),
                          keras.layers.Dense(10, activation="softmax")])
if name != "float32 (plain Keras)":
    model = emulate(model, name)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
rng = np.random.default_rng(0)
x = rng.standard_normal((batch * steps, features)).astype("float32")
y = rng.integers(0, 10, batch * steps).astype("int32")
start = time.perf_counter()
model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)
first = time.perf_counter() - start
start = time.perf_counter()
model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)
second = time.perf_counter() - start
compile_s = sum(v for k, v in events.items() if k.endswith("backend_compile_duration"))
trace_s = sum(v for k, v in events.items() if k.endswith(("trace_duration", "module_duration")))
print(json.dumps({"first": first, "second": second, "compile": compile_s, "trace": trace_s}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", nargs="+", default=["all"], help="('all': every one)")
    parser.add_argument("--features", type=int, default=256)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--steps", type=int, default=10, help="steps per epoch (10)")
    args = parser.parse_args(argv)
    os.environ.setdefault("KERAS_BACKEND", "jax")
    from fpexplore.keras import PRESETS

    names = list(PRESETS) if args.presets == ["all"] else args.presets
    unknown = [n for n in names if n not in PRESETS]
    if unknown:
        print(f"unknown presets {unknown}; expected 'all' or some of {list(PRESETS)}")
        return 2
    names = ["float32 (plain Keras)", *names]
    sizes = [str(v) for v in (args.features, args.hidden, args.batch_size, args.steps)]
    results = {}
    for name in names:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, name, *sizes],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,  # the checkout's fpexplore, installed or not
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        results[name] = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} CPUs")
    print("load average (1, 5, 15 min):", ", ".join(f"{v:.1f}" for v in os.getloadavg()))
    print(
        f"MLP {args.features}-{args.hidden}-10, batch {args.batch_size}, {args.steps} steps; "
        "each preset in a fresh process"
    )
    base = results[names[0]]["first"]
    print(f"{'preset':<26}{'1st epoch s':>12}{'vs float32':>12}{'XLA compile s':>15}"
          f"{'trace s':>9}{'2nd epoch s':>13}")  # fmt: skip
    over = []
    for name in names:
        r = results[name]
        ratio = r["first"] / base
        print(f"{name:<26}{r['first']:>12.2f}{ratio:>11.2f}x{r['compile']:>15.2f}"
              f"{r['trace']:>9.2f}{r['second']:>13.3f}")  # fmt: skip
        if ratio > TARGET:
            over.append(name)
    print(f"within {TARGET:g}x of float32: {'all' if not over else 'not ' + ', '.join(over)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Time a training step of an MLP under fpexplore.keras presets against plain float32.

The issues' targets: a step under the ``fp8`` preset (E4M3 operands and E5M2
gradients with delayed scaling, every rounding done by ``fpexplore.jax`` inside the
jitted step), and one under ``nvfp4`` (16x16 weight tiles, Hadamard transforms on
the wgrad operands, stochastic gradients, each of the six operands quantized for its
own GEMM), within 3x of the same step of the plain float32 model. For each preset
the same model is built from the same seed; the presets train one epoch each in turn
(round robin, so a change in the machine's load hits all of them alike), and the
fastest epoch after the first (which compiles), the one least disturbed by other
work on the machine, gives the time per step. Ratios are against float32 measured
in the same run: "vs float32" compares the fastest epochs, "each round" gives the
range of the ratios of the epochs trained in the same round (the spread that the
machine's load leaves). Needs the ``keras`` extra::

    python benchmarks/training_step.py                      # float32 and fp8
    python benchmarks/training_step.py --presets all        # every preset
    python benchmarks/training_step.py --hidden 2048 --batch-size 1024   # larger, for a GPU
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout's fpexplore, installed or not

TARGET = 3.0  # the fp8 and nvfp4 steps within 3x of the float32 step


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--presets", nargs="+", default=["fp8"], help="presets to time ('all': every one)"
    )
    parser.add_argument("--hidden", type=int, default=512, help="units per hidden layer (512)")
    parser.add_argument("--layers", type=int, default=3, help="hidden layers (3)")
    parser.add_argument("--features", type=int, default=256, help="input features (256)")
    parser.add_argument("--batch-size", type=int, default=256, help="(default 256)")
    parser.add_argument("--steps", type=int, default=20, help="steps per epoch (20)")
    parser.add_argument("--epochs", type=int, default=8, help="epochs per preset (8)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.epochs < 2:
        parser.error("--epochs must be at least 2: the first epoch compiles")
    return args


def build(keras, args: argparse.Namespace):
    keras.utils.set_random_seed(args.seed)
    layers = [keras.Input((args.features,))]
    layers += [keras.layers.Dense(args.hidden, activation="relu") for _ in range(args.layers)]
    layers.append(keras.layers.Dense(10, activation="softmax"))
    return keras.Sequential(layers)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import jax
    import keras
    import numpy as np

    from fpexplore.keras import PRESETS, emulate

    names = list(PRESETS) if args.presets == ["all"] else args.presets
    unknown = [n for n in names if n not in PRESETS]
    if unknown:
        print(f"unknown presets {unknown}; expected 'all' or some of {list(PRESETS)}")
        return 2
    names = ["float32 (plain Keras)", *names]
    rng = np.random.default_rng(args.seed)
    n = args.batch_size * args.steps
    x = rng.standard_normal((n, args.features)).astype("float32")
    y = np.argmax(x @ rng.standard_normal((args.features, 10)), axis=1).astype("int32")

    models = {}
    for name in names:
        model = build(keras, args)
        if name in PRESETS:
            model = emulate(model, name)
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        models[name] = model
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(args.epochs):
        for name, model in models.items():
            start = time.perf_counter()
            model.fit(x, y, batch_size=args.batch_size, epochs=1, verbose=0, shuffle=False)
            seconds[name].append(time.perf_counter() - start)

    print(f"keras {keras.__version__}, jax {jax.__version__}, devices: {jax.devices()}")
    print(f"machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} CPUs")
    print(
        f"MLP {args.features}-{'-'.join([str(args.hidden)] * args.layers)}-10, batch "
        f"{args.batch_size}, {args.steps} steps an epoch, fastest of {args.epochs - 1} epochs"
    )
    print("load average (1, 5, 15 min):", ", ".join(f"{v:.1f}" for v in os.getloadavg()))
    base = min(seconds[names[0]][1:]) / args.steps
    print(f"{'preset':<30}{'ms/step':>10}{'vs float32':>12}{'each round':>16}")
    verdicts = []
    for name in names:
        per_step = min(seconds[name][1:]) / args.steps
        rounds = [t / b for t, b in zip(seconds[name][1:], seconds[names[0]][1:], strict=True)]
        spread = f"{min(rounds):.2f}-{max(rounds):.2f}x"
        print(f"{name:<30}{1000 * per_step:>10.3f}{per_step / base:>11.2f}x{spread:>16}")
        if name in ("fp8", "nvfp4"):
            verdicts.append((name, per_step / base <= TARGET))
    for name, verdict in verdicts:
        print(f"{name} within {TARGET:g}x of float32: {'yes' if verdict else 'no'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

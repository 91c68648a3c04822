"""Time one small Keras model under the float32, mixed_float16 and mixed_bfloat16 policies.

The same comparison as notebook 06, as a script that runs on any machine with the
``keras`` extra installed (``pip install -e ".[keras]"``). For each dtype policy it
trains the same model from the same seed and prints the median time per training step
(over the epochs after the first, which includes compilation), the ratio to float32, and
the test accuracy, plus the devices JAX ran on.

On a CPU, mixed precision is usually slower: CPUs have no fast float16 arithmetic, so
the casts are pure overhead. On a GPU with tensor cores (NVIDIA Volta or newer), or a
TPU with bfloat16, the 16-bit matrix products are faster; to see it, make the model and
the batch large enough that the matrix products dominate, for example::

    python benchmarks/mixed_precision.py --data synthetic --hidden 4096 --batch-size 1024
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time

POLICIES = ("float32", "mixed_float16", "mixed_bfloat16")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Defaults finish in well under a minute on a laptop CPU.",
    )
    parser.add_argument("--policies", nargs="+", default=list(POLICIES), choices=POLICIES)
    parser.add_argument("--epochs", type=int, default=6, help="epochs per policy (default 6)")
    parser.add_argument("--batch-size", type=int, default=64, help="(default 64)")
    parser.add_argument("--hidden", type=int, default=256, help="units per hidden layer (256)")
    parser.add_argument(
        "--data",
        choices=("digits", "synthetic"),
        default="digits",
        help="scikit-learn's bundled digits (default), or random data of --samples rows",
    )
    parser.add_argument("--samples", type=int, default=20_000, help="synthetic rows (20000)")
    parser.add_argument("--features", type=int, default=256, help="synthetic columns (256)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backend", default="jax", help="Keras backend (default jax)")
    args = parser.parse_args(argv)
    if args.epochs < 2:
        parser.error("--epochs must be at least 2: the first epoch is a warm-up")
    return args


def load_data(args: argparse.Namespace):
    import numpy as np

    if args.data == "digits":
        from sklearn.datasets import load_digits

        digits = load_digits()
        x, y = (digits.data / 16.0).astype("float32"), digits.target.astype("int32")
    else:
        rng = np.random.default_rng(args.seed)
        x = rng.standard_normal((args.samples, args.features)).astype("float32")
        teacher = rng.standard_normal((args.features, 10)).astype("float32")
        y = np.argmax(x @ teacher, axis=1).astype("int32")
    n_test = len(x) // 5
    order = np.random.default_rng(args.seed).permutation(len(x))
    test, train = order[:n_test], order[n_test:]
    return x[train], y[train], x[test], y[test]


def time_policy(policy: str, data, args: argparse.Namespace) -> dict[str, float]:
    import keras

    x_train, y_train, x_test, y_test = data
    epoch_seconds: list[float] = []

    class EpochTimer(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.start = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            epoch_seconds.append(time.perf_counter() - self.start)

    keras.mixed_precision.set_global_policy(policy)
    try:
        keras.utils.set_random_seed(args.seed)
        model = keras.Sequential(
            [
                keras.Input(shape=x_train.shape[1:]),
                keras.layers.Dense(args.hidden, activation="relu"),
                keras.layers.Dense(args.hidden, activation="relu"),
                keras.layers.Dense(10, activation="softmax", dtype="float32"),
            ]
        )
        model.compile(
            optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"]
        )
        model.fit(
            x_train,
            y_train,
            epochs=args.epochs,
            batch_size=args.batch_size,
            verbose=0,
            callbacks=[EpochTimer()],
        )
        loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    finally:
        keras.mixed_precision.set_global_policy("float32")
    steps = math.ceil(len(x_train) / args.batch_size)
    return {
        "ms_per_step": 1000 * statistics.median(epoch_seconds[1:]) / steps,
        "accuracy": float(accuracy),
        "loss": float(loss),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ["KERAS_BACKEND"] = args.backend
    import keras

    if keras.backend.backend() != args.backend:
        print(f"keras was already imported with backend {keras.backend.backend()!r}")
        return 1
    data = load_data(args)
    print(f"keras {keras.__version__}, backend {keras.backend.backend()}")
    if args.backend == "jax":
        import jax

        print(f"jax {jax.__version__}, devices: {jax.devices()}")
    print(
        f"data {args.data}: {len(data[0])} training rows, batch {args.batch_size}, "
        f"hidden {args.hidden}, {args.epochs} epochs (first one is warm-up)"
    )
    results = {policy: time_policy(policy, data, args) for policy in args.policies}
    reference = results.get("float32", {}).get("ms_per_step")
    print(f"{'policy':<16}{'ms/step':>10}{'vs float32':>12}{'accuracy':>10}{'loss':>9}")
    for policy, r in results.items():
        ratio = f"{r['ms_per_step'] / reference:.2f}x" if reference else "-"
        print(
            f"{policy:<16}{r['ms_per_step']:>10.3f}{ratio:>12}"
            f"{r['accuracy']:>10.4f}{r['loss']:>9.4f}"
        )
    print("ratio > 1 means slower than float32")
    return 0


if __name__ == "__main__":
    sys.exit(main())

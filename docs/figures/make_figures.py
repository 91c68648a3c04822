"""The README's figures, drawn by fpexplore itself: a decoded float32, a checkpoint
report's heatmap and learning curves of one model trained in several formats.

    python docs/figures/make_figures.py            # the three SVGs and figures.json
    python docs/figures/make_figures.py --train    # first retrain: learning-curves.json

Every figure is an SVG written deterministically (no date, a fixed hash salt, text kept
as text), so that the same fpexplore and matplotlib write the same bytes;
``tests/test_figures.py`` draws them again and compares. ``figures.json`` records what
the figures show (the decoded fields, the report's SNR grid, the curves) and the
matplotlib release that drew them: the test compares that data under any release, and
the bytes under the recorded one.

The learning curves come from ``learning-curves.json``, which ``--train`` writes by
training the digits MLP of notebook 08 under five presets of :mod:`fpexplore.keras`
(Keras 3 on JAX, about a minute on a CPU); the figure is drawn from that file, so the
test needs no training.
"""

from __future__ import annotations

import argparse
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

import fpexplore as fpx

HERE = Path(__file__).resolve().parent
FIGURES = ("decode.svg", "checkpoint-report.svg", "learning-curves.svg")
CURVES = HERE / "learning-curves.json"
PRESETS = ("float32", "bfloat16_weights", "bfloat16_weights_stochastic", "bfloat16", "fp8")
REPORT_FORMATS = ("e4m3", "e5m2", "mxfp4", "nvfp4")


def model_tensors() -> dict[str, np.ndarray]:
    """A small made-up model: weights at typical scales, a norm with one outlier and a
    gradient too small for FP8 without a scale (seeded: the same tensors every run)."""
    rng = np.random.default_rng(0)

    def normal(shape: tuple[int, ...], scale: float) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    return {
        "embed": normal((512, 64), 0.02),
        "attn/qkv": normal((64, 192), 0.1),
        "attn/out": normal((64, 64), 0.1),
        "mlp/up": normal((64, 256), 0.1),
        "mlp/down": normal((256, 64), 0.05),
        "norm": np.r_[np.ones(63), 900.0].astype(np.float32),
        "grad/mlp/up": normal((64, 256), 1e-7),
    }


def _svg(fig: Any) -> bytes:
    import matplotlib

    out = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "fpexplore", "svg.fonttype": "none"}):
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    return out.getvalue()


def _json_number(x: float) -> float | str:
    return x if math.isfinite(x) else str(x)


def draw(curves_path: Path = CURVES) -> tuple[dict[str, bytes], dict[str, Any]]:
    """The three SVGs (name to bytes) and the data they show."""
    import matplotlib
    from matplotlib.figure import Figure

    from fpexplore.plot import bits, plot_learning_curves

    svgs, data = {}, {"matplotlib": matplotlib.__version__}

    parts = fpx.decode(3.14159, "float32")
    fig = Figure(figsize=(9, 2.6), layout="constrained")
    bits(parts, ax=fig.add_subplot())
    svgs["decode.svg"] = _svg(fig)
    data["decode"] = {"sign": parts.sign, "exponent": parts.exponent, "mantissa": parts.mantissa}

    report = fpx.checkpoint_report(model_tensors(), list(REPORT_FORMATS), progress=False)
    fig = Figure(figsize=(11.5, 4.4), layout="constrained")
    report.plot(ax=fig.add_subplot())
    svgs["checkpoint-report.svg"] = _svg(fig)
    data["checkpoint_report"] = [
        [r["tensor"], r["format"], r["scaling"], _json_number(round(r["snr_db"], 2))]
        for r in report.to_records()
    ]

    runs = json.loads(curves_path.read_text(encoding="utf-8"))
    histories = {name: {"val_accuracy": acc} for name, acc in runs["val_accuracy"].items()}
    fig = Figure(figsize=(9, 4.2), layout="constrained")
    plot_learning_curves(
        histories, "val_accuracy", title=runs["title"], ax=fig.add_subplot()
    ).set_ylim(0, 1)
    svgs["learning-curves.svg"] = _svg(fig)
    data["learning_curves"] = runs["val_accuracy"]
    return svgs, data


def _dumps(data: dict[str, Any]) -> str:
    """JSON with one line per key (and per run or row under it)."""
    lines = []
    for key, value in data.items():
        if isinstance(value, dict):
            rows = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items()]
            lines.append(f"{json.dumps(key)}: {{\n" + ",\n".join(rows) + "\n }")
        elif isinstance(value, list) and value and isinstance(value[0], list):
            rows = [f"  {json.dumps(v)}" for v in value]
            lines.append(f"{json.dumps(key)}: [\n" + ",\n".join(rows) + "\n ]")
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value)}")
    return "{\n " + ",\n ".join(lines) + "\n}\n"


def write(folder: Path = HERE) -> None:
    svgs, data = draw()
    for name, svg in svgs.items():
        (folder / name).write_bytes(svg)
    (folder / "figures.json").write_text(_dumps(data), encoding="utf-8")


def train(epochs: int = 12, batch: int = 64, lr: float = 0.01) -> dict[str, Any]:
    """Notebook 08's digits MLP (64-256-256-10, plain SGD, the same seed and batches)
    under each preset: the test accuracy after every epoch."""
    import os

    os.environ.setdefault("KERAS_BACKEND", "jax")
    import keras
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    from fpexplore.keras import emulate

    digits = load_digits()
    x = (digits.data / 16.0).astype("float32")
    y = digits.target.astype("int32")
    xt, xv, yt, yv = train_test_split(x, y, test_size=0.2, random_state=0, stratify=y)
    curves = {}
    for preset in PRESETS:
        keras.utils.set_random_seed(0)
        model = keras.Sequential(
            [
                keras.Input(shape=(64,)),
                keras.layers.Dense(256, activation="relu"),
                keras.layers.Dense(256, activation="relu"),
                keras.layers.Dense(10, activation="softmax"),
            ]
        )
        model = emulate(model, preset)
        model.compile(
            optimizer=keras.optimizers.SGD(lr),
            loss="sparse_categorical_crossentropy",
            metrics=["accuracy"],
        )
        history = model.fit(
            xt, yt, epochs=epochs, batch_size=batch, validation_data=(xv, yv), verbose=0,
            shuffle=False,
        )  # fmt: skip
        curves[preset] = [round(float(a), 4) for a in history.history["val_accuracy"]]
    return {
        "title": f"digits MLP, plain SGD (lr = {lr}): test accuracy",
        "trained_with": f"keras {keras.__version__}, fpexplore {fpx.__version__}",
        "val_accuracy": curves,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", action="store_true", help="retrain: learning-curves.json")
    args = parser.parse_args(argv)
    if args.train:
        CURVES.write_text(_dumps(train()), encoding="utf-8")
    write()


if __name__ == "__main__":
    main()

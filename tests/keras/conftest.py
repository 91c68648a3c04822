"""Keras on the JAX backend for the tests of fpexplore.keras (skipped without them)."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")  # before the first `import keras`


@pytest.fixture
def keras():
    keras = pytest.importorskip("keras")
    pytest.importorskip("jax")
    if keras.backend.backend() != "jax":
        pytest.skip("these tests need Keras' JAX backend")
    keras.utils.set_random_seed(0)
    return keras


@pytest.fixture
def data():
    """64 examples of 8 features, 3 classes: one tiny, seeded data set."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 8)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32) + (x[:, 1] > 0.5)
    return x, y


@pytest.fixture
def mlp(keras):
    """A factory of small Dense models: 8 -> 16 (relu) -> dropout -> 3 (softmax)."""

    def build(hidden: int = 16):
        return keras.Sequential(
            [
                keras.Input((8,)),
                keras.layers.Dense(hidden, activation="relu", name="hidden"),
                keras.layers.Dropout(0.1, name="dropout"),
                keras.layers.Dense(3, activation="softmax", name="out"),
            ]
        )

    return build

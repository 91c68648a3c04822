"""Keras, imported on the JAX backend when nobody chose one before.

Keras reads ``KERAS_BACKEND`` once, at its first import (its default is TensorFlow).
When Keras is not imported yet and the variable is unset, this module sets it to
``"jax"``; :func:`require_jax` then checks the backend Keras actually runs on.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any

NEEDS = 'fpexplore.keras needs Keras 3 and JAX: pip install -e ".[keras]" (from a clone)'


class BackendError(ValueError, ImportError):
    """Keras is set to a backend other than JAX (a ValueError, and an ImportError when
    that backend is not installed and Keras cannot be imported at all)."""


def _advice(backend: str) -> str:
    return (
        f"fpexplore.keras emulates formats on Keras' JAX backend, but this Keras runs on "
        f"{backend!r}: set KERAS_BACKEND=jax before the first `import keras`"
    )


if "keras" not in sys.modules:
    os.environ.setdefault("KERAS_BACKEND", "jax")
try:
    import keras
except ImportError as error:  # exercised without the keras extra, or its backend
    chosen = os.environ.get("KERAS_BACKEND", "jax")
    if chosen != "jax" and importlib.util.find_spec("keras") is not None:
        raise BackendError(f"{_advice(chosen)} ({error})") from None
    raise ImportError(f"{NEEDS} ({error})") from None

__all__ = ["BackendError", "keras", "require_jax"]


def require_jax() -> Any:
    """Keras itself, or a ValueError naming the backend it runs on if that is not JAX."""
    backend = keras.backend.backend()
    if backend != "jax":
        raise BackendError(_advice(backend))
    return keras

"""``import fpexplore`` loads no JAX; ``fpexplore.jax`` without JAX names the extra."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_import_fpexplore_loads_no_jax() -> None:
    code = (
        "import sys, fpexplore, numpy as np; fpexplore.round_to(np.ones(3, np.float32), 'e4m3'); "
        "print(sorted(m for m in ('jax', 'jaxlib', 'keras', 'fpexplore.jax') if m in sys.modules))"
    )
    assert _run(code) == "[]"


def test_missing_jax_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['jax'] = None\n"
        "try:\n    import fpexplore.jax\nexcept ImportError as e:\n    print(e)\n"
    )
    assert 'pip install -e ".[keras]"' in _run(code)

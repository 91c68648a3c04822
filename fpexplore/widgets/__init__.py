"""Interactive panels for Jupyter: flip bits, step by one ULP, watch rounding, spacing and
arithmetic.

Built from core ipywidgets 8 controls only (no custom JavaScript), so they work in
JupyterLab, VS Code and Colab. Each panel is a plain object: its state is in attributes,
every control calls a public method, and a bare panel at the end of a cell displays it
(``panel.widget`` is the container).

Examples
--------
>>> ex = FloatExplorer(1.0, "float16")
>>> ex.toggle_bit(0)  # the sign bit
>>> ex.value
-1.0
>>> ex.step(+1)  # one ULP up
>>> ex.value
-0.99951171875
>>> ex.set_text("abc")
>>> ex.value, ex.is_error
(-0.99951171875, True)
"""

from __future__ import annotations

try:
    import ipywidgets  # noqa: F401 - the modules below use it
except ImportError as err:  # pragma: no cover - exercised without ipywidgets only
    raise ImportError(
        "fpexplore.widgets needs ipywidgets; install it from a clone of fpexplore (not on "
        'PyPI yet): pip install -e ".[notebooks]"'
    ) from err

from .arithmetic_explorer import ArithmeticExplorer
from .density_explorer import DensityExplorer
from .float_explorer import SPECIALS, FloatExplorer, special_value
from .rounding_explorer import RoundingExplorer

__all__ = [
    "SPECIALS",
    "ArithmeticExplorer",
    "DensityExplorer",
    "FloatExplorer",
    "RoundingExplorer",
    "special_value",
]

# doctest.testmod(fpexplore.widgets) reads only what this file defines; this points it
# at the examples of the public names defined in the modules above.
__test__ = {
    "special_value": special_value,
    "FloatExplorer": FloatExplorer,
    "RoundingExplorer": RoundingExplorer,
    "DensityExplorer": DensityExplorer,
    "ArithmeticExplorer": ArithmeticExplorer,
}

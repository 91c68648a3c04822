"""matplotlib figures of floating-point formats (``pip install -e ".[plot]"`` from a clone).

Every function takes ``ax=None`` (a new figure when None), returns the Axes
it drew on, never calls ``plt.show()`` and changes no global matplotlib
state: font sizes are passed to each call.

The modules, by concern: ``values/`` (one format's values: bits, number line, binades,
errors, the formats side by side), ``computing/`` (computing and training in a format:
error bounds of sums, float16's failures, learning curves), ``report`` and
``checkpoint`` (the figures of a tensor and a checkpoint report), ``export`` (the
gallery) and ``_style`` (the shared look).

Examples
--------
>>> import fpexplore.plot as fpplot
>>> ax = fpplot.number_line("float4_e2m1fn")
>>> ax.get_title()
'All 15 values of float4_e2m1fn in [-6.0, 6.0]'
"""

try:
    import matplotlib  # noqa: F401
except ImportError as err:  # pragma: no cover - exercised without matplotlib only
    raise ImportError(
        "fpexplore.plot needs matplotlib; install it from a clone of fpexplore (not on PyPI "
        'yet): pip install -e ".[plot]"'
    ) from err

from .._moved import alias_moved_modules as _alias_moved_modules
from .computing.bounds import plot_cancellation, plot_sum_errors
from .computing.mixed import (
    plot_dot_accumulation,
    plot_dynamic_loss_scale,
    plot_exp_overflow,
    plot_gradient_histogram,
    plot_loss_scale_sweep,
    plot_matmul_error,
    plot_policy_comparison,
    plot_running_sums,
    plot_softmax_demo,
)
from .computing.training import plot_learning_curves, plot_update_sizes
from .export import gallery
from .values.anatomy import bits
from .values.binades import density, spacing
from .values.errors import absolute_error, error_histogram, relative_error
from .values.formats import format_map
from .values.lines import number_line

# Module paths that moved in 0.2.0 (docs/changelog.md): fpexplore.plot.<module> stays
# importable, and an attribute of this package, as an alias of the module that replaced it.
_MOVED_MODULES = {
    "anatomy": "values.anatomy",
    "binades": "values.binades",
    "errors": "values.errors",
    "formats": "values.formats",
    "lines": "values.lines",
    "bounds": "computing.bounds",
    "mixed": "computing.mixed",
    "training": "computing.training",
}


_alias_moved_modules(__name__, _MOVED_MODULES)

__all__ = [
    "absolute_error",
    "bits",
    "density",
    "error_histogram",
    "format_map",
    "gallery",
    "number_line",
    "plot_cancellation",
    "plot_dot_accumulation",
    "plot_dynamic_loss_scale",
    "plot_exp_overflow",
    "plot_gradient_histogram",
    "plot_learning_curves",
    "plot_loss_scale_sweep",
    "plot_matmul_error",
    "plot_policy_comparison",
    "plot_running_sums",
    "plot_softmax_demo",
    "plot_sum_errors",
    "plot_update_sizes",
    "relative_error",
    "spacing",
]

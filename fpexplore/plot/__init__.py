"""matplotlib figures of floating-point formats (``pip install -e ".[plot]"`` from a clone).

Every function takes ``ax=None`` (a new figure when None), returns the Axes
it drew on, never calls ``plt.show()`` and changes no global matplotlib
state: font sizes are passed to each call.

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

from .anatomy import bits
from .binades import density, spacing
from .bounds import plot_cancellation, plot_sum_errors
from .errors import absolute_error, error_histogram, relative_error
from .export import gallery
from .formats import format_map
from .lines import number_line
from .mixed import (
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
from .training import plot_learning_curves, plot_update_sizes

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

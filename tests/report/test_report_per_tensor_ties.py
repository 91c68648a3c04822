"""The tensor report's per-tensor rows round ``x * scale`` once, from the exact product,
on every route: float64 inputs whose float64 product lands exactly on a midpoint of the
format (while the exact product does not) are counted as the correctly rounded values
count them, as :func:`fpexplore.scale_per_tensor` stores them."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import fpexplore as fpx

AMAX = 3.0000001


def _near_ties(fmt: fpx.Format, scale: float) -> list[float]:
    """float64 x whose float64 product x * scale is a midpoint m of ``fmt`` (at the
    bottom of its range, where a tie decides between zero, a subnormal and a normal)
    although the exact product is not."""
    tiny = fmt.smallest_subnormal
    step = 2.0**-fmt.mantissa_bits
    midpoints = [tiny / 2, tiny * 3 / 2, fmt.smallest_normal * (1 + step / 2)]
    found = []
    for m in midpoints:
        lo = hi = m / scale
        for _ in range(6):
            for x in (lo, hi):
                if float(x * scale) == m and Fraction(float(x)) * Fraction(scale) != Fraction(m):
                    found.append(float(x))
            lo, hi = np.nextafter(lo, 0.0), np.nextafter(hi, 1.0)
    return found


@pytest.mark.parametrize("name", [n for n in fpx.FORMATS if fpx.get_format(n).bits <= 16])
def test_per_tensor_rows_count_the_correctly_rounded_values(name: str) -> None:
    fmt = fpx.get_format(name)
    scale = float(np.float32(fmt.max / AMAX))
    ties = _near_ties(fmt, scale)
    x = np.array([AMAX, *ties, *(-t for t in ties)])
    stored = fpx.scale_per_tensor(x, fmt).scaled
    row = next(r for r in fpx.tensor_report(x, [fmt]).to_records() if r["scaling"] == "per_tensor")
    nonzero = x != 0
    assert row["flushed_to_zero"] == np.count_nonzero((stored == 0) & nonzero)
    subnormal = (stored != 0) & (np.abs(stored) < fmt.smallest_normal)
    assert row["subnormal"] == np.count_nonzero(subnormal)


def test_the_family_has_ties_that_float64_rounds_onto() -> None:
    """The test above is not vacuous: in the fnuz formats float64's own rounding of the
    product would store some of these values differently."""
    fmt = fpx.get_format("float8_e4m3fnuz")
    scale = float(np.float32(fmt.max / AMAX))
    x = np.array([AMAX, *_near_ties(fmt, scale)])
    twice = fpx.round_to(x * scale, fmt, overflow="saturate")
    assert np.count_nonzero(twice != fpx.scale_per_tensor(x, fmt).scaled) > 0

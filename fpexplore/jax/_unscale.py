"""Unscaling by a table: each value of a format divided by a scale, rounded once.

A per-tensor scaled tensor holds values of a small format (E4M3 has 126 positive
ones), all divided by one scale ``s``. :func:`unscale` therefore divides each
*possible* magnitude by ``s`` once, exactly (the restoring division of
:func:`fpexplore.jax._bits.divide`, then one rounding to nearest even into the
output dtype), and reads each element's quotient from that table. The table is
indexed by the float32 bits of a value: every value of the format is a float32
normal with at most ``m`` fraction bits (its top ``m``), so ``bits >> (23 - m)``
(its exponent field and those fraction bits) counts the binades and significands
from the format's smallest value up; a table of 18 binades of 8 significands
covers E4M3. Formats with values below float32's normals, or with too many values
for a small table (``TABLE_LIMIT``), divide element by element instead.

Examples
--------
>>> import numpy as np
>>> from fpexplore.formats import get_format
>>> from fpexplore.jax._core import spec_for
>>> spec = spec_for(get_format("float8_e4m3fn"), "saturate")
>>> table_geometry(spec)  # mantissa bits, the smallest value's index, the table's size
(3, 944, 144)
>>> q = np.array([1.0, -448.0, 0.0, np.inf], np.float32).view(np.uint32)
>>> s = np.float32(3.0).view(np.uint32)
>>> np.asarray(unscale(q, s, spec, "float32")).view(np.float32).tolist()
[0.3333333432674408, -149.3333282470703, 0.0, inf]
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from ._bits import INF, MAGNITUDE, SIGN, compose, computed_once, decompose, divide, i32, u32
from ._core import Spec
from ._rounding import round_count

__all__ = ["HOLDERS", "TABLE_LIMIT", "table_geometry", "unscale"]

HOLDERS = {"float32": (23, -126, 0x7F7F_FFFF), "bfloat16": (7, -126, 0x7F7F_0000),
           "float16": (10, -14, 0x477F_E000)}  # fmt: skip
"""The output dtypes: mantissa bits, smallest normal exponent, the largest value's bits."""

TABLE_LIMIT = 4096
"""The most entries a table may have (bfloat16 or float16 values divide directly)."""


def table_geometry(spec: Spec) -> tuple[int, int, int] | None:
    """``(m, base, size)`` of the format's table: its mantissa bits, the index
    ``bits >> (23 - m)`` of its smallest positive value and the number of entries
    up to its largest; None when a value is below float32's normals (E8M0, custom
    formats) or the table would exceed :data:`TABLE_LIMIT` entries."""
    low, high, m = spec.smallest_bits >> 23, spec.max_bits >> 23, spec.mantissa_bits
    size = (high - low + 1) << m
    if low == 0 or size > TABLE_LIMIT:
        return None
    return m, low << m, size


def _quotient_bits(a: Any, s_sig: Any, s_e: Any, holder: str) -> Any:
    """Float32 bits of ``a / s`` (finite magnitude bits over a normalized scale),
    rounded to nearest even into ``holder``: exact division, one rounding; inf
    beyond the holder's largest value."""
    m, emin, largest = HOLDERS[holder]
    quotient = divide(*decompose(a), s_sig, s_e, bits=m + 3)
    count, qe = round_count(*quotient, False, mantissa_bits=m, emin=emin, rounding="nearest_even")
    bits = compose(count, qe)
    return jnp.where(bits > u32(largest), u32(INF), bits)


def unscale(scaled: Any, scale: Any, spec: Spec, holder: str) -> Any:
    """Float32 bits of ``scaled / scale`` rounded once to nearest even into ``holder``
    (a name of :data:`HOLDERS`), for float32 bits ``scaled`` holding values of
    ``spec``'s format (inf and NaN pass through) and a positive finite scale's
    bits ``scale``."""
    scaled = u32(scaled)
    magnitude = scaled & u32(MAGNITUDE)
    geometry = table_geometry(spec)
    if geometry is None:
        finite = jnp.minimum(magnitude, u32(INF - 1))
        values = _quotient_bits(finite, *decompose(u32(scale)), holder)
    else:
        mantissa_bits, base, size = geometry
        cut = u32(23 - mantissa_bits)
        entries = lax.shift_left(lax.iota(jnp.uint32, size) + u32(base), cut)

        def build(scale: Any) -> Any:
            return _quotient_bits(entries, *decompose(scale), holder)

        table = computed_once(build, u32(scale))  # not once per element
        index = jnp.clip(i32(lax.shift_right_logical(magnitude, cut)) - base, 0, size - 1)
        values = jnp.where(magnitude == 0, u32(0), table[index])
    values = values | (scaled & u32(SIGN))
    return jnp.where(magnitude >= u32(INF), scaled, values)

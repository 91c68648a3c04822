"""A convolution's three GEMMs as matrix products of patches (im2col), for accumulator models.

A tensor core runs a convolution as an implicit GEMM. :class:`Convolution` makes each
of the three explicit, so that :func:`fpexplore.jax.gemm` sums it with an accumulator
model, in the order the matrices give:

* fprop: ``Y = P(x) W``. A row of ``P(x)`` is one output position's patch, its
  columns ``(c, k1, k2, ...)`` with the input channel first, then the kernel offsets
  in row-major order. ``W`` is the kernel laid out alike, one column per output channel.
* wgrad: ``dW = P(x)ᵀ dY``, summed over the batch and every output position.
* dgrad: ``dX = P'(dY) W'``. ``P'`` is the patches of dY spread by the strides (zeros
  between) and padded so that a stride-1 convolution with the flipped kernel ``W'``
  gives dX; a row holds ``(o, k1, k2, ...)``, the output channel first. This is how
  an implicit-GEMM dgrad sums: every product for one dX element goes through one
  accumulator, the zeros included, where they fall.

A grouped convolution is one GEMM per group. The patches are cut by slicing and
padding alone: no arithmetic touches a value (XLA's CPU flushes subnormals to zero
in float arithmetic).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import jax as fpx_jax

__all__ = ["Convolution"]


@dataclass(frozen=True)
class Convolution:
    """A Keras convolution's geometry: spatial rank, layout, strides, padding
    (``"same"`` or ``"valid"``), dilation and groups."""

    rank: int
    channels_first: bool
    strides: tuple[int, ...]
    padding: str
    dilation: tuple[int, ...]
    groups: int = 1

    def _last(self, a: Any) -> Any:
        """``a`` with its channels last."""
        return jnp.moveaxis(a, 1, -1) if self.channels_first else a

    def _back(self, a: Any) -> Any:
        """``a`` (channels last) in the layer's layout."""
        return jnp.moveaxis(a, -1, 1) if self.channels_first else a

    def _pads(self, spatial: tuple[int, ...], kernel: tuple[int, ...]) -> list[tuple[int, int]]:
        effective = [d * (k - 1) + 1 for k, d in zip(kernel, self.dilation, strict=True)]
        return list(lax.padtype_to_pads(spatial, effective, self.strides, self.padding.upper()))

    @staticmethod
    def _patches(a: Any, kernel: tuple[int, ...], strides: tuple[int, ...],
                 dilation: tuple[int, ...], out: tuple[int, ...]) -> Any:  # fmt: skip
        """``(N * prod(out), C * prod(kernel))``: the patches of ``a`` (channels last,
        padded already), channel first, then the kernel offsets in row-major order."""
        n, channels = a.shape[0], a.shape[-1]
        pieces = []
        for offset in itertools.product(*(range(k) for k in kernel)):
            start = (0, *(o * d for o, d in zip(offset, dilation, strict=True)), 0)
            stop = (n, *(s + (m - 1) * t + 1 for s, m, t in zip(start[1:-1], out, strides,
                                                               strict=True)), channels)  # fmt: skip
            pieces.append(lax.slice(a, start, stop, (1, *strides, 1)))
        stacked = jnp.stack(pieces, axis=-1)  # (N, *out, C, offsets)
        return stacked.reshape(n * int(np.prod(out)), channels * len(pieces))

    def _per_group(self, rows: Any, columns: Any, accumulate: Any, *, across: bool = False) -> Any:
        """Group ``i``'s slice of the columns of ``rows`` times its slice of the columns
        of ``columns``, the groups side by side; ``across``: the slice of ``rows``
        transposed (``Pᵀ dY``)."""
        step_r, step_c = rows.shape[1] // self.groups, columns.shape[1] // self.groups
        parts = []
        for i in range(self.groups):
            left = rows[:, i * step_r : (i + 1) * step_r]
            right = columns[:, i * step_c : (i + 1) * step_c]
            parts.append(fpx_jax.gemm(left.T if across else left, right, accumulate=accumulate))
        return jnp.concatenate(parts, axis=1)

    def _input_patches(self, x: Any, kernel: tuple[int, ...]) -> tuple[Any, tuple[int, ...]]:
        """The patches of ``x`` (the layer's layout) and the output's spatial shape."""
        a = self._last(x)
        spatial = a.shape[1:-1]
        pads = self._pads(spatial, kernel)
        geometry = zip(spatial, kernel, pads, self.strides, self.dilation, strict=True)
        out = tuple((n + lo + hi - d * (k - 1) - 1) // s + 1 for n, k, (lo, hi), s, d in geometry)
        padded = jnp.pad(a, [(0, 0), *pads, (0, 0)])
        return self._patches(padded, kernel, self.strides, self.dilation, out), out

    def fprop(self, x: Any, w: Any, accumulate: Any) -> Any:
        """``y``, summed by the accumulator model ``accumulate``."""
        rows, out = self._input_patches(x, w.shape[: self.rank])
        kernel = jnp.moveaxis(w, -2, 0).reshape(-1, w.shape[-1])  # (C/g * prod(k), O)
        y = self._per_group(rows, kernel, accumulate)
        return self._back(y.reshape(x.shape[0], *out, w.shape[-1]))

    def wgrad(self, x: Any, dy: Any, w_shape: tuple[int, ...], accumulate: Any) -> Any:
        """``dW = P(x)ᵀ dY``, in the kernel's layout."""
        kernel = tuple(w_shape[: self.rank])
        rows, _ = self._input_patches(x, kernel)
        g = self._last(dy)
        dw = self._per_group(rows, g.reshape(-1, g.shape[-1]), accumulate, across=True)
        return jnp.moveaxis(dw.reshape(w_shape[-2], *kernel, w_shape[-1]), 0, -2)

    def dgrad(self, dy: Any, w: Any, x_shape: tuple[int, ...], accumulate: Any) -> Any:
        """``dX``: a stride-1 convolution of dY, spread by the strides and padded, with
        the flipped kernel, each group's channels swapped."""
        g = self._last(dy)
        shape = tuple(x_shape[2:] if self.channels_first else x_shape[1:-1])
        kernel = w.shape[: self.rank]
        pads = self._pads(shape, kernel)
        spread = []
        for n, k, (lo, hi), s, d, m in zip(shape, kernel, pads, self.strides, self.dilation,
                                           g.shape[1:-1], strict=True):  # fmt: skip
            effective = d * (k - 1) + 1
            rest = n + lo + hi - effective - (m - 1) * s  # input rows past the last window
            spread.append((effective - 1 - lo, effective - 1 - hi + rest, s - 1))
        padded = lax.pad(g, np.zeros((), g.dtype), [(0, 0, 0), *spread, (0, 0, 0)])
        rows = self._patches(padded, kernel, (1,) * self.rank, self.dilation, shape)
        flipped = w[tuple(slice(None, None, -1) for _ in range(self.rank))]  # (*k, C/g, O)
        cin, cout = w.shape[-2], w.shape[-1]
        # (O/g * prod(k), C): group i's rows (o, offsets), its input channels side by side
        by_group = flipped.reshape(*kernel, cin, self.groups, cout // self.groups)
        turned = jnp.moveaxis(by_group, (-1, -3), (0, -1)).reshape(-1, self.groups * cin)
        dx = self._per_group(rows, turned, accumulate)
        return self._back(dx.reshape(g.shape[0], *shape, cin * self.groups))

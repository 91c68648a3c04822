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

    def _kernel(self, w: Any) -> Any:
        """The kernel ``(*k, C/groups, O)`` as ``(C/groups * prod(k), O)``, channel first."""
        moved = jnp.moveaxis(w, -2, 0)
        return moved.reshape(-1, w.shape[-1])

    def _per_group(self, rows: Any, columns: Any, accumulate: Any) -> Any:
        """``rows @ columns`` group by group (each group's slice of both), side by side."""
        g = self.groups
        step_r, step_c = rows.shape[1] // g, columns.shape[1] // g
        parts = []
        for i in range(g):
            left = rows[:, i * step_r : (i + 1) * step_r]
            right = columns if g == 1 else columns[:, i * step_c : (i + 1) * step_c]
            parts.append(fpx_jax.gemm(left, right, accumulate=accumulate))
        return parts[0] if g == 1 else jnp.concatenate(parts, axis=1)

    def fprop(self, x: Any, w: Any, accumulate: Any) -> Any:
        """``y``, summed by the accumulator model ``accumulate``."""
        a = self._last(x)
        spatial, kernel = a.shape[1:-1], w.shape[: self.rank]
        pads = self._pads(spatial, kernel)
        padded = jnp.pad(a, [(0, 0), *pads, (0, 0)])
        out = self._out(spatial, kernel, pads)
        rows = self._patches(padded, kernel, self.strides, self.dilation, out)
        y = self._per_group(rows, self._kernel(w), accumulate)
        return self._back(y.reshape(a.shape[0], *out, w.shape[-1]))

    def _out(self, spatial: Any, kernel: Any, pads: Any) -> tuple[int, ...]:
        """The output's spatial shape."""
        geometry = zip(spatial, kernel, pads, self.strides, self.dilation, strict=True)
        return tuple((n + lo + hi - d * (k - 1) - 1) // s + 1 for n, k, (lo, hi), s, d in geometry)

    def wgrad(self, x: Any, dy: Any, w_shape: tuple[int, ...], accumulate: Any) -> Any:
        """``dW = P(x)ᵀ dY``, in the kernel's layout."""
        a, g = self._last(x), self._last(dy)
        spatial, kernel = a.shape[1:-1], tuple(w_shape[: self.rank])
        pads = self._pads(spatial, kernel)
        padded = jnp.pad(a, [(0, 0), *pads, (0, 0)])
        out = g.shape[1:-1]
        rows = self._patches(padded, kernel, self.strides, self.dilation, out)
        grads = g.reshape(-1, g.shape[-1])
        step_r, step_c = rows.shape[1] // self.groups, grads.shape[1] // self.groups
        parts = [
            fpx_jax.gemm(rows[:, i * step_r : (i + 1) * step_r].T,
                         grads[:, i * step_c : (i + 1) * step_c], accumulate=accumulate)
            for i in range(self.groups)
        ]  # fmt: skip
        dw = jnp.concatenate(parts, axis=1)  # (C/g * prod(k), O)
        cin = w_shape[-2]
        return jnp.moveaxis(dw.reshape(cin, *kernel, w_shape[-1]), 0, -2)

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
        groups, cin, cout = self.groups, w.shape[-2], w.shape[-1]
        step, offsets = cout // groups, int(np.prod(kernel))
        parts = []
        for i in range(groups):
            # rows (o, offsets) of group i's output channels; columns its input channels
            left = rows[:, i * step * offsets : (i + 1) * step * offsets]
            part = flipped[..., i * step : (i + 1) * step]  # (*k, C/g, O/g)
            right = jnp.moveaxis(part, -1, 0)  # (O/g, *k, C/g)
            right = right.reshape(-1, cin)
            parts.append(fpx_jax.gemm(left, right, accumulate=accumulate))
        dx = parts[0] if groups == 1 else jnp.concatenate(parts, axis=1)
        return self._back(dx.reshape(g.shape[0], *shape, cin * groups))

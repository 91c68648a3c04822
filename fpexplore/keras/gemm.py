"""A layer's three GEMMs, each operand quantized for its own GEMM (a custom VJP).

A matmul, einsum or convolution ``y = op(x, w)`` of an emulated layer runs as

* fprop: ``y = op(q(x, fprop.x), q(w, fprop.w))``;
* dgrad: ``dX = op_xᵀ(q(dY, dgrad.dy))`` with ``w`` replaced by ``q(w, dgrad.w)``;
* wgrad: ``dW = op_wᵀ(q(dY, wgrad.dy))`` with ``x`` replaced by ``q(x, wgrad.x)``;

where ``op_xᵀ`` and ``op_wᵀ`` are the transposes of ``op`` in each argument
(``jax.linear_transpose``: for a matmul, ``dY wᵀ`` and ``xᵀ dY``). Each ``q`` starts
from the float32 tensor, with the role's format, scaling, rounding and blocks along
its own axes (:class:`Operand`); a role of None leaves the tensor in float32. A
wgrad operand with ``hadamard`` is first multiplied by a random Hadamard matrix along
its summed axis (both operands by the same one, so ``xᵀ dY`` is unchanged in exact
arithmetic; a batch that is not a multiple of the size is padded with zero rows, as
both operands are). Where two roles of one tensor would be quantized alike (the same spec,
not stochastic, the same blocks), the forward's copy is reused rather than computed
again. The products sum in float32 unless the policy names another accumulator.
With delayed scaling the histories of ``x`` and ``w`` are read as the forward read
them; the new history of ``dY`` leaves the backward pass as the cotangent of its
history variable (``overwrite_with_gradient``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import jax as fpx_jax
from .operands import quantize
from .policies.roles import ROLES
from .policies.specs import OperandSpec

__all__ = ["Matrices", "Operand", "Plan", "product"]


@dataclass(frozen=True)
class Operand:
    """One role of one layer: its spec, its summed ``axis``, the ``other`` axis of a
    2-D tile, and the groups each of those axes is cut into (a grouped convolution's
    channels: each group is blocked on its own)."""

    spec: OperandSpec | None
    axis: int
    other: int
    groups: tuple[int, int] = (1, 1)
    role: str = "operand"

    def same_as(self, other: Operand) -> bool:
        """True when ``other`` quantizes the same tensor to the same values."""
        a, b = self.spec, other.spec
        if a is None or b is None or a != b or a.rounding == "stochastic" or a.hadamard:
            return a is None and b is None
        if not a.is_block:
            return True  # per-tensor (or no) scaling: the axis does not matter
        if a.is_2d:
            size = a.block_size
            square = isinstance(size, tuple) and size[0] == size[1]
            swapped = (self.axis, self.other, self.groups[::-1]) == (
                other.other,
                other.axis,
                other.groups,
            )
            return (square and swapped) or (self.axis, self.other) == (other.axis, other.other)
        return (self.axis, self.groups[0]) == (other.axis, other.groups[0])


@dataclass(frozen=True)
class Matrices:
    """How a contraction ``y = op(x, w)`` lies as one GEMM ``Y = X W``: the axes of
    ``x`` in the order (rows, summed), of ``w`` (summed, columns) and of ``y`` (rows,
    columns), where ``rows`` are the axes of ``x`` alone, ``columns`` those of ``w``
    alone and ``summed`` those of both; each group of axes flattened in that order.
    What an accumulator model sums, and in which order: a Dense layer's
    ``(..., K) @ (K, N)`` is rows ``...``, summed ``K``; an EinsumDense layer's
    equation gives its own. dX is ``dY Wᵀ`` and dW is ``Xᵀ dY`` on the same matrices."""

    x_axes: tuple[int, ...]
    w_axes: tuple[int, ...]
    y_axes: tuple[int, ...]
    rows: int  # how many of x's (and y's) axes are rows
    summed: int  # how many of x's (and w's) axes are summed

    @staticmethod
    def dense(ndim: int) -> Matrices:
        """A Dense layer's ``x @ w`` for ``x`` of ``ndim`` axes."""
        every = tuple(range(ndim))
        return Matrices(every, (0, 1), every, ndim - 1, 1)

    def _flat(self, a: Any, axes: tuple[int, ...], split: int) -> Any:
        moved = jnp.transpose(a, axes)
        return moved.reshape(int(np.prod(moved.shape[:split])), -1)

    def _back(self, matrix: Any, like: tuple[int, ...], axes: tuple[int, ...]) -> Any:
        """``matrix`` unflattened to the array of shape ``like`` whose axes it holds."""
        moved = matrix.reshape([like[a] for a in axes])
        return jnp.transpose(moved, [int(i) for i in np.argsort(axes)])

    def fprop(self, x: Any, w: Any, accumulate: Any) -> Any:
        """``y``, summed by the accumulator model ``accumulate``."""
        xm = self._flat(x, self.x_axes, self.rows)
        wm = self._flat(w, self.w_axes, self.summed)
        shape = [*(x.shape[a] for a in self.x_axes[: self.rows]),
                 *(w.shape[a] for a in self.w_axes[self.summed :])]  # fmt: skip
        ym = fpx_jax.gemm(xm, wm, accumulate=accumulate)
        return jnp.transpose(ym.reshape(shape), [int(i) for i in np.argsort(self.y_axes)])

    def dgrad(self, dy: Any, w: Any, x_shape: tuple[int, ...], accumulate: Any) -> Any:
        """``dX = dY Wᵀ``."""
        dym = self._flat(dy, self.y_axes, self.rows)
        wm = self._flat(w, self.w_axes, self.summed)
        return self._back(fpx_jax.gemm(dym, wm.T, accumulate=accumulate), x_shape, self.x_axes)

    def wgrad(self, x: Any, dy: Any, w_shape: tuple[int, ...], accumulate: Any) -> Any:
        """``dW = Xᵀ dY`` (``x`` and ``dy`` may carry zero rows a Hadamard transform added)."""
        xm = self._flat(x, self.x_axes, self.rows)
        dym = self._flat(dy, self.y_axes, self.rows)
        return self._back(fpx_jax.gemm(xm.T, dym, accumulate=accumulate), w_shape, self.w_axes)


@dataclass(frozen=True)
class Plan:
    """The six :class:`Operand` of a layer (in the order of ``ROLES``), the three
    GEMMs' accumulators (models need ``matrices``) and the seed of the Hadamard
    transform's signs."""

    operands: tuple[Operand, ...]
    seed: int = 0
    accumulate: tuple[Any, Any, Any] = ("float32", "float32", "float32")
    matrices: Any = None  # where an accumulator model sums: Matrices, or a Convolution

    @property
    def modelled(self) -> bool:
        """True when some GEMM sums with an accumulator model."""
        return any(a != "float32" for a in self.accumulate)

    def __getitem__(self, role: str) -> Operand:
        return self.operands[ROLES.index(role)]


def _grouped(x: Any, axis: int, groups: int) -> tuple[Any, int]:
    """``x`` with ``axis`` cut into ``groups`` (a new axis before it); the new index."""
    if groups == 1:
        return x, axis
    shape = x.shape
    return x.reshape(*shape[:axis], groups, shape[axis] // groups, *shape[axis + 1 :]), axis + 1


def quantize_operand(x: Any, op: Operand, key: Any, history: Any, seed: int) -> Any:
    """``x`` quantized as the role ``op`` says (float32 when its spec is None)."""
    spec = op.spec
    if spec is None:
        return x
    ndim = x.ndim
    axis, other = op.axis % ndim, op.other % ndim
    if spec.hadamard is not None:
        short = -x.shape[axis] % spec.hadamard
        if short:  # a partial batch: zero rows, which add nothing to xᵀ dY
            x = jnp.pad(x, [(0, short if i == axis else 0) for i in range(ndim)])
        x = fpx_jax.hadamard(x, spec.hadamard, axis=axis, seed=seed)
    if not spec.is_block:
        return quantize(x, spec, key=key, history=history)
    shape = x.shape
    first, second = (axis, other) if axis < other else (other, axis)
    moved = (op.groups[0], op.groups[1]) if axis < other else (op.groups[1], op.groups[0])
    grouped, second = _grouped(x, second, moved[1])
    grouped, first = _grouped(grouped, first, moved[0])
    second += int(moved[0] > 1)
    axes: int | tuple[int, int] = first if axis < other else second
    if spec.is_2d:
        axes = (first, second) if axis < other else (second, first)
    return quantize(grouped, spec, axis=axes, key=key).reshape(shape)  # padded, if it was


def _no_cotangent(value: Any) -> Any:
    if value is None:
        return None
    return np.zeros(np.shape(value), dtype=jax.dtypes.float0)


def _key(key: Any, index: int, spec: OperandSpec | None) -> Any:
    if key is None or spec is None or spec.rounding != "stochastic":
        return None
    return jax.random.fold_in(key, index)


def _forward(op: Callable[..., Any], plan: Plan, x: Any, w: Any, hx: Any, hw: Any, key: Any):
    qx = quantize_operand(x, plan["fprop.x"], _key(key, 0, plan["fprop.x"].spec), hx, plan.seed)
    qw = quantize_operand(w, plan["fprop.w"], _key(key, 1, plan["fprop.w"].spec), hw, plan.seed)
    if plan.accumulate[0] != "float32":
        assert plan.matrices is not None
        return plan.matrices.fprop(qx, qw, plan.accumulate[0]), qx, qw
    with jax.default_matmul_precision("float32"):
        return op(qx, qw), qx, qw


@functools.partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def _product(op: Any, plan: Plan, x: Any, w: Any, hx: Any, hw: Any, hdy: Any, key: Any) -> Any:
    return _forward(op, plan, x, w, hx, hw, key)[0]


def _product_fwd(op: Any, plan: Plan, x: Any, w: Any, hx: Any, hw: Any, hdy: Any, key: Any):
    y, qx, qw = _forward(op, plan, x, w, hx, hw, key)
    return y, (x, w, qx, qw, hx, hw, hdy, key)


def _product_bwd(op: Any, plan: Plan, residuals: Any, g: Any) -> tuple[Any, ...]:
    x, w, qx, qw, hx, hw, hdy, key = residuals
    seed = plan.seed

    def operand(role: str, tensor: Any, forward: str | None, copy: Any, history: Any) -> Any:
        if forward is not None and plan[role].same_as(plan[forward]):
            return copy
        index = ROLES.index(role)
        return quantize_operand(tensor, plan[role], _key(key, index, plan[role].spec), history,
                                seed)  # fmt: skip

    dy_d = operand("dgrad.dy", g, None, None, hdy)
    dy_w = dy_d if plan["wgrad.dy"].same_as(plan["dgrad.dy"]) else operand(
        "wgrad.dy", g, None, None, hdy
    )  # fmt: skip
    w_d = operand("dgrad.w", w, "fprop.w", qw, hw)
    x_w = operand("wgrad.x", x, "fprop.x", qx, hx)
    acc_d, acc_w = plan.accumulate[1:]
    with jax.default_matmul_precision("float32"):
        matrices = plan.matrices
        if acc_d == "float32":
            (dx,) = jax.linear_transpose(lambda a: op(a, w_d), x)(dy_d)
        else:  # dX = dY Wᵀ
            assert matrices is not None
            dx = matrices.dgrad(dy_d, w_d, x.shape, acc_d)
        if acc_w == "float32":
            (dw,) = jax.linear_transpose(lambda b: op(x_w, b), w)(dy_w)
        else:  # dW = Xᵀ dY
            assert matrices is not None
            dw = matrices.wgrad(x_w, dy_w, w.shape, acc_w)
    new_hdy = None if hdy is None else fpx_jax.record_amax(hdy, g)
    none_x = None if hx is None else jnp.zeros_like(hx)
    none_w = None if hw is None else jnp.zeros_like(hw)
    return dx, dw, none_x, none_w, new_hdy, _no_cotangent(key)


_product.defvjp(_product_fwd, _product_bwd)


def product(
    op: Callable[[Any, Any], Any],
    x: Any,
    w: Any,
    plan: Plan,
    *,
    histories: tuple[Any, Any, Any] = (None, None, None),
    key: Any = None,
) -> Any:
    """``op(x, w)`` with each GEMM's operands quantized as ``plan`` says.

    ``histories``: the amax histories of ``x``, ``w`` and ``dY`` (None where that
    tensor has no delayed scaling); ``key``: the step's key of stochastic rounding.
    """
    return _product(op, plan, x, w, *histories, key)

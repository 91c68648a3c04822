"""What an EinsumDense layer's equation sums: the axes of its three GEMMs
(:func:`letters_axes`, where each role is blocked) and, when the equation is one
matrix product, its matrices (:func:`einsum_matrices`, what an accumulator model sums).
"""

from __future__ import annotations

from .gemm import Matrices

__all__ = ["Axes", "einsum_matrices", "is_one_gemm", "letters_axes"]

Axes = tuple[tuple[int, int], tuple[int, int], tuple[int, int]]
"""Per tensor (``x``, ``w``, ``dY``): the axis summed by its first GEMM and by its
second (x: fprop, wgrad; w: fprop, dgrad; dY: dgrad, wgrad)."""


def _labels(term: str, ndim: int) -> list[str]:
    """An einsum term's labels, one per axis of its operand of ``ndim`` axes, its
    ellipsis as ``"0"``, ``"1"``..."""
    if "..." not in term:
        return list(term)
    head, tail = term.split("...")  # the ellipsis stands for any number of axes
    return [*head, *(str(i) for i in range(ndim - len(head) - len(tail))), *tail]


def einsum_matrices(equation: str, ndims: tuple[int, int, int]) -> Matrices | None:
    """The one GEMM an EinsumDense layer's equation is (:class:`~.gemm.Matrices`):
    rows the letters of x alone, summed those of x and the kernel, columns those of
    the kernel alone, each in its operand's order; None for an equation that is no
    single GEMM (a letter of x, the kernel and the output alike, a letter summed in
    one operand alone, a repeated letter, an ellipsis in the kernel)."""
    operands, output = equation.replace(" ", "").split("->")
    left, right = operands.split(",")
    if "..." in right:
        return None
    x, w, y = (_labels(t, n) for t, n in zip((left, right, output), ndims, strict=True))
    if any(len(set(labels)) < len(labels) for labels in (x, w, y)):  # a diagonal
        return None
    summed = [c for c in x if c in w and c not in y]
    rows = [c for c in x if c not in w]
    columns = [c for c in w if c not in x]
    if sorted(y) != sorted(rows + columns):
        return None
    return Matrices(tuple(x.index(c) for c in rows + summed),
                    tuple(w.index(c) for c in summed + columns),
                    tuple(y.index(c) for c in rows + columns), len(rows), len(summed))  # fmt: skip


def is_one_gemm(equation: str) -> bool:
    """True for an EinsumDense equation that is a single GEMM, which an accumulator
    model sums (whatever the ellipsis stands for)."""
    x, w, y = (len(t.replace("...", "")) + ("..." in t)
               for t in equation.replace(" ", "").replace("->", ",").split(","))  # fmt: skip
    return einsum_matrices(equation, (x, w, y)) is not None


def letters_axes(equation: str, ndims: tuple[int, int, int]) -> Axes:
    """Per operand of an einsum, the axes its three GEMMs sum (the last such letter)."""
    operands, output = equation.replace(" ", "").split("->")
    left, right = operands.split(",")
    terms = (left, right, output)

    def axis(term: str, letter: str, ndim: int) -> int:
        return _labels(term, ndim).index(letter)

    def summed(a: int, b: int, c: int, fallback: tuple[int, int]) -> tuple[int, int]:
        letters = [ch for ch in terms[a] if ch in terms[b] and ch not in terms[c] and ch != "."]
        if not letters:
            return fallback
        return axis(terms[a], letters[-1], ndims[a]), axis(terms[b], letters[-1], ndims[b])

    xk, wk = summed(0, 1, 2, (ndims[0] - 1, 0))  # fprop: in x and w, not in y
    wn, yn = summed(1, 2, 0, (ndims[1] - 1, ndims[2] - 1))  # dgrad: in w and y, not in x
    xm, ym = summed(0, 2, 1, (0, 0))  # wgrad: in x and y, not in w
    return (xk, xm), (wk, wn), (yn, ym)

"""What each numpy operation on a FormatArray computes in a format, and the flags it raises.

The operation families: :mod:`.elementwise` (the ufunc table: which ufunc becomes
which operation, computed exactly and rounded once), :mod:`.transcendental`
(``exp``, ``log``, ``tanh``... evaluated in float64, rounded once, hard cases
resolved), :mod:`.fast` (the float32 path of bfloat16, float16 and tf32),
:mod:`.reduce` (``sum``, ``mean``, ``cumsum``, ``prod``), :mod:`.accumulate` (sums
along an axis in each order, every addition rounded), :mod:`.products` (``@``,
``dot``, ``inner``) and :mod:`.einsum` (``einsum``, ``tensordot``); and what a result
remembers of the operation that made it: :mod:`.flags` (the IEEE flags element by
element, :func:`~fpexplore.array.flag_counter`) and :mod:`.records` (the flags computed
when first read, one element explained).

They work on numpy arrays of a format's values and the array they are called for
(``like``); the :class:`~fpexplore.array.FormatArray` type, one folder up, calls them
and imports nothing of it back into here. Imports :mod:`fpexplore.arith`, the kernels
and below.
"""

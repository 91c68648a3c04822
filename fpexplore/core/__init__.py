"""The user-facing core: decode, round, measure, count.

``decode`` (:class:`FloatParts`, :func:`from_bits`, :func:`decode_array`),
``error`` (:func:`round_to`, :func:`representation_error`, :func:`ulp`, neighbours),
``density`` (:func:`count_between`, :func:`values_between`, binades), ``census``
(every code of a format), ``rounding_explain`` (why a mode picks a neighbour),
``scaling`` (per-tensor scales), ``block_formats`` and ``blocks`` (OCP MX and NVFP4
block scaling), ``report`` and ``report_stats`` (:func:`tensor_report`), ``narrow``
(the dtype of a narrow result) and ``lazy`` (dask arrays).
Built on :mod:`fpexplore.codes`, :mod:`fpexplore.exact` and :mod:`fpexplore.formats`;
objects render themselves through lazy imports of :mod:`fpexplore.render`.
"""

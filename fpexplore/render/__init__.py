"""How the core's values and tables look: the decode breakdown, field boxes and tables.

``text`` (the REPL breakdown of a decoded value, and the number formatting everything
shares), ``html`` (field boxes for Jupyter), ``table`` (:class:`Table`: one table as
text, HTML or records), ``comparison`` (format tables, one value across formats),
``summary`` (census, binades, errors and arrays: totals and their first and last rows),
``report`` and ``checkpoint`` (the tensor and checkpoint reports' tables). Step-by-step
explanations (an operation, a sum, a rounding, a block) are in :mod:`fpexplore.explain`,
which builds on these. No matplotlib here; these modules import the core, never a front
end.
"""

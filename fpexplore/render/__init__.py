"""Renderings of the core's objects: text, HTML, tables, the rounding explanation's SVG.

``text`` (the REPL breakdown), ``html`` (field boxes for Jupyter), ``table``
(:class:`Table`: one table as text, HTML or records), ``comparison`` (format
tables, one value across formats) and ``rounding`` (the rounding explanation as
HTML and SVG). No matplotlib here; these modules import the core, never a front end.
"""

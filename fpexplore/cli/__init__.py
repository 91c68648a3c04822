"""The ``fpexplore`` command line: ``main(argv=None) -> int``.

``main`` (the commands), ``parser`` (argparse), ``output`` (text and JSON
records) and ``plot`` (``--plot``: figures to files); ``--course`` copies the notebooks
with :mod:`fpexplore.course.copying`. The course's own tools (outline, requirements,
pacing, tables) live in :mod:`fpexplore.course`; their old paths here still import.
A front end: it imports the core and the renderings, and matplotlib only when a figure
is asked for.
"""

from .main import DEFAULT_FORMAT, UsageError, build_parser, main

__all__ = ["DEFAULT_FORMAT", "UsageError", "build_parser", "main"]

"""The ``fpexplore`` command line: ``main(argv=None) -> int``.

``main`` (the commands), ``parser`` (argparse), ``output`` (text and JSON
records), ``plot`` (``--plot``: figures to files) and ``course`` (``--course``:
copy the notebooks). ``outline``, ``requirements`` and ``pacing`` read the course's
notebooks (their sections, imports, exercise labels and timings) for the course itself.
A front end: it imports the core and the renderings, and matplotlib only when a figure
is asked for.
"""

from .main import DEFAULT_FORMAT, UsageError, build_parser, main

__all__ = ["DEFAULT_FORMAT", "UsageError", "build_parser", "main"]

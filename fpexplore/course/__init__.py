"""The course's own tools: what the course says about its notebooks, computed from them.

``outline`` (a notebook's headings, section links, the course's notebooks in order),
``requirements`` (what a notebook imports, so what it needs installed), ``pacing``
(exercise labels, budgets, a lesson's plan and the pace model), ``tables`` (the index's
map of the course and a lesson's plan, as Markdown) and ``copying`` (``fpexplore
--course DIR``: a copy of the notebooks to run and edit). They read notebook files and
use the standard library only; the command line and the docs site import them.

Until 0.3 they lived in ``fpexplore.cli`` (``fpexplore.cli.outline``, ``.pacing``,
``.requirements``, ``.course_tables``, ``.course``): those paths still import, as
aliases of these modules.

Examples
--------
>>> from fpexplore.course import outline
>>> outline.short_name("04b-computing-in-a-format.ipynb")
'04b'
"""

from .copying import COMPANIONS, CourseNotFoundError, copy_course, course_source, index_notebook

__all__ = ["COMPANIONS", "CourseNotFoundError", "copy_course", "course_source", "index_notebook"]

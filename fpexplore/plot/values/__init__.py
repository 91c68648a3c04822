"""Figures of one format's values: a value's bits (``anatomy``), the number line
(``lines``), binades and the density of values (``binades``), representation errors
(``errors``) and the formats side by side (``formats``)."""

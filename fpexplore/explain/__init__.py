"""Explanations, step by step: how a value was rounded and how a result was computed.

``arithmetic`` (an operation as equations about its own numbers: ``arithmetic_steps``
aligns, adds, multiplies, divides and takes roots; ``arithmetic_round`` keeps and drops
the bits and applies the mode), ``accumulate`` (a sum or dot product and its error),
``blocks`` (one quantized MX or NVFP4 block: its scale, each element's code and error),
``rounding`` (the rounding explanation as HTML and SVG) and ``binary`` (numbers in binary
scientific notation). They draw on :mod:`fpexplore.render` for the look of a value (text,
field boxes, tables); the core's objects import them lazily, when they are shown. No
matplotlib here.
"""

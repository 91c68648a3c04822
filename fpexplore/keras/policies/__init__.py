"""What a format policy says, and which layer of a model gets which: plain Python.

:mod:`.policy` holds :class:`~fpexplore.keras.FormatPolicy` (the formats of the
operands, gradients and weights, their scaling and rounding, checked when it is made),
:mod:`.specs` how one kind of operand is rounded (:class:`~fpexplore.keras.OperandSpec`)
and the checks behind a policy's arguments, :mod:`.roles` the six operands of a layer's
three GEMMs and the accumulators, :mod:`.presets` the named recipes
(:data:`~fpexplore.keras.PRESETS`), :mod:`.selection` which policy each layer gets
(``exclude``, ``overrides``) and :mod:`.report` the
:class:`~fpexplore.keras.EmulationReport` that lists it.

Nothing here imports Keras or JAX, so policies are made, compared and printed without
them; the emulation, one folder up (:mod:`fpexplore.keras.model`, ``layers``, ``gemm``,
``optimizer``...), reads these and imports nothing of it back into here.
"""

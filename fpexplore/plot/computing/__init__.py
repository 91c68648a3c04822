"""Figures of computing and training in a format: the error bounds of sums and
cancellation (``bounds``), float16's failures and loss scaling (``mixed``), and learning
curves and update sizes of models trained in a format (``training``)."""

"""checkpoint_report on a dask.distributed cluster: one task per tensor.

Each task reads its tensor where it runs (a worker opens the checkpoint file by its
absolute path, so the workers must see the same file system; a Python mapping's
arrays are sent to them) and computes the tensor's records with the same function
as the local run, :func:`fpexplore.report.checkpoint.tensor_records`, so the
records are equal to the local report's. Needs the ``distributed`` package (the
``dask`` extra).

Point it at a running cluster by its scheduler's address, or pass a ``Client``::

    report = fpx.checkpoint_report("model/", ["e4m3", "nvfp4"],
                                   scheduler="tcp://10.0.0.5:8786")

With ``scheduler=None``, dask's configured default is used, as dask itself would
(:func:`default_scheduler`): where ``distributed`` is already imported, the
default ``Client`` (the last one made), ``dask.config``'s ``"scheduler"`` (a
``Client``, or ``"distributed"``) or its ``"scheduler-address"``; a local scheduler
configured (``"sync"``, ``"threads"``...) or none of these: the local run.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
import warnings
from typing import Any

__all__ = ["default_scheduler", "distributed_records"]

CONNECT_TIMEOUT = "10s"
"""How long to try reaching a scheduler given by its address."""


def _distributed() -> Any:
    try:
        return importlib.import_module("distributed")
    except ImportError as err:
        raise ImportError(
            'scheduler= needs dask.distributed: pip install -e ".[dask]" (from a clone)'
        ) from err


def _client(scheduler: Any) -> tuple[Any, bool]:
    """A client of ``scheduler`` (an address or a Client), and whether it is ours to close."""
    if hasattr(scheduler, "submit") and hasattr(scheduler, "gather"):
        return scheduler, False
    if not isinstance(scheduler, str):
        raise TypeError(
            "scheduler must be a dask.distributed scheduler address (str) or Client, got "
            f"{type(scheduler).__name__}"
        )
    distributed = _distributed()
    try:
        return distributed.Client(scheduler, timeout=CONNECT_TIMEOUT), True
    except (OSError, TimeoutError, ValueError) as err:
        raise ValueError(
            f"cannot reach the dask scheduler at {scheduler!r}: {type(err).__name__}: {err}"
        ) from None


def default_scheduler() -> Any:
    """dask's configured dask.distributed scheduler (a Client or an address), or None
    for the local run. Only where ``distributed`` is already imported: it is never
    imported here, nor dask."""
    distributed = sys.modules.get("distributed")
    dask = sys.modules.get("dask")
    if distributed is None or dask is None:
        return None
    configured = dask.config.get("scheduler", None)
    address = dask.config.get("scheduler-address", None)
    if configured is not None:
        if hasattr(configured, "submit") and hasattr(configured, "gather"):
            return configured
        if configured not in ("distributed", "dask.distributed"):
            return None  # a local scheduler chosen: "sync", "threads", "processes"...
    try:
        return distributed.default_client()
    except ValueError:  # no Client made
        if address:
            return address
        if configured is not None:
            raise ValueError(
                f"dask's configured scheduler is {configured!r}, but there is no "
                "dask.distributed Client and no 'scheduler-address'; expected a Client, "
                "or pass scheduler= (an address or a Client)"
            ) from None
        return None


@functools.lru_cache(maxsize=4)
def _opened(path: str, mtime: float) -> Any:
    """A worker's checkpoint, opened once per file (and version) it reads."""
    from ..io import open_checkpoint

    return open_checkpoint(path)


def _task(
    where: Any, key: str, axis: tuple[int, str, str], formats: Any, scalings: tuple[str, ...],
    chunk_bytes: int, scale_rule: str | None = None,
) -> tuple[list[dict[str, Any]], int]:  # fmt: skip
    """One tensor's records, computed where the task runs."""
    from ..lazy import is_dask
    from .progress import progress_bar
    from .records import as_array, tensor_records
    from .tensor import parse_formats

    with warnings.catch_warnings():  # said once already, by the caller
        warnings.filterwarnings("ignore", "custom format", UserWarning)
        parsed, rows = parse_formats(formats, scalings, scale_rule)
    if isinstance(where, tuple) and len(where) == 3 and where[0] == "path":
        value = as_array(_opened(where[1], where[2])[key])
    else:
        value = as_array(where)
    bar = progress_bar(0, key, False)
    if is_dask(value):
        import dask

        with dask.config.set(scheduler="sync"):  # inside a task: no nested cluster run
            return tensor_records(key, value, rows, parsed, axis, chunk_bytes, bar)
    return tensor_records(key, value, rows, parsed, axis, chunk_bytes, bar)


def distributed_records(
    scheduler: Any, mapping: Any, keys: list[str], axes: dict[str, tuple[int, str, str]],
    formats: Any, scalings: tuple[str, ...], chunk_bytes: int, scale_rule: str | None = None,
) -> tuple[list[dict[str, Any]], dict[str, int]]:  # fmt: skip
    """The records of ``keys`` (in order) and the tensors' NaN/inf counts, from tasks
    on the cluster of ``scheduler``."""
    client, ours = _client(scheduler)
    try:
        if mapping.path is not None:
            path = os.path.abspath(mapping.path)
            where: dict[str, Any] = dict.fromkeys(keys, ("path", path, os.path.getmtime(path)))
        else:
            where = {key: mapping[key] for key in keys}
        futures = [
            client.submit(
                _task,
                where[key],
                key,
                axes[key],
                formats,
                scalings,
                chunk_bytes,
                scale_rule,
                pure=False,
            )
            for key in keys
        ]
        results = client.gather(futures)
    finally:
        if ours:
            client.close()
    records: list[dict[str, Any]] = []
    nonfinite: dict[str, int] = {}
    for key, (found, bad) in zip(keys, results, strict=True):
        records += found
        if bad:
            nonfinite[key] = bad
    return records, nonfinite

"""What an HDF5 file from someone else must not do, checked before anything is read.

HDF5 has features that reach outside the file: a dataset's values can live in
other files (*external raw storage*, ``create_dataset(..., external=[...])``), a
link can name an object in another file (an *external link*), and a *virtual
dataset* maps other datasets (of other files, or of this one) into its own. A
checkpoint that used one would have h5py read whatever file it names, and the
report would report that file's bytes. A filter that HDF5 does not build in would
be looked for as a plugin, a shared library loaded from the system's plugin path.
And a dataset's shape is a promise that the file need not keep: a chunked dataset
whose chunks were never written reads as its fill value, so a 9 KB file can
declare 4 TiB, which h5py allocates when the dataset is read.

:func:`check_contained` walks every link of the file (without following any) and
every dataset, and refuses, with a :class:`~fpexplore.io.checkpoint.CheckpointError`
naming the file and the object:

* links other than hard and soft links (external and user-defined links);
* virtual datasets and datasets with external storage;
* filters other than HDF5's own (deflate, shuffle, fletcher32, szip, nbit,
  scaleoffset) and h5py's LZF;
* a dataset that declares more bytes than it stores (all of them, with no
  compressing filter; :data:`MAX_RATIO` times them with one), or that stores more
  than the file holds.

:func:`check_dataset` is the per-dataset part, run again on each dataset when it
is read.

Examples
--------
>>> import numpy as np, os, tempfile
>>> h5py = __import__("pytest").importorskip("h5py")
>>> path = os.path.join(tempfile.mkdtemp(), "w.h5")
>>> with h5py.File(path, "w") as f:
...     f["ok"] = np.ones(4, np.float32)
...     _ = f.create_dataset("big", (2**40,), np.float32, chunks=(1024,))
>>> with h5py.File(path, "r") as f:
...     check_contained(f, "w.h5", os.path.getsize(path))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
fpexplore.io.checkpoint.CheckpointError: w.h5: dataset '/big' declares 4398046511104 bytes ...
"""

from __future__ import annotations

import importlib
import math
from typing import Any

from .checkpoint import CheckpointError

__all__ = ["FILTERS", "MAX_RATIO", "check_contained", "check_dataset"]

FILTERS = {1: "deflate", 2: "shuffle", 3: "fletcher32", 4: "szip", 5: "nbit", 6: "scaleoffset",
           32000: "lzf"}  # fmt: skip
"""The HDF5 filters accepted (HDF5's built-in ones and h5py's LZF), by filter id."""

_SHRINKING = {1, 4, 5, 6, 32000}  # the filters that can store fewer bytes than the values take

MAX_RATIO = 1032
"""The most bytes of values a dataset may declare for each byte it stores, when a
compressing filter is set: deflate's largest ratio."""


def check_dataset(dataset: Any, where: str, size: int) -> None:
    """Refuse a dataset that reaches outside the file or declares more than it stores.

    ``where`` is the file's name; ``size`` the bytes the file holds."""
    what = f"{where}: dataset {dataset.name!r}"
    if dataset.is_virtual:
        raise CheckpointError(
            f"{what} is a virtual dataset, whose values HDF5 reads from other datasets, "
            "possibly in files outside this one; refused"
        )
    plist = dataset.id.get_create_plist()
    if plist.get_external_count():
        files = [plist.get_external(i)[0].decode(errors="replace")
                 for i in range(plist.get_external_count())]  # fmt: skip
        raise CheckpointError(
            f"{what} has external storage (its values are in {', '.join(map(repr, files))}): "
            "reading it would read a file outside this one; refused"
        )
    shrinks = False
    for i in range(plist.get_nfilters()):
        code = plist.get_filter(i)[0]
        if code not in FILTERS:
            raise CheckpointError(
                f"{what} uses HDF5 filter {code}, which HDF5 would load as a plugin from "
                f"outside this file; accepted: {', '.join(FILTERS.values())}"
            )
        shrinks = shrinks or code in _SHRINKING
    shape = dataset.shape  # None: an empty (null) dataspace, which holds nothing
    declared = 0 if shape is None else math.prod(int(n) for n in shape) * dataset.dtype.itemsize
    stored = int(dataset.id.get_storage_size())
    if stored > size:
        raise CheckpointError(
            f"{what} claims {stored} bytes of storage, more than the {size}-byte file holds"
        )
    if declared > stored * (MAX_RATIO if shrinks else 1):
        how = f" (compressed: at most {MAX_RATIO} bytes of values a stored byte)" if shrinks else ""
        raise CheckpointError(
            f"{what} declares {declared} bytes ({dataset.dtype} {shape}) but stores "
            f"{stored}{how}: its values are not in the file"
        )


def check_contained(h5: Any, where: str, size: int) -> None:
    """Check every link and dataset of an open HDF5 file (see the module notes)."""
    h5py = importlib.import_module("h5py")  # (untyped)
    names: list[str] = []
    h5.id.links.visit(lambda raw: names.append(raw.decode("utf-8", "surrogateescape")))
    datasets = []
    for name in names:  # (checked after the walk: h5py's visit does not pass errors on)
        try:
            link = h5.get(name, getlink=True)
        except Exception as err:  # a user-defined link class that h5py does not know
            raise CheckpointError(f"{where}: link {name!r} is of an unknown kind: {err}") from None
        if isinstance(link, h5py.ExternalLink):
            raise CheckpointError(
                f"{where}: {name!r} is an external link to {link.path!r} in "
                f"{link.filename!r}, a file outside this one; refused"
            )
        if isinstance(link, h5py.HardLink):
            datasets.append(name)
        elif not isinstance(link, h5py.SoftLink):
            raise CheckpointError(f"{where}: link {name!r} is of an unknown kind; refused")
    for name in datasets:
        item = h5[name]
        if isinstance(item, h5py.Dataset):
            check_dataset(item, where, size)

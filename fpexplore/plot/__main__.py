"""``python -m fpexplore.plot --gallery DIR``: write every figure as a PNG."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status.

    Examples
    --------
    >>> main(["--list"])  # doctest: +ELLIPSIS
    bits_pi_float32
    ...
    0
    """
    parser = argparse.ArgumentParser(
        prog="python -m fpexplore.plot", description="Draw fpexplore's figures to PNG files."
    )
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--gallery", metavar="DIR", help="write every figure to DIR/<name>.png")
    group.add_argument("--list", action="store_true", help="list the gallery's figure names")
    parser.add_argument("--dpi", type=int, default=100, help="resolution (default 100)")
    args = parser.parse_args(argv)

    from .export import FIGURES, gallery

    if args.list:
        print("\n".join(FIGURES))
        return 0
    for path in gallery(args.gallery, dpi=args.dpi):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

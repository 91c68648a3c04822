"""``python -m fpexplore``: the same command as the ``fpexplore`` script."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())

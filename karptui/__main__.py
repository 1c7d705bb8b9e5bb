"""``python -m karptui`` and the ``karptui`` console script."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())

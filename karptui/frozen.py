"""The entry point of the single-file build (``make dist``): ``karptui/__main__.py`` imports its
package relatively, which a frozen script cannot."""

import sys

from karptui.__main__ import main

if __name__ == "__main__":
    sys.exit(main())

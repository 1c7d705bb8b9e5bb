"""The command line (docs/cli.md): parse, dispatch, and map failures to exit codes.

Exit status: 0 success; 2 bad input, with ONE line on stderr naming the file
and what is wrong; 1 internal error. Tracebacks only with KARPTUI_DEBUG=1.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from ..errors import ClusterUnavailable, InputError
from .parser import build_parser

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


def say(text: str) -> None:
    """One line on stderr (:func:`karptui.cli.output.say`), imported only when there is one:
    ``--version`` and a command that succeeds never load Rich for it."""
    from .output import say as _say

    _say(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except InputError as exc:
        say(f"karptui: {exc}")  # exception text may hold a file's name or content
        return EXIT_BAD_INPUT
    except ClusterUnavailable as exc:
        say(f"karptui: {exc}")
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `karptui ... | head`
        sys.stderr.close()
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the one place that turns bugs into a line
        if os.environ.get("KARPTUI_DEBUG"):
            raise
        say(f"karptui: internal error: {type(exc).__name__}: {exc} (set KARPTUI_DEBUG=1 for details)")
        return EXIT_INTERNAL

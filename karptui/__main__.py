"""``python -m karptui`` and the ``karptui`` console script."""

import sys

from .cli import main as cli_main


def main() -> int:
    """The command line; after a TUI session, the process ends at once (cli.tui.leave_at_once)."""
    code = cli_main()
    tui = sys.modules.get("karptui.cli.tui")   # imported only by the commands that run the TUI
    if tui is not None:
        tui.leave_at_once(code)
    return code


if __name__ == "__main__":
    sys.exit(main())

"""``python -m karptui`` and the ``karptui`` console script."""

import sys

from .cli import main as cli_main


def main() -> int:
    """The command line; after a TUI session, or a command that asked to (cli.output.end_at_once), the
    process ends at once (cli.tui.leave_at_once, cli.output.leave_at_once)."""
    code = cli_main()
    tui = sys.modules.get("karptui.cli.tui")   # imported only by the commands that run the TUI
    if tui is not None:
        tui.leave_at_once(code)
    output = sys.modules.get("karptui.cli.output")   # a command that asked to end at once (output.end_at_once)
    if output is not None:
        output.leave_at_once(code)
    return code


if __name__ == "__main__":
    sys.exit(main())

"""``karptui`` with no command: the live cluster view."""

from __future__ import annotations

import argparse
import sys


def run_live(args: argparse.Namespace) -> int:
    print(
        "karptui: live cluster mode is not in this build yet; "
        "explore a snapshot with `karptui demo` or `karptui open FILE`",
        file=sys.stderr,
    )
    return 1

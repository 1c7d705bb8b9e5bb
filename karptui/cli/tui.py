"""``karptui open`` and ``karptui demo``: load first, then start the TUI."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import InputError
from ..sources import bundled_snapshot, load_snapshot, resolve_snapshot_path


def _run(path: Path) -> int:
    snapshot = load_snapshot(path)  # bad input fails here, before the screen is taken
    from ..tui.app import KarptuiApp

    KarptuiApp(snapshot).run()
    return 0


def run_open(args: argparse.Namespace) -> int:
    if args.logs and not Path(args.logs).is_file():
        raise InputError(args.logs, "no such file")
    return _run(resolve_snapshot_path(args.snapshot))


def run_demo(args: argparse.Namespace) -> int:
    return _run(bundled_snapshot())

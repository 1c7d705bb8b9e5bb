"""``karptui open`` and ``karptui demo``: load first, then start the TUI."""

from __future__ import annotations

import argparse

from ..model import Snapshot
from ..sources import bundled_snapshot, load_snapshot, resolve_snapshot_path
from ..sources.logs import attach_logs


def _run(snapshot: Snapshot, theme: str | None = None) -> int:
    from ..tui.app import KarptuiApp  # bad input has failed by now, before the screen is taken

    KarptuiApp(snapshot, theme=theme).run()
    return 0


def run_open(args: argparse.Namespace) -> int:
    snapshot = load_snapshot(resolve_snapshot_path(args.snapshot))
    if args.logs:
        snapshot = attach_logs(snapshot, args.logs)
    return _run(snapshot, args.theme)


def run_demo(args: argparse.Namespace) -> int:
    return _run(load_snapshot(bundled_snapshot()), args.theme)

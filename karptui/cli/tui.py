"""``karptui open`` and ``karptui demo``: load first, then start the TUI."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from ..errors import InputError
from ..model import Snapshot
from ..sources import bundled_snapshot, load_snapshot, resolve_snapshot_path
from ..sources.decode import decompress, to_text


def _run(snapshot: Snapshot) -> int:
    from ..tui.app import KarptuiApp  # bad input has failed by now, before the screen is taken

    KarptuiApp(snapshot).run()
    return 0


def attach_logs(snapshot: Snapshot, path: str) -> Snapshot:
    """The snapshot with a Karpenter controller log file in place of any logs it carried."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "is a directory, not a log file") from None
    except OSError as exc:
        raise InputError(path, exc.strerror or str(exc)) from None
    text = to_text(decompress(data, path), path)
    return replace(snapshot, meta=replace(snapshot.meta, logs_text=text, logs_source=path))


def run_open(args: argparse.Namespace) -> int:
    snapshot = load_snapshot(resolve_snapshot_path(args.snapshot))
    if args.logs:
        snapshot = attach_logs(snapshot, args.logs)
    return _run(snapshot)


def run_demo(args: argparse.Namespace) -> int:
    return _run(load_snapshot(bundled_snapshot()))

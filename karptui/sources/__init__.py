"""Where a Snapshot comes from: files and directories (the live API is karptui.cluster)."""

from .bundled import bundled_snapshot, bundled_snapshots, resolve_snapshot_path
from .files import load_snapshot, read_objects
from .snapshot_file import write_snapshot

__all__ = [
    "bundled_snapshot", "bundled_snapshots", "load_snapshot", "read_objects",
    "resolve_snapshot_path", "write_snapshot",
]

"""Karpenter controller log files attached to a snapshot (``karptui open --logs``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..model import Snapshot
from .decode import read_text


def attach_logs(snapshot: Snapshot, path: str | Path) -> Snapshot:
    """The snapshot with this log file in place of any logs it carried."""
    text = read_text(path)
    return replace(snapshot, meta=replace(snapshot.meta, logs_text=text, logs_source=str(path)))

"""Karpenter controller log files attached to a snapshot (``karptui open --logs``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..errors import InputError
from ..model import Snapshot
from .decode import decompress, to_text


def read_log_file(path: str | Path) -> str:
    """The text of a log file (maybe gzipped); :class:`InputError` if unreadable."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "is a directory, not a log file") from None
    except OSError as exc:
        raise InputError(path, exc.strerror or str(exc)) from None
    return to_text(decompress(data, str(path)), str(path))


def attach_logs(snapshot: Snapshot, path: str | Path) -> Snapshot:
    """The snapshot with this log file in place of any logs it carried."""
    text = read_log_file(path)
    return replace(snapshot, meta=replace(snapshot.meta, logs_text=text, logs_source=str(path)))

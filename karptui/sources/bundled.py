"""The example snapshots shipped with karptui, found installed or in a checkout."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError

_PACKAGE = Path(__file__).resolve().parent.parent
DEMO = "topology-spread"


def data_dir(name: str) -> Path:
    """``snapshots`` or ``themes``: inside the wheel (``karptui/_data``) or the repo root."""
    installed = _PACKAGE / "_data" / name
    return installed if installed.is_dir() else _PACKAGE.parent / name


def bundled_snapshots() -> dict[str, Path]:
    """Name (file stem) -> path of every bundled snapshot."""
    folder = data_dir("snapshots")
    if not folder.is_dir():
        return {}
    return {
        p.name.split(".")[0]: p
        for p in sorted(folder.iterdir())
        if p.is_file() and p.name.removesuffix(".gz").endswith((".yaml", ".yml", ".json"))
    }


def bundled_snapshot(name: str = DEMO) -> Path:
    found = bundled_snapshots().get(name)
    if found is None:
        known = ", ".join(bundled_snapshots()) or "none installed"
        raise InputError(name, f"no bundled snapshot of that name (bundled: {known})")
    return found


def resolve_snapshot_path(arg: str) -> Path:
    """A path as given, or a bundled snapshot's name when no such path exists."""
    path = Path(arg)
    if path.exists() or arg not in bundled_snapshots():
        return path
    return bundled_snapshots()[arg]

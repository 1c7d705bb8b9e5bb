"""The immutable cluster model. Imports neither textual nor kubernetes.

The names below load on first use (PEP 562): ``karptui --version`` and the parser reach
light modules such as ``model.affinity`` without building every kind's reader.
"""

from __future__ import annotations

import importlib

_LAZY = {
    "SnapshotBuilder": ".build", "build_snapshot": ".build", "ModelError": ".errors", "Node": ".node",
    "NodeClaim": ".nodeclaim", "NodeClass": ".nodeclass", "NodePool": ".nodepool", "Pod": ".pod",
    "Resources": ".resources", "Snapshot": ".snapshot", "SnapshotMeta": ".snapshot", "Workload": ".workloads",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value

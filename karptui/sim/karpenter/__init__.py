"""Karpenter on top of the kube-scheduler simulation: provisioning and consolidation.

``Results`` and ``Scheduler`` load on first use (PEP 562), so reading a light module of this
package (``settings``, ``versions``) does not import the simulator.
"""

from __future__ import annotations

import importlib

__all__ = ["Results", "Scheduler"]


def __getattr__(name: str):
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(".scheduler", __name__), name)
    globals()[name] = value
    return value

"""Karpenter on top of the kube-scheduler simulation: provisioning and consolidation.

``Results`` and ``Scheduler`` load on first use (PEP 562), so that reading which Karpenter a
snapshot runs (``versions``) does not import the scheduler.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .scheduler import Results, Scheduler

__all__ = ["Results", "Scheduler"]


def __getattr__(name: str):
    if name in __all__:
        return getattr(importlib.import_module(".scheduler", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

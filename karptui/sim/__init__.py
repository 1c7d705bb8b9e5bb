"""The scheduling simulator: kube-scheduler's filters, scores and preemption, as a pure function.

Imports neither textual nor kubernetes. The names below load on first use (PEP 562): a caller that
only needs a small module of the package (``sim.karpenter.versions`` for ``snapshot info``) does not
pay for importing the whole simulator.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .result import Attempt, SimResult
    from .simulate import simulate

__all__ = ["Attempt", "SimResult", "simulate"]
_WHERE = {"Attempt": ".result", "SimResult": ".result", "simulate": ".simulate"}


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

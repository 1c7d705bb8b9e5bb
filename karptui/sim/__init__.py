"""The scheduling simulator: kube-scheduler's filters, scores and preemption, as a pure function.

Imports neither textual nor kubernetes. ``Attempt``, ``SimResult`` and ``simulate`` load on
first use, so a command that only reads Karpenter's settings or versions (``karptui --version``,
``snapshot info``) does not import the simulator.
"""

from __future__ import annotations

import importlib
import sys
import types

_LAZY = {"Attempt": ".result", "SimResult": ".result", "simulate": ".simulate"}

__all__ = ["Attempt", "SimResult", "simulate"]


class _Package(types.ModuleType):
    """This package, whose ``simulate`` is the function, never the submodule of the same name.

    Importing ``karptui.sim.simulate`` sets the package's attribute ``simulate`` to the
    submodule; with the eager import the function was bound after it, so keep it that way."""

    def __getattr__(self, name: str):
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, __name__), name)
        super().__setattr__(name, value)
        return value

    def __setattr__(self, name: str, value) -> None:
        if name == "simulate" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

"""The scheduling simulator: kube-scheduler's filters, scores and preemption, as a pure function.

Imports neither textual nor kubernetes.
"""

from .result import Attempt, SimResult
from .simulate import simulate

__all__ = ["Attempt", "SimResult", "simulate"]

"""Karpenter controller logs and scheduler events, every era, as typed events.

Imports neither textual nor kubernetes.
"""

from .parser import KINDS, EventWindow, LogParser, Stats, event

__all__ = ["KINDS", "EventWindow", "LogParser", "Stats", "event"]

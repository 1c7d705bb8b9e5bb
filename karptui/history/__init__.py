"""What Karpenter did, from its logs and events: every NodeClaim's life, replacement chains,
churn, pending pods and cost over time, and why a node went (docs/history.md).

Reads events from the one log reader (:mod:`karptui.logs`); imports neither textual nor kubernetes.
"""

from .builder import build_history
from .life import Disruption, Interruption, Life
from .timeline import Timeline
from .window import Window, parse_window

__all__ = ["Disruption", "Interruption", "Life", "Timeline", "Window", "build_history", "parse_window"]

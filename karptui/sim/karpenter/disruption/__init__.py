"""Karpenter's disruption: which nodes it would delete or replace, and what blocks the rest.

One module per method, as upstream: :mod:`.emptiness`, :mod:`.drift`,
:mod:`.multinode`, :mod:`.singlenode`; :mod:`.candidates` filters the nodes,
:mod:`.budgets` counts what each NodePool allows, :mod:`.simulation` moves the
pods, :mod:`.consolidation` decides delete or replace from what the simulation
left, and :mod:`.controller` runs the methods one command at a time.
"""

from .controller import MAX_COMMANDS, Blocked, Disruption, Disruptor, DriftRun, drift_alone

__all__ = ["MAX_COMMANDS", "Blocked", "Disruption", "Disruptor", "DriftRun", "drift_alone"]

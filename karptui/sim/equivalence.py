"""Equivalence classes: pods with one scheduling signature share the work of their cycles.

kube-scheduler (its old equivalence cache, now opportunistic batching) and Karpenter (its
topology groups) both use this: a workload's pending replicas ask every plugin the same
question, and after a placement the cluster differs only on the node that took the pod.
So, per signature (see :mod:`.signature`), the node-local Filter phase - every filter but
topology spread and inter-pod affinity, which run last and look at whole domains - is kept
with its outcome, and reused while the nodes touched since give the same verdicts as before
(only NodeResourcesFit, NodePorts and NodeVolumeLimits can change there, and they are asked
about those nodes alone). The node-local scores (NodeResourcesFit, BalancedAllocation) are kept per node and
recomputed where pods came or went. Domain filters and normalised scores run every time.

The answers are the plain path's, bit for bit: the kept outcome is what the plain path
computes from the same per-node verdicts. ``simulate(..., equivalence=False)`` takes the plain
path (the differential tests compare the two).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

import numpy as np

from ..model import Pod
from .cycle import Failure, PodCycle
from .framework import CHANGING_FILTERS, DOMAIN_FILTERS, NODE_LOCAL_FILTERS, Verdicts, apply_filters
from .signature import signature


class EquivalenceClass:
    """What one signature's cycles keep between pods, against one cluster state."""

    __slots__ = ("local", "changing", "taken_out", "seen", "scores")

    def __init__(self) -> None:
        self.local: Verdicts | None = None     # the node-local Filter phase's outcome
        self.changing: dict = {}                # CHANGING_FILTERS plugin -> its failures over every node
        self.taken_out: tuple | None = None     # (state, its taken_out()) when ``local`` was computed
        self.seen = 0                           # state.changes when ``local`` was last known right
        self.scores: dict = {}                  # NODE_LOCAL_SCORES plugin -> (score per node, state.changes then)

    def filters(self, ctx: PodCycle) -> Verdicts:
        """The Filter phase's outcome, as run_filters gives it (without explain)."""
        state = ctx.state
        taken_out = (state, state.taken_out())
        if self.local is None or self.taken_out != taken_out or not self._unchanged(ctx):
            self.changing = {plugin: plugin.filter(ctx) for plugin in CHANGING_FILTERS}
            self.taken_out = taken_out
            self.local = Verdicts(~state.excluded, np.zeros(ctx.size, dtype=bool))
            apply_filters(ctx, NODE_LOCAL_FILTERS, self.local, known=self.changing)
        self.seen = state.changes
        local = self.local
        failures = {plugin: plugin.filter(ctx) for plugin in DOMAIN_FILTERS}
        if not any(failures.values()):
            return local  # the domain filters rule nothing out: the kept outcome itself (read, never changed)
        verdicts = Verdicts(local.feasible.copy(), local.unresolvable.copy(), Counter(local.counts),
                            plugin_of=dict(local.plugin_of), masks=dict(local.masks))
        apply_filters(ctx, DOMAIN_FILTERS, verdicts, known=failures)
        return verdicts

    def _unchanged(self, ctx: PodCycle) -> bool:
        """Whether every node touched since ``seen`` gets the same node-local verdicts as then."""
        touched = ctx.state.touched_since(self.seen)
        if not touched.size:
            return True
        return all(_at(plugin.filter(ctx, touched)) == _at(self.changing[plugin], touched)
                   for plugin in CHANGING_FILTERS)

    def score(self, ctx: PodCycle, plugin, feasible: np.ndarray) -> np.ndarray:
        """A node-local score for the feasible nodes, from the kept per-node scores."""
        state = ctx.state
        found = self.scores.get(plugin)
        if found is None:
            kept = plugin.score(ctx, np.arange(ctx.size))
        else:
            kept, stamp = found
            touched = state.touched_since(stamp)
            if touched.size:
                kept[touched] = plugin.score(ctx, touched)
        self.scores[plugin] = (kept, state.changes)
        return kept[feasible]


def _at(failures: list[Failure], nodes: np.ndarray | None = None) -> list[tuple]:
    """Failures as comparable values, over ``nodes`` only when given (those that hit none left out)."""
    found = []
    for failure in failures:
        mask = failure.nodes if nodes is None else failure.nodes[nodes]
        if mask.any():
            found.append((failure.reason, failure.code, mask.tobytes()))
    return found


class Equivalence:
    """The classes of one simulation, by signature; a pod without one (unhashable fields) has none."""

    def __init__(self) -> None:
        self._classes: dict[Hashable, EquivalenceClass] = {}

    def of(self, pod: Pod) -> EquivalenceClass | None:
        key = signature(pod)
        if key is None:
            return None
        found = self._classes.get(key)
        if found is None:
            found = self._classes[key] = EquivalenceClass()
        return found

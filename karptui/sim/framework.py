"""One scheduling cycle per pod, in kube-scheduler's extension-point order.

PreFilter -> Filter (every plugin over every node as vectors; a node's status
is its first failing plugin's, as RunFilterPlugins stops there) -> PostFilter
(DefaultPreemption) -> Score (weighted, normalised plugins) -> Reserve (the
pod is assumed on the node and the cluster state updated).

On a cluster of 100 nodes or more, only the feasible nodes kube-scheduler's search finds
before it stops are scored (see :mod:`.sampling`). One deviation, on purpose: ties go to the
first node by name (upstream picks at random), so a simulation is repeatable.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..model import Pod
from .cycle import PodCycle, Rejection
from .plugins import (
    balanced_allocation,
    inter_pod_affinity,
    node_affinity,
    node_name,
    node_ports,
    node_resources_fit,
    node_unschedulable,
    node_volume_limits,
    pod_topology_spread,
    taint_toleration,
    volume_binding,
    volume_zone,
)
from .status import Code

PRE_FILTERS = (volume_binding,)
FILTERS = (
    node_unschedulable, node_name, taint_toleration, node_affinity, node_ports, node_resources_fit,
    node_volume_limits, volume_binding, volume_zone, pod_topology_spread, inter_pod_affinity,
)
# Topology spread and inter-pod affinity look at whole domains; every other filter's verdict on a
# node depends on that node alone (and the pod). The domain ones run last, so the node-local
# phase can be kept per equivalence class. Of the node-local ones, CHANGING_FILTERS change as
# pods come and go; the others only with the nodes themselves.
DOMAIN_FILTERS = (pod_topology_spread, inter_pod_affinity)
NODE_LOCAL_FILTERS = FILTERS[:-len(DOMAIN_FILTERS)]
assert FILTERS[-len(DOMAIN_FILTERS):] == DOMAIN_FILTERS
CHANGING_FILTERS = (node_ports, node_resources_fit, node_volume_limits)
FIXED_FILTERS = tuple(plugin for plugin in NODE_LOCAL_FILTERS if plugin not in CHANGING_FILTERS)
# the filters whose verdict taking bound pods away can change, but resources; and every filter but resources
EVICTION_AWARE_FILTERS = tuple(plugin for plugin in CHANGING_FILTERS + DOMAIN_FILTERS if plugin is not node_resources_fit)
BUT_RESOURCES = tuple(plugin for plugin in FILTERS if plugin is not node_resources_fit)
SCORES = (
    (taint_toleration, 3), (node_affinity, 2), (node_resources_fit, 1),
    (pod_topology_spread, 2), (inter_pod_affinity, 2), (balanced_allocation, 1),
)


@dataclass
class Verdicts:
    """The Filter phase's outcome for one pod over all nodes."""

    feasible: np.ndarray                     # bool per node
    unresolvable: np.ndarray                 # bool per node: failed with UnschedulableAndUnresolvable
    counts: Counter = field(default_factory=Counter)   # reason -> nodes
    per_node: dict[int, list[str]] | None = None        # node -> reasons (explain only)
    plugin_of: dict[str, str] = field(default_factory=dict)  # reason -> plugin name
    masks: dict[str, np.ndarray] = field(default_factory=dict)  # reason -> the nodes it was counted for
    rejection: Rejection | None = None


def run_filters(ctx: PodCycle, explain: bool = False) -> Verdicts:
    """Every filter over every node; ``explain`` keeps each node's reasons."""
    verdicts = Verdicts(~ctx.state.excluded, np.zeros(ctx.size, dtype=bool), per_node={} if explain else None)
    apply_filters(ctx, FILTERS, verdicts, explain)
    return verdicts


def only_resources_see_evictions(ctx: PodCycle, leaving: list[Pod]) -> bool:
    """Whether, for this pod, taking any of the bound pods ``leaving`` away (on one node) changes
    no filter's verdict but NodeResourcesFit's: each other filter that follows the pods (ports,
    volume limits, topology spread, inter-pod affinity) says they are nothing to it. Every other
    filter then answers on that node as it does now, whichever of them stay: preemption asks
    those once and weighs its victims by their requests alone, as its full dry run would find."""
    return all(plugin.blind_to_evictions(ctx, leaving) for plugin in EVICTION_AWARE_FILTERS)


def filters_at(ctx: PodCycle, i: int, plugins=FILTERS, settled: bool = False) -> tuple[bool, list[str]]:
    """Whether node ``i`` passes every filter, and else the reasons of the first plugin that
    refuses it: what ``run_filters(ctx, explain=True)`` says of that node, asked of it alone.

    Preemption's dry run asks this once per victim it tries to give back, on one node: the
    whole Filter phase over every node each time made preemption on a large cluster cost
    nodes x victims x candidates. A node a plugin refuses stops there, as RunFilterPlugins does
    (a node's status is its first failing plugin's); the CHANGING_FILTERS answer for the node
    alone, the rest are read at it: the FIXED_FILTERS' answers kept for the pod's cycle (they
    change only with the nodes, which a cycle never changes), the domain ones asked afresh.
    ``plugins`` (in FILTERS' order) asks only those. ``settled``: the cluster counts every pod as
    the cycle's Filter phase found it (preemption between two dry runs, each of which puts back
    what it took): the domain filters' answers are then kept for the cycle too, not asked of the
    whole cluster again for each candidate node."""
    if ctx.state.excluded[i]:
        return False, []
    if settled:
        return _settled(ctx, plugins).at(i)
    alone = np.array([i], dtype=np.intp)
    for plugin in plugins:
        if plugin in CHANGING_FILTERS:
            failures, at = plugin.filter(ctx, alone), 0
        elif plugin in FIXED_FILTERS:
            failures, at = _kept(ctx, FIXED_FILTERS, plugin), i
        else:
            failures, at = plugin.filter(ctx), i
        refusing = [failure for failure in failures if failure.nodes[at]]
        if refusing:
            return False, [failure.reason for failure in refusing if failure.reason]
    return True, []


class _Settled:
    """``plugins``' answers over every node while the cluster stands as the cycle's Filter phase
    found it (``filters_at``'s ``settled``), and the first of them to refuse each node.

    Preemption asks them of one candidate node after another, dry run after dry run (tens of
    thousands of times on a large batch cluster); each answer over every node holds for the
    whole cycle, so the node's first refusing plugin is read off one vector rather than every
    plugin asked again for each node."""

    __slots__ = ("failures", "first")

    def __init__(self, ctx: PodCycle, plugins) -> None:
        self.failures = []
        for plugin in plugins:
            kept = FIXED_FILTERS if plugin in FIXED_FILTERS else DOMAIN_FILTERS if plugin in DOMAIN_FILTERS else None
            self.failures.append(plugin.filter(ctx) if kept is None else _kept(ctx, kept, plugin))
        # the first plugin (by position) that refuses each node; len(plugins) where none does
        self.first = np.full(ctx.size, len(plugins), dtype=np.intp)
        for k in range(len(plugins) - 1, -1, -1):
            for failure in self.failures[k]:
                self.first[failure.nodes] = k

    def at(self, i: int) -> tuple[bool, list[str]]:
        k = int(self.first[i])
        if k == len(self.failures):
            return True, []
        return False, [failure.reason for failure in self.failures[k] if failure.nodes[i] and failure.reason]


def _kept(ctx: PodCycle, kind: tuple, plugin) -> list:
    """``plugin``'s answer over every node, asked once per cycle (``kind``: FIXED_FILTERS, whose answers
    change only with the nodes; DOMAIN_FILTERS, while the cluster stands as the Filter phase found it)."""
    failures = ctx.cycle.get((kind, plugin))
    if failures is None:
        failures = ctx.cycle[(kind, plugin)] = plugin.filter(ctx)
    return failures


def _settled(ctx: PodCycle, plugins) -> _Settled:
    found = ctx.cycle.get((_Settled, plugins))
    if found is None:
        found = ctx.cycle[(_Settled, plugins)] = _Settled(ctx, plugins)
    return found


def apply_filters(ctx: PodCycle, plugins, verdicts: Verdicts, explain: bool = False,
                  known: dict | None = None) -> None:
    """``plugins`` in order over the nodes ``verdicts`` still finds feasible, adding their reasons.

    ``known`` maps a plugin to failures already computed for this pod (the equivalence cache's)."""
    still, unresolvable = verdicts.feasible, verdicts.unresolvable
    for plugin in plugins:
        failures = known[plugin] if known is not None and plugin in known else plugin.filter(ctx)
        if not failures:
            continue
        failed_here = None
        for failure in failures:
            hit = still & failure.nodes
            hits = np.count_nonzero(hit)
            if not hits:
                continue
            failed_here = hit if failed_here is None else failed_here | hit
            if failure.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                unresolvable |= hit
            if not failure.reason:  # left out of every message, as upstream does for some PreFilter cuts
                continue
            verdicts.counts[failure.reason] += hits
            earlier = verdicts.masks.get(failure.reason)
            verdicts.masks[failure.reason] = hit if earlier is None else earlier | hit
            verdicts.plugin_of[failure.reason] = plugin.NAME
            if explain:
                for i in np.flatnonzero(hit):
                    verdicts.per_node.setdefault(int(i), []).append(failure.reason)
        if failed_here is not None:
            np.greater(still, failed_here, out=still)  # still and not failed here


def run_prefilters(ctx: PodCycle) -> Rejection | None:
    for plugin in PRE_FILTERS:
        rejection = plugin.prefilter(ctx)
        if rejection is not None:
            return rejection
    return None


# Scores that are not normalised over the feasible nodes: a node's score depends on that node
# alone, so it can be kept per node and recomputed only where pods came or went.
NODE_LOCAL_SCORES = (node_resources_fit, balanced_allocation)


def run_scores(ctx: PodCycle, feasible: np.ndarray, known=None) -> np.ndarray:
    """Weighted sum of normalised scores for the feasible node indices.

    ``known(plugin, feasible)``, when given, answers for the NODE_LOCAL_SCORES plugins (the
    equivalence cache keeps their per-node scores). A plugin that gives every feasible node one
    score (most pods have nothing a plugin weighs) may return it as a plain int, added to every
    node alike: on a large cluster a pod is scored over a thousand nodes, and a vector of equal
    scores, made, weighted and added, changes which node wins no more than the plain int does."""
    total = np.zeros(int(feasible.size), dtype=np.int64)
    if feasible.size == 1:
        return total
    for plugin, weight in SCORES:
        if known is not None and plugin in NODE_LOCAL_SCORES:
            total += weight * known(plugin, feasible)
        else:
            total += weight * plugin.score(ctx, feasible)
    return total


def select_host(feasible: np.ndarray, scores: np.ndarray) -> int:
    """The highest score; among equals the first node by name (upstream: random). ``feasible``
    may be in any order (the node search gives its nodes in the order it found them)."""
    return int(feasible[scores == scores.max()].min())


def fits_on(ctx: PodCycle, i: int) -> bool:
    return filters_at(ctx, i)[0]


def lower_priority(pods: list[Pod], priority: int) -> list[Pod]:
    return [p for p in pods if p.priority < priority]

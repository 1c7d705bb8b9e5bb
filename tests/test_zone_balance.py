"""The Nodes pane's zone balance (views.zones.workload_spread) on generated clusters of every shape:
each count is the pods a plain reading of the rule counts, node by node."""

import sys

import pytest

from karptui.model import build_snapshot
from karptui.model.affinity import HONOR
from karptui.model.snapshot import NO_ZONE
from karptui.model.taints import first_untolerated
from karptui.sim.plugins.node_affinity import node_matches
from karptui.sim.plugins.pod_topology_spread import effective_selector
from karptui.views.zones import _workload_selector, workload_spread
from tests.conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import gen_cluster  # noqa: E402


def counted(snapshot, pod, node, selector) -> int:
    """Bound pods on ``node`` the selector counts: same namespace, not terminating, matching."""
    return sum(1 for p in snapshot.pods if p.node_name == node.name and p.namespace == pod.namespace
               and p.deleted is None and not p.is_terminal and selector is not None and selector.matches(p.labels))


@pytest.mark.parametrize("shape", ["classic", "web", "batch"])
def test_each_pending_workload_s_spread_is_what_the_rule_counts(shape):
    s = gen_cluster.SHAPES[shape]
    snapshot = build_snapshot(gen_cluster.generate(24, 24 * s.pods_per_node, seed=11, shape=shape,
                                                   pending_fraction=s.pending_fraction)["items"])
    weighed = 0
    pods = sorted(snapshot.pods, key=lambda p: (not p.spread_constraints, p.key))   # constrained ones first
    owners = {}
    for p in pods:   # a pod of each workload (bound or pending: the pane weighs the workload)
        owners.setdefault(tuple((o.kind, o.name) for o in p.owners) or p.key, p)
    for pod in list(owners.values())[:60]:
        spread = workload_spread(snapshot, pod, "w")
        owner = _workload_selector(snapshot, pod)
        if owner is None and pod.spread_constraints:
            owner = effective_selector(pod.spread_constraints[0], pod.labels)
        per_zone: dict[str, int] = {}
        for node in snapshot.nodes:
            zone = node.zone or NO_ZONE
            per_zone[zone] = per_zone.get(zone, 0) + counted(snapshot, pod, node, owner)
        assert spread.per_zone == dict(sorted(per_zone.items()))
        for constraint, check in zip(pod.spread_constraints, spread.checks):
            selector = effective_selector(constraint, pod.labels)
            counts: dict[str, int] = {}
            for node in snapshot.nodes:
                domain = node.labels.get(constraint.topology_key)
                if domain is None or (constraint.node_affinity_policy == HONOR and not node_matches(pod, node)) or \
                        (constraint.node_taints_policy == HONOR and first_untolerated(node.taints, pod.tolerations)):
                    continue
                counts[domain] = counts.get(domain, 0) + counted(snapshot, pod, node, selector)
            assert dict(check.counts) == counts
            weighed += 1
        weighed += any(spread.per_zone.values())
    assert weighed >= 10   # workloads with pods to count, constraints among them

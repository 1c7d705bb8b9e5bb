"""The seed scenarios: the simulator must say what kube-scheduler said in those clusters."""

from collections import Counter

import pytest

from karptui.sim import simulate
from karptui.sources import bundled_snapshot, load_snapshot

SEEDS = ["topology-spread", "consolidation", "multi-nodepool", "overprovisioning"]


@pytest.mark.parametrize("name", SEEDS)
def test_every_pending_pod_gets_the_schedulers_own_message(name):
    snapshot = load_snapshot(bundled_snapshot(name))
    result = simulate(snapshot)
    assert len(result.attempts) == len(snapshot.pending_pods)
    for attempt in result.attempts:
        assert attempt.node is None
        assert attempt.reason == attempt.pod.scheduled_message


def test_topology_spread_seed_is_14_scheduled_6_pending():
    snapshot = load_snapshot(bundled_snapshot("topology-spread"))
    result = simulate(snapshot)
    host_spread = {k: v for k, v in result.placements.items() if "/host-spread-" in k}
    assert len(host_spread) == 14 and result.pending == 6
    zones = Counter(snapshot.node_by_name[n].zone for n in host_spread.values())
    assert zones == {"ap-northeast-2a": 6, "ap-northeast-2b": 6, "ap-northeast-2c": 2}


def test_explain_says_where_the_spread_minimum_is():
    result = simulate(load_snapshot(bundled_snapshot("topology-spread")), explain=True)
    summary = result.attempts[0].summary
    assert "kubernetes.io/hostname skew would be 3 > maxSkew 2" in summary
    assert "(the minimum, 0, is in ip-192-168-11-131.ap-northeast-2.compute.internal" in summary  # a Fargate node
    assert "2 node(s) carry taints it does not tolerate" in summary
    assert len(result.attempts[0].filters) == 9


def test_explain_for_affinity_and_resources():
    result = simulate(load_snapshot(bundled_snapshot("multi-nodepool")), explain=True)
    summary = result.attempts[0].summary
    assert "4 node(s) lack team In [team1]" in summary and "needs 1 cpu; the 1 node(s) short of it have at most 740m free" in summary


def test_dropping_the_hostname_constraint_lets_the_zone_constraint_decide():
    """The seed's second experiment: with only zone maxSkew 5, the existing nodes take 16."""
    from karptui.whatif import apply_whatif, load_whatif
    from karptui.whatif.diff import diff
    from tests.conftest import FIXTURES

    snapshot = load_snapshot(bundled_snapshot("topology-spread"))
    whatif = apply_whatif(snapshot, load_whatif(FIXTURES / "whatif" / "drop-hostname-spread.yaml"))
    baseline, result = simulate(snapshot), simulate(whatif.snapshot, explain=True)
    assert (result.scheduled, result.pending) == (16, 4)
    zones = Counter(whatif.snapshot.node_by_name[n].zone for k, n in result.placements.items() if "host-spread" in k)
    assert zones == {"ap-northeast-2a": 7, "ap-northeast-2b": 7, "ap-northeast-2c": 2}
    stuck = [a for a in result.attempts if not a.scheduled]
    assert stuck[0].reason.startswith(
        "0/9 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint "
        "{eks.amazonaws.com/compute-type: fargate}, 6 node(s) didn't match pod topology spread constraints.")
    assert stuck[0].summary.startswith(
        "needs a node in ap-northeast-2c (topology.kubernetes.io/zone skew would be 6 > maxSkew 5 in "
        "ap-northeast-2a, ap-northeast-2b")
    assert "but there it fails: Insufficient cpu" in stuck[0].summary
    changes = diff(baseline, result)
    (workload,) = [w for w in changes.workloads if w.workload == "Deployment/default/host-spread"]
    assert workload.zones_before == {"ap-northeast-2a": 6, "ap-northeast-2b": 6, "ap-northeast-2c": 2}
    assert workload.zones_after == {"ap-northeast-2a": 7, "ap-northeast-2b": 7, "ap-northeast-2c": 2}
    assert changes.counts["pending_before"] == 6 and changes.counts["pending_after"] == 4

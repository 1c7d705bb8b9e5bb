"""Shortcuts that must change no answer: a pod answered from an earlier failed twin, and a
what-if simulated from a copy of the baseline's cluster."""

from hypothesis import given, settings
from hypothesis import strategies as st

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.model import build_snapshot
from karptui.sim import simulate
from karptui.sim.state import ClusterState
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.views import whatif_form as wf
from karptui.whatif import apply_whatif
from tests.simkit import HOST, node, placed, pod
from tests.test_sim_properties import nodes_strategy, objects, workload_strategy

SEEDS = ["topology-spread", "consolidation", "multi-nodepool", "overprovisioning"]


def outcome(result):
    attempts = [(a.pod.key, a.node, a.new_node, a.reason, dict(a.counts), a.filters, a.preempted, a.summary,
                 a.karpenter_reason) for a in result.attempts]
    claims = [(c.name, c.nodepool, c.instance_types, c.pods, dict(c.launch or {})) for c in result.nodeclaims]
    return attempts, dict(result.placements), claims


@pytest.mark.parametrize("name", SEEDS)
def test_batching_changes_nothing_on_the_seeds_with_karpenter(name):
    snapshot = load_snapshot(bundled_snapshot(name))
    catalog = catalog_from_snapshot_region(snapshot)
    batched = simulate(snapshot, explain=True, catalog=catalog, batch=True)
    one_by_one = simulate(snapshot, explain=True, catalog=catalog, batch=False)
    assert outcome(batched) == outcome(one_by_one)


@settings(max_examples=80, deadline=None)
@given(nodes_strategy, st.lists(workload_strategy, min_size=1, max_size=3),
       st.lists(st.sampled_from([-10, 0, 1000]), min_size=0, max_size=6))
def test_batching_changes_nothing_on_random_clusters(nodes, workloads, priorities):
    """Random spreads, anti-affinity, selectors, plus bound pods of mixed priority to preempt."""
    bound = [pod(f"bound-{i}", node="n0", cpu="500m", priority=p) for i, p in enumerate(priorities)]
    snapshot = build_snapshot(objects(nodes, workloads) + bound)
    assert outcome(simulate(snapshot, explain=True, batch=True)) == \
        outcome(simulate(snapshot, explain=True, batch=False))


def test_a_placement_in_between_means_the_pod_is_tried_again():
    """p1-a fails (no app=b pod to join); p2-b lands; p3-a, p1-a's twin, now has company."""
    join_b = {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "b"}}, "topologyKey": HOST}]}}}
    snapshot = build_snapshot([
        node("n1"),
        pod("p1-a", labels={"app": "a"}, **join_b),
        pod("p2-b", labels={"app": "b"}),
        pod("p3-a", labels={"app": "a"}, **join_b),
    ])
    result = simulate(snapshot)
    assert placed(result) == {"p1-a": None, "p2-b": "n1", "p3-a": "n1"}


def test_twins_that_fail_back_to_back_get_the_same_words():
    snapshot = build_snapshot([node("n1", cpu="1"), *(pod(f"big-{i}", cpu="2", labels={"app": "big"})
                                                      for i in range(20))])
    result = simulate(snapshot)
    assert {a.reason for a in result.attempts} == {"0/1 nodes are available: 1 Insufficient cpu. "
                                                   "preemption: 0/1 nodes are available: "
                                                   "1 No preemption victims found for incoming pod."}
    assert [a.pod.name for a in result.attempts] == [f"big-{i}" for i in sorted(range(20), key=str)]



# ---- a what-if starts from a copy of the baseline's cluster, not a fresh one

SPREAD = "Deployment/default/host-spread"


@pytest.mark.parametrize("edits, afresh", [
    ([wf.scale_edit(SPREAD, 30)], False),
    ([wf.scale_edit(SPREAD, 4), wf.scale_edit("Deployment/default/inflate", 5)], False),
    ([wf.spread_edit(SPREAD, [])], False),
    ([wf.cordon_edit("ip-192-168-12-45.ap-northeast-2.compute.internal")], True),   # node changes:
    ([wf.remove_node_edit("ip-192-168-11-21.ap-northeast-2.compute.internal")], True),  # start afresh
])
def test_a_whatif_from_the_kept_cluster_equals_one_from_scratch(edits, afresh):
    snapshot = load_snapshot(bundled_snapshot("topology-spread"))
    catalog = catalog_from_snapshot_region(snapshot)
    start = ClusterState(snapshot)
    used = start.copy()
    simulate(snapshot, catalog=catalog, state=used)
    start.warm_like(used)
    changed = apply_whatif(snapshot, wf.EditStack(edits).as_whatif(), catalog=catalog).snapshot
    state = start.rebound(changed)
    assert (state is None) == afresh
    kept = simulate(changed, explain=True, catalog=catalog, consolidate=True, state=state)
    fresh = simulate(changed, explain=True, catalog=catalog, consolidate=True)
    assert outcome(kept) == outcome(fresh)
    assert [(d.action, d.nodes) for d in kept.disruptions] == [(d.action, d.nodes) for d in fresh.disruptions]

"""Equivalence classes change no answer: pods of one signature sharing their cycles' work place
exactly where, and fail with exactly the words, every plugin run afresh for every pod gives."""

from hypothesis import given, settings
from hypothesis import strategies as st

import numpy as np
import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.model import build_snapshot
from karptui.model.selectors import parse_label_selector
from karptui.sim import simulate
from karptui.sim.state import ClusterState
from karptui.sources import bundled_snapshot, load_snapshot
from tests.simkit import HOST, ZONE, node, placed, pod
from tests.test_sim_properties import nodes_strategy, objects, workload_strategy

SEEDS = ["topology-spread", "consolidation", "multi-nodepool", "overprovisioning"]


def outcome(result):
    """Everything a user sees of the kube-scheduler part, reasons in the order they were counted."""
    return [(a.pod.key, a.node, a.reason, list(a.counts.items()), a.preempted) for a in result.attempts], \
        dict(result.placements)


def both(snapshot, **options):
    shared = simulate(snapshot, equivalence=True, **options)
    plain = simulate(snapshot, equivalence=False, **options)
    assert outcome(shared) == outcome(plain)
    return shared


def web(name, cpu="100m", port=None, **spec):
    if port is not None:
        spec["containers"] = [{"name": "app", "image": "app:1", "ports": [{"containerPort": 80, "hostPort": port}],
                               "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]
    return pod(name, cpu=cpu, labels={"app": "web"}, **spec)


@settings(max_examples=150, deadline=None)
@given(nodes_strategy, st.lists(workload_strategy, min_size=1, max_size=4),
       st.lists(st.tuples(st.sampled_from([-10, 0, 1000]), st.sampled_from(["300m", "900m"])), max_size=6),
       st.lists(st.sampled_from([None, 8080]), min_size=0, max_size=4), st.booleans())
def test_equivalence_changes_nothing_on_random_clusters(nodes, workloads, bound, ports, cordon):
    """Spreads, anti-affinity, selectors, full nodes, host ports, a cordoned node, and bound pods of
    mixed priority that preemption evicts (the nodes it touches must be checked again)."""
    items = objects(nodes, workloads)
    items += [pod(f"bound-{i}", node=f"n{i % len(nodes)}", cpu=cpu, priority=p) for i, (p, cpu) in enumerate(bound)]
    items += [web(f"port-{i}", port=p, priority=500) for i, p in enumerate(ports)]
    if cordon:
        items[0]["spec"]["unschedulable"] = True
    both(build_snapshot(items))


@pytest.mark.parametrize("name", SEEDS)
def test_equivalence_changes_nothing_on_the_seeds_with_karpenter(name):
    snapshot = load_snapshot(bundled_snapshot(name))
    both(snapshot, catalog=catalog_from_snapshot_region(snapshot))


def test_a_replica_that_filled_a_node_leaves_the_next_one_a_reason_for_it():
    """The first two replicas fit; the third meets the nodes the first two filled."""
    result = both(build_snapshot([node("n1", cpu="2"), node("n2", cpu="2"),
                                  *(web(f"web-{i}", cpu="1500m") for i in range(3))]))
    assert placed(result) == {"web-0": "n1", "web-1": "n2", "web-2": None}
    assert result.attempts[2].reason == ("0/2 nodes are available: 2 Insufficient cpu. preemption: "
                                         "0/2 nodes are available: 2 No preemption victims found for incoming pod.")


def test_a_host_port_taken_by_a_replica_is_seen_by_the_next():
    result = both(build_snapshot([node("n1"), node("n2"), *(web(f"web-{i}", port=8080) for i in range(3))]))
    assert placed(result) == {"web-0": "n1", "web-1": "n2", "web-2": None}
    assert result.attempts[2].reason.startswith(
        "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports.")


def test_a_node_preemption_emptied_takes_the_next_replica():
    """web-0 evicts the low-priority pod filling n1; web-1, the same class, finds room there too."""
    result = both(build_snapshot([
        node("n1", cpu="2"),
        pod("filler", node="n1", cpu="1800m", priority=-5),
        *(web(f"web-{i}", cpu="500m", priority=100) for i in range(2)),
    ]))
    assert placed(result) == {"filler": None, "web-0": "n1", "web-1": "n1"}
    assert result.attempts[0].preempted == ("default/filler",)


def test_anti_affinity_replicas_each_take_a_node_then_name_the_rule():
    anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST}]}}}
    result = both(build_snapshot([node("n1"), node("n2"), *(web(f"web-{i}", **anti) for i in range(3))]))
    assert placed(result) == {"web-0": "n1", "web-1": "n2", "web-2": None}
    assert result.attempts[2].reason.startswith(
        "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.")


@settings(max_examples=60, deadline=None)
@given(nodes_strategy, st.lists(st.tuples(st.integers(0, 7), st.sampled_from(["w0", "w1"]), st.booleans()),
                                max_size=25))
def test_kept_domain_totals_equal_a_fresh_sum(nodes, moves):
    """ClusterState.domain_totals, kept up to date from the nodes touched, against summing afresh
    after every placement or eviction (per zone and per node, over part of the nodes)."""
    snapshot = build_snapshot(objects(nodes, []))
    state = ClusterState(snapshot)
    selector = parse_label_selector({"matchLabels": {"app": "w0"}}, "test")
    counter = ((selector, frozenset(("default",))),)
    per_node = state.counts(counter, skip_terminating=True)
    mask = np.arange(len(state.nodes)) % 3 != 1
    placed_pods = []
    for n, (where, app, evict) in enumerate(moves):
        if evict and placed_pods:
            pod_, i = placed_pods.pop(where % len(placed_pods))
            state.evict(pod_, i)
        else:
            i = where % len(state.nodes)
            pod_ = snapshot_pod(f"p{n}", app)
            state.place(pod_, i)
            placed_pods.append((pod_, i))
        for key in (ZONE, HOST):
            domains = state.domains(key)
            kept = state.domain_totals((counter, key, "some nodes"), per_node, domains, mask)
            assert kept.tolist() == domains.per_domain(per_node, mask).tolist()


def snapshot_pod(name, app):
    return build_snapshot([pod(name, labels={"app": app})]).pods[0]

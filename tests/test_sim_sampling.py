"""kube-scheduler stops looking for feasible nodes once it has enough (numFeasibleNodesToFind),
walking its node list zone by zone from where the previous pod's search stopped."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from karptui.model import build_snapshot
from karptui.sim import simulate
from karptui.sim.sampling import NodeSearch, node_tree_order, nodes_to_find
from karptui.sim.state import ClusterState


@pytest.mark.parametrize("nodes, expected", [
    (1, 1), (99, 99),              # below 100 nodes: every node
    (100, 100),                    # 49% of 100 is 49, but never fewer than 100
    (1000, 420),                   # 50 - 1000/125 = 42%
    (5000, 500),                   # 50 - 40 = 10%
    (5625, 281),                   # 50 - 45 = 5%
    (20000, 1000),                 # 50 - 160 < 5: the floor of 5%
])
def test_how_many_feasible_nodes_end_the_search(nodes, expected):
    assert nodes_to_find(nodes) == expected


def test_a_profiles_percentage_replaces_the_adaptive_one():
    assert nodes_to_find(5000, 30) == 1500
    assert nodes_to_find(5000, 100) == 5000
    assert nodes_to_find(1000, 1) == 100   # still at least 100


def _walk(order, feasible, start, wanted):
    """The search as kube-scheduler's loop reads, one node at a time (the reference)."""
    found, looked = [], 0
    for step in range(len(order)):
        node = order[(start + step) % len(order)]
        if feasible[node]:
            if len(found) == wanted:
                break          # one more than needed: cancelled, not counted
            found.append(node)
        looked += 1
    return found, (start + looked) % len(order)


def _state(zones: list[str], excluded=()):
    items = [{"apiVersion": "v1", "kind": "Node",
              "metadata": {"name": f"n-{i:04d}", "labels": {"topology.kubernetes.io/zone": z,
                                                            "topology.kubernetes.io/region": "r"}},
              "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}
             for i, z in enumerate(zones)]
    state = ClusterState(build_snapshot(items))
    state.excluded[list(excluded)] = True
    return state


def test_the_node_list_takes_one_node_from_each_zone_in_turn():
    state = _state(["a", "a", "a", "b", "c", "c"], excluded=[1])
    assert node_tree_order(state).tolist() == [0, 3, 4, 2, 5]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_search_finds_what_a_node_by_node_walk_finds(data):
    size = data.draw(st.integers(100, 700))
    feasible = np.array(data.draw(st.lists(st.booleans(), min_size=size, max_size=size)), dtype=bool)
    zones = data.draw(st.lists(st.sampled_from("abc"), min_size=size, max_size=size))
    state = _state(zones)
    search = NodeSearch(percentage=data.draw(st.sampled_from([0, 0, 10, 40])))
    order = node_tree_order(state).tolist()
    wanted = nodes_to_find(size, search.percentage)
    for _ in range(3):  # three pods in a row, each starting where the last stopped
        start = search.start
        expected, next_start = _walk(order, feasible, start, wanted)
        assert sorted(search.found(state, feasible).tolist()) == sorted(expected)
        assert search.start == next_start


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_search_finds_nodes_in_the_order_a_node_by_node_walk_meets_them_however_few_fit(data):
    """Pods that fit on few nodes or none (the search then goes round the whole list) as well as
    on many, some nodes taken out: the very nodes, in the walk's order, and where the next starts."""
    size = data.draw(st.integers(100, 700))
    zones = data.draw(st.lists(st.sampled_from("abcd"), min_size=size, max_size=size))
    excluded = data.draw(st.lists(st.integers(0, size - 1), max_size=30))
    state = _state(zones, excluded=excluded)
    search = NodeSearch(percentage=data.draw(st.sampled_from([0, 0, 10, 40])))
    search.start = data.draw(st.integers(0, size - len(set(excluded)) - 1))
    order = node_tree_order(state).tolist()
    wanted = nodes_to_find(len(order), search.percentage)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    # a share of the nodes, or just about as many as end the search
    shares = st.sampled_from([0.0, 0.002, 0.02, 0.2, 0.6, 1.0]) | st.sampled_from([-2, -1, 0, 1, 2])
    for share in data.draw(st.lists(shares, min_size=1, max_size=4)):
        if isinstance(share, float):
            feasible = (rng.random(size) < share) & ~state.excluded
        else:
            feasible = np.zeros(size, dtype=bool)
            feasible[rng.permutation(order)[:max(wanted + share, 0)]] = True
        start = search.start
        expected, next_start = _walk(order, feasible, start, wanted)
        found = search.found(state, feasible).tolist()
        # below 100 nodes every node is scored, listed by name (the order does not matter then)
        assert (found if wanted < len(order) else sorted(found)) == (expected if wanted < len(order) else sorted(expected))
        assert search.start == next_start


def test_exactly_enough_feasible_nodes_means_every_node_was_looked_at():
    state = _state(["a"] * 200)
    feasible = np.zeros(200, dtype=bool)
    feasible[:nodes_to_find(200)] = True
    search = NodeSearch()
    search.start = 7
    assert len(search.found(state, feasible)) == nodes_to_find(200)
    assert search.start == 7  # round the whole list: it looked for one more and met none


def _cluster(nodes: int):
    """``nodes`` equal, empty nodes in one zone, and three pending pods."""
    items = []
    for i in range(nodes):
        name = f"n-{i:04d}"
        items.append({"apiVersion": "v1", "kind": "Node",
                      "metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": "z",
                                                            "kubernetes.io/hostname": name}},
                      "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}})
    for k in range(3):
        items.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"new-{k}", "namespace": "d"},
                      "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
                      "status": {"phase": "Pending"}})
    return build_snapshot(items)


def test_on_a_large_cluster_a_pod_goes_to_the_best_of_the_nodes_the_search_found():
    """400 equal nodes: a search ends after 188 feasible nodes (50 - 400/125 = 47%). The first
    pod's search finds nodes 0-187 and takes the first by name; the second starts at node 188;
    the third at node 376, goes round to node 163, and among its nodes the emptiest first by
    name is n-0001 (n-0000 holds the first pod)."""
    snapshot = _cluster(400)
    result = simulate(snapshot)
    assert nodes_to_find(400) == 188
    assert [a.node for a in result.attempts] == ["n-0000", "n-0188", "n-0001"]


def test_below_a_hundred_nodes_every_feasible_node_is_scored():
    snapshot = _cluster(60)
    result = simulate(snapshot)
    # every pod sees every node: all go to the first equal node by name, then the next emptiest
    assert [a.node for a in result.attempts][0] == "n-0000"
    assert all(a.node is not None for a in result.attempts)

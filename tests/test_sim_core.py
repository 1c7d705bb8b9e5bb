"""Queue order, FitError text, scoring choices and preemption."""

import pytest

from karptui.sim.fit_error import fit_error
from tests.simkit import node, placed, pod, run


def test_reasons_are_sorted_as_strings_like_upstream():
    text = fit_error(12, {"Insufficient cpu": 10, "node(s) were unschedulable": 2})
    assert text == "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) were unschedulable."


def test_no_nodes():
    assert run(pod("p")).attempts[0].reason == "no nodes available to schedule pods"


def test_queue_is_priority_then_age():
    small = node("n1", cpu="1")
    low = pod("low", cpu="800m", priority=0)
    high = pod("high", cpu="800m", priority=1000)
    high["metadata"]["creationTimestamp"] = "2024-05-01T12:00:00Z"  # younger, but more important
    result = run(small, low, high)
    assert [a.pod.name for a in result.attempts] == ["high", "low"]
    assert placed(result) == {"high": "n1", "low": None}


def test_least_allocated_prefers_the_emptier_node():
    busy = pod("busy", node="a", cpu="3")
    assert placed(run(node("a"), node("b"), busy, pod("p"))) == {"p": "b"}


def test_ties_go_to_the_first_node_by_name():
    assert placed(run(node("z"), node("m"), node("b"), pod("p"))) == {"p": "b"}


def test_assumed_pods_count_for_the_next_pod():
    result = run(node("n1", cpu="1"), pod("a", cpu="600m"), pod("b", cpu="600m"))
    assert placed(result) == {"a": "n1", "b": None}
    assert result.placements["default/a"] == "n1"


def test_preemption_evicts_lower_priority_pods_and_requeues_them():
    victim = pod("victim", node="n1", cpu="800m", priority=0)
    result = run(node("n1", cpu="1"), victim, pod("urgent", cpu="800m", priority=1000))
    first, second = result.attempts
    assert (first.pod.name, first.node, first.preempted) == ("urgent", "n1", ("default/victim",))
    assert (second.pod.name, second.node) == ("victim", None)  # back in the queue, nowhere to go
    assert "No preemption victims found for incoming pod" in second.reason


def test_placements_are_every_pod_bound_at_the_end_and_cross_processes_as_a_plain_map():
    """The bound pods that stayed, the pods placed, not the victim; pickled (a result goes from
    the simulating process to the screen's) it is a plain dict with the same items."""
    import pickle

    result = run(node("n1", cpu="1"), node("n2", cpu="1"), pod("stays", node="n2", cpu="300m"),
                 pod("victim", node="n1", cpu="800m", priority=0), pod("urgent", cpu="800m", priority=1000),
                 pod("small", cpu="100m"))
    want = {"default/stays": "n2", "default/urgent": "n1", "default/small": "n2"}
    assert dict(result.placements.items()) == want and len(result.placements) == 3
    assert "default/victim" not in result.placements and result.placements.get("default/victim") is None
    again = pickle.loads(pickle.dumps(result.placements))
    assert type(again) is dict and again == want


def test_preemption_keeps_the_victims_it_does_not_need():
    keep = pod("keep", node="n1", cpu="200m", priority=500)
    evict = pod("evict", node="n1", cpu="600m", priority=0)
    result = run(node("n1", cpu="1"), keep, evict, pod("urgent", cpu="700m", priority=1000))
    assert result.attempts[0].preempted == ("default/evict",)


def test_preemption_prefers_the_node_without_pdb_violations():
    protected = pod("protected", node="a", cpu="800m", priority=0, labels={"app": "db"})
    free = pod("free", node="b", cpu="800m", priority=0, labels={"app": "batch"})
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "db", "namespace": "default"},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}}, "status": {"disruptionsAllowed": 0}}
    result = run(node("a", cpu="1"), node("b", cpu="1"), protected, free, pdb, pod("urgent", cpu="800m", priority=1000))
    assert result.attempts[0].node == "b" and result.attempts[0].preempted == ("default/free",)


@pytest.mark.parametrize("version,ending", [((1, 29), ".."), ((1, 30), "."), ((1, 24), ".")])
def test_equal_priority_is_not_preempted_and_the_closing_stop_follows_the_version(version, ending):
    result = run(node("n1", cpu="1"), pod("peer", node="n1", cpu="800m"), pod("p", cpu="800m"), version=version)
    assert result.attempts[0].reason == (
        "0/1 nodes are available: 1 Insufficient cpu. "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod" + ending)


def test_a_node_too_small_even_when_empty_is_unresolvable_since_1_34():
    cluster = (node("n1", cpu="1"), pod("low", node="n1", cpu="500m", priority=0), pod("p", cpu="2", priority=100))
    assert "1 No preemption victims" not in run(*cluster, version=(1, 34)).attempts[0].reason
    assert "1 Preemption is not helpful for scheduling" in run(*cluster, version=(1, 34)).attempts[0].reason
    assert "1 Insufficient cpu" in run(*cluster, version=(1, 33)).attempts[0].reason


def test_explain_lists_every_node():
    result = run(node("a", cpu="1"), node("b"), pod("p", cpu="2"), explain=True)
    assert result.attempts[0].filters == {"a": ("Insufficient cpu",), "b": ()}


def test_preemption_policy_never():
    victim = pod("victim", node="n1", cpu="800m", priority=0)
    polite = pod("polite", cpu="800m", priority=1000, preemptionPolicy="Never")
    result = run(node("n1", cpu="1"), victim, polite)
    assert result.attempts[0].reason == (
        "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.")


def test_preemption_reports_nodes_that_stay_short_even_without_victims():
    low = pod("low", node="n1", cpu="300m", priority=0)
    high = pod("high", node="n1", cpu="600m", priority=2000)
    result = run(node("n1", cpu="1"), low, high, pod("p", cpu="800m", priority=1000))
    assert result.attempts[0].reason.endswith("preemption: 0/1 nodes are available: 1 Insufficient cpu.")


def test_a_result_detached_from_its_snapshot_pickles_small_and_joins_again():
    """The TUI simulates in a forked child and sends the answer down a pipe: without the snapshot."""
    import pickle

    from karptui.catalog import catalog_from_snapshot_region
    from karptui.sim import simulate
    from karptui.sources import bundled_snapshot, load_snapshot

    snapshot = load_snapshot(bundled_snapshot("topology-spread"))
    result = simulate(snapshot, explain=True, catalog=catalog_from_snapshot_region(snapshot))
    sent = pickle.dumps(result.detached())
    assert len(sent) < len(pickle.dumps(result)) / 2
    back = pickle.loads(sent).attached(snapshot)
    assert back.snapshot is snapshot and back.attempts == result.attempts
    assert all(a.pod is b.pod for a, b in zip(back.attempts, result.attempts))
    assert (back.placements, back.nodeclaims, back.notes) == (result.placements, result.nodeclaims, result.notes)

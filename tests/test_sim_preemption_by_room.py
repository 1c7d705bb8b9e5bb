"""Preemption's dry run worked out on a node's free room gives what the full dry run gives.

Where only NodeResourcesFit can refuse the pod as lower-priority pods leave a node
(``framework.only_resources_see_evictions``), DefaultPreemption weighs the victims by their
requests instead of evicting and placing them and asking every filter each time. These tests run
each cluster both ways (the full dry run forced by answering "no" to that question) and compare
everything a user sees: every attempt, the victims, the reasons, and each node's pods in order.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

import pytest

from karptui.model import build_snapshot
from karptui.sim import simulate
from karptui.sim.plugins import default_preemption
from tests.simkit import HOST, node, pod
from tests.test_sim_properties import nodes_strategy, objects, workload_strategy


def outcome(result):
    attempts = [(a.pod.key, a.node, a.reason, list(a.counts.items()), a.preempted) for a in result.attempts]
    return attempts, list(result.placements.items())  # in each node's order: part of the answer


def both_ways(snapshot, monkeypatch, **options):
    by_room = outcome(simulate(snapshot, **options))
    with monkeypatch.context() as patched:
        patched.setattr(default_preemption, "only_resources_see_evictions", lambda ctx, leaving: False)
        full = outcome(simulate(snapshot, **options))
    assert by_room == full
    return by_room


def bound(i, nodes, priority, cpu, app, anti, port):
    """A bound pod of workload ``app`` (the pending ones' labels), maybe with their anti-affinity
    and a host port."""
    spec = {}
    if anti:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": HOST}]}}
    if port:
        spec["containers"] = [{"name": "app", "image": "app:1", "ports": [{"containerPort": 80, "hostPort": port}],
                               "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]
    return pod(f"bound-{i}", node=f"n{i % nodes}", cpu=cpu, priority=priority, labels={"app": app}, **spec)


bound_strategy = st.lists(st.tuples(st.sampled_from([-10, 0, 500]), st.sampled_from(["200m", "300m", "900m"]),
                                    st.sampled_from(["w0", "w1", "other"]), st.booleans(),
                                    st.sampled_from([None, None, 8080])), max_size=10)


@settings(max_examples=150, deadline=None)
@given(nodes_strategy, st.lists(workload_strategy, min_size=1, max_size=3), bound_strategy,
       st.sampled_from([None, 1000]), st.booleans())
def test_by_room_changes_nothing_on_random_clusters(nodes, workloads, bound_pods, urgent, with_ports):
    """Pending workloads with spreads and anti-affinity at a high priority, over bound pods of lower
    ones that share their labels (counted by their spreads and terms), hold anti-affinity terms
    against them, or hold host ports the pending pods want."""
    items = objects(nodes, workloads)
    for item in items:
        if item["kind"] == "Pod" and urgent is not None:
            item["spec"]["priority"] = urgent
            if with_ports:
                item["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    items += [bound(i, len(nodes), *spec) for i, spec in enumerate(bound_pods)]
    both_ways(build_snapshot(items), monkeypatch=pytest.MonkeyPatch())


def test_victims_of_equal_importance_keep_the_order_of_their_node(monkeypatch):
    """Victims alike in priority and age are tried in the order they sit on their node, which a dry
    run there leaves as it was (kube-scheduler's works on a copy of the node): the PDB-protected
    ones are given back first. Both ways take the same victims from that order."""
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "db", "namespace": "default"},
           "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "db"}}}, "status": {"disruptionsAllowed": 0}}
    items = [node("n1", cpu="2"), pdb]
    items += [pod(f"low-{k}", node="n1", cpu="400m", priority=0, labels={"app": "db" if k >= 2 else "batch"})
              for k in range(4)]
    items += [pod(f"urgent-{k}", cpu="700m", priority=1000) for k in range(2)]
    attempts, placements = both_ways(build_snapshot(items), monkeypatch)
    # all four gone leaves 2000m; low-2 and low-3 (protected) come back first, then low-0; low-1 does not fit
    assert attempts[0][:2] == ("default/urgent-0", "n1") and attempts[0][4] == ("default/low-1",)
    # the node now holds low-0, low-2, low-3, urgent-0: low-2 comes back, low-3 and low-0 do not fit
    assert attempts[1][:2] == ("default/urgent-1", "n1") and attempts[1][4] == ("default/low-3", "default/low-0")
    # the pods that stay keep the order they were bound in, the preemptors after them
    assert [key for key, _ in placements] == ["default/low-2", "default/urgent-0", "default/urgent-1"]


def test_a_victim_holding_anti_affinity_against_the_pod_is_weighed_by_the_full_dry_run(monkeypatch):
    """A lower-priority pod whose required anti-affinity keeps the pod off its node: evicting it is
    what lets the pod in, which its requests alone do not say (the full dry run is taken)."""
    keeper = pod("keeper", node="n1", cpu="100m", priority=0, labels={"app": "db"},
                 affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                     {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST}]}})
    web = pod("web", cpu="100m", priority=1000, labels={"app": "web"})
    attempts, _ = both_ways(build_snapshot([node("n1", cpu="2"), keeper, web]), monkeypatch)
    assert attempts[0][1:3] == ("n1", None) and attempts[0][4] == ("default/keeper",)


def _ports(cpu, port=8080):
    return [{"name": "app", "image": "app:1", "ports": [{"containerPort": 80, "hostPort": port}],
             "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]


WEB = {"app": "web"}
# what keeps the pending web pod off n1 until its lower-priority pods there leave, other than room
HOLDERS = {
    "its zone spread counts them": (
        {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                        "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": WEB}}]},
        {"labels": WEB}),
    "its own anti-affinity selects them": (
        {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "batch"}}, "topologyKey": HOST}]}}},
        {"labels": {"app": "batch"}}),
    "they hold its host port": ({"containers": _ports("200m")}, {"containers": _ports("100m")}),
}


@pytest.mark.parametrize("why", list(HOLDERS))
def test_victims_other_filters_count_are_weighed_by_the_full_dry_run(why, monkeypatch):
    """n1 has room; what refuses the pod there is its spread, its anti-affinity or its host port,
    through two lower-priority pods on n1 (n2 is short of cpu, held by a more important pod).
    Evicting both lets it in; given back, either refuses it again: both are victims."""
    pending, held = HOLDERS[why]
    items = [node("n1", "us-east-1a", cpu="1"), node("n2", "us-east-1b", cpu="1"),
             pod("big", node="n2", cpu="900m", priority=2000)]
    items += [pod(f"low-{k}", node="n1", cpu="100m", priority=0, **{"labels": None, **held}) for k in range(2)]
    items.append(pod("web", cpu="200m", priority=1000, **{"labels": WEB, **pending}))
    attempts, _ = both_ways(build_snapshot(items), monkeypatch)
    assert attempts[0][:2] == ("default/web", "n1") and attempts[0][4] == ("default/low-0", "default/low-1")

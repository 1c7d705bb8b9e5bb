"""Preemption's shortcuts give what the full search gives, on varied batch-like clusters.

DefaultPreemption keeps a dry run worked out on a node's room (``default_preemption.Weighed``)
for the next pod of the same priority and requests while the node holds the very same pods, and
reads the filters that ignore the victims off one table per cycle (``framework.filters_at``'s
``settled``). Each test runs a cluster with the shortcut and without it (every dry run weighed
afresh; every filter asked of the node; the full dry run that places and evicts pods) and
compares everything a user sees: every attempt with its reasons and victims, and each node's
pods in order (a dry run must leave them in theirs: that order is part of the answer).
"""

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest

from karptui.model import build_snapshot
from karptui.sim import simulate
from karptui.sim import framework
from karptui.sim.plugins import default_preemption, inter_pod_affinity
from karptui.sim.cycle import PodCycle
from karptui.sim.state import ClusterState
from tests.simkit import HOST, ZONE, node, pod


def outcome(result):
    attempts = [(a.pod.key, a.node, a.reason, list(a.counts.items()), a.preempted) for a in result.attempts]
    return attempts, list(result.placements.items())


def unkept(patched):
    """No weighed dry run kept between pods: each is worked out afresh."""
    patched.setattr(default_preemption, "_kept", lambda ctx: None)


def unsettled(patched):
    """The filters asked of the node, plugin by plugin, at every dry run (no per-cycle table)."""
    asked = framework.filters_at
    patched.setattr(default_preemption, "filters_at",
                    lambda ctx, i, plugins=framework.FILTERS, settled=False: asked(ctx, i, plugins))


def full(patched):
    """The full dry run everywhere: victims placed and evicted, every filter asked each time."""
    patched.setattr(default_preemption, "only_resources_see_evictions", lambda ctx, leaving: False)


class Sorted:
    """What ``_Order`` stands for, the plain way: a node's lower-priority pods sorted by importance
    for each dry run, as kube-scheduler's util.MoreImportantPod ranks them, and nothing read off
    them kept for the next dry run."""

    def __init__(self, pods):
        self.pods = tuple(pods)

    def below(self, priority):
        return sorted(framework.lower_priority(list(self.pods), priority), key=default_preemption._importance)

    def shared(self, priority):
        return {}   # nothing kept between dry runs: each weighs the room and splits by PDBs afresh


def unordered(patched):
    """Each node's pods sorted afresh at every dry run (no kept ``_Order``, no ranking by its tail)."""
    patched.setattr(default_preemption, "_order", lambda ctx, i: Sorted(ctx.state.pods[i]))


def unstamped(patched):
    """A kept dry run's hold on the node checked pod by pod every time (no stamps)."""
    holds = default_preemption.Weighed.holds

    def by_identity(weighed, pods, stamp):
        weighed.stamps.clear()
        return holds(weighed, pods, stamp)

    patched.setattr(default_preemption.Weighed, "holds", by_identity)


def unshort(patched):
    """No node spared by the room arithmetic: a dry run on every node where preemption might help."""
    patched.setattr(default_preemption, "_still_short",
                    lambda ctx, nodes: (np.zeros(len(nodes), dtype=bool), Counter()))


def unroomed(patched):
    """The room every lower-priority pod leaves summed afresh, level by level, for each pod
    (no per-priority table brought up to date at the nodes touched since)."""
    def afresh(ctx, nodes, resources):
        state = ctx.state
        freed = state.lower_priority_requests(ctx.pod.priority, nodes, resources)
        return {r: state.allocatable[r][nodes] - state.requested[r][nodes] + freed[r] for r in resources}

    patched.setattr(default_preemption, "_room_below", afresh)


def rescanned(patched):
    """InterPodAffinity's matching groups found by testing every group each time."""
    matching = inter_pod_affinity.TermIndex.matching

    def afresh(index, which, pod):
        index._matching.clear()
        return matching(index, which, pod)

    patched.setattr(inter_pod_affinity.TermIndex, "matching", afresh)


WITHOUT = (("unkept", unkept), ("unsettled", unsettled), ("full", full), ("unordered", unordered),
           ("unstamped", unstamped), ("unroomed", unroomed), ("rescanned", rescanned))


def every_way(snapshot, ways=WITHOUT, **options):
    """The simulation with every shortcut, and without each; all must agree."""
    answers = {"shortcuts": outcome(simulate(snapshot, **options))}
    for name, without in ways:
        with pytest.MonkeyPatch().context() as patched:
            without(patched)
            answers[name] = outcome(simulate(snapshot, **options))
    for name, answer in answers.items():
        assert answer == answers["shortcuts"], name
    return answers["shortcuts"]


PDB = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "guard", "namespace": "default"},
       "spec": {"minAvailable": 1, "selector": {"matchLabels": {"guarded": "yes"}}}, "status": {"disruptionsAllowed": 1}}

bound_strategy = st.lists(st.tuples(
    st.sampled_from([-100, -100, 0, 0, 500]),              # priority
    st.sampled_from(["200m", "500m", "900m"]),              # cpu
    st.sampled_from(["default", "default", "other"]),       # namespace (names repeat across them)
    st.booleans(),                                          # guarded by the PDB
    st.integers(min_value=0, max_value=2),                  # creation minute (ties when equal)
    st.sampled_from([None, None, None, 8080]),              # host port
), max_size=24)

job_strategy = st.lists(st.tuples(
    st.integers(min_value=1, max_value=5),                  # pods
    st.sampled_from([0, 0, 1000]),                          # priority
    st.sampled_from(["300m", "700m", "1500m"]),             # cpu
    st.sampled_from([None, None, "zone", "host", "anti", "port"]),  # what else it asks
    st.booleans(),                                          # its manifest lists memory before cpu
), min_size=1, max_size=5)


def cluster(nodes, bound, jobs):
    items = [node(f"n{k}", ("us-east-1a", "us-east-1b")[k % 2], cpu=cpu) for k, cpu in enumerate(nodes)]
    items.append(PDB)
    for k, (priority, cpu, namespace, guarded, minute, port) in enumerate(bound):
        extra = {}
        if port:
            extra["containers"] = [{"name": "app", "image": "app:1", "ports": [{"containerPort": 80, "hostPort": port}],
                                    "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]
        raw = pod(f"b{k // 2}", node=f"n{k % len(nodes)}", cpu=cpu, priority=priority, namespace=namespace,
                  labels={"app": f"job{k % 3}", "guarded": "yes" if guarded else "no"}, **extra)
        raw["metadata"]["creationTimestamp"] = f"2024-05-01T11:0{minute}:00Z"
        raw["status"]["startTime"] = f"2024-05-01T11:0{minute}:30Z"   # what ranks pods of one priority
        raw["metadata"]["uid"] = f"uid-{k}"
        items.append(raw)
    for j, (count, priority, cpu, asks, flipped) in enumerate(jobs):
        app = {"app": f"job{j}"}
        extra = {}
        if asks in ("zone", "host"):
            extra["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": ZONE if asks == "zone" else HOST,
                                                   "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": app}}]
        elif asks == "anti":
            extra["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": app}, "topologyKey": HOST}]}}
        elif asks == "port":
            extra["containers"] = [{"name": "app", "image": "app:1", "ports": [{"containerPort": 80, "hostPort": 8080}],
                                    "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]
        made = [pod(f"job{j}-{r}", cpu=cpu, priority=priority, labels=app, **extra) for r in range(count)]
        if flipped:   # the same size, its requests written memory first
            for raw in made:
                resources = raw["spec"]["containers"][0]["resources"]
                resources["requests"] = dict(reversed(resources["requests"].items()))
        items += made
    return build_snapshot(items)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.sampled_from(["2", "4"]), min_size=1, max_size=6), bound_strategy, job_strategy)
def test_kept_dry_runs_change_nothing_on_random_clusters(nodes, bound, jobs):
    """Jobs of a few sizes and priorities (some with spreads, anti-affinity or a host port) over
    nodes of lower-priority pods: some PDB-guarded, some alike in importance, some of one name in
    two namespaces, some holding the port."""
    every_way(cluster(nodes, bound, jobs))


def test_a_jobs_pods_preempt_one_after_another_from_kept_dry_runs():
    """Four pods of a Job, each displacing low-priority pods: the second and later pods' dry runs
    on the nodes the earlier ones left alone are the kept ones, and say what the full search says."""
    items = [node(f"n{k}", cpu="2") for k in range(3)]
    items += [pod(f"low-{k}", node=f"n{k % 3}", cpu="600m", priority=-100) for k in range(9)]
    items += [pod(f"urgent-{k}", cpu="900m", priority=1000, labels={"app": "urgent"}) for k in range(4)]
    attempts, _ = every_way(build_snapshot(items))
    # the second pod takes n0's last low pod rather than two of n1's: priorities summed from
    # MaxInt32+1 up make fewer victims of one negative priority the smaller sum
    assert [a[1] for a in attempts[:4]] == ["n0", "n0", "n1", "n1"]
    assert all(a[4] for a in attempts[:4])   # each preempted
    # the victims come back to the queue, after the urgent pods, and find no room
    assert {a[0] for a in attempts[4:]} == {key for a in attempts[:4] for key in a[4]}


def test_kept_dry_run_answers_again_when_a_node_changed():
    """A node that took a pod in between is weighed again: the kept dry run there no longer holds."""
    items = [node("n0", cpu="2"), node("n1", cpu="2")]
    items += [pod(f"low-{k}", node=f"n{k % 2}", cpu="900m", priority=0) for k in range(4)]
    items += [pod(f"urgent-{k}", cpu="1500m", priority=1000) for k in range(3)]
    attempts, placements = every_way(build_snapshot(items))
    assert [a[1] for a in attempts[:3]] == ["n0", "n1", None]


def test_a_dry_run_leaves_the_nodes_pods_in_their_order():
    """Two PDB-guarded pods alike in importance, one disruption allowed: the first in the node's
    order is the one the budget lets go, so the order decides the victim. urgent-0's dry run on
    n1 evicts g1 and g2 and gives them back, but kube-scheduler dry-runs on a copy of the node
    (DryRunPreemption takes NodeInfo.Snapshot()): n1 still holds g1 before g2, so urgent-1's dry
    run there lets g2 stay (its PDB disruption counted for g1) and takes g1."""
    pdb = dict(PDB, status={"disruptionsAllowed": 1})
    items = [node("n1", cpu="2"), node("n2", cpu="1500m"), pdb]
    items += [pod(f"g{k}", node="n1", cpu="900m", priority=0, labels={"guarded": "yes"}) for k in (1, 2)]
    items.append(pod("spare", node="n2", cpu="1", priority=-100))
    items += [pod(f"urgent-{k}", cpu="1", priority=1000) for k in range(2)]
    attempts, placements = every_way(build_snapshot(items))
    assert [(a[0], a[1], a[4]) for a in attempts[:2]] == [
        ("default/urgent-0", "n2", ("default/spare",)), ("default/urgent-1", "n1", ("default/g1",))]


def test_a_full_dry_run_the_filters_refuse_leaves_the_order_too():
    """The pod needs a db pod beside it (pod affinity), so its dry run on n1, which evicts every
    lower-priority pod, the db pod with them, finds no room and puts them back. They are listed
    afterwards in the order they were bound, not in the order the dry run tried them (the most
    important first)."""
    items = [node("n1", cpu="2"), node("n2", cpu="8")]
    items += [pod(name, node="n1", cpu="600m", priority=priority, labels={"app": app})
              for name, priority, app in (("low-0", 0, "low"), ("low-1", 100, "low"), ("db", 200, "db"))]
    affinity = {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": HOST}]}}}
    items.append(pod("needs-db", cpu="1900m", priority=1000, labels={"app": "api"}, **affinity))
    attempts, placements = every_way(build_snapshot(items))
    assert attempts[0][1] is None and "preemption: " in attempts[0][2]
    assert [key for key, at in placements if at == "n1"] == ["default/low-0", "default/low-1", "default/db"]


def test_matching_groups_found_before_a_group_is_added_still_count():
    """Bound-to-be pods whose anti-affinity keeps x's pods off their node (x's have no terms of
    their own): a-0 keeps them off n1, so x-0 takes the small n2; b-0 then adds a group, and x-1,
    asking which groups select it again, must still see a's (found for x-0) and take n2 too."""
    items = [node("n1", cpu="8"), node("n2", cpu="1")]
    for minute, (name, avoids) in enumerate([("a-0", "x"), ("x-0", None), ("b-0", "y"), ("x-1", None)]):
        extra = {} if avoids is None else {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": avoids}}, "topologyKey": HOST}]}}}
        raw = pod(name, cpu="100m", labels={"app": name[0]}, **extra)
        raw["metadata"]["creationTimestamp"] = f"2024-05-01T11:0{minute}:00Z"
        items.append(raw)
    attempts, _ = every_way(build_snapshot(items))
    assert {a[0]: a[1] for a in attempts} == {"default/a-0": "n1", "default/x-0": "n2", "default/b-0": "n1",
                                              "default/x-1": "n2"}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([-100, 0, 0, 500, 1000]), st.sampled_from(["200m", "500m", "900m"]),
                          st.integers(min_value=0, max_value=2)), min_size=1, max_size=12),
       st.lists(st.tuples(st.integers(min_value=0, max_value=11), st.integers(min_value=0, max_value=2),
                          st.sampled_from([-100, 0, 500, 1000])), max_size=12))
def test_the_room_below_a_priority_kept_between_pods_is_the_room_summed_afresh(bound, moves):
    """``_room_below`` keeps, per priority, the room every lower-priority pod leaves on every node,
    brought up to date where pods came or went: after any evictions and placements it is what
    summing the levels afresh gives, for pods of any priority asking of any nodes."""
    items = [node(f"n{k}", cpu="2") for k in range(3)]
    items += [pod(f"b{k}", node=f"n{at}", cpu=cpu, priority=priority) for k, (priority, cpu, at) in enumerate(bound)]
    snapshot = build_snapshot(items)
    state, cache = ClusterState(snapshot), {}
    everywhere = np.arange(3)
    for which, to, priority in [(None, None, 0)] + moves:
        if which is not None and which < len(snapshot.pods):
            moved = snapshot.pods[which]
            at = next(i for i, pods in enumerate(state.pods) if any(p is moved for p in pods))
            state.evict(moved, at)
            state.place(moved, to)
        asking = build_snapshot([pod("ask", cpu="1", priority=priority)]).pods[0]
        ctx = PodCycle(asking, state, (1, 34), cache)
        kept = default_preemption._room_below(ctx, everywhere, ("pods", "cpu", "memory"))
        freed = state.lower_priority_requests(priority, everywhere, ("pods", "cpu", "memory"))
        for resource in ("pods", "cpu", "memory"):
            expected = state.allocatable[resource] - state.requested[resource] + freed[resource]
            assert kept[resource].tolist() == expected.tolist(), (resource, priority)

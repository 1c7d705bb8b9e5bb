"""One node's Filter verdict asked of that node alone (``framework.filters_at``: preemption's dry
runs, explain's notes) is what the whole Filter phase says of it, and a simulation using it
answers, byte for byte, as one running the whole phase for every check does. Checked on the
benchmark's generated clusters of every shape, where bound pods of lower priority are evicted and
given back one by one, and on small clusters made to hit each plugin."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.cli.simulate import simulation_document
from karptui.model import build_snapshot
from karptui.sim import framework, simulate
from karptui.sim.cycle import PodCycle
from karptui.sim.state import ClusterState
from karptui.sim.version import cluster_version
from karptui.sim.plugins import default_preemption
from tests.simkit import node, placed, pod

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402

# (nodes, share pending) per shape: small enough for the suite, with pods that preempt
SHAPES = {"batch": (80, None), "web": (60, 0.1), "classic": (80, 0.1)}


@lru_cache(maxsize=None)
def generated(shape: str):
    nodes, pending = SHAPES[shape]
    s = gen_cluster.SHAPES[shape]
    doc = gen_cluster.generate(nodes, nodes * s.pods_per_node, seed=7, shape=shape, catalog=gen_cluster.BUILT_IN,
                               pending_fraction=s.pending_fraction if pending is None else pending)
    return build_snapshot(doc["items"])


def whole_phase(ctx, i):
    """The plain path: every filter over every node, read at node ``i``."""
    verdicts = framework.run_filters(ctx, explain=True)
    return bool(verdicts.feasible[i]), verdicts.per_node.get(i, [])


def checking(monkeypatch) -> list:
    """Makes every filters_at call also run the whole phase and compare; returns the calls' log.
    Every dry run is the full one (placing and evicting, asking filters_at at each step), not
    the one worked out on the node's room where only resources can tell."""
    calls = []
    alone = framework.filters_at

    def both(ctx, i):
        answer = alone(ctx, i)
        assert answer == whole_phase(ctx, i), (ctx.pod.key, ctx.state.nodes[i].name)
        calls.append(answer)
        return answer

    monkeypatch.setattr(framework, "filters_at", both)
    monkeypatch.setattr(default_preemption, "filters_at", both)
    monkeypatch.setattr(default_preemption, "only_resources_see_evictions", lambda ctx, leaving: False)
    return calls


def answer(snapshot) -> str:
    doc, _ = simulation_document(snapshot, catalog_from_snapshot_region(snapshot), gates=None)
    return json.dumps(doc, sort_keys=True)


@pytest.mark.parametrize("shape", ["batch", "web"])  # the classic shape has no lower priorities to preempt
def test_each_dry_run_is_what_the_whole_phase_says_on_generated_clusters(shape, monkeypatch):
    calls = checking(monkeypatch)
    simulate(generated(shape), catalog=catalog_from_snapshot_region(generated(shape)))
    assert any(fits for fits, _ in calls) and any(not fits for fits, _ in calls)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_pending_pod_on_every_node_before_and_after_simulating(shape):
    """Each node alone, for every pending pod and copies of some bound ones (which fit
    somewhere: the generator's pending pods fit nowhere), against the cluster as loaded and as
    the simulation left it (pods placed, victims evicted)."""
    snapshot = generated(shape)
    state = ClusterState(snapshot)
    version = cluster_version(snapshot)
    probes = list(snapshot.pending_pods) + [replace(p, node_name="") for p in snapshot.bound_pods[::15]]
    checked = set()
    for when in ("before", "after"):
        if when == "after":
            simulate(snapshot, state=state)
        for pending in probes:
            ctx = PodCycle(pending, state, version, {})
            verdicts = framework.run_filters(ctx, explain=True)
            for i in range(ctx.size):
                got = framework.filters_at(ctx, i)
                assert got == (bool(verdicts.feasible[i]), verdicts.per_node.get(i, [])), (when, pending.key, i)
                checked.add((when, got[0]))
    assert checked == {("before", True), ("before", False), ("after", True), ("after", False)}


@pytest.mark.parametrize("shape", ["batch", "web"])
def test_simulate_answers_as_with_the_whole_phase_on_generated_clusters(shape, monkeypatch):
    calls = []
    alone = framework.filters_at
    monkeypatch.setattr(default_preemption, "filters_at",
                        lambda ctx, i, *only, **kw: calls.append(i) or alone(ctx, i, *only, **kw))
    fast = answer(generated(shape))
    assert calls
    # the plain path: every dry run evicts and places, and asks the whole phase at each step
    monkeypatch.setattr(framework, "filters_at", whole_phase)
    monkeypatch.setattr(default_preemption, "filters_at", whole_phase)
    monkeypatch.setattr(default_preemption, "only_resources_see_evictions", lambda ctx, leaving: False)
    assert answer(generated(shape)) == fast


def web(name, port=None, **spec):
    if port is not None:
        spec["containers"] = [{"name": "app", "image": "app:1", "ports": [{"containerPort": 80, "hostPort": port}],
                               "resources": {"requests": {"cpu": spec.pop("cpu", "100m"), "memory": "128Mi"}}}]
    return pod(name, **spec)


def test_a_victim_holding_the_port_is_the_one_evicted(monkeypatch):
    """NodePorts asked of one node: only the low-priority pod holding port 8080 has to go, the
    one beside it is given back; the node's reasons name the port while both are there."""
    calls = checking(monkeypatch)
    result = simulate(build_snapshot([
        node("n1", cpu="4"),
        web("holder", port=8080, node="n1", priority=-5),
        web("bystander", node="n1", priority=-5),
        web("wanted", port=8080, priority=100),
    ]))
    assert placed(result)["wanted"] == "n1"
    assert [a.preempted for a in result.attempts if a.pod.name == "wanted"] == [("default/holder",)]
    assert (False, ["node(s) didn't have free ports for the requested pod ports"]) in calls


def test_a_port_a_higher_priority_pod_holds_fails_the_dry_run(monkeypatch):
    """Evicting the low-priority pod frees no port: the dry run fails with NodePorts' reason,
    which the preemption message counts."""
    calls = checking(monkeypatch)
    result = simulate(build_snapshot([
        node("n1", cpu="4"),
        web("low", node="n1", priority=-5),
        web("mid", port=8080, node="n1", priority=500),
        web("wanted", port=8080, priority=100),
    ]))
    assert placed(result)["wanted"] is None
    assert calls == [(False, ["node(s) didn't have free ports for the requested pod ports"])]
    assert result.attempts[0].reason.endswith(
        "preemption: 0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports.")


@pytest.mark.parametrize("version", [(1, 31), (1, 32)])
def test_a_node_taken_out_and_a_reason_left_unsaid_alone(version):
    """A node taken out (a consolidation candidate) fails with no reason; before 1.32 the nodes a
    matchFields PreFilter leaves out fail with the empty reason, which is never said."""
    pinned = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1", "n2"]}]}]}}}}
    snapshot = build_snapshot([node("n1"), node("n2"), node("n3"), pod("pinned", **pinned)])
    state = ClusterState(snapshot)
    state.excluded[1] = True
    ctx = PodCycle(snapshot.pending_pods[0], state, version, {})
    alone = [framework.filters_at(ctx, i) for i in range(3)]
    assert alone == [whole_phase(ctx, i) for i in range(3)]
    unsaid = [] if version < (1, 32) else ["node(s) didn't satisfy plugin(s) [NodeAffinity]"]
    assert alone == [(True, []), (False, []), (False, unsaid)]

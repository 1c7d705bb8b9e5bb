"""Consolidation computed command by command, bounded like Karpenter's own timeouts, and each
pass reusing what the command before left unchanged with the same answers as a fresh look.

A cluster of half-empty m5.xlarge nodes: multi-node consolidation deletes most of
them at once, single-node consolidation takes what is left one by one.
"""

import gc

import pytest

from karptui.catalog import bundled_catalog, node_manifest
from karptui.model import build_snapshot
from karptui.sim import simulate
from karptui.sim.karpenter.disruption import Disruptor
from karptui.sim.state import ClusterState

ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
CREATED = "2025-02-01T12:00:00Z"


def cluster(nodes: int = 6, extra=()):
    catalog = bundled_catalog("us-east-1", ZONES)
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
            "spec": {"disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s",
                                     "budgets": [{"nodes": "100%"}]},
                     "template": {"spec": {"requirements": [
                         {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}],
                         "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}
    items = [pool]
    for i in range(nodes):
        name = f"node-{i}"
        items.append(node_manifest(catalog.get("m5.xlarge"), ZONES[i % 3], "on-demand", name, nodepool="default",
                                   extra_labels={"karpenter.sh/initialized": "true"}, created=CREATED))
        items.append({"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": f"web-{i}", "namespace": "default", "creationTimestamp": CREATED,
                                   "labels": {"app": "web"}},
                      "spec": {"nodeName": name, "containers": [{"name": "c", "resources": {
                          "requests": {"cpu": f"{300 + 50 * i}m", "memory": "512Mi"}}}]},
                      "status": {"phase": "Running"}})
    return build_snapshot(items + list(extra)), catalog


def plan(simulations=None):
    snapshot, catalog = cluster()
    disruptor = Disruptor(snapshot, catalog, simulations=simulations)
    commands, _ = disruptor.run(ClusterState(snapshot))
    return commands, disruptor


def test_each_command_is_told_as_soon_as_found_before_the_next_is_looked_for():
    snapshot, catalog = cluster()
    events = []
    result = simulate(snapshot, catalog=catalog, consolidate=True,
                      progress=lambda phase, done, total: events.append(("progress", phase, done)),
                      found=lambda d: events.append(("found", d)))
    told = [e[1] for e in events if e[0] == "found"]
    assert told and told == list(result.disruptions)
    first = events.index(("found", told[0]))
    # the search went on after the first command was told: the next pass was still to run
    assert ("progress", "consolidation", 1) in events[first:]
    assert all(e != ("progress", "consolidation", 1) for e in events[:first])


def test_the_default_bounds_leave_the_plan_as_it_was():
    commands, disruptor = plan()
    assert [c.nodes for c in commands] == [c.nodes for c in plan({"single": 10**6, "multi": 10**6})[0]]
    assert len(commands[0].nodes) > 1  # multi-node consolidation's command comes first
    assert disruptor.timeouts == []


def test_multi_node_consolidation_out_of_simulations_finds_no_command_and_says_so():
    commands, disruptor = plan({"multi": 0})
    assert commands and all(len(c.nodes) == 1 for c in commands)  # single-node consolidation's, one by one
    assert disruptor.timeouts[0].startswith("stopping multi-node consolidation after timeout, no command found")
    multi = {node: {m.method: m.why for m in v.methods}["multi"] for node, v in disruptor.verdicts().items()}
    kept = [why for why in multi.values() if why.kind == "timeout"]
    assert kept and kept[0].karpenter == "failed to find a multi-node consolidation after timeout"


def test_multi_node_consolidation_out_of_simulations_keeps_its_last_valid_command():
    unbounded, _ = plan()
    commands, disruptor = plan({"multi": 1})  # the binary search's first try only: half the candidates
    assert 1 < len(commands[0].nodes) < len(unbounded[0].nodes)
    assert "returning the" in disruptor.timeouts[0]


def test_single_node_consolidation_out_of_simulations_abandons_the_decision():
    commands, disruptor = plan({"multi": 0, "single": 0})
    assert commands == []
    assert disruptor.timeouts[-1:] == ["abandoning single-node consolidation due to timeout (candidates_evaluated=0): "
                                  "karptui's bound is 0 simulations per decision, as Karpenter's is 3 minutes"]
    single = [{m.method: m.why for m in v.methods}["single"] for v in disruptor.verdicts().values()]
    assert single and {(w.kind, w.karpenter) for w in single} == {
        ("timeout", "abandoning single-node consolidation due to timeout")}


def test_a_bound_met_is_a_note_of_the_simulation():
    snapshot, catalog = cluster()
    from karptui.sim.karpenter.disruption import controller

    saved = controller.SINGLE_NODE_SIMULATIONS, controller.MULTI_NODE_SIMULATIONS
    controller.SINGLE_NODE_SIMULATIONS, controller.MULTI_NODE_SIMULATIONS = 0, 0
    try:
        result = simulate(snapshot, catalog=catalog, consolidate=True)
    finally:
        controller.SINGLE_NODE_SIMULATIONS, controller.MULTI_NODE_SIMULATIONS = saved
    assert result.disruptions == ()
    assert any(n.startswith("abandoning single-node consolidation due to timeout") for n in result.notes)


def random_cluster(seed: int):
    """Nodes of a few types and sizes, pods of random sizes (some guarded by a PDB, some with a
    deletion cost), so that a plan deletes some nodes and replaces others."""
    import random

    rng = random.Random(seed)
    catalog = bundled_catalog("us-east-1", ZONES)
    items = [{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
              "spec": {"disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s",
                                      "budgets": [{"nodes": rng.choice(["100%", "50%", "2"])}]},
                       "template": {"spec": {"requirements": [
                           {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
                           {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}],
                           "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                            "name": "default"}}}}},
             {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
              "metadata": {"name": "db", "namespace": "default"},
              "spec": {"maxUnavailable": rng.choice([0, 1]), "selector": {"matchLabels": {"app": "db"}}}}]
    for i in range(rng.randint(4, 9)):
        name = f"node-{i}"
        itype = rng.choice(["m5.large", "m5.xlarge", "c5.2xlarge", "r5.xlarge"])
        items.append(node_manifest(catalog.get(itype), ZONES[i % 3], "on-demand", name, nodepool="default",
                                   extra_labels={"karpenter.sh/initialized": "true"}, created=CREATED))
        for k in range(rng.randint(0, 4)):
            app = rng.choice(["web", "web", "api", "db"])
            annotations = {"controller.kubernetes.io/pod-deletion-cost": str(rng.randint(-5, 5) * 2**26)}
            items.append({"apiVersion": "v1", "kind": "Pod",
                          "metadata": {"name": f"{app}-{i}-{k}", "namespace": "default", "labels": {"app": app},
                                       "creationTimestamp": CREATED, "annotations": annotations},
                          "spec": {"nodeName": name, "containers": [{"name": "c", "resources": {"requests": {
                              "cpu": f"{rng.choice([100, 250, 500, 900])}m",
                              "memory": f"{rng.choice([128, 512, 1024, 3072])}Mi"}}}]},
                          "status": {"phase": "Running"}})
    return build_snapshot(items), catalog


@pytest.mark.parametrize("seed", range(8))
def test_each_pass_finds_the_candidates_a_fresh_look_would(seed, monkeypatch):
    """What a pass reuses from the one before (find's answers per node, the kept nodes' requirements
    after a replace) equals what looking afresh at the cluster after each command gives."""
    from karptui.sim.karpenter.disruption.candidates import CandidateFinder
    from karptui.sim.karpenter.existingnode import NODE_REQS
    from karptui.sim.karpenter.requirements import Reqs

    snapshot, catalog = random_cluster(seed)
    real = CandidateFinder.find
    passes = []

    def find(self, state, blocked):
        fresh_blocked = dict(blocked)
        fresh = CandidateFinder(self.snapshot, self.catalog, self.now, self.replacements)
        expected = real(fresh, state, fresh_blocked)
        found = real(self, state, blocked)
        assert [vars(c) for c in found] == [vars(c) for c in expected]
        assert blocked == fresh_blocked
        for i, reqs in state.shared(NODE_REQS, dict).items():
            assert reqs == Reqs.from_labels(state.nodes[i].labels)
        passes.append(len(found))
        return found

    monkeypatch.setattr(CandidateFinder, "find", find)
    result = simulate(snapshot, catalog=catalog, consolidate=True)
    assert result.disruptions and len(passes) >= len(result.disruptions) + 1  # a pass per command, and the last


def test_a_plan_leaves_no_simulation_behind_for_the_cycle_collector():
    """Every simulation's scheduler, topology and errors go when the simulation does (reference
    counting), not at the collector's next pass: a 2,000-node plan otherwise left a million
    objects to it. Refusals are what made the cycles (an exception kept beside the frames of its
    own traceback), so this cluster has some: a NodePool the pods do not tolerate, and hostname
    anti-affinity that existing nodes refuse."""
    tainted = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"},
               "spec": {"weight": 50, "template": {"spec": {
                   "taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}],
                   "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}
    lonely = [{"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": f"lonely-{i}", "namespace": "default", "creationTimestamp": CREATED,
                            "labels": {"app": "lonely"}},
               "spec": {"nodeName": f"node-{i}", "containers": [{"name": "c", "resources": {
                   "requests": {"cpu": "100m", "memory": "128Mi"}}}],
                        "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                            {"labelSelector": {"matchLabels": {"app": "lonely"}},
                             "topologyKey": "kubernetes.io/hostname"}]}}},
               "status": {"phase": "Running"}} for i in range(4)]
    snapshot, catalog = cluster(extra=[tainted, *lonely])
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        commands, _ = Disruptor(snapshot, catalog).run(ClusterState(snapshot))
        gc.collect()
        left = {type(o).__name__ for o in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert commands  # the plan did simulate, and moved pods
    assert not left & {"Scheduler", "Topology", "TopologyGroup", "SchedulingError", "traceback", "frame"}

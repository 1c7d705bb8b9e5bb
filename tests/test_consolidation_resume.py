"""A consolidation simulation that must schedule the pending pods with the candidates' pods starts at the
candidates' first pod in queue order, the pending pods before it done again from the shared run's record
(karptui.sim.karpenter.resume, disruption.simulation ``_resumed``). ``karptui simulate --consolidate
--output json`` must say the same, word for word, as when every such simulation schedules every pod from
the start: on the benchmark's generated clusters of each shape and on the bundled snapshots. A replay
that gets one thing wrong is caught by the same comparison."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.model import build_snapshot
from karptui.sim.karpenter.disruption import simulation
from karptui.sim.karpenter.resume import Journal
from karptui.sources import bundled_snapshot, load_snapshot

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402  (the benchmark's generated clusters)

from tests.simkit import consolidation_document as document


def generated(shape: str, nodes: int, seed: int, limits: bool = True) -> list[dict]:
    """A benchmark cluster; ``limits`` False: its NodePools without limits (the shared run's record then
    stands for every simulation's start, whatever capacity its candidates give back)."""
    s = gen_cluster.SHAPES[shape]
    items = gen_cluster.generate(nodes, nodes * s.pods_per_node, seed=seed, catalog=gen_cluster.BUILT_IN,
                                 pending_fraction=s.pending_fraction, shape=shape)["items"]
    if not limits:
        for item in items:
            if item["kind"] == "NodePool":
                item["spec"].pop("limits", None)
    return items


def resumed_and_whole(snapshot, monkeypatch) -> tuple[dict, dict, int, int]:
    """The document with resumed simulations and with every simulation whole from its first pop, and
    how many simulations resumed, and how many runs with other limits left were brought from the
    shared run's record (:func:`simulation._with_limits`)."""
    catalog = catalog_from_snapshot_region(snapshot)
    known, limited = simulation.resume, simulation._with_limits
    counts = [0, 0]
    inside = []

    def counted(scheduler, journal, queue, upto, most_claims=None):
        counts[1 if inside else 0] += 1
        return known(scheduler, journal, queue, upto, most_claims)

    def marked(*args):
        inside.append(True)
        try:
            return limited(*args)
        finally:
            inside.pop()

    monkeypatch.setattr(simulation, "resume", counted)
    monkeypatch.setattr(simulation, "_with_limits", marked)
    fast = document(snapshot, catalog)
    monkeypatch.setattr(simulation, "_resumed", lambda *args: True)   # every run from its first pop
    whole = document(snapshot, catalog)
    monkeypatch.undo()
    return fast, whole, counts[0], counts[1]


# (shape, nodes, seed, NodePool limits kept): with limits, web's candidates leave limits met again (runs
# with those limits are made and simulations resume from them); batch's never come twice in a cluster
# this small, so its runs with other limits are brought from the record, and without limits its
# simulations resume from the shared run's record
CLUSTERS = [("web", 150, 1, True), ("web", 90, 3, True), ("web", 150, 1, False), ("batch", 80, 2, True),
            ("batch", 80, 2, False), ("batch", 60, 4, False), ("classic", 120, 1, True), ("classic", 90, 3, True)]


@pytest.mark.parametrize("shape, nodes, seed, limits", CLUSTERS)
def test_generated_clusters_answer_as_the_whole_run(shape, nodes, seed, limits, monkeypatch):
    fast, whole, resumed, brought = resumed_and_whole(build_snapshot(generated(shape, nodes, seed, limits)),
                                                      monkeypatch)
    assert fast == whole
    if shape == "batch" and limits:
        assert brought > 0
    else:
        assert resumed > 0   # simulations went on from their first moved pod


@pytest.mark.parametrize("name", ["topology-spread", "consolidation", "multi-nodepool", "overprovisioning"])
def test_bundled_snapshots_answer_as_the_whole_run(name, monkeypatch):
    fast, whole, _, _ = resumed_and_whole(load_snapshot(bundled_snapshot(name)), monkeypatch)
    assert fast == whole


def test_pending_pods_spread_by_zone_with_the_moved_pods(monkeypatch):
    """Pending pods that spread over zones by their app's label, which bound pods of the same app share: a
    candidate holding such pods counts in the pending pods' groups, so no replay for it (the groups would
    count otherwise); the others replay, and the answer is the whole run's."""
    items = generated("classic", 120, 1)
    for item in items:
        if item["kind"] == "Pod" and not item["spec"].get("nodeName"):
            labels = item["metadata"].setdefault("labels", {})
            item["spec"]["topologySpreadConstraints"] = [{
                "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": labels.get("app", "none")}}}]
    fast, whole, resumed, _ = resumed_and_whole(build_snapshot(items), monkeypatch)
    assert fast == whole
    assert resumed > 0


@pytest.mark.parametrize("shape, nodes, seed", [("web", 150, 1), ("batch", 80, 2)])
def test_a_replay_blind_to_the_limits_is_caught(shape, nodes, seed, monkeypatch):
    """The comparison has teeth: replaying the shared run where the candidates leave their NodePool other
    limits than it had, which cut its NodeClaims before the first moved pod (a candidate taken out gives
    its capacity back), changes the answer."""
    snapshot = build_snapshot(generated(shape, nodes, seed))
    catalog = catalog_from_snapshot_region(snapshot)
    monkeypatch.setattr(Journal, "uncut", lambda self, pool, upto: True)
    broken = document(snapshot, catalog)
    monkeypatch.setattr(simulation, "_resumed", lambda *args: True)
    whole = document(snapshot, catalog)
    assert broken != whole


@pytest.mark.parametrize("shape, nodes, seed, limits", [("batch", 80, 2, True), ("batch", 150, 1, True)])
def test_groups_counted_otherwise_replay_up_to_the_first_pod_that_could_own_one(shape, nodes, seed, limits,
                                                                                 monkeypatch):
    """A candidate holding pods the pending pods' groups count (their spread over zones, say) changes those
    counts, but the pending pods before the first that could own a group read none: they are done again
    from the record, the rest run, and the answer is the whole run's."""
    resumed_when_counted = []
    own, go_on = simulation._resumed, simulation.resume
    counted_otherwise = []

    def noted(snapshot, state, catalog, scheduler, queue, moving, shared, most_claims):
        counted_otherwise.append(not all(scheduler.topology.counted_as_without(g, shared.out) for g in shared.groups))
        try:
            return own(snapshot, state, catalog, scheduler, queue, moving, shared, most_claims)
        finally:
            counted_otherwise.pop()

    def counted(scheduler, journal, queue, upto, most_claims=None):
        if counted_otherwise and counted_otherwise[-1] and upto:
            resumed_when_counted.append(upto)
        return go_on(scheduler, journal, queue, upto, most_claims)

    monkeypatch.setattr(simulation, "_resumed", noted)
    monkeypatch.setattr(simulation, "resume", counted)
    snapshot = build_snapshot(generated(shape, nodes, seed, limits))
    fast = document(snapshot, catalog_from_snapshot_region(snapshot))
    monkeypatch.setattr(simulation, "_resumed", lambda *args: True)   # every run from its first pop
    whole = document(snapshot, catalog_from_snapshot_region(snapshot))
    assert resumed_when_counted
    assert fast == whole

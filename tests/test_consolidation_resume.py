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
from karptui.sim import simulate
from karptui.sim.karpenter.disruption import simulation
from karptui.sim.karpenter.resume import Journal
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.views.cost import cost_path
from karptui.views.simulation import simulation_json

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402  (the benchmark's generated clusters)


def document(snapshot, catalog) -> dict:
    result = simulate(snapshot, catalog=catalog, consolidate=True)
    return simulation_json(result, explain=False, cost=cost_path(result, catalog, consolidated=True), catalog=catalog)


def generated(shape: str, nodes: int, seed: int) -> list[dict]:
    s = gen_cluster.SHAPES[shape]
    return gen_cluster.generate(nodes, nodes * s.pods_per_node, seed=seed, catalog=gen_cluster.BUILT_IN,
                                pending_fraction=s.pending_fraction, shape=shape)["items"]


def resumed_and_whole(snapshot, monkeypatch) -> tuple[dict, dict, int, int]:
    """The document with resumed simulations and with every simulation whole from its first pop, and
    how many simulations resumed and how many pops they replayed in all."""
    catalog = catalog_from_snapshot_region(snapshot)
    known = simulation.resume
    counts = [0, 0]

    def counted(scheduler, journal, queue, upto, most_claims=None):
        counts[0] += 1
        counts[1] += upto
        return known(scheduler, journal, queue, upto, most_claims)

    monkeypatch.setattr(simulation, "resume", counted)
    fast = document(snapshot, catalog)
    monkeypatch.setattr(simulation, "_resumed", lambda *args: True)   # every run from its first pop
    whole = document(snapshot, catalog)
    monkeypatch.undo()
    return fast, whole, counts[0], counts[1]


CLUSTERS = [("web", 150, 1), ("web", 90, 3), ("batch", 80, 2), ("batch", 60, 4), ("classic", 120, 1),
            ("classic", 90, 3)]


@pytest.mark.parametrize("shape, nodes, seed", CLUSTERS)
def test_generated_clusters_answer_as_the_whole_run(shape, nodes, seed, monkeypatch):
    fast, whole, resumed, replayed = resumed_and_whole(build_snapshot(generated(shape, nodes, seed)), monkeypatch)
    assert fast == whole
    assert resumed > 0 and replayed > resumed   # the shortcut was taken, and replayed pods


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

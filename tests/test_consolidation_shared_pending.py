"""Consolidation schedules the cluster's pending pods once per cluster state and takes that answer in
every simulation whose candidates' pods stay apart from them (karptui.sim.karpenter.disruption.simulation:
``pending_run``, ``_apart``). ``karptui simulate --consolidate --output json`` must say the same, word for
word, as when every simulation schedules every pending pod: on the benchmark's generated clusters of
each shape, and on the bundled snapshots."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.model import build_snapshot
from karptui.sim.karpenter.disruption import simulation
from karptui.sources import bundled_snapshot, load_snapshot

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402  (the benchmark's generated clusters)

from tests.simkit import consolidation_document as document
from tests.simkit import every_simulation_whole


def both(snapshot, monkeypatch) -> tuple[dict, int, int]:
    """The document with the shared run and without it (asserted equal), how many simulations took
    the shared run's answer, and the most runs with other limits left one cluster state needed."""
    catalog = catalog_from_snapshot_region(snapshot)
    apart = simulation._apart
    taken = [0, 0]

    def counted(snapshot, state, catalog, prepared, moving, settling, existing, shared):
        results = apart(snapshot, state, catalog, prepared, moving, settling, existing, shared)
        if results is not None:
            taken[0] += 1
        taken[1] = max(taken[1], len(shared.by_limits))
        return results

    monkeypatch.setattr(simulation, "_apart", counted)
    fast = document(snapshot, catalog)
    every_simulation_whole(monkeypatch)
    plain = document(snapshot, catalog)
    assert fast == plain
    return fast, taken[0], taken[1]


@pytest.mark.parametrize("shape, nodes, seed", [("classic", 120, 1), ("web", 60, 2), ("batch", 60, 2)])
def test_generated_clusters_answer_the_same(shape, nodes, seed, monkeypatch):
    s = gen_cluster.SHAPES[shape]
    # the generator's own instance data: with the shared EC2 data beside the checkout, the 60-node web
    # cluster's pending pods all fit no NodePool's types, and the shared run has nothing to take
    doc = gen_cluster.generate(nodes, nodes * s.pods_per_node, seed=seed, catalog=gen_cluster.BUILT_IN,
                               pending_fraction=s.pending_fraction, shape=shape)
    snapshot = build_snapshot(doc["items"])
    doc, taken, other_limits = both(snapshot, monkeypatch)
    # the shared run's answer was taken; on batch too, whose pending Jobs carry zone spread and
    # anti-affinity over hostnames (which keeps pending pods on new NodeClaims apart from moved ones)
    assert taken > 0
    if shape == "web":
        # its NodePools' limits cut the pending pods' NodeClaims: a candidate taken out gives its
        # NodePool room back, and the pending pods' run is made again with the limits it leaves
        assert other_limits > 0
    said = [v for n in doc["nodes"] for v in n["disruption"] if v["method"] == "single"]
    assert said  # single-node consolidation gave its verdicts


@pytest.mark.parametrize("name", ["topology-spread", "consolidation", "multi-nodepool", "overprovisioning"])
def test_bundled_snapshots_answer_the_same(name, monkeypatch):
    both(load_snapshot(bundled_snapshot(name)), monkeypatch)


def test_pending_pods_with_their_own_spread_take_the_shared_run(monkeypatch):
    """Pending pods that spread over zones (half by a label only they carry, half by their app's, which
    bound pods share) own topology groups: a simulation takes the shared run where its candidates hold
    none of the pods those groups count, and the answer stays the whole run's, word for word."""
    s = gen_cluster.SHAPES["classic"]
    doc = gen_cluster.generate(120, 120 * s.pods_per_node, seed=1, catalog=gen_cluster.BUILT_IN,
                               pending_fraction=s.pending_fraction, shape="classic")
    pending = [i for i in doc["items"] if i["kind"] == "Pod" and not i["spec"].get("nodeName")]
    assert len(pending) > 10
    for n, pod in enumerate(pending):
        labels = pod["metadata"].setdefault("labels", {})
        if n % 2:
            labels["wave"] = "w1"
            selector = {"wave": "w1"}
        else:
            selector = {"app": labels["app"]}
        pod["spec"]["topologySpreadConstraints"] = [{
            "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": selector}}]
    snapshot = build_snapshot(doc["items"])
    _, taken, _ = both(snapshot, monkeypatch)
    assert taken > 0


@pytest.mark.parametrize("key, shares", [("kubernetes.io/hostname", True), ("topology.kubernetes.io/zone", False)])
def test_pending_pods_with_required_anti_affinity(key, shares, monkeypatch):
    """Pending pods that repel pods of a label some bound pods carry too (so candidates hold some, and
    the pending pods carry it themselves) by hostname: a moved pod lands on an existing node and a
    pending one on a new NodeClaim, never the same hostname, so the shared run stands, word for word.
    By zone, a pending pod's NodeClaim would keep moved pods out of its zone: no shared run, and the
    same answer."""
    s = gen_cluster.SHAPES["classic"]
    doc = gen_cluster.generate(120, 120 * s.pods_per_node, seed=1, catalog=gen_cluster.BUILT_IN,
                               pending_fraction=s.pending_fraction, shape="classic")
    pods = [i for i in doc["items"] if i["kind"] == "Pod" and not i["metadata"].get("ownerReferences", [{}])[0].get(
        "kind") == "DaemonSet"]
    pending = [p for p in pods if not p["spec"].get("nodeName")]
    bound = [p for p in pods if p["spec"].get("nodeName")]
    assert len(pending) > 10
    for pod in bound[::25] + pending[::2]:
        pod["metadata"].setdefault("labels", {})["repel"] = "yes"
    for pod in pending[::2]:
        pod["spec"].setdefault("affinity", {})["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": key, "labelSelector": {"matchLabels": {"repel": "yes"}}}]}
    snapshot = build_snapshot(doc["items"])
    _, taken, _ = both(snapshot, monkeypatch)
    assert (taken > 0) == shares

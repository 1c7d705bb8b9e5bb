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
from karptui.sim import simulate
from karptui.sim.karpenter.disruption import simulation
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.views.cost import cost_path
from karptui.views.simulation import simulation_json

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402  (the benchmark's generated clusters)


def document(snapshot, catalog) -> dict:
    result = simulate(snapshot, catalog=catalog, consolidate=True)
    return simulation_json(result, explain=False, cost=cost_path(result, catalog, consolidated=True), catalog=catalog)


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
    monkeypatch.setattr(simulation, "_apart", lambda *args: None)  # every simulation schedules every pod
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
    if shape == "batch":
        # its pending Jobs carry zone spread and anti-affinity: every simulation schedules them
        assert taken == 0
    else:
        assert taken > 0  # the shared run's answer was taken
    if shape == "web":
        # its NodePools' limits cut the pending pods' NodeClaims: a candidate taken out gives its
        # NodePool room back, and the pending pods' run is made again with the limits it leaves
        assert other_limits > 0
    said = [v for n in doc["nodes"] for v in n["disruption"] if v["method"] == "single"]
    assert said  # single-node consolidation gave its verdicts


@pytest.mark.parametrize("name", ["topology-spread", "consolidation", "multi-nodepool", "overprovisioning"])
def test_bundled_snapshots_answer_the_same(name, monkeypatch):
    both(load_snapshot(bundled_snapshot(name)), monkeypatch)

"""Multi-node consolidation's search keeps no reason for a prefix that cannot go, so its simulations
stop as soon as two new NodeClaims are open (NodeClaims are never closed in a run: the whole run would
open them too, and a command launches at most one). ``karptui simulate --consolidate --output json``
must say the same, word for word, as when every simulation runs to its end: on the benchmark's
generated clusters of each shape, one where most nodes are underused, and the bundled snapshots."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.model import build_snapshot
from karptui.sim.karpenter.disruption import controller, multinode
from karptui.sim.karpenter.scheduler import Scheduler
from karptui.sim.state import ClusterState
from karptui.sources import bundled_snapshot, load_snapshot

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402  (the benchmark's generated clusters)

from tests.simkit import consolidation_document as document


def both(snapshot, monkeypatch) -> tuple[dict, int]:
    """The document with the search's simulations cut short and with every one run to its end
    (asserted equal), and how many simulations were cut."""
    catalog = catalog_from_snapshot_region(snapshot)
    run = controller.simulate
    cut = [0]

    def counted(*args, **kwargs):
        simulation = run(*args, **kwargs)
        cut[0] += simulation.cut
        return simulation

    monkeypatch.setattr(controller, "simulate", counted)
    fast = document(snapshot, catalog)
    whole = multinode.consolidate
    monkeypatch.setattr(multinode, "consolidate", lambda ctx, name, prefix, why=True: whole(ctx, name, prefix))
    made = cut[0]
    plain = document(snapshot, catalog)
    assert cut[0] == made  # every simulation ran to its end
    assert fast == plain
    return fast, made


def generated(shape: str, nodes: int, seed: int, pods_per_node: int | None = None) -> dict:
    s = gen_cluster.SHAPES[shape]
    return gen_cluster.generate(nodes, nodes * (pods_per_node or s.pods_per_node), seed=seed,
                                catalog=gen_cluster.BUILT_IN, pending_fraction=s.pending_fraction, shape=shape)


@pytest.mark.parametrize("shape, nodes, seed", [("classic", 120, 1), ("web", 60, 2), ("batch", 60, 2)])
def test_generated_clusters_answer_the_same(shape, nodes, seed, monkeypatch):
    doc, cut = both(build_snapshot(generated(shape, nodes, seed)["items"]), monkeypatch)
    if shape == "classic":
        # its pending pods need many new nodes: every prefix the search tries stops at the second
        assert cut > 0
    assert any(v["method"] == "multi" for n in doc["nodes"] for v in n["disruption"])


def test_underused_cluster_answers_the_same(monkeypatch):
    """Three pods a node, none pending: most nodes can go, prefixes too long need new nodes."""
    doc = generated("classic", 80, 3, pods_per_node=3)
    doc["items"] = [i for i in doc["items"] if i["kind"] != "Pod" or i["spec"].get("nodeName")]
    doc, cut = both(build_snapshot(doc["items"]), monkeypatch)
    assert doc["disruptions"]


@pytest.mark.parametrize("name", ["consolidation", "multi-nodepool", "overprovisioning"])
def test_bundled_snapshots_answer_the_same(name, monkeypatch):
    both(load_snapshot(bundled_snapshot(name)), monkeypatch)


def test_solve_stops_past_the_claims_asked(monkeypatch):
    """The scheduler's ``most_claims``: no more than one NodeClaim past it is opened, and without it
    the same pods open more."""
    doc = generated("classic", 40, 1)
    snapshot = build_snapshot(doc["items"])
    catalog = catalog_from_snapshot_region(snapshot)
    state = ClusterState(snapshot)
    pending = [p for p in snapshot.pods if not p.node_name]
    whole = Scheduler(snapshot, state, catalog, pending).solve(pending)
    assert len(whole.claims) > 2
    cut = Scheduler(snapshot, state, catalog, pending).solve(pending, most_claims=1)
    assert len(cut.claims) == 2
    assert [c.pods[0].key for c in cut.claims] == [c.pods[0].key for c in whole.claims[:2]]

"""Consolidation's simulations leave out the pending pods no run can place (karptui.sim.karpenter.unplaceable):
every answer ``karptui simulate --consolidate --output json`` gives is the same as when every pending pod
goes through every simulation, word for word (verdicts, "Can't remove without creating N candidates",
commands, costs)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.model import build_snapshot
from karptui.sim import simulate
from karptui.sim.karpenter.disruption import controller
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.views.cost import cost_path
from karptui.views.simulation import simulation_json

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402  (the benchmark's generated clusters)

SEEDS = ["topology-spread", "consolidation", "multi-nodepool", "overprovisioning"]


def document(snapshot, catalog, skip: bool) -> dict:
    result = simulate(snapshot, catalog=catalog, consolidate=True, skip_unplaceable=skip)
    return simulation_json(result, explain=False, cost=cost_path(result, catalog, consolidated=True), catalog=catalog)


def both(snapshot, monkeypatch) -> tuple[dict, list[int]]:
    """The document both ways (asserted equal), and how many pending pods each cluster state left out."""
    catalog = catalog_from_snapshot_region(snapshot)
    left_out: list[int] = []
    found = controller.unplaceable

    def counted(pods, prepared, pool):
        keys = found(pods, prepared, pool)
        left_out.append(len(keys))
        return keys

    monkeypatch.setattr(controller, "unplaceable", counted)
    fast = document(snapshot, catalog, True)
    plain = document(snapshot, catalog, False)
    assert fast == plain
    return fast, left_out


def test_generated_cluster_answers_the_same(monkeypatch):
    """The benchmark's cluster, small: pending pods asking for GPUs four at a time, a zone no NodePool
    offers, more than any instance type holds, beside pending pods that need new nodes."""
    snapshot = build_snapshot(gen_cluster.generate(120, 1200, seed=1, pending_fraction=0.05)["items"])
    doc, left_out = both(snapshot, monkeypatch)
    assert max(left_out) > 0  # the shortcut was taken
    pending = [p for p in doc["pods"] if p["node"] is None]
    assert len(pending) >= max(left_out)  # pods it left out are still reported pending, with Karpenter's reason
    said = [v for n in doc["nodes"] for v in n["disruption"] if v["method"] == "single"]
    assert any(v["karpenter"] and v["karpenter"].startswith("Can't remove without creating") for v in said)


@pytest.mark.parametrize("name", SEEDS)
def test_bundled_snapshots_answer_the_same(name, monkeypatch):
    both(load_snapshot(bundled_snapshot(name)), monkeypatch)


def test_room_for_reads_every_node_as_its_available_does():
    """ExistingPool.room_for, the columns unplaceable asks, says of each node what a pass over its
    ``available`` says (room for every requested resource, GPUs included, nothing overcommitted), before
    and after pods settle on nodes (a delete carried out)."""
    from karptui.sim.karpenter.existingnode import ExistingPool, base_vector, existing_nodes
    from karptui.sim.karpenter.scheduler import Prepared
    from karptui.sim.state import ClusterState

    snapshot = build_snapshot(gen_cluster.generate(120, 1200, seed=1, pending_fraction=0.05)["items"])
    catalog = catalog_from_snapshot_region(snapshot)
    prepared = Prepared(snapshot, catalog)
    state = ClusterState(snapshot)
    pool = ExistingPool(existing_nodes(state, snapshot, prepared.daemon_checks, catalog, set()))
    pods = [p for p in snapshot.pods if not p.node_name] + [p for p in snapshot.pods if p.node_name][:200]
    assert any(set(p.requests) - {"cpu", "memory"} for p in pods)  # an extended resource is asked for

    def by_hand(requests):
        return [not any(v < 0 for v in n.available.values())
                and all(amount <= n.available.get(name, 0) for name, amount in requests.items()) for n in pool.nodes]

    def check():
        for pod in pods:
            requests = prepared.pod_data(pod).requests
            assert pool.room_for(requests, base_vector(requests)).tolist() == by_hand(requests), pod.key

    check()
    bound = [p for p in snapshot.pods if p.node_name][:300]
    target = pool.nodes[0].index
    pool.settle([(p, target) for p in bound])  # more than the node holds: it is overcommitted now
    assert any(v < 0 for v in pool.nodes[0].available.values())
    check()

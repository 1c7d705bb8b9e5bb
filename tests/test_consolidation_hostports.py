"""Multi-node consolidation skips a prefix whose candidates hold two pods with the same host port that no
other node could take (karptui.sim.karpenter.disruption.hostports): every simulation of it would open two
NodeClaims or leave a pod without a place. ``karptui simulate --consolidate --output json`` must say the
same, word for word, as when every prefix is simulated, and each prefix skipped must be one whose
simulation gives no command."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.model import build_snapshot
from karptui.sim import simulate
from karptui.sim.karpenter.disruption import consolidation, controller
from karptui.views.cost import cost_path
from karptui.views.simulation import simulation_json

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402  (the benchmark's generated clusters)


def document(snapshot, catalog) -> dict:
    result = simulate(snapshot, catalog=catalog, consolidate=True)
    return simulation_json(result, explain=False, cost=cost_path(result, catalog, consolidated=True), catalog=catalog)


def gateway_cluster(nodes: int, seed: int, pods_per_node: int, pending: bool) -> list[dict]:
    """A generated classic cluster, with one workload's bound pods made a gateway: each asks for host
    port 9000 and selects nodes labelled ``gateway=yes``, which only the nodes holding them carry (so
    each has no other node to go to: the others with the label have the port taken)."""
    s = gen_cluster.SHAPES["classic"]
    doc = gen_cluster.generate(nodes, nodes * pods_per_node, seed=seed, catalog=gen_cluster.BUILT_IN,
                               pending_fraction=s.pending_fraction, shape="classic")
    items = [i for i in doc["items"] if pending or i["kind"] != "Pod" or i["spec"].get("nodeName")]
    bound: dict[str, list[dict]] = {}
    for item in items:
        if item["kind"] == "Pod" and item["spec"].get("nodeName") and \
                item["metadata"].get("ownerReferences", [{}])[0].get("kind") == "ReplicaSet":
            bound.setdefault(item["metadata"]["labels"].get("app", ""), []).append(item)
    # the workload spread over the most nodes, one pod a node
    app = max(bound, key=lambda a: len({p["spec"]["nodeName"] for p in bound[a]}))
    nodes: set[str] = set()
    for pod in bound[app]:
        if pod["spec"]["nodeName"] in nodes:
            continue
        nodes.add(pod["spec"]["nodeName"])
        pod["spec"]["nodeSelector"] = dict(pod["spec"].get("nodeSelector") or {}, gateway="yes")
        container = pod["spec"]["containers"][0]
        container["ports"] = list(container.get("ports") or []) + [
            {"containerPort": 9000, "hostPort": 9000, "protocol": "TCP"}]
    assert len(nodes) >= 4
    for item in items:
        if item["kind"] == "Node" and item["metadata"]["name"] in nodes:
            item["metadata"]["labels"]["gateway"] = "yes"
    return items


@pytest.mark.parametrize("nodes, seed, pods_per_node, pending", [
    (120, 1, 10, True),   # the benchmark's classic cluster: its pending pods keep every prefix from going
    (80, 1, 3, False),    # three pods a node, none pending: multi-node consolidation finds a command
])
def test_prefixes_holding_two_gateways_are_not_simulated(nodes, seed, pods_per_node, pending, monkeypatch):
    snapshot = build_snapshot(gateway_cluster(nodes, seed, pods_per_node, pending))
    catalog = catalog_from_snapshot_region(snapshot)
    known = controller.Disruptor.needs_two_claims
    skipped = []

    def checked(self, candidates):
        answer = known(self, candidates)
        if answer:  # what the simulation it stands for says: no command (its count left as it was)
            skipped.append(len(candidates))
            counts = self.simulated, self.simulations_run, self._state_simulations
            assert consolidation.consolidate(self, "multi", candidates, why=False)[0] is None
            self.simulated, self.simulations_run, self._state_simulations = counts
        return answer

    monkeypatch.setattr(controller.Disruptor, "needs_two_claims", checked)
    fast = document(snapshot, catalog)
    assert skipped  # prefixes were known to need two NodeClaims
    monkeypatch.setattr(controller.Disruptor, "needs_two_claims", lambda self, candidates: False)
    plain = document(snapshot, catalog)
    assert fast == plain
    if not pending:  # multi-node consolidation found a command beside the prefixes skipped
        assert any(len(d["nodes"]) > 1 for d in fast["disruptions"] if d["reason"] == "underutilized")

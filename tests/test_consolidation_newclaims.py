"""Multi-node consolidation skips a prefix whose candidates hold two pods that no other node could take
and that can never share a NodeClaim (karptui.sim.karpenter.disruption.newclaims): the same host port, or
anti-affinity over hostnames selecting each other. Every simulation of it would open two NodeClaims or
leave a pod without a place. ``karptui simulate --consolidate --output json`` must say the
same, word for word, as when every prefix is simulated, and each prefix skipped must be one whose
simulation gives no command."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.model import build_snapshot
from karptui.sim.karpenter.disruption import consolidation, controller

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402  (the benchmark's generated clusters)

from tests.simkit import consolidation_document as document


def gateway_cluster(nodes: int, seed: int, pods_per_node: int, pending: bool, apart: str = "port") -> list[dict]:
    """A generated classic cluster where one pod on every third node is made a gateway: it selects
    nodes labelled ``gateway=yes``, which only the nodes holding gateways carry among the nodes (and
    every NodePool's new nodes), and asks for host port 9000 (``apart="port"``) or prefers a node
    without another gateway (``apart="anti"``, anti-affinity over hostnames, any namespace): each has
    no other node to go to, the others with the label having the port taken or a gateway already."""
    s = gen_cluster.SHAPES["classic"]
    doc = gen_cluster.generate(nodes, nodes * pods_per_node, seed=seed, catalog=gen_cluster.BUILT_IN,
                               pending_fraction=s.pending_fraction, shape="classic")
    items = [i for i in doc["items"] if pending or i["kind"] != "Pod" or i["spec"].get("nodeName")]
    first: dict[str, dict] = {}   # node -> its first pod a ReplicaSet owns
    for item in items:
        if item["kind"] == "Pod" and item["spec"].get("nodeName") and \
                item["metadata"].get("ownerReferences", [{}])[0].get("kind") == "ReplicaSet":
            first.setdefault(item["spec"]["nodeName"], item)
    chosen = sorted(first)[::3]
    assert len(chosen) >= 4
    for node in chosen:
        pod = first[node]
        pod["metadata"]["labels"]["gateway"] = "yes"
        spec = pod["spec"]
        spec["nodeSelector"] = dict(spec.get("nodeSelector") or {}, gateway="yes")
        if apart == "port":
            container = spec["containers"][0]
            container["ports"] = list(container.get("ports") or []) + [
                {"containerPort": 9000, "hostPort": 9000, "protocol": "TCP"}]
        else:
            spec.pop("topologySpreadConstraints", None)
            affinity = spec.setdefault("affinity", {})
            affinity.pop("podAffinity", None)
            affinity["podAntiAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"gateway": "yes"}},
                                                    "namespaceSelector": {},
                                                    "topologyKey": "kubernetes.io/hostname"}}]}
    for item in items:
        if item["kind"] == "Node" and item["metadata"]["name"] in chosen:
            item["metadata"]["labels"]["gateway"] = "yes"
        if item["kind"] == "NodePool":
            template = item["spec"].setdefault("template", {}).setdefault("metadata", {})
            template["labels"] = dict(template.get("labels") or {}, gateway="yes")
    return items


@pytest.mark.parametrize("apart", ["port", "anti"])
@pytest.mark.parametrize("nodes, seed, pods_per_node, pending", [
    (120, 1, 10, True),   # the benchmark's classic cluster: its pending pods keep every prefix from going
    (80, 1, 3, False),    # three pods a node, none pending: multi-node consolidation finds a command
])
def test_prefixes_holding_two_gateways_are_not_simulated(nodes, seed, pods_per_node, pending, apart, monkeypatch):
    snapshot = build_snapshot(gateway_cluster(nodes, seed, pods_per_node, pending, apart))
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

"""What Karpenter's cluster state holds when it provisions and consolidates (issue 27): the pending
pods, nodes not initialized yet, NodeClaims with no Node, deprecated label keys. Each test runs
``karptui simulate --output json`` on a snapshot built as the Karpenter spec scenarios build theirs."""

from __future__ import annotations

import json

import yaml

from karptui.model.snapshot import SnapshotMeta
from karptui.sources.snapshot_file import write_snapshot
from tests.karpenter_spec.harness import NOW, Cluster, named_catalog, run_cli

POOL = {"metadata": {"name": "default"}, "spec": {"limits": {}, "disruption": {"budgets": [{"nodes": "100%"}]}}}


def cluster(*nodes, pool=POOL) -> Cluster:
    c = Cluster({t["name"]: t for t in named_catalog("fake-default")})
    c.apply({**pool, "kind": "NodePool"})
    for raw in nodes:
        c.add_node({"instanceType": "default-instance-type", "zone": "test-zone-1", "capacityType": "on-demand",
                    "nodepool": "default", **raw})
    return c


def pods(c: Cluster, *raws, pending=False) -> None:
    for raw in raws:
        c.add_pods(c.pod_manifests(raw, pending=pending))


def simulate(c: Cluster, tmp_path, *args) -> dict:
    snapshot, catalog = tmp_path / "snapshot.yaml", tmp_path / "catalog.yaml"
    write_snapshot(snapshot, c.manifests(), SnapshotMeta(name="test", captured_at=NOW))
    catalog.write_text(yaml.safe_dump({"instanceTypes": named_catalog("fake-default")}, sort_keys=False))
    code, out, err = run_cli("simulate", str(snapshot), "--instance-types", str(catalog), "--output", "json", *args)
    assert code == 0, err
    return json.loads(out)


def single(doc: dict, node: str) -> dict:
    (found,) = [n for n in doc["nodes"] if n["node"] == node]
    return next(m for m in found["disruption"] if m["method"] == "single")


def test_pending_pods_that_need_two_new_nodes_keep_the_node_in_karpenters_words(tmp_path):
    c = cluster({"name": "node-1"}, {"name": "node-2"})
    pods(c, {"name": "a", "owner": {"kind": "ReplicaSet", "name": "a"}, "requests": {"cpu": "1"}, "nodeName": "node-1"},
         {"name": "b", "owner": {"kind": "ReplicaSet", "name": "b"}, "requests": {"cpu": "1"}, "nodeName": "node-2"})
    pods(c, {"name": "big", "count": 2, "requests": {"cpu": "3500m"},
             "nodeSelector": {"node.kubernetes.io/instance-type": "default-instance-type"}}, pending=True)
    doc = simulate(c, tmp_path, "--consolidate")
    assert doc["disruptions"] == [] and len(doc["nodeclaims"]) == 2
    verdict = single(doc, "node-2")
    assert verdict["karpenter"] == "Can't remove without creating 2 candidates"
    assert verdict["details"]["pending_count"] == 2
    assert verdict["details"]["pending_pods"] == ["default/big-0", "default/big-1"]
    assert {"node": "node-2", "reason": "Can't remove without creating 2 candidates"} in doc["unconsolidatable"]


def test_without_pending_pods_the_same_node_is_deleted(tmp_path):
    c = cluster({"name": "node-1"}, {"name": "node-2"})
    pods(c, {"name": "a", "owner": {"kind": "ReplicaSet", "name": "a"}, "requests": {"cpu": "1"}, "nodeName": "node-1"},
         {"name": "b", "owner": {"kind": "ReplicaSet", "name": "b"}, "requests": {"cpu": "1"}, "nodeName": "node-2"})
    doc = simulate(c, tmp_path, "--consolidate")
    assert [d["action"] for d in doc["disruptions"]] == ["delete"]


def test_a_nodepool_limit_counts_a_nodeclaim_whose_node_is_not_in_the_snapshot(tmp_path):
    """Karpenter's state holds every launched NodeClaim (it has a provider ID); with no Node its
    status.capacity counts against the limits (StateNode.Capacity)."""
    pool = {"metadata": {"name": "default"}, "spec": {"limits": {"cpu": "8"}}}
    c = cluster({"name": "node-1"}, {"name": "node-2"}, pool=pool)
    del c.nodes["node-2"]  # its NodeClaim still names it: launched, its Node not captured
    pods(c, {"name": "p", "requests": {"cpu": "1"}, "nodeSelector": {"topology.kubernetes.io/zone": "test-zone-2"}},
         pending=True)
    doc = simulate(c, tmp_path)
    (attempt,) = doc["pods"]
    assert attempt["node"] is None and doc["nodeclaims"] == []
    assert "exceed limits for nodepool" in attempt["reason"]
    c.nodeclaims.pop("node-2")  # the NodeClaim gone as well: 4 cpu of the 8 left
    doc = simulate(c, tmp_path)
    assert len(doc["nodeclaims"]) == 1


def test_a_nodepool_limit_counts_the_nodeclaim_capacity_of_a_node_that_reports_none_yet(tmp_path):
    pool = {"metadata": {"name": "default"}, "spec": {"limits": {"cpu": "8"}}}
    c = cluster({"name": "node-1"}, {"name": "node-2", "initialized": False}, pool=pool)
    c.nodes["node-2"]["status"]["capacity"] = {}  # the kubelet has not reported yet
    pods(c, {"name": "p", "requests": {"cpu": "1"}, "nodeSelector": {"topology.kubernetes.io/zone": "test-zone-2"}},
         pending=True)
    doc = simulate(c, tmp_path)
    (attempt,) = doc["pods"]
    assert attempt["node"] is None and "exceed limits for nodepool" in attempt["reason"]


def test_an_uninitialized_node_is_no_candidate_and_no_destination(tmp_path):
    c = cluster({"name": "node-1", "initialized": False, "allocatable": {"cpu": "32", "pods": "100"}},
                {"name": "node-2", "allocatable": {"cpu": "32", "pods": "100"}})
    pods(c, {"name": "a", "owner": {"kind": "ReplicaSet", "name": "a"}, "nodeName": "node-1"},
         {"name": "b", "owner": {"kind": "ReplicaSet", "name": "b"}, "nodeName": "node-2"})
    doc = simulate(c, tmp_path, "--consolidate")
    assert doc["disruptions"] == []
    waiting = single(doc, "node-1")
    assert (waiting["kind"], waiting["karpenter"]) == ("not-initialized", "node isn't initialized")
    kept = single(doc, "node-2")
    assert kept["kind"] == "no-room"
    assert "default/b => would schedule against uninitialized nodeclaim/node-1, node/node-1" in kept["karpenter"]


def test_a_node_karpenter_counts_on_for_a_pending_pod_is_nominated(tmp_path):
    """The pending pod selects the zone under its deprecated key: kube-scheduler matches labels as
    written and finds no node, Karpenter normalises the key (NormalizedLabels) and counts on node-1,
    which it then nominates: no disruption takes it."""
    c = cluster({"name": "node-1"}, {"name": "node-2"})
    pods(c, {"name": "a", "owner": {"kind": "ReplicaSet", "name": "a"}, "requests": {"cpu": "1"}, "nodeName": "node-1"},
         {"name": "b", "owner": {"kind": "ReplicaSet", "name": "b"}, "requests": {"cpu": "1"}, "nodeName": "node-2"})
    pods(c, {"name": "p", "requests": {"cpu": "100m"},
             "nodeSelector": {"failure-domain.beta.kubernetes.io/zone": "test-zone-1"}}, pending=True)
    doc = simulate(c, tmp_path, "--consolidate")
    (attempt,) = [a for a in doc["pods"] if a["pod"] == "default/p"]
    assert attempt["node"] in ("node-1", "node-2") and doc["nodeclaims"] == []
    nominated = attempt["node"]
    blocked = {b["node"]: b["reason"] for b in doc["blocked"]}
    assert blocked[nominated] == "node is nominated for a pending pod"
    assert all(nominated not in d["nodes"] for d in doc["disruptions"])

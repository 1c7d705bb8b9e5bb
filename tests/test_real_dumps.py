"""`snapshot info` on dumps shaped exactly like real EKS clusters of every Karpenter era."""

import json

import pytest

from karptui.sources import load_snapshot
from tests.conftest import FIXTURES

DUMPS = FIXTURES / "dumps"
EXPECTED = {
    "eks-karpenter-v1.yaml": (4, 18, 1, 2, 3, {"us-east-1a": 1, "us-east-1b": 2, "us-east-1c": 1}),
    "eks-karpenter-v1beta1.json": (3, 13, 2, 1, 2, {"eu-west-1a": 1, "eu-west-1b": 1, "eu-west-1c": 1}),
    "eks-karpenter-v1alpha5.yaml": (4, 16, 1, 1, 2, {"us-west-2a": 2, "us-west-2b": 1, "us-west-2c": 1}),
    "kubectl-concatenated.json": (2, 4, 0, 0, 0, {"eu-central-1a": 1, "eu-central-1b": 1}),
    "rawapi-podlist.json": (0, 3, 1, 0, 0, {}),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_snapshot_info_counts(cli, name):
    code, out, err = cli("snapshot", "info", DUMPS / name, "--output", "json")
    assert code == 0, err
    info = json.loads(out)
    got = (info["nodes"], info["pods"], info["pending"], info["nodepools"], info["nodeclaims"], info["zones"])
    assert got == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_no_object_is_skipped(name):
    snap = load_snapshot(DUMPS / name)
    assert not [w for w in snap.warnings if "skipped" in w]


def test_v1_cluster_picture():
    snap = load_snapshot(DUMPS / "eks-karpenter-v1.yaml")
    origins = sorted(n.origin for n in snap.nodes)
    assert origins == ["fargate", "karpenter", "karpenter", "managed-node-group"]
    assert {n.capacity_type for n in snap.nodes} == {"spot", "on-demand", "fargate"}
    assert {p.name for p in snap.nodepools} >= {"default", "gpu"}
    assert all(p.api_version == "karpenter.sh/v1" for p in snap.nodepools)
    in_flight = [c for c in snap.nodeclaims if not c.node_name]
    assert len(in_flight) == 1 and in_flight[0].launched and not in_flight[0].registered
    (pending,) = snap.pending_pods
    assert pending.scheduled_message.startswith("0/4 nodes are available")
    assert snap.top_owner(pending).kind == "Deployment"
    sources = {e.source for e in snap.events}
    assert {"default-scheduler", "karpenter"} <= sources
    assert any(p.requests.get("cpu") for p in snap.pending_pods)


def test_v1alpha5_cluster_picture():
    snap = load_snapshot(DUMPS / "eks-karpenter-v1alpha5.yaml")
    (pool,) = snap.nodepools
    assert pool.kind == "Provisioner" and pool.node_class_ref.kind == "AWSNodeTemplate"
    assert all(c.kind == "Machine" for c in snap.nodeclaims)
    assert any(p.blocks_disruption(legacy=True) for p in snap.pods)
    assert all(n.nodepool == pool.name for n in snap.nodes if n.origin == "karpenter")
    assert len(snap.nodeclaim_by_node) == 2  # Machines matched to nodes by provider ID


def test_raw_podlist_items_get_their_kind():
    snap = load_snapshot(DUMPS / "rawapi-podlist.json")
    assert len(snap.pods) == 3 and snap.ignored == {}

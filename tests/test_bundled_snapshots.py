"""The bundled seed scenarios load cleanly and tell the story the operators told."""

from collections import Counter

import pytest

from karptui.sources import bundled_snapshot, bundled_snapshots, load_snapshot

NAMES = ["topology-spread", "consolidation", "multi-nodepool", "overprovisioning"]


@pytest.fixture(scope="module")
def snaps():
    return {name: load_snapshot(bundled_snapshot(name)) for name in NAMES}


def test_every_bundled_snapshot_is_listed():
    assert sorted(bundled_snapshots()) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_loads_without_warnings_and_is_consistent(snaps, name):
    snap = snaps[name]
    assert snap.warnings == ()
    assert all(p.node_name in snap.node_by_name for p in snap.pods if p.node_name)
    # every pod's owner chain resolves (Pod -> ReplicaSet -> Deployment, DaemonSet, ...)
    for pod in snap.pods:
        if pod.controller and pod.controller.kind != "Node":
            assert snap.owner_of(pod) is not None, pod.key
    for node in snap.nodes:  # nothing overcommitted
        pods = snap.pods_by_node[node.name]
        assert sum(p.requests.get("cpu", 0) for p in pods) <= node.allocatable["cpu"], node.name
        assert len(pods) <= node.allocatable["pods"]
    for pending in snap.pending_pods:
        assert pending.scheduled_reason == "Unschedulable"
        assert pending.scheduled_message.startswith(f"0/{len(snap.nodes)} nodes are available")


def running_by_zone(snap, app):
    return Counter(snap.node_by_name[p.node_name].zone for p in snap.pods
                   if p.labels.get("app") == app and p.node_name)


def test_topology_spread_seed(snaps):
    snap = snaps["topology-spread"]
    ec2 = [n for n in snap.nodes if n.origin != "fargate"]
    assert Counter(n.zone for n in ec2) == {"ap-northeast-2a": 3, "ap-northeast-2b": 3, "ap-northeast-2c": 1}
    assert len(snap.nodes) - len(ec2) == 2  # Karpenter itself runs on Fargate, as in the seed
    deploy = next(w for w in snap.workloads if w.kind == "Deployment" and w.name == "host-spread")
    assert deploy.replicas == 20
    keys = {c.topology_key: c.max_skew for c in deploy.template.spread_constraints}
    assert keys == {"kubernetes.io/hostname": 2, "topology.kubernetes.io/zone": 5}
    assert running_by_zone(snap, "host-spread") == {"ap-northeast-2a": 6, "ap-northeast-2b": 6, "ap-northeast-2c": 2}
    pending = [p for p in snap.pending_pods if p.labels.get("app") == "host-spread"]
    assert len(pending) == 6
    assert "node(s) didn't match pod topology spread constraints" in pending[0].scheduled_message
    (pool,) = snap.nodepools
    assert pool.kind == "Provisioner" and str(pool.requirements[0]) == "karpenter.k8s.aws/instance-category In [t m c]"
    assert snap.meta.captured_at is not None
    assert 'incompatible with provisioner "default"' in snap.meta.logs_text
    assert all(snap.top_owner(p).name == "host-spread" for p in pending)


def test_consolidation_seed(snaps):
    snap = snaps["consolidation"]
    inflate = [p for p in snap.pods if p.labels.get("app") == "inflate" and p.node_name]
    assert len(inflate) == 6
    types = {snap.node_by_name[p.node_name].instance_type for p in inflate}
    assert types <= {"c5a.xlarge", "c5a.2xlarge"}
    assert {n.capacity_type for n in snap.nodes} == {"on-demand"}
    assert "inflate-pdb" in [p.name for p in snap.pdbs]
    assert any(p.blocks_disruption(legacy=True) and p.controller is None for p in snap.pods)  # bare do-not-evict pod
    (pool,) = snap.nodepools
    assert pool.api_version == "karpenter.sh/v1" and pool.consolidation_policy == "WhenEmptyOrUnderutilized"
    assert len(snap.nodeclaim_by_node) == 2


def test_multi_nodepool_seed(snaps):
    snap = snaps["multi-nodepool"]
    assert sorted(p.name for p in snap.nodepools) == ["default", "team1"]
    team1 = next(p for p in snap.nodepools if p.name == "team1")
    assert team1.api_version == "karpenter.sh/v1beta1" and team1.template_labels == {"team": "team1"}
    pending = [p for p in snap.pending_pods if p.labels.get("app") == "inflate"]
    assert len(pending) == 2
    assert pending[0].affinity.node_required.matches({"team": "team1"}, "x")


def test_overprovisioning_seed(snaps):
    snap = snaps["overprovisioning"]
    running = [p for p in snap.pods if p.labels.get("app") == "inflate" and p.node_name]
    assert len(running) == 3 and len({p.node_name for p in running}) == 3  # one per node
    assert running[0].affinity.anti_required[0].topology_key == "kubernetes.io/hostname"
    assert "didn't match pod anti-affinity rules" in snap.pending_pods[0].scheduled_message \
        or any("anti-affinity" in p.scheduled_message for p in snap.pending_pods)

"""Volume attach limits: CSINode in the model, kube-scheduler's NodeVolumeLimits, Karpenter's volume usage.

Real-shaped objects: an EKS node's CSINode for the EBS CSI driver (``count: 25``), claims bound to
EBS CSI volumes and to an in-tree ``awsElasticBlockStore`` volume, the default StorageClass.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from karptui.catalog import parse_catalog
from karptui.model import build_snapshot
from karptui.sim import simulate
from karptui.sources import load_snapshot
from karptui.sources.snapshot_file import write_snapshot
from tests.simkit import node, placed, pod

EBS = "ebs.csi.aws.com"
MAX_VOLUME = "node(s) exceed max volume count"


def csinode(name, drivers, annotations=None):
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
            "metadata": {"name": name, "annotations": annotations or {}},
            "spec": {"drivers": [{"name": d, "nodeID": f"i-{name}", "topologyKeys": ["topology.ebs.csi.aws.com/zone"],
                                  **({"allocatable": {"count": c}} if c is not None else {})}
                                 for d, c in drivers.items()]}}


def gp3(name="gp3", default=False, created="2024-01-01T00:00:00Z", provisioner=EBS):
    annotations = {"storageclass.kubernetes.io/is-default-class": "true"} if default else {}
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "provisioner": provisioner,
            "metadata": {"name": name, "annotations": annotations, "creationTimestamp": created},
            "volumeBindingMode": "WaitForFirstConsumer", "parameters": {"type": "gp3"}}


def ebs_pv(name, handle=None, in_tree=False):
    source = {"awsElasticBlockStore": {"volumeID": f"aws://us-east-1a/{handle or 'vol-' + name}", "fsType": "ext4"}} \
        if in_tree else {"csi": {"driver": EBS, "volumeHandle": handle or f"vol-{name}", "fsType": "ext4"}}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": "20Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "gp3",
                     **source},
            "status": {"phase": "Bound"}}


def claim(name, volume=None, storage_class="gp3", namespace="default"):
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "20Gi"}}}
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    meta = {"name": name, "namespace": namespace}
    if volume:
        spec["volumeName"] = volume
        meta["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec,
            "status": {"phase": "Bound" if volume else "Pending"}}


def with_claims(raw, *claims):
    raw["spec"]["volumes"] = [{"name": f"data-{i}", "persistentVolumeClaim": {"claimName": c}}
                              for i, c in enumerate(claims)]
    return raw


def full_node(name="ip-10-0-1-10", count=25):
    """A node whose EBS slots are all taken: ``count`` pods, each with its own bound EBS volume."""
    objects = [node(name, pods="110"), csinode(name, {EBS: count})]
    for i in range(count):
        objects += [ebs_pv(f"pv-{name}-{i}"), claim(f"data-{name}-{i}", f"pv-{name}-{i}"),
                    with_claims(pod(f"db-{name}-{i}", node=name), f"data-{name}-{i}")]
    return objects


def run(*objects, explain=False):
    return simulate(build_snapshot([gp3(), *objects]), explain=explain)


# ---- the model ------------------------------------------------------------------------------
def test_csinode_is_read_with_its_counts_and_migrated_plugins():
    snapshot = build_snapshot([csinode("n1", {EBS: 25, "efs.csi.aws.com": None},
                                       {"storage.alpha.kubernetes.io/migrated-plugins":
                                        "kubernetes.io/aws-ebs,kubernetes.io/portworx-volume"})])
    found = snapshot.csinode_by_name["n1"]
    assert found.limits == {EBS: 25}   # a driver without allocatable has no limit
    assert found.migrated_plugins == {"kubernetes.io/aws-ebs", "kubernetes.io/portworx-volume"}
    assert snapshot.ignored.get("CSINode") is None


def test_snapshot_save_keeps_csinodes(tmp_path):
    path = tmp_path / "cluster.json"
    write_snapshot(path, [node("n1"), csinode("n1", {EBS: 25})], build_snapshot([]).meta)
    assert load_snapshot(str(path)).csinode_by_name["n1"].limits == {EBS: 25}


def test_the_newest_default_storage_class_is_the_default_and_an_empty_class_is_none():
    older, newer = gp3("older", True, "2024-01-01T00:00:00Z"), gp3("newer", True, "2024-06-01T00:00:00Z")
    snapshot = build_snapshot([older, newer, gp3("plain"), claim("a", storage_class=None),
                               claim("b", storage_class=""), claim("c", storage_class="plain")])
    index = snapshot.volume_index
    classes = {c.name: index.class_name(c) for c in snapshot.pvcs}
    assert classes == {"a": "newer", "b": "", "c": "plain"}


def test_an_in_tree_ebs_volume_keeps_its_plugin_and_volume_id():
    (volume,) = build_snapshot([ebs_pv("old", "vol-0abc", in_tree=True)]).pvs
    assert (volume.in_tree, volume.handle, volume.driver) == ("kubernetes.io/aws-ebs", "vol-0abc", "")


# ---- kube-scheduler's NodeVolumeLimits --------------------------------------------------------
def test_a_node_full_of_ebs_volumes_refuses_a_pod_with_another():
    result = run(*full_node(), claim("new"), with_claims(pod("web"), "new"))
    (attempt,) = result.attempts
    assert attempt.node is None
    assert attempt.reason.startswith(f"0/1 nodes are available: 1 {MAX_VOLUME}.")


def test_a_volume_already_attached_there_takes_no_new_slot():
    result = run(*full_node(), with_claims(pod("reader"), "data-ip-10-0-1-10-3"))
    assert placed(result) == {"reader": "ip-10-0-1-10"}


def test_the_pod_goes_to_the_node_with_a_free_slot():
    result = run(*full_node("ip-10-0-1-10"), *full_node("ip-10-0-1-11", count=24)[:2],
                 claim("new"), with_claims(pod("web"), "new"))
    assert placed(result) == {"web": "ip-10-0-1-11"}


def test_a_node_without_a_csinode_has_no_limit():
    objects = [o for o in full_node() if o["kind"] != "CSINode"]
    assert placed(run(*objects, claim("new"), with_claims(pod("web"), "new"))) == {"web": "ip-10-0-1-10"}


def test_an_unbound_claim_counts_against_its_storage_class_driver_once_per_claim():
    result = run(node("n1"), csinode("n1", {EBS: 1}), claim("a"), claim("b"), with_claims(pod("web"), "a", "b"))
    assert result.attempts[0].reason.startswith(f"0/1 nodes are available: 1 {MAX_VOLUME}.")


def test_a_claim_naming_no_class_counts_against_the_default_class_driver():
    objects = [node("n1"), csinode("n1", {EBS: 1, "other.csi": 5}), gp3("other", provisioner="other.csi"),
               gp3("standard", default=True), claim("a", storage_class=None), claim("b", storage_class=None),
               with_claims(pod("web"), "a", "b")]
    assert MAX_VOLUME in run(*objects).attempts[0].reason


def test_a_generic_ephemeral_volume_is_its_pods_claim():
    objects = [*full_node(), claim("web-scratch")]
    raw = pod("web")
    raw["spec"]["volumes"] = [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {
        "accessModes": ["ReadWriteOnce"], "storageClassName": "gp3", "resources": {"requests": {"storage": "1Gi"}}}}}}]
    assert MAX_VOLUME in run(*objects, raw).attempts[0].reason


def test_a_migrated_in_tree_ebs_volume_counts_against_the_ebs_csi_driver():
    objects = [node("n1"), csinode("n1", {EBS: 1}),
               ebs_pv("legacy", in_tree=True), claim("legacy", "legacy"), with_claims(pod("old", node="n1"), "legacy"),
               ebs_pv("fresh"), claim("fresh", "fresh"), with_claims(pod("web"), "fresh")]
    assert MAX_VOLUME in run(*objects).attempts[0].reason


def test_portworx_volumes_count_only_where_the_csinode_lists_the_plugin_as_migrated():
    def portworx(annotations):
        px = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "px"},
              "spec": {"capacity": {"storage": "1Gi"}, "portworxVolume": {"volumeID": "px-1"}}}
        return [node("n1"), csinode("n1", {"pxd.portworx.com": 0}, annotations), px, claim("px", "px"),
                with_claims(pod("web"), "px")]
    listed = {"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/portworx-volume"}
    assert MAX_VOLUME in run(*portworx(listed)).attempts[0].reason
    assert placed(run(*portworx({}))) == {"web": "n1"}


def test_explain_names_the_volume_limit():
    result = run(*full_node(), claim("new"), with_claims(pod("web"), "new"), explain=True)
    (attempt,) = result.attempts
    assert dict(attempt.filters) == {"ip-10-0-1-10": (MAX_VOLUME,)}


def test_simulate_explain_prints_the_reason(tmp_path):
    path = tmp_path / "cluster.json"
    write_snapshot(path, [gp3(), *full_node(), claim("new"), with_claims(pod("web"), "new")], build_snapshot([]).meta)
    out = subprocess.run([sys.executable, "-m", "karptui", "simulate", str(path), "--explain"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert MAX_VOLUME in out.stdout


# ---- Karpenter ------------------------------------------------------------------------------
FAKE = "fake.csi.provider"


def _karpenter_cluster(version: str):
    catalog = parse_catalog({"instanceTypes": [
        {"name": "small", "cpu": "16", "memory": "32Gi", "pods": "110", "volumeLimits": {FAKE: 2},
         "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.1}]},
        {"name": "large", "cpu": "64", "memory": "128Gi", "pods": "110", "volumeLimits": {FAKE: 20},
         "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 1.0}]}]})
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
            "spec": {"template": {"spec": {"requirements": [], "nodeClassRef": {
                "group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}
    claims = [claim(f"c{i}", storage_class="fake") for i in range(5)]
    unschedulable = with_claims(pod("web"), *[f"c{i}" for i in range(5)])
    unschedulable["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]
    snapshot = build_snapshot([pool, gp3("fake", provisioner=FAKE), *claims, unschedulable])
    return dataclasses.replace(snapshot, karpenter_version=version), catalog


def test_from_v1_15_a_new_nodeclaim_keeps_only_types_that_attach_its_volumes():
    snapshot, catalog = _karpenter_cluster("v1.15.0")
    (plan,) = simulate(snapshot, catalog=catalog).nodeclaims
    assert plan.instance_types == ("large",)


@pytest.mark.parametrize("version", ["v1.9.2", "v1.14.0", "v1.14.3"])
def test_before_v1_15_instance_type_volume_limits_are_not_counted(version):
    snapshot, catalog = _karpenter_cluster(version)
    (plan,) = simulate(snapshot, catalog=catalog).nodeclaims
    assert plan.launch["instance_type"] == "small"


def test_karpenter_launches_a_node_rather_than_use_one_whose_csinode_slots_are_full():
    """The node has room for the pod but not for its volume: Karpenter counts the CSINode's limit."""
    snapshot, catalog = _karpenter_cluster("v1.14.0")
    objects = [*full_node(count=2), claim("new"), with_claims(pod("db"), "new")]
    objects[-1]["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]
    pool = next(p.raw for p in snapshot.nodepools)
    result = simulate(build_snapshot([gp3(), pool, *objects]), catalog=catalog)
    assert [c.pods for c in result.nodeclaims] == [("default/db",)]
    roomy = [o for o in objects if o["kind"] != "CSINode"]
    assert simulate(build_snapshot([gp3(), pool, *roomy]), catalog=catalog).nodeclaims == ()


def test_a_negative_volume_limit_in_a_catalog_is_one_line_and_exit_2(tmp_path):
    catalog = tmp_path / "types.yaml"
    catalog.write_text('instanceTypes:\n- name: a\n  cpu: "2"\n  memory: 4Gi\n  volumeLimits: {ebs.csi.aws.com: -1}\n'
                       '  offerings: [{zone: us-east-1a, capacityType: on-demand, price: 0.1}]\n')
    cluster = tmp_path / "cluster.json"
    write_snapshot(cluster, [node("n1")], build_snapshot([]).meta)
    out = subprocess.run([sys.executable, "-m", "karptui", "simulate", str(cluster), "--instance-types", str(catalog)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        f"karptui: {catalog}: instanceTypes[0] (a).volumeLimits.ebs.csi.aws.com: -1 is not a whole number of volumes"]

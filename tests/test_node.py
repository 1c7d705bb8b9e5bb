from karptui.model.node import build_node
from tests.conftest import node_obj


def test_karpenter_node():
    node = build_node(node_obj("ip-10-0-1-5.ec2.internal", labels={
        "karpenter.sh/nodepool": "default", "karpenter.sh/capacity-type": "spot",
        "node.kubernetes.io/instance-type": "m5.large", "kubernetes.io/arch": "amd64"},
        providerID="aws:///us-east-1a/i-0123456789abcdef0",
        taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}], unschedulable=True))
    assert (node.zone, node.region, node.instance_type, node.arch) == ("us-east-1a", "us-east-1", "m5.large", "amd64")
    assert (node.nodepool, node.capacity_type, node.origin, node.group) == ("default", "spot", "karpenter", "default")
    assert node.instance_id == "i-0123456789abcdef0"
    assert node.unschedulable and node.ready and node.taints[0].key == "dedicated"
    assert node.allocatable["cpu"] == 3920 and node.allocatable["pods"] == 58


def test_v1alpha5_node_uses_provisioner_name():
    node = build_node(node_obj("n", labels={"karpenter.sh/provisioner-name": "default"}))
    assert node.nodepool == "default" and node.origin == "karpenter"


def test_managed_node_group_and_eks_capacity_type():
    node = build_node(node_obj("n", labels={"eks.amazonaws.com/nodegroup": "ng-1",
                                            "eks.amazonaws.com/capacityType": "SPOT"}))
    assert node.origin == "managed-node-group" and node.group == "ng-1" and node.capacity_type == "spot"


def test_fargate():
    node = build_node(node_obj("fargate-ip-10-0-1-1.ec2.internal", labels={"eks.amazonaws.com/compute-type": "fargate"}))
    assert node.origin == "fargate" and node.capacity_type == "fargate"


def test_legacy_beta_labels():
    raw = node_obj("n")
    raw["metadata"]["labels"] = {"failure-domain.beta.kubernetes.io/zone": "eu-west-1b",
                                 "failure-domain.beta.kubernetes.io/region": "eu-west-1",
                                 "beta.kubernetes.io/instance-type": "c5.xlarge"}
    node = build_node(raw)
    assert (node.zone, node.region, node.instance_type, node.origin) == ("eu-west-1b", "eu-west-1", "c5.xlarge", "self-managed")


def test_not_ready_and_missing_allocatable_falls_back_to_capacity():
    raw = node_obj("n")
    raw["status"]["conditions"] = [{"type": "Ready", "status": "Unknown"}]
    del raw["status"]["allocatable"]
    node = build_node(raw)
    assert not node.ready and node.allocatable["cpu"] == 4000

"""NodePool / NodeClaim / node class normalisation across every Karpenter API version."""

import yaml

from karptui.model.build import build_snapshot

REQS = [{"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m", "t"]},
        {"key": "karpenter.k8s.aws/instance-family", "operator": "Exists", "minValues": 5}]
TAINTS = [{"key": "team", "value": "a", "effect": "NoSchedule"}]

V1 = f"""
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: default}}
spec:
  weight: 10
  limits: {{cpu: "1000", memory: 1000Gi}}
  template:
    metadata: {{labels: {{intent: apps}}}}
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements: {REQS}
      taints: {TAINTS}
      expireAfter: 720h
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
    budgets:
    - nodes: "10%"
    - nodes: "0"
      schedule: "0 9 * * mon-fri"
      duration: 8h
      reasons: [Underutilized]
"""

V1BETA1 = f"""
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {{name: default}}
spec:
  weight: 10
  limits: {{cpu: "1000", memory: 1000Gi}}
  template:
    metadata: {{labels: {{intent: apps}}}}
    spec:
      nodeClassRef: {{apiVersion: karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: default}}
      requirements: {REQS}
      taints: {TAINTS}
      kubelet: {{maxPods: 110}}
  disruption:
    consolidationPolicy: WhenUnderutilized
    expireAfter: 720h
"""

V1ALPHA5 = f"""
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {{name: default}}
spec:
  weight: 10
  consolidation: {{enabled: true}}
  labels: {{intent: apps}}
  requirements: {REQS}
  taints: {TAINTS}
  limits: {{resources: {{cpu: 1000, memory: 1000Gi}}}}
  ttlSecondsUntilExpired: 2592000
  providerRef: {{name: default}}
  kubeletConfiguration: {{maxPods: 110}}
"""


def pool(text):
    snap = build_snapshot([yaml.safe_load(text)])
    assert not snap.warnings, snap.warnings
    return snap.nodepools[0]


def test_every_version_normalises_to_one_shape():
    pools = [pool(V1), pool(V1BETA1), pool(V1ALPHA5)]
    for p in pools:
        assert p.name == "default" and p.weight == 10
        assert p.template_labels == {"intent": "apps"}
        assert [str(r) for r in p.requirements] == [
            "karpenter.k8s.aws/instance-category In [c m t]", "karpenter.k8s.aws/instance-family Exists"]
        assert p.requirements[1].min_values == 5
        assert p.taints[0].key == "team"
        assert p.limits["cpu"] == 1_000_000 and p.limits["memory"] == 1000 * 2**30
        assert p.consolidation_policy == "WhenEmptyOrUnderutilized"
        assert p.node_class_ref.group == "karpenter.k8s.aws" and p.node_class_ref.name == "default"
    v1, beta, alpha = pools
    assert v1.expire_after == beta.expire_after == 720 * 3600
    assert alpha.expire_after == 2592000  # the same 30 days, spelled in seconds
    assert (v1.kind, alpha.kind) == ("NodePool", "Provisioner")
    assert alpha.node_class_ref.kind == "AWSNodeTemplate"
    assert v1.consolidate_after == 60 and beta.consolidate_after == 0 and alpha.consolidate_after == 0
    assert beta.kubelet.max_pods == alpha.kubelet.max_pods == 110


def test_budgets():
    v1 = pool(V1)
    assert v1.budgets[1].schedule == "0 9 * * mon-fri" and v1.budgets[1].duration == 8 * 3600
    assert v1.budgets[1].reasons == ("Underutilized",)
    assert [b.nodes for b in pool(V1BETA1).budgets] == ["10%"]  # the default
    assert pool(V1ALPHA5).budgets == ()


def test_provisioner_empty_ttl_and_no_consolidation():
    alpha = yaml.safe_load(V1ALPHA5)
    del alpha["spec"]["consolidation"]
    alpha["spec"]["ttlSecondsAfterEmpty"] = 30
    p = build_snapshot([alpha]).nodepools[0]
    assert (p.consolidation_policy, p.consolidate_after) == ("WhenEmpty", 30)
    del alpha["spec"]["ttlSecondsAfterEmpty"]
    del alpha["spec"]["ttlSecondsUntilExpired"]
    p = build_snapshot([alpha]).nodepools[0]
    assert p.consolidation_policy is None and p.expire_after is None


def test_nodeclaim_and_machine():
    claim = {
        "apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
        "metadata": {"name": "default-x7k2p", "labels": {
            "karpenter.sh/nodepool": "default", "node.kubernetes.io/instance-type": "m5.large",
            "topology.kubernetes.io/zone": "us-east-1a", "karpenter.sh/capacity-type": "spot"}},
        "spec": {"requirements": REQS, "resources": {"requests": {"cpu": "1350m", "pods": "5"}},
                 "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                 "expireAfter": "720h"},
        "status": {"providerID": "aws:///us-east-1a/i-0abc", "nodeName": "ip-10-0-1-5.ec2.internal",
                   "capacity": {"cpu": "2"}, "allocatable": {"cpu": "1930m"},
                   "conditions": [{"type": "Launched", "status": "True"}, {"type": "Registered", "status": "True"},
                                  {"type": "Initialized", "status": "True"}]},
    }
    machine = {
        "apiVersion": "karpenter.sh/v1alpha5", "kind": "Machine",
        "metadata": {"name": "default-abcde", "labels": {"karpenter.sh/provisioner-name": "default"}},
        "spec": {"requirements": REQS, "machineTemplateRef": {"name": "default"}},
        "status": {"providerID": "aws:///us-east-1b/i-0def",
                   "conditions": [{"type": "MachineLaunched", "status": "True"}]},
    }
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "ip-10-0-2-9.ec2.internal"},
            "spec": {"providerID": "aws:///us-east-1b/i-0def"}}
    snap = build_snapshot([claim, machine, node])
    c, m = snap.nodeclaims
    assert (c.nodepool, c.instance_type, c.zone, c.capacity_type) == ("default", "m5.large", "us-east-1a", "spot")
    assert c.launched and c.registered and c.initialized and c.requests["cpu"] == 1350
    assert c.node_class_ref.kind == "EC2NodeClass" and c.expire_after == 720 * 3600
    assert m.kind == "Machine" and m.nodepool == "default" and m.launched and not m.registered
    assert m.node_class_ref.kind == "AWSNodeTemplate"
    assert snap.nodeclaim_by_node["ip-10-0-2-9.ec2.internal"] is m  # matched by provider ID
    assert snap.nodeclaim_by_node["ip-10-0-1-5.ec2.internal"] is c


def test_node_classes():
    v1 = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
          "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "KarpenterNodeRole",
                   "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}], "kubelet": {"maxPods": 50}},
          "status": {"subnets": [{"id": "subnet-1", "zone": "us-east-1a"}, {"id": "subnet-2", "zone": "us-east-1b"}],
                     "conditions": [{"type": "Ready", "status": "True"}]}}
    beta = {"apiVersion": "karpenter.k8s.aws/v1beta1", "kind": "EC2NodeClass", "metadata": {"name": "b"},
            "spec": {"amiFamily": "Bottlerocket", "role": "R"}}
    alpha = {"apiVersion": "karpenter.k8s.aws/v1alpha1", "kind": "AWSNodeTemplate", "metadata": {"name": "a"},
             "spec": {"subnetSelector": {"karpenter.sh/discovery": "c"}, "amiFamily": "AL2"}}
    a, b, c = build_snapshot([v1, beta, alpha]).nodeclasses
    assert (a.ami_family, a.role, a.subnet_zones, a.kubelet.max_pods, a.ready) == (
        "AL2023", "KarpenterNodeRole", ("us-east-1a", "us-east-1b"), 50, True)
    assert b.ami_family == "Bottlerocket"
    assert c.kind == "AWSNodeTemplate" and c.subnet_selectors == ({"tags": {"karpenter.sh/discovery": "c"}},)


def test_other_groups_with_the_same_kind_are_not_karpenter():
    snap = build_snapshot([{"apiVersion": "example.com/v1", "kind": "NodePool", "metadata": {"name": "x"}}])
    assert snap.nodepools == () and snap.ignored == {"NodePool": 1}

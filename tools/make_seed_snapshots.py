#!/usr/bin/env python3
"""Write karptui's bundled example snapshots (``snapshots/*.yaml``) from the seed stories.

Each file is what ``kubectl get nodes,pods,deployments,replicasets,daemonsets,pdb,
nodepools,nodeclaims,ec2nodeclasses,events -A -o yaml`` prints for a cluster in one
of the operators' scenarios (shared/seeds): a single ``kind: List``. The
topology-spread file is a karptui-saved snapshot, so a metadata document with the
Karpenter controller log comes first.

    python tools/make_seed_snapshots.py [--out snapshots]

Deterministic: ids, name suffixes and IPs come from a ``random.Random`` seeded per
file, and every timestamp is written out below, so a rerun rewrites the same bytes.

Instance facts (labels, capacity, max pods, Karpenter's allocatable estimate) are
copied from shared/data/ec2-instance-types.json for the handful of types used, so
the script needs nothing but PyYAML. Node allocatable is worked out the way the EKS
AMIs' kubelet config does it (see ``kube_reserved_cpu_m`` and ``Cluster.add_node``).

Container images are written without their registry host on purpose: these files
carry no external host names.
"""

from __future__ import annotations

import argparse
import copy
import ipaddress
import random
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import yaml

REGION = "ap-northeast-2"
ZONES = ("ap-northeast-2a", "ap-northeast-2b", "ap-northeast-2c")
ZONE_IDS = {"ap-northeast-2a": "apne2-az1", "ap-northeast-2b": "apne2-az2", "ap-northeast-2c": "apne2-az3"}
# The alphabet Kubernetes uses for generated name suffixes and template hashes.
NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
EPHEMERAL_CAPACITY = "20959212Ki"   # 20 GiB root volume as the kubelet reports it
EPHEMERAL_ALLOCATABLE = "18242267924"

# --------------------------------------------------------------------------------------
# Instance types: a copy of the fields we need from shared/data/ec2-instance-types.json.
# (arch, category, family, generation, size, cpu-manufacturer, hypervisor,
#  encryption-in-transit, network-bandwidth, ebs-bandwidth, vCPU, memory MiB, max pods,
#  Karpenter allocatable cpu, Karpenter allocatable memory)
# --------------------------------------------------------------------------------------
INSTANCE_TYPES = {
    "c5.2xlarge": ("amd64", "c", "c5", "5", "2xlarge", "intel", "nitro", "false", 2500, 4750, 8, 16384, 58, "7910m", "14162Mi"),
    "m5.2xlarge": ("amd64", "m", "m5", "5", "2xlarge", "intel", "nitro", "false", 2500, 4750, 8, 32768, 58, "7910m", "29317Mi"),
    "m5.xlarge": ("amd64", "m", "m5", "5", "xlarge", "intel", "nitro", "false", 1250, 4750, 4, 16384, 58, "3920m", "14162Mi"),
    "m5.large": ("amd64", "m", "m5", "5", "large", "intel", "nitro", "false", 750, 4750, 2, 8192, 29, "1930m", "6903Mi"),
    "c5a.xlarge": ("amd64", "c", "c5a", "5", "xlarge", "amd", "nitro", "true", 1250, 3170, 4, 8192, 58, "3920m", "6584Mi"),
    "c5a.2xlarge": ("amd64", "c", "c5a", "5", "2xlarge", "amd", "nitro", "true", 2500, 3170, 8, 16384, 58, "7910m", "14162Mi"),
    "c6i.xlarge": ("amd64", "c", "c6i", "6", "xlarge", "intel", "nitro", "true", 1562, 10000, 4, 8192, 58, "3920m", "6584Mi"),
    "m6a.xlarge": ("amd64", "m", "m6a", "6", "xlarge", "amd", "nitro", "true", 1562, 10000, 4, 16384, 58, "3920m", "14162Mi"),
    "t4g.xlarge": ("arm64", "t", "t4g", "4", "xlarge", "aws", "nitro", "false", 1024, 2780, 4, 16384, 58, "3920m", "14103Mi"),
    "c6g.xlarge": ("arm64", "c", "c6g", "6", "xlarge", "aws", "nitro", "false", 1250, 4750, 4, 8192, 58, "3920m", "6525Mi"),
}


@dataclass(frozen=True)
class InstanceType:
    name: str
    arch: str
    category: str
    family: str
    generation: str
    size: str
    manufacturer: str
    hypervisor: str
    encryption: str
    network_bw: int
    ebs_bw: int
    vcpu: int
    memory_mib: int
    max_pods: int
    karpenter_cpu: str
    karpenter_memory: str


def itype(name: str) -> InstanceType:
    return InstanceType(name, *INSTANCE_TYPES[name])


def kube_reserved_cpu_m(vcpu: int) -> int:
    """The EKS AMIs' kube-reserved CPU: 6% of the 1st core, 1% of the 2nd,
    0.5% of the 3rd and 4th, 0.25% of every further core (4 vCPU -> 80m)."""
    millis = 0.0
    for core in range(1, vcpu + 1):
        millis += 60 if core == 1 else 10 if core == 2 else 5 if core <= 4 else 2.5
    return int(millis)


def kube_reserved_memory_mi(max_pods: int) -> int:
    """EKS AMI kube-reserved memory: 11 MiB per pod the node may run, plus 255 MiB."""
    return 11 * max_pods + 255


EVICTION_HARD_MI = 100   # memory.available<100Mi


# --------------------------------------------------------------------------------------
# Eras: what a node, its add-ons and Karpenter looked like at the time of each story.
# --------------------------------------------------------------------------------------
# Karpenter's per-instance labels changed over time; these are the sets each era wrote.
V1ALPHA5_INSTANCE_LABELS = ("category", "cpu", "encryption-in-transit-supported", "family", "generation",
                            "hypervisor", "memory", "network-bandwidth", "pods", "size")  # + instance-ami-id
V1BETA1_INSTANCE_LABELS = ("category", "cpu", "cpu-manufacturer", "encryption-in-transit-supported", "family",
                           "generation", "hypervisor", "memory", "network-bandwidth", "size")
V1_INSTANCE_LABELS = V1BETA1_INSTANCE_LABELS + ("ebs-bandwidth",)


@dataclass(frozen=True)
class Era:
    kubelet: str
    containerd: str
    os_images: dict            # ami family -> osImage
    kernels: dict              # (ami family, arch) -> kernelVersion
    ami_names: dict            # (ami family, arch) -> AMI name
    cni: str                   # VPC CNI add-on version
    node_agent: str | None     # aws-network-policy-agent sidecar (VPC CNI >= 1.14)
    kube_proxy: str
    coredns: str
    ebs_csi: str
    karpenter_api: str         # v1alpha5 | v1beta1 | v1
    karpenter_image: str
    instance_labels: tuple
    new_pod_conditions: bool   # PodReadyToStartContainers and status.hostIPs (Kubernetes >= 1.29)


ERA_2023_05 = Era(
    kubelet="v1.26.4-eks-0a21954", containerd="containerd://1.6.19",
    os_images={"AL2": "Amazon Linux 2"},
    kernels={("AL2", "amd64"): "5.10.178-162.673.amzn2.x86_64"},
    ami_names={("AL2", "amd64"): "amazon-eks-node-1.26-v20230513"},
    cni="v1.12.6-eksbuild.2", node_agent=None,
    kube_proxy="v1.26.2-minimal-eksbuild.1", coredns="v1.9.3-eksbuild.3", ebs_csi="v1.19.0",
    karpenter_api="v1alpha5", karpenter_image="karpenter/controller:v0.27.3",
    instance_labels=V1ALPHA5_INSTANCE_LABELS, new_pod_conditions=False,
)
ERA_2024_03 = Era(
    kubelet="v1.29.0-eks-5e0fdde", containerd="containerd://1.7.11",
    os_images={"AL2": "Amazon Linux 2"},
    kernels={("AL2", "amd64"): "5.10.210-201.852.amzn2.x86_64", ("AL2", "arm64"): "5.10.210-201.852.amzn2.aarch64"},
    ami_names={("AL2", "amd64"): "amazon-eks-node-1.29-v20240227", ("AL2", "arm64"): "amazon-eks-arm64-node-1.29-v20240227"},
    cni="v1.16.4-eksbuild.2", node_agent="v1.0.8-eksbuild.1",
    kube_proxy="v1.29.0-minimal-eksbuild.1", coredns="v1.11.1-eksbuild.4", ebs_csi="v1.28.0",
    karpenter_api="v1beta1", karpenter_image="karpenter/controller:0.35.1",
    instance_labels=V1BETA1_INSTANCE_LABELS, new_pod_conditions=True,
)
ERA_2024_09 = Era(
    kubelet="v1.30.2-eks-1552ad0", containerd="containerd://1.7.20",
    os_images={"AL2023": "Amazon Linux 2023.5.20240805", "AL2": "Amazon Linux 2"},
    kernels={("AL2023", "amd64"): "6.1.102-108.177.amzn2023.x86_64", ("AL2023", "arm64"): "6.1.102-108.177.amzn2023.aarch64",
             ("AL2", "amd64"): "5.10.223-211.872.amzn2.x86_64", ("AL2", "arm64"): "5.10.223-211.872.amzn2.aarch64"},
    ami_names={("AL2023", "amd64"): "amazon-eks-node-al2023-x86_64-standard-1.30-v20240807",
               ("AL2023", "arm64"): "amazon-eks-node-al2023-arm64-standard-1.30-v20240807",
               ("AL2", "amd64"): "amazon-eks-node-1.30-v20240807", ("AL2", "arm64"): "amazon-eks-arm64-node-1.30-v20240807"},
    cni="v1.18.3-eksbuild.2", node_agent="v1.1.2-eksbuild.1",
    kube_proxy="v1.30.3-eksbuild.2", coredns="v1.11.1-eksbuild.11", ebs_csi="v1.33.0",
    karpenter_api="v1", karpenter_image="karpenter/controller:1.0.1",
    instance_labels=V1_INSTANCE_LABELS, new_pod_conditions=True,
)


# --------------------------------------------------------------------------------------
# kube-scheduler wording
# --------------------------------------------------------------------------------------
INSUFFICIENT_CPU = "Insufficient cpu"
SPREAD_MISMATCH = "node(s) didn't match pod topology spread constraints"
AFFINITY_MISMATCH = "node(s) didn't match Pod's node affinity/selector"
ANTI_AFFINITY_MISMATCH = "node(s) didn't match pod anti-affinity rules"
NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"


def untolerated_taint(key: str, value: str = "") -> str:
    return f"node(s) had untolerated taint {{{key}: {value}}}"


def fit_error(total: int, filters: dict[str, int], preemption: dict[str, int], era: "Era") -> str:
    """kube-scheduler's FitError text: "<count> <reason>" strings sorted as strings, and
    the preemption summary appended as a second sentence. Kubernetes 1.25-1.29 closed
    every part with its own full stop, so there the message ends in ".."; 1.30 dropped
    the extra one.

    Which preemption bucket a node lands in follows from its filter status: a node
    rejected as UnschedulableAndUnresolvable (taints, node affinity) is "not
    helpful"; a plain Unschedulable one (resources, topology spread, pod
    anti-affinity) is dry-run preempted and, with no lower-priority pods on it,
    reports "No preemption victims found"."""
    def histogram(reasons: dict[str, int]) -> str:
        return ", ".join(sorted(f"{count} {reason}" for reason, count in reasons.items()))
    assert sum(filters.values()) == total == sum(preemption.values())
    minor = int(era.kubelet.split(".")[1])
    closing = "." if 25 <= minor <= 29 else ""
    return (f"0/{total} nodes are available: {histogram(filters)}. "
            f"preemption: 0/{total} nodes are available: {histogram(preemption)}.{closing}")


# --------------------------------------------------------------------------------------
# Small value helpers
# --------------------------------------------------------------------------------------
def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def utc(text: str) -> datetime:
    return datetime.strptime(text.removesuffix("Z"), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)


def later(moment: datetime, seconds: float) -> datetime:
    return moment + timedelta(seconds=seconds)


def hostname(ip: str) -> str:
    return f"ip-{ip.replace('.', '-')}.{REGION}.compute.internal"


def container(name: str, image: str, *, requests: dict | None = None, limits: dict | None = None,
              ports: list | None = None, args: list | None = None, extra: dict | None = None) -> dict:
    """A container as the API server stores it (defaults filled in)."""
    body: dict = {
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "name": name,
        "resources": {},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    }
    if requests:
        body["resources"]["requests"] = requests
    if limits:
        body["resources"]["limits"] = limits
    if ports:
        body["ports"] = ports
    if args:
        body["args"] = args
    body.update(extra or {})
    return body


def qos_class(containers: list[dict]) -> str:
    """Guaranteed when every container sets cpu and memory limits equal to its
    requests; BestEffort when nothing is set anywhere; Burstable otherwise."""
    resources = [c.get("resources", {}) for c in containers]
    if not any(r.get("requests") or r.get("limits") for r in resources):
        return "BestEffort"
    for r in resources:
        limits, requests = r.get("limits", {}), r.get("requests", r.get("limits", {}))
        if any(limits.get(k) is None or requests.get(k) != limits.get(k) for k in ("cpu", "memory")):
            return "Burstable"
    return "Guaranteed"


def pod_template(labels: dict, containers: list[dict], *, annotations: dict | None = None,
                 affinity: dict | None = None, spread: list | None = None, node_selector: dict | None = None,
                 tolerations: list | None = None, priority_class: str | None = None,
                 service_account: str | None = None, grace: int = 30, init_containers: list | None = None,
                 host_network: bool = False, extra: dict | None = None) -> dict:
    """A workload's pod template with the API server's defaults filled in."""
    spec: dict = {
        "containers": containers,
        "dnsPolicy": "ClusterFirstWithHostNet" if host_network else "ClusterFirst",
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "terminationGracePeriodSeconds": grace,
    }
    optional = {"affinity": affinity, "topologySpreadConstraints": spread, "nodeSelector": node_selector,
                "tolerations": tolerations, "priorityClassName": priority_class, "initContainers": init_containers}
    spec.update({k: v for k, v in optional.items() if v})
    if service_account:
        spec["serviceAccount"] = spec["serviceAccountName"] = service_account
    if host_network:
        spec["hostNetwork"] = True
    spec.update(extra or {})
    meta: dict = {"creationTimestamp": None, "labels": dict(labels)}
    if annotations:
        meta["annotations"] = dict(annotations)
    return {"metadata": meta, "spec": spec}


def required_node_affinity(*expressions: dict) -> dict:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": list(expressions)}]}}}


def expr(key: str, operator: str, values: list | None = None) -> dict:
    body = {"key": key, "operator": operator}
    if values is not None:
        body["values"] = list(values)
    return body


# The tolerations the DefaultTolerationSeconds admission plugin gives every pod.
DEFAULT_TOLERATIONS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
]


def daemonset_tolerations(host_network: bool) -> list[dict]:
    """What the DaemonSet controller adds to every pod it creates."""
    added = [
        {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists"},
        {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists"},
        {"effect": "NoSchedule", "key": "node.kubernetes.io/disk-pressure", "operator": "Exists"},
        {"effect": "NoSchedule", "key": "node.kubernetes.io/memory-pressure", "operator": "Exists"},
        {"effect": "NoSchedule", "key": "node.kubernetes.io/pid-pressure", "operator": "Exists"},
        {"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable", "operator": "Exists"},
    ]
    if host_network:
        added.append({"effect": "NoSchedule", "key": "node.kubernetes.io/network-unavailable", "operator": "Exists"})
    return added


def daemonset_overhead(era: Era) -> tuple[int, int, int]:
    """(cpu m, memory Mi, pods) the node daemonsets request on every EC2 node:
    aws-node 25m (+25m network policy agent from CNI 1.14), kube-proxy 100m, and
    the EBS CSI node plugin's three 10m/40Mi containers."""
    return 25 + (25 if era.node_agent else 0) + 100 + 30, 120, 3


def launch_requests(era: Era, cpu_m: int, memory_mi: int, pods: int) -> dict:
    """A NodeClaim's spec.resources.requests: the pods it was launched for plus daemonsets."""
    ds_cpu, ds_mem, ds_pods = daemonset_overhead(era)
    return {"cpu": f"{cpu_m + ds_cpu}m", "memory": f"{memory_mi + ds_mem}Mi", "pods": str(pods + ds_pods)}


# --------------------------------------------------------------------------------------
# The cluster under construction
# --------------------------------------------------------------------------------------
@dataclass
class NodeFacts:
    name: str
    ip: str
    zone: str
    compute: str                  # karpenter | nodegroup | fargate
    item: dict                    # the Node object itself
    instance_id: str = ""
    ami_id: str = ""

    @property
    def created(self) -> datetime:
        return utc(self.item["metadata"]["creationTimestamp"])

    @property
    def ready(self) -> datetime:
        return utc(self.item["status"]["conditions"][-1]["lastTransitionTime"])


@dataclass
class DaemonSetSpec:
    name: str
    uid: str
    template: dict
    host_network: bool
    created: datetime
    labels: dict


class Cluster:
    """Collects the objects of one dump; every id comes from this cluster's RNG."""

    KIND_ORDER = ("Node", "Pod", "Deployment", "ReplicaSet", "DaemonSet", "PodDisruptionBudget", "PriorityClass",
                  "Provisioner", "NodePool", "NodeClaim", "AWSNodeTemplate", "EC2NodeClass", "Event")

    def __init__(self, seed: str, *, name: str, era: Era, subnets: dict[str, str], captured: datetime) -> None:
        self.rng = random.Random(seed)
        self.name = name
        self.era = era
        self.subnets = {zone: ipaddress.ip_network(cidr) for zone, cidr in subnets.items()}
        self.captured = captured
        self.resource_version = 1_800_000 + self.rng.randrange(200_000)
        self.items: list[dict] = []
        self.nodes: dict[str, NodeFacts] = {}
        self.daemonsets: list[DaemonSetSpec] = []
        self.cloud_provider_hash = self.hex(32)
        self.used_ips: set[str] = set()

    # ids ----------------------------------------------------------------------------
    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def rv(self) -> str:
        self.resource_version += self.rng.randrange(3, 400)
        return str(self.resource_version)

    def hex(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def suffix(self, n: int = 5) -> str:
        return "".join(self.rng.choice(NAME_ALPHABET) for _ in range(n))

    def template_hash(self) -> str:
        return self.suffix(self.rng.choice((9, 10)))

    def ami(self) -> str:
        return "ami-0" + self.hex(16)

    def system_uuid(self) -> str:   # EC2 machines report a system UUID starting "ec2"
        return "ec2" + str(uuid.UUID(int=self.rng.getrandbits(128)))[3:]

    def ip(self, zone: str) -> str:
        subnet = self.subnets[zone]
        while True:   # AWS reserves the first four and the last address of a subnet
            candidate = str(subnet[self.rng.randrange(4, subnet.num_addresses - 1)])
            if candidate not in self.used_ips:
                self.used_ips.add(candidate)
                return candidate

    def meta(self, name: str, created: datetime, namespace: str | None = None, **extra) -> dict:
        body = {"creationTimestamp": iso(created), "name": name, "resourceVersion": self.rv(), "uid": self.uid()}
        if namespace:
            body["namespace"] = namespace
        body.update({k: v for k, v in extra.items() if v})
        return body

    def add(self, item: dict) -> dict:
        self.items.append(item)
        return item

    def find(self, kind: str, name: str) -> dict:
        return next(i for i in self.items if i["kind"] == kind and i["metadata"]["name"] == name)

    # nodes --------------------------------------------------------------------------
    def add_node(self, *, zone: str, type_name: str, created: datetime, compute: str, ip: str | None = None,
                 capacity_type: str = "on-demand", ami_family: str = "AL2", ami_id: str | None = None,
                 pool: str | None = None, pool_labels: dict | None = None, owner: dict | None = None,
                 nodegroup: str | None = None) -> NodeFacts:
        """An EC2 node as the kubelet and the EKS/Karpenter controllers leave it."""
        it = itype(type_name)
        era = self.era
        ip = ip or self.ip(zone)
        self.used_ips.add(ip)
        name = hostname(ip)
        instance_id = "i-0" + self.hex(16)
        ami_id = ami_id or self.ami()
        labels = {
            "beta.kubernetes.io/arch": it.arch,
            "beta.kubernetes.io/instance-type": it.name,
            "beta.kubernetes.io/os": "linux",
            "failure-domain.beta.kubernetes.io/region": REGION,
            "failure-domain.beta.kubernetes.io/zone": zone,
            "k8s.io/cloud-provider-aws": self.cloud_provider_hash,
            "kubernetes.io/arch": it.arch,
            "kubernetes.io/hostname": name,
            "kubernetes.io/os": "linux",
            "node.kubernetes.io/instance-type": it.name,
            "topology.ebs.csi.aws.com/zone": zone,
            "topology.kubernetes.io/region": REGION,
            "topology.kubernetes.io/zone": zone,
        }
        if era.new_pod_conditions:   # the AWS cloud provider labels zone ids in these later releases
            labels["topology.k8s.aws/zone-id"] = ZONE_IDS[zone]
        annotations = {
            "csi.volume.kubernetes.io/nodeid": '{"ebs.csi.aws.com":"%s"}' % instance_id,
            "node.alpha.kubernetes.io/ttl": "0",
            "volumes.kubernetes.io/controller-managed-attach-detach": "true",
        }
        finalizers = None
        if compute == "karpenter":
            labels.update(self.karpenter_labels(it, capacity_type, pool, pool_labels, ami_id))
            annotations.update(self.karpenter_hash_annotations())
            finalizers = ["karpenter.sh/termination"]
        else:
            labels.update({
                "alpha.eksctl.io/cluster-name": self.name,
                "alpha.eksctl.io/nodegroup-name": nodegroup,
                "eks.amazonaws.com/capacityType": "ON_DEMAND",
                "eks.amazonaws.com/nodegroup": nodegroup,
                "eks.amazonaws.com/nodegroup-image": ami_id,
                "eks.amazonaws.com/sourceLaunchTemplateId": "lt-0" + self.hex(16),
                "eks.amazonaws.com/sourceLaunchTemplateVersion": "1",
            })

        # Allocatable as the kubelet reports it: capacity minus kube-reserved minus the
        # hard eviction threshold. Memory capacity is a little under the nominal size
        # (firmware and kernel keep some), with a small per-boot wobble.
        mem_capacity_ki = int(it.memory_mib * 1024 * 0.9465) + self.rng.randrange(-1500, 1500)
        mem_alloc_ki = mem_capacity_ki - (kube_reserved_memory_mi(it.max_pods) + EVICTION_HARD_MI) * 1024
        cpu_alloc_m = it.vcpu * 1000 - kube_reserved_cpu_m(it.vcpu)
        capacity = {"cpu": str(it.vcpu), "ephemeral-storage": EPHEMERAL_CAPACITY, "hugepages-1Gi": "0",
                    "hugepages-2Mi": "0", "memory": f"{mem_capacity_ki}Ki", "pods": str(it.max_pods)}
        allocatable = dict(capacity, cpu=f"{cpu_alloc_m}m", memory=f"{mem_alloc_ki}Ki",
                           **{"ephemeral-storage": EPHEMERAL_ALLOCATABLE})
        ready = later(created, self.rng.randrange(20, 36))
        node = self.add({
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": self.meta(name, created, annotations=annotations, labels=labels, finalizers=finalizers,
                                  ownerReferences=[owner] if owner else None),
            "spec": {"providerID": f"aws:///{zone}/{instance_id}"},
            "status": {
                "addresses": [{"address": ip, "type": "InternalIP"},
                              {"address": name, "type": "InternalDNS"},
                              {"address": name, "type": "Hostname"}],
                "allocatable": allocatable,
                "capacity": capacity,
                "conditions": self.node_conditions(created, ready),
                "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                "nodeInfo": {
                    "architecture": it.arch,
                    "bootID": self.uid(),
                    "containerRuntimeVersion": era.containerd,
                    "kernelVersion": era.kernels[(ami_family, it.arch)],
                    "kubeProxyVersion": era.kubelet,
                    "kubeletVersion": era.kubelet,
                    "machineID": self.hex(32),
                    "operatingSystem": "linux",
                    "osImage": era.os_images[ami_family],
                    "systemUUID": self.system_uuid(),
                },
            },
        })
        facts = NodeFacts(name, ip, zone, compute, node, instance_id, ami_id)
        self.nodes[name] = facts
        return facts

    def karpenter_labels(self, it: InstanceType, capacity_type: str, pool: str, pool_labels: dict | None,
                         ami_id: str) -> dict:
        """The labels Karpenter of this era writes on the nodes it launches."""
        values = {"category": it.category, "cpu": str(it.vcpu), "cpu-manufacturer": it.manufacturer,
                  "ebs-bandwidth": str(it.ebs_bw), "encryption-in-transit-supported": it.encryption,
                  "family": it.family, "generation": it.generation, "hypervisor": it.hypervisor,
                  "memory": str(it.memory_mib), "network-bandwidth": str(it.network_bw),
                  "pods": str(it.max_pods), "size": it.size}
        labels = {f"karpenter.k8s.aws/instance-{key}": values[key] for key in self.era.instance_labels}
        labels.update({"karpenter.sh/capacity-type": capacity_type, "karpenter.sh/initialized": "true"})
        if self.era.karpenter_api == "v1alpha5":
            labels["karpenter.k8s.aws/instance-ami-id"] = ami_id
            labels["karpenter.sh/provisioner-name"] = pool
        else:   # karpenter.sh/registered arrived with Machines (v0.29) and stayed
            labels.update({"karpenter.sh/nodepool": pool, "karpenter.sh/registered": "true"})
        if self.era.karpenter_api == "v1":
            labels["karpenter.k8s.aws/ec2nodeclass"] = pool
        labels.update(pool_labels or {})
        return labels

    def karpenter_hash_annotations(self) -> dict:
        api = self.era.karpenter_api
        if api == "v1alpha5":
            return {}
        version = "v2" if api == "v1beta1" else "v3"
        return {"karpenter.k8s.aws/ec2nodeclass-hash": str(self.rng.getrandbits(63)),
                "karpenter.k8s.aws/ec2nodeclass-hash-version": version,
                "karpenter.sh/nodepool-hash": str(self.rng.getrandbits(63)),
                "karpenter.sh/nodepool-hash-version": version}

    def node_conditions(self, created: datetime, ready: datetime) -> list[dict]:
        beat = iso(later(self.captured, -self.rng.randrange(5, 40)))
        def cond(kind: str, status: str, reason: str, message: str, since: datetime) -> dict:
            return {"lastHeartbeatTime": beat, "lastTransitionTime": iso(since), "message": message,
                    "reason": reason, "status": status, "type": kind}
        start = later(created, 12)
        return [
            cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available", start),
            cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure", start),
            cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available", start),
            cond("Ready", "True", "KubeletReady", "kubelet is posting ready status", ready),
        ]

    def add_fargate_node(self, *, zone: str, created: datetime) -> NodeFacts:
        """An EKS Fargate node: one per Fargate pod, tainted so nothing else lands on
        it, and carrying the usual hostname and zone labels."""
        ip = self.ip(zone)
        host = hostname(ip)
        name = "fargate-" + host
        labels = {
            "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
            "eks.amazonaws.com/compute-type": "fargate",
            "failure-domain.beta.kubernetes.io/region": REGION, "failure-domain.beta.kubernetes.io/zone": zone,
            "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": host, "kubernetes.io/os": "linux",
            "topology.kubernetes.io/region": REGION, "topology.kubernetes.io/zone": zone,
        }
        capacity = {"cpu": "2", "ephemeral-storage": "30787492Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
                    "memory": f"{3977000 + self.rng.randrange(9000)}Ki", "pods": "1"}
        kubelet = self.era.kubelet.rsplit("-", 1)[0] + "-f4dc2c0"   # Fargate builds its own kubelet
        node = self.add({
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": self.meta(name, created, labels=labels, annotations={
                "node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"}),
            "spec": {"providerID": f"aws:///{zone}/{self.hex(10)}-{self.hex(32)}/{name}",
                     "taints": [{"effect": "NoSchedule", "key": "eks.amazonaws.com/compute-type", "value": "fargate"}]},
            "status": {
                "addresses": [{"address": ip, "type": "InternalIP"}, {"address": host, "type": "InternalDNS"},
                              {"address": host, "type": "Hostname"}],
                "allocatable": dict(capacity, **{"ephemeral-storage": "28373752581"}),
                "capacity": capacity,
                "conditions": self.node_conditions(created, later(created, 4)),
                "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                "nodeInfo": {"architecture": "amd64", "bootID": self.uid(),
                             "containerRuntimeVersion": "containerd://1.6.6",
                             "kernelVersion": "4.14.314-237.533.amzn2.x86_64",
                             "kubeProxyVersion": kubelet, "kubeletVersion": kubelet,
                             "machineID": "", "operatingSystem": "linux", "osImage": "Amazon Linux 2",
                             "systemUUID": self.system_uuid()},
            },
        })
        facts = NodeFacts(name, ip, zone, "fargate", node)
        self.nodes[name] = facts
        return facts

    # pods ---------------------------------------------------------------------------
    def add_pod(self, template: dict, *, namespace: str, name: str, created: datetime, owner: dict | None,
                node: NodeFacts | None, scheduled: datetime | None = None, pending_message: str | None = None,
                extra_labels: dict | None = None) -> dict:
        """A pod made from ``template``: Running on ``node``, or Pending when node is None."""
        spec = copy.deepcopy(template["spec"])
        labels = dict(template["metadata"].get("labels", {}), **(extra_labels or {}))
        annotations = dict(template["metadata"].get("annotations", {}))
        volume = f"kube-api-access-{self.suffix()}"
        for c in spec["containers"] + spec.get("initContainers", []):
            c.setdefault("volumeMounts", []).append(
                {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": volume, "readOnly": True})
        spec.setdefault("serviceAccount", "default")
        spec.setdefault("serviceAccountName", "default")
        is_daemon = bool(owner) and owner["kind"] == "DaemonSet"
        spec["tolerations"] = spec.get("tolerations", []) + ([] if is_daemon else DEFAULT_TOLERATIONS)
        spec["volumes"] = spec.get("volumes", []) + [{"name": volume, "projected": {"defaultMode": 420, "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
            {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                                        "path": "namespace"}]}}]}}]
        spec["enableServiceLinks"] = True
        spec["preemptionPolicy"] = "PreemptLowerPriority"
        spec["priority"] = PRIORITIES.get(spec.get("priorityClassName"), 0)
        if node:
            spec["nodeName"] = node.name
        qos = qos_class(spec["containers"])
        if node is None:
            status = {"conditions": [{"lastProbeTime": None, "lastTransitionTime": iso(created),
                                      "message": pending_message, "reason": "Unschedulable", "status": "False",
                                      "type": "PodScheduled"}],
                      "phase": "Pending", "qosClass": qos}
        else:
            status = self.running_status(spec, node, scheduled or created, qos)
        return self.add({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": self.meta(name, created, namespace, labels=labels, annotations=annotations,
                                  generateName=name[: name.rfind("-") + 1] if owner else None,
                                  ownerReferences=[owner] if owner else None),
            "spec": spec, "status": status})

    def running_status(self, spec: dict, node: NodeFacts, scheduled: datetime, qos: str) -> dict:
        started = later(scheduled, 1)
        running = later(scheduled, 2 + self.rng.randrange(6))
        # hostNetwork pods and Fargate pods share the node's address; the rest get a
        # secondary IP from the VPC CNI in the node's subnet.
        pod_ip = node.ip if spec.get("hostNetwork") or node.compute == "fargate" else self.ip(node.zone)
        def cond(kind: str, when: datetime) -> dict:
            return {"lastProbeTime": None, "lastTransitionTime": iso(when), "status": "True", "type": kind}
        conditions = [cond("Initialized", running if spec.get("initContainers") else started),
                      cond("Ready", running), cond("ContainersReady", running), cond("PodScheduled", scheduled)]
        if self.era.new_pod_conditions:
            conditions.insert(0, cond("PodReadyToStartContainers", running))
        status = {
            "conditions": conditions,
            "containerStatuses": [self.container_status(c, running) for c in spec["containers"]],
            "hostIP": node.ip,
            "phase": "Running",
            "podIP": pod_ip,
            "podIPs": [{"ip": pod_ip}],
            "qosClass": qos,
            "startTime": iso(started),
        }
        if spec.get("initContainers"):
            status["initContainerStatuses"] = [self.container_status(c, started, finished=True)
                                               for c in spec["initContainers"]]
        if self.era.new_pod_conditions:
            status["hostIPs"] = [{"ip": node.ip}]
        return status

    def container_status(self, c: dict, when: datetime, finished: bool = False) -> dict:
        repo = c["image"].split("@")[0].rsplit(":", 1)[0]
        cid = "containerd://" + self.hex(64)
        state = ({"terminated": {"containerID": cid, "exitCode": 0, "finishedAt": iso(when), "reason": "Completed",
                                 "startedAt": iso(later(when, -1))}}
                 if finished else {"running": {"startedAt": iso(when)}})
        return {"containerID": cid, "image": c["image"], "imageID": f"{repo}@sha256:{self.hex(64)}",
                "lastState": {}, "name": c["name"], "ready": not finished, "restartCount": 0,
                "started": not finished, "state": state}

    # workloads ----------------------------------------------------------------------
    def add_deployment(self, namespace: str, name: str, template: dict, *, created: datetime,
                       placements: list[tuple[NodeFacts | None, datetime | None]],
                       pending_message: str | None = None, pod_suffixes: tuple = (),
                       template_hash: str | None = None, generation: int = 1, labels: dict | None = None,
                       pod_created: list[datetime] | None = None) -> list[dict]:
        """Deployment -> ReplicaSet -> pods, linked by controller owner references,
        with status counts that match the pods.

        ``placements`` holds one (node, scheduled-at) pair per replica; a node of
        None makes that replica Pending with ``pending_message``. The first
        ``pod_suffixes`` name the first replicas; the rest get random suffixes."""
        replicas = len(placements)
        template_hash = template_hash or self.template_hash()
        selector = {"matchLabels": dict(template["metadata"]["labels"])}
        dep_meta = self.meta(name, created, namespace, generation=generation, labels=labels,
                             annotations={"deployment.kubernetes.io/revision": "1"})
        rs_name = f"{name}-{template_hash}"
        rs_template = copy.deepcopy(template)
        rs_template["metadata"]["labels"]["pod-template-hash"] = template_hash
        rs_meta = self.meta(rs_name, created, namespace, generation=generation,
                            labels=dict(rs_template["metadata"]["labels"]),
                            annotations={"deployment.kubernetes.io/desired-replicas": str(replicas),
                                         "deployment.kubernetes.io/max-replicas": str(replicas + max_surge(replicas)),
                                         "deployment.kubernetes.io/revision": "1"},
                            ownerReferences=[controller_ref("apps/v1", "Deployment", name, dep_meta["uid"])])
        ready = sum(1 for node, _ in placements if node is not None)
        last_change = max([when for node, when in placements if node is not None] + [created])
        available = ready >= replicas - max_unavailable(replicas)
        progressing = ({"reason": "NewReplicaSetAvailable",
                        "message": f'ReplicaSet "{rs_name}" has successfully progressed.'}
                       if ready == replicas else
                       {"reason": "ReplicaSetUpdated", "message": f'ReplicaSet "{rs_name}" is progressing.'})
        conditions = [
            {"lastTransitionTime": iso(last_change if available else created), "lastUpdateTime": iso(last_change),
             "message": ("Deployment has minimum availability." if available
                         else "Deployment does not have minimum availability."),
             "reason": "MinimumReplicasAvailable" if available else "MinimumReplicasUnavailable",
             "status": "True" if available else "False", "type": "Available"},
            {"lastTransitionTime": iso(created), "lastUpdateTime": iso(last_change), "status": "True",
             "type": "Progressing", **progressing},
        ]
        dep_status = {"availableReplicas": ready, "conditions": conditions, "observedGeneration": generation,
                      "readyReplicas": ready, "replicas": replicas, "updatedReplicas": replicas}
        if ready < replicas:
            dep_status["unavailableReplicas"] = replicas - ready
        rs_selector = {"matchLabels": dict(selector["matchLabels"], **{"pod-template-hash": template_hash})}
        self.add({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": dep_meta,
                  "spec": {"progressDeadlineSeconds": 600, "replicas": replicas, "revisionHistoryLimit": 10,
                           "selector": selector,
                           "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"},
                                        "type": "RollingUpdate"},
                           "template": template},
                  "status": dep_status})
        self.add({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": rs_meta,
                  "spec": {"replicas": replicas, "selector": rs_selector, "template": rs_template},
                  "status": {"availableReplicas": ready, "fullyLabeledReplicas": replicas,
                             "observedGeneration": generation, "readyReplicas": ready, "replicas": replicas}})
        owner = controller_ref("apps/v1", "ReplicaSet", rs_name, rs_meta["uid"])
        names = list(pod_suffixes) + [self.suffix() for _ in range(replicas - len(pod_suffixes))]
        return [self.add_pod(rs_template, namespace=namespace, name=f"{rs_name}-{suffix}",
                             created=pod_created[i] if pod_created else created, owner=owner, node=node,
                             scheduled=when, pending_message=pending_message)
                for i, ((node, when), suffix) in enumerate(zip(placements, names))]

    def add_daemonset(self, name: str, template: dict, *, created: datetime, host_network: bool,
                      labels: dict) -> None:
        """A kube-system DaemonSet; :meth:`add_daemon_pods` adds it and its pods."""
        self.daemonsets.append(DaemonSetSpec(name, self.uid(), template, host_network, created, labels))

    def add_daemon_pods(self) -> None:
        """One pod per DaemonSet on every EC2 node, pinned the way the DaemonSet
        controller pins it (a required nodeAffinity term matchFields metadata.name),
        then the DaemonSet objects with counts matching those pods."""
        ec2_nodes = [n for n in self.nodes.values() if n.compute != "fargate"]
        for ds in self.daemonsets:
            revision = self.template_hash()
            owner = controller_ref("apps/v1", "DaemonSet", ds.name, ds.uid)
            for node in ec2_nodes:
                pod_tpl = copy.deepcopy(ds.template)
                pod_tpl["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchFields": [
                        {"key": "metadata.name", "operator": "In", "values": [node.name]}]}]}}}
                pod_tpl["spec"]["tolerations"] = (pod_tpl["spec"].get("tolerations", [])
                                                  + daemonset_tolerations(ds.host_network))
                when = max(ds.created, later(node.created, 2))
                self.add_pod(pod_tpl, namespace="kube-system", name=f"{ds.name}-{self.suffix()}", created=when,
                             owner=owner, node=node, scheduled=when,
                             extra_labels={"controller-revision-hash": revision, "pod-template-generation": "1"})
            count = len(ec2_nodes)
            self.add({"apiVersion": "apps/v1", "kind": "DaemonSet",
                      "metadata": {"annotations": {"deprecated.daemonset.template.generation": "1"},
                                   "creationTimestamp": iso(ds.created), "generation": 1, "labels": ds.labels,
                                   "name": ds.name, "namespace": "kube-system", "resourceVersion": self.rv(),
                                   "uid": ds.uid},
                      "spec": {"revisionHistoryLimit": 10,
                               "selector": {"matchLabels": {k: v for k, v in ds.template["metadata"]["labels"].items()
                                                            if k in ("k8s-app", "app")}},
                               "template": ds.template,
                               "updateStrategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": "10%"},
                                                  "type": "RollingUpdate"}},
                      "status": {"currentNumberScheduled": count, "desiredNumberScheduled": count,
                                 "numberAvailable": count, "numberMisscheduled": 0, "numberReady": count,
                                 "observedGeneration": 1, "updatedNumberScheduled": count}})

    def add_pdb(self, namespace: str, name: str, selector: dict, *, created: datetime, healthy: int,
                min_available: int | None = None, max_unavailable: int | None = None,
                labels: dict | None = None) -> None:
        """A policy/v1 PDB whose status the disruption controller would have written."""
        desired = min_available if min_available is not None else healthy - max_unavailable
        allowed = max(0, healthy - desired)
        spec: dict = {"selector": {"matchLabels": selector}}
        if min_available is not None:
            spec["minAvailable"] = min_available
        else:
            spec["maxUnavailable"] = max_unavailable
        self.add({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                  "metadata": self.meta(name, created, namespace, generation=1, labels=labels),
                  "spec": spec,
                  "status": {"conditions": [{"lastTransitionTime": iso(later(created, 30)), "message": "",
                                             "observedGeneration": 1,
                                             "reason": "SufficientPods" if allowed else "InsufficientPods",
                                             "status": "True" if allowed else "False", "type": "DisruptionAllowed"}],
                             "currentHealthy": healthy, "desiredHealthy": desired, "disruptionsAllowed": allowed,
                             "expectedPods": healthy, "observedGeneration": 1}})

    # events -------------------------------------------------------------------------
    def add_event(self, *, involved: dict, reason: str, message: str, first: datetime, last: datetime | None = None,
                  count: int = 1, type_: str = "Normal", component: str, instance: str = "") -> None:
        """A core/v1 Event. Events about cluster-scoped objects live in "default"."""
        namespace = involved.get("namespace", "default")
        self.add({"apiVersion": "v1", "count": count, "eventTime": None, "firstTimestamp": iso(first),
                  "involvedObject": involved, "kind": "Event", "lastTimestamp": iso(last or first),
                  "message": message, "metadata": self.meta(f"{involved['name']}.{self.hex(16)}", first, namespace),
                  "reason": reason, "reportingComponent": component if instance else "",
                  "reportingInstance": instance, "source": {"component": component}, "type": type_})

    def failed_scheduling(self, pod: dict, message: str, *, first: datetime, last: datetime, count: int,
                          scheduler: str) -> None:
        self.add_event(involved=ref_of(pod), reason="FailedScheduling", message=message, first=first, last=last,
                       count=count, type_="Warning", component="default-scheduler", instance=scheduler)

    # output -------------------------------------------------------------------------
    def listing(self) -> dict:
        """The ``kind: List`` kubectl prints: kinds in the order asked for, then
        namespace/name within a kind."""
        def key(item: dict) -> tuple:
            meta = item["metadata"]
            return (self.KIND_ORDER.index(item["kind"]), meta.get("namespace", ""), meta["name"])
        return {"apiVersion": "v1", "items": sorted(self.items, key=key), "kind": "List",
                "metadata": {"resourceVersion": ""}}


def controller_ref(api_version: str, kind: str, name: str, uid: str) -> dict:
    return {"apiVersion": api_version, "blockOwnerDeletion": True, "controller": True, "kind": kind,
            "name": name, "uid": uid}


def ref_of(item: dict) -> dict:
    meta = item["metadata"]
    ref = {"apiVersion": item["apiVersion"], "kind": item["kind"], "name": meta["name"],
           "resourceVersion": meta["resourceVersion"], "uid": meta["uid"]}
    if "namespace" in meta:
        ref["namespace"] = meta["namespace"]
    return ref


def max_surge(replicas: int) -> int:
    return -(-replicas * 25 // 100)        # the default 25%, rounded up


def max_unavailable(replicas: int) -> int:
    return replicas * 25 // 100            # the default 25%, rounded down


PRIORITIES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000, "overprovisioning": -10}


# --------------------------------------------------------------------------------------
# Add-ons every cluster in these stories runs
# --------------------------------------------------------------------------------------
def add_node_daemonsets(c: Cluster, created: datetime) -> None:
    """aws-node (VPC CNI), kube-proxy and the EBS CSI node plugin; all keep off Fargate."""
    era = c.era
    not_fargate = expr("eks.amazonaws.com/compute-type", "NotIn", ["fargate"])
    linux_any_arch = (expr("kubernetes.io/os", "In", ["linux"]), expr("kubernetes.io/arch", "In", ["amd64", "arm64"]))
    cni = [container("aws-node", f"amazon-k8s-cni:{era.cni}", requests={"cpu": "25m"},
                     ports=[{"containerPort": 61678, "hostPort": 61678, "name": "metrics", "protocol": "TCP"}])]
    if era.node_agent:
        cni.append(container("aws-eks-nodeagent", f"amazon/aws-network-policy-agent:{era.node_agent}",
                             requests={"cpu": "25m"}))
    c.add_daemonset("aws-node", pod_template(
        {"app.kubernetes.io/instance": "aws-vpc-cni", "app.kubernetes.io/name": "aws-node", "k8s-app": "aws-node"},
        cni, host_network=True, priority_class="system-node-critical", service_account="aws-node",
        tolerations=[{"operator": "Exists"}], grace=10,
        affinity=required_node_affinity(*linux_any_arch, not_fargate),
        init_containers=[container("aws-vpc-cni-init", f"amazon-k8s-cni-init:{era.cni}", requests={"cpu": "25m"})]),
        created=created, host_network=True, labels={"k8s-app": "aws-node"})
    c.add_daemonset("kube-proxy", pod_template(
        {"k8s-app": "kube-proxy"},
        [container("kube-proxy", f"eks/kube-proxy:{era.kube_proxy}", requests={"cpu": "100m"},
                   extra={"command": ["kube-proxy", "--v=2", "--config=/var/lib/kube-proxy-config/config"]})],
        host_network=True, priority_class="system-node-critical", service_account="kube-proxy",
        tolerations=[{"operator": "Exists"}], affinity=required_node_affinity(*linux_any_arch, not_fargate)),
        created=created, host_network=True, labels={"eks.amazonaws.com/component": "kube-proxy", "k8s-app": "kube-proxy"})
    csi = {"cpu": "10m", "memory": "40Mi"}
    c.add_daemonset("ebs-csi-node", pod_template(
        {"app": "ebs-csi-node", "app.kubernetes.io/component": "csi-driver", "app.kubernetes.io/name": "aws-ebs-csi-driver"},
        [container("ebs-plugin", f"ebs-csi-driver/aws-ebs-csi-driver:{era.ebs_csi}", requests=csi,
                   limits={"memory": "256Mi"}, args=["node", "--endpoint=$(CSI_ENDPOINT)", "--logging-format=text", "--v=2"]),
         container("node-driver-registrar", "eks-distro/kubernetes-csi/node-driver-registrar:v2.10.0-eks-1-29-5",
                   requests=csi, limits={"memory": "256Mi"}),
         container("liveness-probe", "eks-distro/kubernetes-csi/livenessprobe:v2.12.0-eks-1-29-5",
                   requests=csi, limits={"memory": "256Mi"})],
        priority_class="system-node-critical", service_account="ebs-csi-node-sa",
        tolerations=[{"operator": "Exists"}], node_selector={"kubernetes.io/os": "linux"},
        affinity=required_node_affinity(not_fargate)),
        created=created, host_network=False, labels={"app": "ebs-csi-node", "app.kubernetes.io/name": "aws-ebs-csi-driver"})


def coredns_template(era: Era) -> dict:
    return pod_template(
        {"eks.amazonaws.com/component": "coredns", "k8s-app": "kube-dns"},
        [container("coredns", f"eks/coredns:{era.coredns}", requests={"cpu": "100m", "memory": "70Mi"},
                   limits={"memory": "170Mi"}, args=["-conf", "/etc/coredns/Corefile"],
                   ports=[{"containerPort": 53, "name": "dns", "protocol": "UDP"},
                          {"containerPort": 53, "name": "dns-tcp", "protocol": "TCP"},
                          {"containerPort": 9153, "name": "metrics", "protocol": "TCP"}])],
        priority_class="system-cluster-critical", service_account="coredns",
        tolerations=[{"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"},
                     {"key": "CriticalAddonsOnly", "operator": "Exists"}],
        affinity={**required_node_affinity(expr("kubernetes.io/os", "In", ["linux"]),
                                           expr("kubernetes.io/arch", "In", ["amd64", "arm64"])),
                  "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                      {"podAffinityTerm": {"labelSelector": {"matchExpressions": [expr("k8s-app", "In", ["kube-dns"])]},
                                           "topologyKey": "kubernetes.io/hostname"}, "weight": 100}]}},
        extra={"dnsPolicy": "Default"})


COREDNS_LABELS = {"eks.amazonaws.com/component": "coredns", "k8s-app": "kube-dns"}


def karpenter_template(era: Era, *, nodegroup: str | None = None) -> dict:
    """The Karpenter chart's controller pod: required node affinity keeps it off
    the nodes it launched, and its two replicas never share a host."""
    pool_key = "karpenter.sh/provisioner-name" if era.karpenter_api == "v1alpha5" else "karpenter.sh/nodepool"
    terms = [expr(pool_key, "DoesNotExist")]
    if nodegroup:   # the getting-started guide pins it to the managed node group
        terms.append(expr("eks.amazonaws.com/nodegroup", "In", [nodegroup]))
    labels = {"app.kubernetes.io/instance": "karpenter", "app.kubernetes.io/name": "karpenter"}
    return pod_template(
        labels,
        [container("controller", f"{era.karpenter_image}@sha256:{'7a1c' * 16}",
                   requests={"cpu": "1", "memory": "1Gi"}, limits={"cpu": "1", "memory": "1Gi"},
                   ports=[{"containerPort": 8080, "name": "http-metrics", "protocol": "TCP"},
                          {"containerPort": 8081, "name": "http", "protocol": "TCP"},
                          {"containerPort": 8443, "name": "https-webhook", "protocol": "TCP"}],
                   extra={"livenessProbe": {"failureThreshold": 3, "httpGet": {"path": "/healthz", "port": "http",
                                                                               "scheme": "HTTP"},
                                            "initialDelaySeconds": 30, "periodSeconds": 10, "successThreshold": 1,
                                            "timeoutSeconds": 30}})],
        priority_class="system-cluster-critical", service_account="karpenter",
        tolerations=[{"key": "CriticalAddonsOnly", "operator": "Exists"}],
        affinity={**required_node_affinity(*terms),
                  "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                      {"labelSelector": {"matchLabels": labels}, "topologyKey": "kubernetes.io/hostname"}]}},
        spread=[{"labelSelector": {"matchLabels": labels}, "maxSkew": 1,
                 "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}])


def karpenter_deployment_labels(version: str) -> dict:
    return {"app.kubernetes.io/instance": "karpenter", "app.kubernetes.io/managed-by": "Helm",
            "app.kubernetes.io/name": "karpenter", "app.kubernetes.io/version": version.lstrip("v"),
            "helm.sh/chart": f"karpenter-{version}"}


def add_addon_pdbs(c: Cluster, *, coredns_created: datetime, karpenter_created: datetime) -> None:
    """The PDBs the CoreDNS add-on and the Karpenter chart install."""
    c.add_pdb("kube-system", "coredns", COREDNS_LABELS, created=coredns_created, healthy=2, max_unavailable=1,
              labels=COREDNS_LABELS)
    c.add_pdb("karpenter", "karpenter", {"app.kubernetes.io/instance": "karpenter",
                                         "app.kubernetes.io/name": "karpenter"},
              created=karpenter_created, healthy=2, max_unavailable=1,
              labels={"app.kubernetes.io/instance": "karpenter", "app.kubernetes.io/managed-by": "Helm",
                      "app.kubernetes.io/name": "karpenter"})


def pause(tag: str) -> str:
    return f"eks-distro/kubernetes/pause:{tag}"


# --------------------------------------------------------------------------------------
# Karpenter objects (v1beta1 and v1; the v1alpha5 ones are written inline in (a))
# --------------------------------------------------------------------------------------
def class_ref(api: str, name: str) -> dict:
    if api == "v1":
        return {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": name}
    return {"apiVersion": "karpenter.k8s.aws/v1beta1", "kind": "EC2NodeClass", "name": name}


def ec2nodeclass(c: Cluster, *, name: str, created: datetime, ami_family: str, discovery: dict,
                 tags: dict | None = None, archs: tuple = ("amd64", "arm64")) -> dict:
    api = c.era.karpenter_api
    spec: dict = {
        "metadataOptions": {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                            "httpPutResponseHopLimit": 1 if api == "v1" else 2, "httpTokens": "required"},
        "role": f"KarpenterNodeRole-{c.name}",
        "securityGroupSelectorTerms": [{"tags": discovery}],
        "subnetSelectorTerms": [{"tags": discovery}],
    }
    if api == "v1":
        spec["amiSelectorTerms"] = [{"alias": f"{ami_family.lower()}@latest"}]
    else:
        spec["amiFamily"] = ami_family
    if tags:
        spec["tags"] = tags
    status: dict = {
        "amis": [{"id": c.ami(), "name": c.era.ami_names[(ami_family, arch)],
                  "requirements": [expr("kubernetes.io/arch", "In", [arch])]} for arch in archs],
        "instanceProfile": f"{c.name}_{c.rng.randrange(10**18, 10**19)}",
        "securityGroups": [{"id": "sg-0" + c.hex(16), "name": f"eks-cluster-sg-{c.name}-{c.rng.randrange(10**9, 10**10)}"}],
        "subnets": [{"id": "subnet-0" + c.hex(16), "zone": zone} for zone in ZONES],
    }
    if api == "v1":
        for subnet in status["subnets"]:
            subnet["zoneID"] = ZONE_IDS[subnet["zone"]]
        since = iso(later(created, 3))
        status["conditions"] = [{"lastTransitionTime": since, "message": "", "observedGeneration": 1, "reason": kind,
                                 "status": "True", "type": kind}
                                for kind in ("AMIsReady", "InstanceProfileReady", "SecurityGroupsReady",
                                             "SubnetsReady", "ValidationSucceeded", "Ready")]
    return c.add({"apiVersion": f"karpenter.k8s.aws/{api}", "kind": "EC2NodeClass",
                  "metadata": c.meta(name, created, finalizers=["karpenter.k8s.aws/termination"], generation=1,
                                     annotations={"karpenter.k8s.aws/ec2nodeclass-hash": str(c.rng.getrandbits(63)),
                                                  "karpenter.k8s.aws/ec2nodeclass-hash-version":
                                                      "v3" if api == "v1" else "v2"}),
                  "spec": spec, "status": status})


def ami_of(node_class: dict, arch: str) -> str:
    return next(a["id"] for a in node_class["status"]["amis"] if a["requirements"][0]["values"] == [arch])


def nodepool(c: Cluster, *, name: str, created: datetime, labels: dict | None, requirements: list, limits: dict,
             disruption: dict, node_class: str) -> dict:
    """A NodePool; its status.resources is filled by :func:`set_pool_resources`."""
    api = c.era.karpenter_api
    template: dict = {"spec": {"nodeClassRef": class_ref(api, node_class), "requirements": requirements}}
    if labels:
        template["metadata"] = {"labels": labels}
    if api == "v1":
        template["spec"]["expireAfter"] = "720h"
    status: dict = {}
    if api == "v1":
        since = iso(later(created, 4))
        status["conditions"] = [{"lastTransitionTime": since, "message": "", "observedGeneration": 1, "reason": kind,
                                 "status": "True", "type": kind}
                                for kind in ("ValidationSucceeded", "NodeClassReady", "Ready")]
    return c.add({"apiVersion": f"karpenter.sh/{api}", "kind": "NodePool",
                  "metadata": c.meta(name, created, generation=1,
                                     annotations={"karpenter.sh/nodepool-hash": str(c.rng.getrandbits(63)),
                                                  "karpenter.sh/nodepool-hash-version": "v3" if api == "v1" else "v2"}),
                  "spec": {"disruption": disruption, "limits": limits, "template": template},
                  "status": status})


def set_pool_resources(c: Cluster, pool: dict, nodes: list[NodeFacts]) -> None:
    """NodePool/Provisioner status.resources: the summed capacity of its nodes."""
    cpu = pods = mem_ki = 0
    for node in nodes:
        cap = node.item["status"]["capacity"]
        cpu += int(cap["cpu"])
        pods += int(cap["pods"])
        mem_ki += int(cap["memory"].removesuffix("Ki"))
    resources = {"cpu": str(cpu), "ephemeral-storage": f"{20959212 * len(nodes)}Ki", "memory": f"{mem_ki}Ki",
                 "pods": str(pods)}
    if c.era.karpenter_api == "v1":
        resources["nodes"] = str(len(nodes))
    pool["status"]["resources"] = resources


def add_nodeclaim(c: Cluster, *, pool: dict, node: NodeFacts, type_name: str, requests: dict,
                  candidate_types: list[str], extra_conditions: tuple = ()) -> dict:
    """The NodeClaim (v1beta1 or v1) Karpenter made to launch ``node``. Its
    requirements are the NodePool's narrowed by the launch decision; the node's
    ownerReference points back at it."""
    it = itype(type_name)
    api = c.era.karpenter_api
    pool_name = pool["metadata"]["name"]
    node_meta = node.item["metadata"]
    created = later(node.created, -1)
    requirements = copy.deepcopy(pool["spec"]["template"]["spec"]["requirements"])
    requirements.append(expr("node.kubernetes.io/instance-type", "In", sorted(candidate_types)))
    requirements.append(expr("karpenter.sh/nodepool", "In", [pool_name]))
    for key, value in pool["spec"]["template"].get("metadata", {}).get("labels", {}).items():
        requirements.append(expr(key, "In", [value]))
    labels = {k: v for k, v in node_meta["labels"].items()
              if k.startswith(("karpenter.", "kubernetes.io/arch", "kubernetes.io/os", "node.kubernetes.io/",
                               "topology.kubernetes.io/"))
              or k in pool["spec"]["template"].get("metadata", {}).get("labels", {})}
    def cond(kind: str, when: datetime) -> dict:
        body = {"lastTransitionTime": iso(when), "status": "True", "type": kind}
        if api == "v1":
            body.update({"message": "", "observedGeneration": 1, "reason": kind})
        return body
    conditions = [cond("Initialized", node.ready), cond("Launched", later(created, 2)), cond("Ready", node.ready),
                  cond("Registered", later(node.ready, -8))] + [cond(kind, when) for kind, when in extra_conditions]
    spec = {"nodeClassRef": class_ref(api, pool["spec"]["template"]["spec"]["nodeClassRef"]["name"]),
            "requirements": requirements, "resources": {"requests": requests}}
    if api == "v1":
        spec["expireAfter"] = pool["spec"]["template"]["spec"]["expireAfter"]
    claim = c.add({
        "apiVersion": f"karpenter.sh/{api}",
        "kind": "NodeClaim",
        "metadata": c.meta(f"{pool_name}-{c.suffix()}", created,
                           annotations={k: v for k, v in node_meta["annotations"].items() if k.startswith("karpenter")}
                           | {"karpenter.k8s.aws/tagged": "true"},
                           finalizers=["karpenter.sh/termination"], generateName=f"{pool_name}-", generation=1,
                           labels=labels,
                           ownerReferences=[{"apiVersion": f"karpenter.sh/{api}", "blockOwnerDeletion": True,
                                             "kind": "NodePool", "name": pool_name, "uid": pool["metadata"]["uid"]}]),
        "spec": spec,
        "status": {
            # Karpenter's own estimate of the instance, not what the kubelet reported.
            "allocatable": {"cpu": it.karpenter_cpu, "ephemeral-storage": "17Gi", "memory": it.karpenter_memory,
                            "pods": str(it.max_pods)},
            "capacity": {"cpu": str(it.vcpu), "ephemeral-storage": "20Gi",
                         "memory": f"{int(it.memory_mib * 0.925)}Mi", "pods": str(it.max_pods)},
            "conditions": conditions,
            "imageID": node.item["metadata"]["labels"].get("karpenter.k8s.aws/instance-ami-id", node.ami_id),
            "nodeName": node.name,
            "providerID": node.item["spec"]["providerID"],
        },
    })
    if api == "v1":
        claim["status"]["lastPodEventTime"] = iso(later(c.captured, -c.rng.randrange(20, 300)))
    node_meta["ownerReferences"] = [{"apiVersion": f"karpenter.sh/{api}", "blockOwnerDeletion": True,
                                     "kind": "NodeClaim", "name": claim["metadata"]["name"],
                                     "uid": claim["metadata"]["uid"]}]
    return claim


# ======================================================================================
# (a) topology-spread -- seed 000, Karpenter v0.27 (v1alpha5), 2023-05-20
# ======================================================================================
#
# The operator ran `host-spread` (20 replicas, 1 CPU each) with two DoNotSchedule
# constraints -- kubernetes.io/hostname maxSkew 2 and topology.kubernetes.io/zone
# maxSkew 5 -- and saw 14 Running on seven EC2 nodes (2a x3, 2b x3, 2c x1). The post
# counts those nodes with `kubectl get node ... | grep -v fargate`: Karpenter itself
# runs on EKS Fargate, and those two Fargate nodes are what make the number 14.
#
# The arithmetic (kube-scheduler v1.26, PodTopologySpread with the default
# nodeAffinityPolicy=Honor and nodeTaintsPolicy=Ignore):
#   * Every node that carries both topology keys and passes the pod's node affinity
#     (host-spread has none) is counted as a spread domain -- INCLUDING the two
#     tainted Fargate nodes, which can never take the pod. Each is a hostname domain
#     holding 0 host-spread pods, so the hostname global minimum stays 0 for good.
#   * Hostname: a node holding n pods passes only if n + 1 - 0 <= 2, so every EC2
#     node stops at 2 pods: 7 nodes x 2 = 14, in whatever order pods and nodes came.
#   * Zone: a=6, b=6, c=2, minimum 2; one more in a or b gives 6 + 1 - 2 = 5 <= 5,
#     so the zone constraint is NOT what blocks (the post blames zone c; the numbers
#     say hostname). It would start blocking at a=b=7.
#   * kube-scheduler stops at the first failing filter per node, in the order
#     TaintToleration, NodeAffinity, NodeResourcesFit, ..., PodTopologySpread:
#       - the 2 Fargate nodes fail TaintToleration: untolerated taint
#         {eks.amazonaws.com/compute-type: fargate} (UnschedulableAndUnresolvable,
#         so preemption is "not helpful" there);
#       - the 2c node, an m5.xlarge launched earlier for the getting-started
#         `inflate`, fails NodeResourcesFit first: allocatable 3920m - daemonsets
#         155m (aws-node 25 + kube-proxy 100 + ebs-csi-node 30) - coredns 2x100m -
#         metrics-server 100m - inflate 1000m = 2465m before the test, room for
#         exactly two 1-CPU pods; after those two, 465m -> "Insufficient cpu";
#       - the six 2a/2b nodes (c5.2xlarge / m5.2xlarge, 7910m allocatable, 5755m
#         still free) fit, and fail PodTopologySpread: 2 + 1 - 0 = 3 > 2.
#   * Preemption: resource and spread failures are plain Unschedulable, so the
#     scheduler dry-runs preemption on those 7 nodes; host-spread has priority 0 and
#     nothing there runs lower, so each answers "No preemption victims found".
# So every one of the 6 Pending pods carries:
#   0/9 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint
#   {eks.amazonaws.com/compute-type: fargate}, 6 node(s) didn't match pod topology
#   spread constraints. preemption: 0/9 nodes are available: 2 Preemption is not
#   helpful for scheduling, 7 No preemption victims found for incoming pod..
# What-ifs the story invites: nodeTaintsPolicy: Honor (the Fargate nodes leave the
# domains, the hostname minimum becomes 2) or dropping the hostname constraint let
# zones a and b grow to 7 each (16 scheduled); the last 4 need new capacity in 2c.
#
# Timeline: 11:02:10 the Deployment is created; the 2c node takes 2 at once; Karpenter
# (which counts no Fargate domain) launches 3 nodes planned for 6 pods each, the
# scheduler gives each only 2, Karpenter launches 3 more for the 12 left, those take
# 2 each, and from 11:03:34 Karpenter logs the error quoted in the post.
def topology_spread() -> str:
    captured = utc("2023-05-20T11:05:12")
    era = ERA_2023_05
    c = Cluster("karptui-seed-topology-spread", name="myeks", era=era, captured=captured,
                subnets={"ap-northeast-2a": "192.168.11.0/24", "ap-northeast-2b": "192.168.12.0/24",
                         "ap-northeast-2c": "192.168.13.0/24"})
    cluster_born = utc("2023-05-20T09:12:40")
    karpenter_installed = utc("2023-05-20T09:48:05")
    applied = utc("2023-05-20T10:58:40")          # the Provisioner and AWSNodeTemplate
    test_start = utc("2023-05-20T11:02:10")

    prov = c.add({"apiVersion": "karpenter.sh/v1alpha5", "kind": "Provisioner",
                  "metadata": c.meta("default", applied, generation=1),
                  # As the post applied it, plus the two requirements v0.27's defaulting
                  # webhook adds when missing (capacity type and architecture).
                  "spec": {"consolidation": {"enabled": True}, "providerRef": {"name": "default"},
                           "requirements": [expr("karpenter.k8s.aws/instance-category", "In", ["t", "m", "c"]),
                                            expr("karpenter.sh/capacity-type", "In", ["on-demand"]),
                                            expr("kubernetes.io/arch", "In", ["amd64"])]},
                  "status": {}})
    subnets = [{"id": "subnet-0" + c.hex(16), "zone": zone} for zone in ZONES]
    c.add({"apiVersion": "karpenter.k8s.aws/v1alpha1", "kind": "AWSNodeTemplate",
           "metadata": c.meta("default", applied, generation=1),
           "spec": {"securityGroupSelector": {"karpenter.sh/discovery": "myeks"},
                    "subnetSelector": {"karpenter.sh/discovery": "myeks"}},
           "status": {"securityGroups": [{"id": "sg-0" + c.hex(16), "name": "eks-cluster-sg-myeks-1371492093"}],
                      "subnets": subnets}})
    # Karpenter v0.27 made the Provisioner the owner of the nodes it launched.
    owner = {"apiVersion": "karpenter.sh/v1alpha5", "blockOwnerDeletion": True, "kind": "Provisioner",
             "name": "default", "uid": prov["metadata"]["uid"]}
    ami = c.ami()   # amazon-eks-node-1.26-v20230513 in this region

    fargate = [c.add_fargate_node(zone=zone, created=later(karpenter_installed, 50 + i * 7))
               for i, zone in enumerate(("ap-northeast-2a", "ap-northeast-2b"))]
    c_node = c.add_node(zone="ap-northeast-2c", type_name="m5.xlarge", created=utc("2023-05-20T10:31:42"),
                        compute="karpenter", pool="default", owner=owner, ami_id=ami)
    batches = [
        (utc("2023-05-20T11:02:13"), [("ap-northeast-2a", "c5.2xlarge"), ("ap-northeast-2b", "m5.2xlarge"),
                                      ("ap-northeast-2a", "m5.2xlarge")]),
        (utc("2023-05-20T11:02:50"), [("ap-northeast-2b", "c5.2xlarge"), ("ap-northeast-2a", "c5.2xlarge"),
                                      ("ap-northeast-2b", "c5.2xlarge")]),
    ]
    launched = [[c.add_node(zone=zone, type_name=t, created=later(at, i // 2), compute="karpenter", pool="default",
                            owner=owner, ami_id=ami) for i, (zone, t) in enumerate(types)]
                for at, types in batches]
    ab_nodes = launched[0] + launched[1]
    set_pool_resources(c, prov, [c_node] + ab_nodes)
    add_node_daemonsets(c, cluster_born)

    # Add-ons on the 2c node, rescheduled there when the managed node group went away.
    c.add_deployment("kube-system", "coredns", coredns_template(era), created=cluster_born, template_hash="5fc8d4cdcf",
                     labels=COREDNS_LABELS, placements=[(c_node, utc("2023-05-20T10:32:31"))] * 2,
                     pod_created=[utc("2023-05-20T10:32:30")] * 2)
    metrics = pod_template({"k8s-app": "metrics-server"}, [container(
        "metrics-server", "metrics-server/metrics-server:v0.6.3", requests={"cpu": "100m", "memory": "200Mi"},
        args=["--cert-dir=/tmp", "--secure-port=4443", "--kubelet-use-node-status-port", "--metric-resolution=15s",
              "--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname"],
        ports=[{"containerPort": 4443, "name": "https", "protocol": "TCP"}])],
        priority_class="system-cluster-critical", service_account="metrics-server",
        node_selector={"kubernetes.io/os": "linux"})
    c.add_deployment("kube-system", "metrics-server", metrics, created=utc("2023-05-20T09:20:11"),
                     labels={"k8s-app": "metrics-server"}, placements=[(c_node, utc("2023-05-20T10:32:33"))],
                     pod_created=[utc("2023-05-20T10:32:30")])
    inflate = pod_template({"app": "inflate"}, [container("inflate", pause("3.7"), requests={"cpu": "1"})], grace=0)
    c.add_deployment("default", "inflate", inflate, created=utc("2023-05-20T10:30:58"), generation=3,
                     placements=[(c_node, utc("2023-05-20T10:32:20"))], pod_created=[utc("2023-05-20T10:31:02")])

    # Karpenter's two replicas, one Fargate node each (Fargate profile "karpenter").
    k_pods = c.add_deployment("karpenter", "karpenter", karpenter_template(era), created=karpenter_installed,
                              template_hash="6c8f9d7b5", labels=karpenter_deployment_labels("v0.27.3"),
                              placements=[(node, later(node.created, 8)) for node in fargate],
                              pod_created=[later(node.created, -40) for node in fargate],
                              pod_suffixes=("x2lqp", "mr8wd"))
    for pod in k_pods:   # what EKS's Fargate webhook and scheduler leave on them
        pod["metadata"]["annotations"] = {"CapacityProvisioned": "1vCPU 2GB",
                                          "Logging": "LoggingDisabled: LOGGING_CONFIGMAP_NOT_FOUND"}
        pod["metadata"]["labels"]["eks.amazonaws.com/fargate-profile"] = "karpenter"
        pod["spec"]["schedulerName"] = "fargate-scheduler"
        pod["spec"]["tolerations"].insert(0, {"effect": "NoSchedule", "key": "eks.amazonaws.com/compute-type",
                                              "operator": "Equal", "value": "fargate"})

    spread_tpl = pod_template(
        {"app": "host-spread"},
        [container("host-spread", pause("3.2"), requests={"cpu": "1", "memory": "256M"})],
        spread=[{"labelSelector": {"matchLabels": {"app": "host-spread"}}, "maxSkew": 2,
                 "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule"},
                {"labelSelector": {"matchLabels": {"app": "host-spread"}}, "maxSkew": 5,
                 "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"}])
    fargate_taint = untolerated_taint("eks.amazonaws.com/compute-type", "fargate")
    final = fit_error(9, {INSUFFICIENT_CPU: 1, fargate_taint: 2, SPREAD_MISMATCH: 6}, {NOT_HELPFUL: 2, NO_VICTIMS: 7}, era)
    # While the first three launched nodes were registered but not Ready.
    waiting = fit_error(6, {INSUFFICIENT_CPU: 1, fargate_taint: 2, untolerated_taint("node.kubernetes.io/not-ready"): 3},
                        {NOT_HELPFUL: 5, NO_VICTIMS: 1}, era)
    placements = [(None, None)] * 6 + [(c_node, test_start)] * 2
    placements += [(node, later(node.ready, 1)) for node in ab_nodes for _ in range(2)]
    pods = c.add_deployment("default", "host-spread", spread_tpl, created=test_start, template_hash="fbbf7c9d9",
                            pending_message=final, placements=placements,
                            pod_suffixes=("x4lfd", "bh2ns", "4b7tq", "8lfzx", "9q6kw", "cvx5p"))
    scheduler = "default-scheduler-ip-10-0-61-12.ap-northeast-2.compute.internal"
    first_ready = min(node.ready for node in launched[0])
    last_ready = max(node.ready for node in launched[1])
    for i, pod in enumerate(pods):
        if pod["status"]["phase"] == "Pending" or pod["spec"]["nodeName"] != c_node.name:
            c.failed_scheduling(pod, waiting, first=later(test_start, 4), last=later(first_ready, -1), count=2,
                                scheduler=scheduler)
        if pod["status"]["phase"] == "Pending":
            c.failed_scheduling(pod, final, first=later(last_ready, 2), last=later(captured, -21 - i * 3),
                                count=4 + i % 2, scheduler=scheduler)
    c.add_event(involved=ref_of(c.find("Deployment", "host-spread")), reason="ScalingReplicaSet",
                message="Scaled up replica set host-spread-fbbf7c9d9 to 20", first=test_start,
                component="deployment-controller")

    c.add_daemon_pods()
    add_addon_pdbs(c, coredns_created=cluster_born, karpenter_created=karpenter_installed)
    return render_karptui_snapshot({
        "name": "topology-spread", "capturedAt": iso(captured),
        "context": "user-linuxer@myeks.ap-northeast-2.eksctl.io", "cluster": "myeks", "karptuiVersion": "0.1.0",
        "kubernetesVersion": era.kubelet, "logs_source": f"karpenter/{k_pods[0]['metadata']['name']}/controller",
        "logs_text": karpenter_v027_log(c, launched, batches, subnets)}, c.listing())


def karpenter_v027_log(c: Cluster, launched: list[list[NodeFacts]], batches: list, subnets: list) -> str:
    """Karpenter v0.27 controller output around the test, in its zap console
    format: time, LEVEL, logger, message and JSON context, separated by TABs."""
    rows: list[str] = []
    def log(when: str, level: str, logger: str, message: str, context: str = "") -> None:
        rows.append("\t".join((when, level, logger, message,
                               '{"commit": "d7e22b1-dirty"' + (", " + context if context else "") + "}")))
    def cannot_schedule(when: str, zone: str, pod: str) -> None:
        log(when, "ERROR", "controller.provisioner",
            'Could not schedule pod, incompatible with provisioner "default", no instance type satisfied resources '
            '{"cpu":"1","memory":"256M","pods":"1"} and requirements karpenter.k8s.aws/instance-category In [c m t], '
            "kubernetes.io/os In [linux], kubernetes.io/arch In [amd64], karpenter.sh/provisioner-name In [default], "
            f"karpenter.sh/capacity-type In [on-demand], topology.kubernetes.io/zone In [{zone}]",
            f'"pod": "default/host-spread-fbbf7c9d9-{pod}"')
    subnet_list = ", ".join(f'"{s["id"]} ({s["zone"]})"' for s in subnets)
    log("2023-05-20T10:58:41.027Z", "DEBUG", "controller.awsnodetemplate", "discovered subnets",
        f'"awsnodetemplate": "default", "subnets": [{subnet_list}]')
    # Each launch requests its pods plus the 155m / 120Mi / 3 pods of daemonsets:
    # 6 x (1 CPU, 256M) then 4 x (1 CPU, 256M); 256M x n + 120Mi printed in bytes.
    rounds = (("2023-05-20T11:02:11", 18, 6, '{"cpu":"6155m","memory":"1661829120","pods":"9"}', "and 38 other(s)"),
              ("2023-05-20T11:02:49", 12, 4, '{"cpu":"4155m","memory":"1149829120","pods":"7"}', "and 38 other(s)"))
    for (stamp, pending, per_node, requests, more), nodes, (at, types) in zip(rounds, launched, batches):
        log(f"{stamp}.391Z", "INFO", "controller.provisioner", "found provisionable pod(s)", f'"pods": {pending}')
        log(f"{stamp}.392Z", "INFO", "controller.provisioner", "computed new node(s) to fit pod(s)",
            f'"nodes": {len(nodes)}, "pods": {pending}')
        for _ in nodes:
            log(f"{stamp}.393Z", "INFO", "controller.provisioner",
                f"launching node with {per_node} pods requesting {requests} from types "
                f"t3a.2xlarge, c5a.2xlarge, c6a.2xlarge, t3.2xlarge, c5.2xlarge {more}", '"provisioner": "default"')
        if stamp.endswith("11"):
            log(f"{stamp}.611Z", "DEBUG", "controller.provisioner.cloudprovider", "created launch template",
                f'"provisioner": "default", "launch-template-name": "karpenter.k8s.aws/{c.rng.getrandbits(63)}", '
                f'"launch-template-id": "lt-0{c.hex(16)}"')
        for i, (node, (zone, type_name)) in enumerate(zip(nodes, types)):
            it = itype(type_name)
            capacity = ('{"cpu":"%d","ephemeral-storage":"20Gi","memory":"%dMi","pods":"%d"}'
                        % (it.vcpu, int(it.memory_mib * 0.925), it.max_pods))
            log(f"{iso(later(at, i // 2))[:-1]}.{204 + i * 137:03d}Z", "INFO", "controller.provisioner.cloudprovider",
                "launched instance",
                f'"provisioner": "default", "id": "{node.instance_id}", "hostname": "{node.name}", '
                f'"instance-type": "{type_name}", "zone": "{zone}", "capacity-type": "on-demand", "capacity": {capacity}')
    log("2023-05-20T11:03:34.801Z", "INFO", "controller.provisioner", "found provisionable pod(s)", '"pods": 6')
    cannot_schedule("2023-05-20T11:03:34.806Z", "ap-northeast-2a", "x4lfd")   # the line quoted in the post
    cannot_schedule("2023-05-20T11:03:34.807Z", "ap-northeast-2b", "bh2ns")
    log("2023-05-20T11:04:06.442Z", "DEBUG", "controller.deprovisioning", "discovered subnets",
        f'"subnets": [{subnet_list}]')
    log("2023-05-20T11:04:41.913Z", "INFO", "controller.provisioner", "found provisionable pod(s)", '"pods": 6')
    cannot_schedule("2023-05-20T11:04:41.917Z", "ap-northeast-2a", "x4lfd")
    return "".join(row + "\n" for row in rows)


# ======================================================================================
# (b) consolidation -- seed 001 (the Karpenter workshop), replayed on Karpenter v1
# ======================================================================================
#
# `inflate` (1 CPU, 1536Mi) went 3 -> 10 -> 6 replicas. At 3, Karpenter launched a
# c5a.xlarge in 2a (ip-192-168-118-56); at 10 it added a c5a.2xlarge in 2b
# (ip-192-168-40-236) for the other 7. Scaling to 6 removed 4 pods from the
# 2xlarge: the ReplicaSet controller deletes first the pods whose node holds more
# replicas of the set (7 there vs 3), so 3 + 3 remain. Captured 21 s later, before
# consolidation acted.
#   c5a.xlarge  3920m: daemonsets 180m + 3 inflate 3000m + checkpoint-worker 250m = 3430m
#   c5a.2xlarge 7910m: daemonsets 180m + 3 inflate 3000m + report-generator 200m = 3380m
# The xlarge's movable pods (3250m) fit in the 2xlarge's 4530m of room, so
# consolidation can delete the xlarge -- the post's outcome. What could stop it:
#   * inflate-pdb minAvailable 5 with 6 healthy: 1 disruption allowed, evictions go
#     one at a time but nothing is blocked (at 3 replicas it did block: see the
#     older DisruptionBlocked events on the xlarge).
#   * checkpoint-worker is a bare pod annotated karpenter.sh/do-not-evict, the
#     v1alpha5-era opt-out. Karpenter v1 no longer reads that annotation and evicts
#     controller-less pods, so it does NOT protect the xlarge (nothing recreates it).
#   * report-generator's pod carries karpenter.sh/do-not-disrupt, which v1 honours:
#     the 2xlarge is not a candidate (its DisruptionBlocked events say so).
def consolidation() -> str:
    captured = utc("2024-09-10T02:20:21")
    era = ERA_2024_09
    c = Cluster("karptui-seed-consolidation", name="eksworkshop-eksctl", era=era, captured=captured,
                subnets={"ap-northeast-2a": "192.168.96.0/19", "ap-northeast-2b": "192.168.32.0/19",
                         "ap-northeast-2c": "192.168.160.0/19"})
    born = utc("2024-09-10T01:02:17")
    ng_created = utc("2024-09-10T01:14:52")
    karpenter_installed = utc("2024-09-10T01:31:08")
    applied = utc("2024-09-10T01:58:30")
    scale3, scale10, scale6 = utc("2024-09-10T02:05:00"), utc("2024-09-10T02:10:00"), utc("2024-09-10T02:20:00")

    # The workshop's Provisioner relied on v1alpha5 defaulting for arch and os; a v1
    # NodePool states them, as Karpenter's getting-started NodePool does.
    pool = nodepool(c, name="default", created=applied, labels={"intent": "apps"},
                    requirements=[expr("kubernetes.io/arch", "In", ["amd64"]),
                                  expr("kubernetes.io/os", "In", ["linux"]),
                                  expr("karpenter.sh/capacity-type", "In", ["on-demand"]),
                                  expr("karpenter.k8s.aws/instance-size", "NotIn",
                                       ["nano", "micro", "small", "medium", "large"])],
                    limits={"cpu": "1000", "memory": "1000Gi"},
                    disruption={"budgets": [{"nodes": "10%"}], "consolidateAfter": "0s",
                                "consolidationPolicy": "WhenEmptyOrUnderutilized"},
                    node_class="default")
    node_class = ec2nodeclass(c, name="default", created=applied, ami_family="AL2023",
                              discovery={"alpha.eksctl.io/cluster-name": "eksworkshop-eksctl"},
                              tags={"IntentLabel": "apps", "KarpenerProvisionerName": "default",
                                    "NodeType": "karpenter-workshop"})
    mng = [c.add_node(zone=zone, type_name="m5.large", created=later(ng_created, i * 4), compute="nodegroup",
                      nodegroup="mng-od-m5large", ami_family="AL2023", ami_id="ami-0c1d3f5e7a9b2c4d6")
           for i, zone in enumerate(("ap-northeast-2a", "ap-northeast-2c"))]
    small = c.add_node(zone="ap-northeast-2a", type_name="c5a.xlarge", ip="192.168.118.56", created=later(scale3, 4),
                       compute="karpenter", pool="default", pool_labels={"intent": "apps"}, ami_family="AL2023",
                       ami_id=ami_of(node_class, "amd64"))
    large = c.add_node(zone="ap-northeast-2b", type_name="c5a.2xlarge", ip="192.168.40.236", created=later(scale10, 4),
                       compute="karpenter", pool="default", pool_labels={"intent": "apps"}, ami_family="AL2023",
                       ami_id=ami_of(node_class, "amd64"))
    set_pool_resources(c, pool, [small, large])
    add_node_daemonsets(c, born)
    c.add_deployment("kube-system", "coredns", coredns_template(era), created=born, template_hash="54d6f577c6",
                     labels=COREDNS_LABELS, placements=[(node, later(node.ready, 3)) for node in mng])
    c.add_deployment("karpenter", "karpenter", karpenter_template(era, nodegroup="mng-od-m5large"),
                     created=karpenter_installed, labels=karpenter_deployment_labels("1.0.1"),
                     placements=[(node, later(karpenter_installed, 2)) for node in mng])

    inflate = pod_template({"app": "inflate"}, [container("inflate", pause("3.7"),
                                                          requests={"cpu": "1", "memory": "1536Mi"})], grace=0)
    inflate_pods = c.add_deployment(
        "default", "inflate", inflate, created=utc("2024-09-10T02:01:12"), generation=4,
        placements=[(small, later(small.ready, 1))] * 3 + [(large, later(large.ready, 1))] * 3,
        pod_created=[scale3] * 3 + [scale10] * 3)
    report = pod_template({"app": "report-generator"},
                          [container("report-generator", pause("3.7"), requests={"cpu": "200m", "memory": "256Mi"})],
                          annotations={"karpenter.sh/do-not-disrupt": "true"})
    report_pod = c.add_deployment("default", "report-generator", report, created=utc("2024-09-10T02:12:03"),
                                  placements=[(large, utc("2024-09-10T02:12:04"))])[0]
    bare = pod_template({"app": "checkpoint-worker"},
                        [container("checkpoint-worker", pause("3.7"), requests={"cpu": "250m", "memory": "256Mi"})],
                        annotations={"karpenter.sh/do-not-evict": "true"})
    c.add_pod(bare, namespace="default", name="checkpoint-worker", created=utc("2024-09-10T02:07:40"), owner=None,
              node=small, scheduled=utc("2024-09-10T02:07:40"))
    c.add_daemon_pods()
    add_addon_pdbs(c, coredns_created=born, karpenter_created=karpenter_installed)
    c.add_pdb("default", "inflate-pdb", {"app": "inflate"}, created=utc("2024-09-10T02:01:20"), healthy=6,
              min_available=5)

    consolidatable = (("Consolidatable", later(captured, -19)),)
    claims = {
        small.name: add_nodeclaim(c, pool=pool, node=small, type_name="c5a.xlarge",
                                  requests=launch_requests(era, 3000, 3 * 1536, 3),
                                  candidate_types=["c5a.xlarge", "c6a.xlarge", "c5.xlarge", "c6i.xlarge", "m5a.xlarge"],
                                  extra_conditions=consolidatable),
        large.name: add_nodeclaim(c, pool=pool, node=large, type_name="c5a.2xlarge",
                                  requests=launch_requests(era, 7000, 7 * 1536, 7),
                                  candidate_types=["c5a.2xlarge", "c6a.2xlarge", "c5.2xlarge", "c6i.2xlarge",
                                                   "m5a.2xlarge"],
                                  extra_conditions=consolidatable),
    }

    deploy = c.find("Deployment", "inflate")
    rs_name = inflate_pods[0]["metadata"]["ownerReferences"][0]["name"]
    for when, text in ((scale3, f"Scaled up replica set {rs_name} to 3 from 0"),
                       (scale10, f"Scaled up replica set {rs_name} to 10 from 3"),
                       (scale6, f"Scaled down replica set {rs_name} to 6 from 10")):
        c.add_event(involved=ref_of(deploy), reason="ScalingReplicaSet", message=text, first=when,
                    component="deployment-controller")
    for pod, node in ((inflate_pods[0], small), (inflate_pods[3], large)):
        c.add_event(involved=ref_of(pod), reason="Nominated", component="karpenter",
                    message=f"Pod should schedule on: nodeclaim/{claims[node.name]['metadata']['name']}",
                    first=later(utc(pod["metadata"]["creationTimestamp"]), 1))
    for node, message, first, last, count in (
            (small, "Pdb prevents pod evictions (PodDisruptionBudget=default/inflate-pdb)",
             utc("2024-09-10T02:06:15"), utc("2024-09-10T02:09:52"), 8),
            (large, f'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/{report_pod["metadata"]["name"]})',
             utc("2024-09-10T02:12:14"), utc("2024-09-10T02:20:07"), 17)):
        for target in (node.item, claims[node.name]):
            c.add_event(involved=ref_of(target), reason="DisruptionBlocked", message=message, first=first,
                        last=last, count=count, component="karpenter")
    return render_list(c.listing())


# --------------------------------------------------------------------------------------
# Shared by (c) and (d): seed 004's cluster "myeks2" with a default and a team1 NodePool
# --------------------------------------------------------------------------------------
def team_cluster(uid_seed: str, era, captured) -> "Cluster":
    return Cluster(uid_seed, name="myeks2", era=era, captured=captured,
                   subnets={"ap-northeast-2a": "192.168.1.0/24", "ap-northeast-2b": "192.168.2.0/24",
                            "ap-northeast-2c": "192.168.3.0/24"})


def team_nodepools(c, default_applied, team1_applied, *, default_ami: str, expire: str | None,
                   default_disruption: dict) -> tuple:
    """The default NodePool (spot + on-demand, c/m/r) and seed 004's team1 NodePool, with node classes.

    ``expire`` is the v1beta1 ``disruption.expireAfter`` (None on v1, where it moved to the template).
    """
    expiry = {"expireAfter": expire} if expire else {}
    default_pool = nodepool(
        c, name="default", created=default_applied, labels=None,
        requirements=[expr("kubernetes.io/arch", "In", ["amd64"]), expr("kubernetes.io/os", "In", ["linux"]),
                      expr("karpenter.sh/capacity-type", "In", ["spot", "on-demand"]),
                      expr("karpenter.k8s.aws/instance-category", "In", ["c", "m", "r"]),
                      expr("karpenter.k8s.aws/instance-generation", "Gt", ["2"])],
        limits={"cpu": "1000"},
        disruption={"budgets": [{"nodes": "10%"}], **default_disruption, **expiry},
        node_class="default")
    team1_pool = nodepool(
        c, name="team1", created=team1_applied, labels={"team": "team1"},
        requirements=[expr("karpenter.sh/capacity-type", "In", ["on-demand"]),
                      expr("kubernetes.io/arch", "In", ["amd64", "arm64"])],
        limits={"cpu": "1000"},
        disruption={"budgets": [{"nodes": "10%"}], "consolidateAfter": "30s", "consolidationPolicy": "WhenEmpty",
                    **expiry},
        node_class="team1")
    discovery = {"karpenter.sh/discovery": "myeks2"}
    default_class = ec2nodeclass(c, name="default", created=default_applied, ami_family=default_ami,
                                 discovery=discovery)
    team1_class = ec2nodeclass(c, name="team1", created=team1_applied, ami_family="AL2", discovery=discovery,
                               tags={"KarpenerProvisionerName": "team1"})
    return default_pool, team1_pool, default_class, team1_class


# ======================================================================================
# (c) multi-nodepool -- seed 004's multi-provisioner half, Karpenter v0.35 (v1beta1)
# ======================================================================================
#
# NodePool team1 labels its nodes team=team1; `inflate` requires team In [team1].
# It was scaled 3 -> 5 two seconds before the capture, inside Karpenter's batching
# window, so no new NodeClaim exists yet.
#   team1 node t4g.xlarge 3920m: daemonsets 180m + 3 inflate 3000m = 3180m, 740m free
#     -> NodeResourcesFit: "Insufficient cpu" (plain Unschedulable; nothing with a
#     priority below 0 runs there -> "No preemption victims found").
#   2 managed-node-group nodes and 2 default-NodePool spot nodes have no team label
#     -> NodeAffinity, which runs before the resource check: "didn't match Pod's node
#     affinity/selector" (UnschedulableAndUnresolvable -> "Preemption is not helpful").
def multi_nodepool() -> str:
    captured = utc("2024-03-16T06:48:14")
    era = ERA_2024_03
    c = team_cluster("karptui-seed-multi-nodepool", era, captured)
    born = utc("2024-03-16T04:10:33")
    ng_created = utc("2024-03-16T04:22:05")
    karpenter_installed = utc("2024-03-16T05:02:47")
    default_pool, team1_pool, default_class, team1_class = team_nodepools(
        c, utc("2024-03-16T05:05:12"), utc("2024-03-16T06:27:51"), default_ami="AL2", expire="720h",
        default_disruption={"consolidationPolicy": "WhenUnderutilized"})

    mng = [c.add_node(zone=zone, type_name="m5.large", created=later(ng_created, i * 3), compute="nodegroup",
                      nodegroup="myeks2-ng", ami_id="ami-0e5a4b3c2d1f0a9b8")
           for i, zone in enumerate(("ap-northeast-2a", "ap-northeast-2b"))]
    spot = [c.add_node(zone=zone, type_name=t, created=utc(f"2024-03-16T05:41:{19 + i:02d}"), compute="karpenter",
                       pool="default", capacity_type="spot", ami_id=ami_of(default_class, "amd64"))
            for i, (zone, t) in enumerate((("ap-northeast-2a", "c6i.xlarge"), ("ap-northeast-2c", "m6a.xlarge")))]
    team1 = c.add_node(zone="ap-northeast-2b", type_name="t4g.xlarge", created=utc("2024-03-16T06:31:02"),
                       compute="karpenter", pool="team1", pool_labels={"team": "team1"},
                       ami_id=ami_of(team1_class, "arm64"))
    set_pool_resources(c, default_pool, spot)
    set_pool_resources(c, team1_pool, [team1])
    add_node_daemonsets(c, born)
    c.add_deployment("kube-system", "coredns", coredns_template(era), created=born, template_hash="77d9b6d8d9",
                     labels=COREDNS_LABELS, placements=[(node, later(node.ready, 3)) for node in mng])
    c.add_deployment("karpenter", "karpenter", karpenter_template(era, nodegroup="myeks2-ng"),
                     created=karpenter_installed, labels=karpenter_deployment_labels("0.35.1"),
                     placements=[(node, later(karpenter_installed, 3)) for node in mng])
    # Other teams' services on the default pool's spot nodes, alternating between them.
    spot_load = {node.name: [0, 0, 0] for node in spot}   # cpu m, memory Mi, pods
    for name, replicas, cpu, mem in (("frontend", 3, 500, 512), ("cart", 2, 250, 256)):
        tpl = pod_template({"app": name}, [container(name, f"shop/{name}:1.8.2",
                                                     requests={"cpu": f"{cpu}m", "memory": f"{mem}Mi"},
                                                     ports=[{"containerPort": 8080, "name": "http",
                                                             "protocol": "TCP"}])])
        targets = [spot[i % 2] for i in range(replicas)]
        for node in targets:
            spot_load[node.name] = [a + b for a, b in zip(spot_load[node.name], (cpu, mem, 1))]
        c.add_deployment("shop", name, tpl, created=utc("2024-03-16T05:40:55"),
                         placements=[(node, later(node.ready, 2)) for node in targets])

    inflate = pod_template({"app": "inflate"}, [container("inflate", pause("3.7"), requests={"cpu": "1"})], grace=0,
                           affinity=required_node_affinity(expr("team", "In", ["team1"])))
    scaled = later(captured, -2)
    message = fit_error(5, {INSUFFICIENT_CPU: 1, AFFINITY_MISMATCH: 4}, {NO_VICTIMS: 1, NOT_HELPFUL: 4}, era)
    first_three = utc("2024-03-16T06:30:58")
    pods = c.add_deployment("default", "inflate", inflate, created=utc("2024-03-16T06:28:40"), generation=3,
                            placements=[(team1, later(team1.ready, 1))] * 3 + [(None, None)] * 2,
                            pending_message=message, pod_created=[first_three] * 3 + [scaled] * 2)
    scheduler = "default-scheduler-ip-10-0-55-171.ap-northeast-2.compute.internal"
    for pod in pods[3:]:
        c.failed_scheduling(pod, message, first=scaled, last=later(scaled, 1), count=2, scheduler=scheduler)
    deploy = c.find("Deployment", "inflate")
    rs_name = pods[0]["metadata"]["ownerReferences"][0]["name"]
    c.add_event(involved=ref_of(deploy), reason="ScalingReplicaSet", message=f"Scaled up replica set {rs_name} to 3 from 0",
                first=first_three, component="deployment-controller")
    c.add_event(involved=ref_of(deploy), reason="ScalingReplicaSet", message=f"Scaled up replica set {rs_name} to 5 from 3",
                first=scaled, component="deployment-controller")
    c.add_daemon_pods()
    add_addon_pdbs(c, coredns_created=born, karpenter_created=karpenter_installed)

    for node in spot:
        add_nodeclaim(c, pool=default_pool, node=node, type_name=node.item["metadata"]["labels"][
                          "node.kubernetes.io/instance-type"],
                      requests=launch_requests(era, *spot_load[node.name]),
                      candidate_types=["c5.xlarge", "c5a.xlarge", "c6a.xlarge", "c6i.xlarge", "m5.xlarge", "m6a.xlarge",
                                       "m6i.xlarge", "r5.xlarge"])
    add_nodeclaim(c, pool=team1_pool, node=team1, type_name="t4g.xlarge", requests=launch_requests(era, 3000, 0, 3),
                  candidate_types=["t4g.xlarge", "c6g.xlarge", "c7g.xlarge", "m6g.xlarge", "t3a.xlarge"])
    return render_list(c.listing())


# ======================================================================================
# (d) overprovisioning -- seed 004's KEDA half (cron scale + pod anti-affinity), v1
# ======================================================================================
#
# `inflate` is the placeholder that keeps team1 capacity warm: priority class
# `overprovisioning` (-10), nodeAffinity team In [team1], and a required pod
# anti-affinity on kubernetes.io/hostname so each replica holds a node of its own.
# A KEDA cron trigger scaled it 3 -> 5 at :03; the capture is 9 s later.
#   3 team1 nodes (c6g.xlarge, 3920m): daemonsets 180m + team1-api 1500m + inflate
#     1000m = 2680m, 1240m free -> resources fit, then InterPodAffinity: "didn't
#     match pod anti-affinity rules" (Unschedulable; nothing below -10 runs there
#     -> "No preemption victims found").
#   2 managed-node-group nodes: no team label -> NodeAffinity: "didn't match Pod's
#     node affinity/selector" -> "Preemption is not helpful".
# When team1-api grows, its priority-0 pods preempt the placeholders: the point of
# the pattern, and a what-if away.
def overprovisioning() -> str:
    captured = utc("2024-09-21T07:03:09")
    era = ERA_2024_09
    c = team_cluster("karptui-seed-overprovisioning", era, captured)
    born = utc("2024-09-21T04:44:10")
    ng_created = utc("2024-09-21T04:57:31")
    karpenter_installed = utc("2024-09-21T05:20:02")
    team1_applied = utc("2024-09-21T05:57:41")
    default_pool, team1_pool, _, team1_class = team_nodepools(
        c, utc("2024-09-21T05:22:30"), team1_applied, default_ami="AL2023", expire=None,
        default_disruption={"consolidateAfter": "1m", "consolidationPolicy": "WhenEmptyOrUnderutilized"})
    c.add({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
           "description": "Placeholder pods that keep spare capacity warm; any real workload preempts them.",
           "globalDefault": False, "metadata": c.meta("overprovisioning", team1_applied, generation=1),
           "preemptionPolicy": "PreemptLowerPriority", "value": PRIORITIES["overprovisioning"]})

    mng = [c.add_node(zone=zone, type_name="m5.large", created=later(ng_created, i * 3), compute="nodegroup",
                      nodegroup="myeks2-ng", ami_family="AL2023", ami_id="ami-0a7c9e1b3d5f7a9c2")
           for i, zone in enumerate(("ap-northeast-2a", "ap-northeast-2c"))]
    team1 = [c.add_node(zone=zone, type_name="c6g.xlarge", created=utc(f"2024-09-21T06:03:{14 + i * 2:02d}"),
                        compute="karpenter", pool="team1", pool_labels={"team": "team1"}, ami_family="AL2",
                        ami_id=ami_of(team1_class, "arm64"))
             for i, zone in enumerate(ZONES)]
    set_pool_resources(c, default_pool, [])
    set_pool_resources(c, team1_pool, team1)
    add_node_daemonsets(c, born)
    c.add_deployment("kube-system", "coredns", coredns_template(era), created=born, template_hash="6b9575c64c",
                     labels=COREDNS_LABELS, placements=[(node, later(node.ready, 3)) for node in mng])
    c.add_deployment("karpenter", "karpenter", karpenter_template(era, nodegroup="myeks2-ng"),
                     created=karpenter_installed, labels=karpenter_deployment_labels("1.0.1"),
                     placements=[(node, later(karpenter_installed, 3)) for node in mng])
    api = pod_template({"app": "team1-api"},
                       [container("api", "team1/api:2.4.0", requests={"cpu": "1500m", "memory": "2Gi"},
                                  limits={"memory": "2Gi"},
                                  ports=[{"containerPort": 8080, "name": "http", "protocol": "TCP"}])],
                       node_selector={"team": "team1"})
    c.add_deployment("team1", "team1-api", api, created=utc("2024-09-21T06:02:48"),
                     placements=[(node, later(node.ready, 1)) for node in team1])
    inflate = pod_template(
        {"app": "inflate"}, [container("inflate", pause("3.7"), requests={"cpu": "1"})], grace=0,
        priority_class="overprovisioning",
        affinity={**required_node_affinity(expr("team", "In", ["team1"])),
                  "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                      {"labelSelector": {"matchExpressions": [expr("app", "In", ["inflate"])]},
                       "topologyKey": "kubernetes.io/hostname"}]}})
    scaled = utc("2024-09-21T07:03:00")
    message = fit_error(5, {AFFINITY_MISMATCH: 2, ANTI_AFFINITY_MISMATCH: 3}, {NOT_HELPFUL: 2, NO_VICTIMS: 3}, era)
    pods = c.add_deployment("default", "inflate", inflate, created=utc("2024-09-21T05:58:20"), generation=5,
                            placements=[(node, later(node.ready, 2)) for node in team1] + [(None, None)] * 2,
                            pending_message=message,
                            pod_created=[utc("2024-09-21T06:03:00")] * 3 + [scaled] * 2)
    scheduler = "default-scheduler-ip-10-0-83-249.ap-northeast-2.compute.internal"
    for pod in pods[3:]:
        c.failed_scheduling(pod, message, first=scaled, last=later(scaled, 2), count=2, scheduler=scheduler)
    rs_name = pods[0]["metadata"]["ownerReferences"][0]["name"]
    c.add_event(involved=ref_of(c.find("Deployment", "inflate")), reason="ScalingReplicaSet",
                message=f"Scaled up replica set {rs_name} to 5 from 3", first=scaled, component="deployment-controller")
    c.add_daemon_pods()
    add_addon_pdbs(c, coredns_created=born, karpenter_created=karpenter_installed)
    for node in team1:
        add_nodeclaim(c, pool=team1_pool, node=node, type_name="c6g.xlarge",
                      requests=launch_requests(era, 2500, 2048, 2),
                      candidate_types=["c6g.xlarge", "c7g.xlarge", "m6g.xlarge", "t4g.xlarge", "c6i.xlarge"])
    return render_list(c.listing())


# --------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------
class KubectlDumper(yaml.SafeDumper):
    """YAML the way kubectl prints it: sorted keys, sequences not indented under
    their key, no folding of long lines, and double quotes where quotes are needed."""

    def choose_scalar_style(self):
        style = super().choose_scalar_style()
        return '"' if style == "'" else style

    def ignore_aliases(self, data) -> bool:   # kubectl never writes anchors
        return True


def render_list(listing: dict) -> str:
    return yaml.dump(listing, Dumper=KubectlDumper, sort_keys=True, default_flow_style=False, width=100_000,
                     allow_unicode=True)


def render_karptui_snapshot(meta: dict, listing: dict) -> str:
    """The metadata document, then the List. The metadata is written by hand
    because the log text is a literal block with real TABs, which PyYAML would
    only emit as a double-quoted string full of escapes."""
    def scalar(value: str) -> str:
        return yaml.safe_dump(value, default_style='"', width=100_000).strip()
    log_lines = "".join(f"    {line}\n" for line in meta["logs_text"].splitlines())
    head = (
        "apiVersion: karptui/v1\n"
        "kind: KarptuiSnapshot\n"
        f"metadata: {{name: {meta['name']}}}\n"
        f"capturedAt: {scalar(meta['capturedAt'])}\n"
        f"context: {meta['context']}\n"
        f"cluster: {meta['cluster']}\n"
        f"karptuiVersion: {meta['karptuiVersion']}\n"
        f"kubernetesVersion: {meta['kubernetesVersion']}\n"
        "logs:\n"
        f"  source: {meta['logs_source']}\n"
        "  text: |\n"
        f"{log_lines}"
    )
    return head + "---\n" + render_list(listing)


SCENARIOS = {
    "topology-spread.yaml": topology_spread,
    "consolidation.yaml": consolidation,
    "multi-nodepool.yaml": multi_nodepool,
    "overprovisioning.yaml": overprovisioning,
}


def main() -> None:
    parser = argparse.ArgumentParser(description="Write karptui's bundled example snapshots.")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "snapshots"),
                        help="directory to write into (default: the repository's snapshots/)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for filename, build in SCENARIOS.items():
        (out / filename).write_text(build(), encoding="utf-8")
        print(f"wrote {out / filename}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Generate a large, synthetic but realistic EKS + Karpenter cluster dump.

Why this exists: karptui must open `kubectl get ... -A -o json|yaml` dumps of
big clusters quickly, and its simulator must stay fast on them.  Real dumps of
5,000-node clusters cannot be shared, so this script fabricates one whose
*shape* matches what kubectl prints (object sizes, owner chains, constraint
mix, pending pods with kube-scheduler's own wording), so load-time and
simulation benchmarks measure something close to reality.

    python bench/gen_cluster.py --nodes 5000 --pods 50000 --format json \\
        --out /tmp/big.json [--seed 1] [--pending-fraction 0.02] [--region us-east-1]

OUT ending in `.gz` is gzip-compressed; `--out -` writes to stdout.
Standard library only; PyYAML is needed only for `--format yaml`.

Import by file path and call `generate(nodes, pods, ...)` to get the
`kind: List` dict.  Treat the result as read-only: pods of one workload share
immutable sub-objects (labels, resources, tolerations, ...) to keep memory
low; `copy.deepcopy` it before editing.

Guarantees the benchmarks and tests may rely on:
- deterministic for a given seed and arguments (no wall clock, no set order);
- every running pod sits on a node whose allocatable cpu / memory / pods /
  nvidia.com/gpu are not exceeded by the effective requests of its pods
  (Kubernetes rules: max(init) vs sum(containers) + sidecars, plus overhead);
- running pods respect their node selectors, required node affinity, taints,
  hostPorts, required anti-affinity and DoNotSchedule spread constraints;
- pending pods carry a kube-scheduler FitError message computed from the
  final node state.
"""
# No `from __future__ import annotations`: with string annotations, @dataclass
# looks the module up in sys.modules, which fails when tests load this file
# by path without registering it.  Python >= 3.11 evaluates `X | None` fine.
import argparse
import gc
import gzip
import json
import math
import os
import random
import sys
import time
from dataclasses import dataclass, field

# A fixed "now" instead of the wall clock, so the same seed gives the same bytes.
BASE_TIME = 1748779200  # 2025-06-01T12:00:00Z
DAY = 86400

K8S_MINOR = "1.32"
# Mostly one patch level, some nodes a patch behind (not yet drifted), as in real fleets.
KUBELET_VERSIONS = ("v1.32.3-eks-473151a", "v1.32.3-eks-473151a", "v1.32.1-eks-5d632ec")
CLUSTER = "bench-cluster"

DEFAULT_FAMILIES = ("m5", "c5", "r5", "m6i", "c6i", "r6i", "m7i")
ARM_FAMILIES = ("m6g", "c6g", "r6g", "m7g")
GPU_FAMILIES = ("g5",)
SIZES = ("large", "xlarge", "2xlarge", "4xlarge")
# Smaller sizes dominate real fleets; 4xlarge is rarer.
SIZE_WEIGHTS = {"large": 3.0, "xlarge": 4.0, "2xlarge": 3.0, "4xlarge": 1.5}

# kube-scheduler's reason strings (plugin wording, so parsers see the real text).
R_UNSCHEDULABLE = "node(s) were unschedulable"
R_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
R_PORTS = "node(s) didn't have free ports for the requested pod ports"
R_SPREAD = "node(s) didn't match pod topology spread constraints"
R_ANTI = "node(s) didn't match pod anti-affinity rules"
R_TOO_MANY = "Too many pods"
P_NOT_HELPFUL = "Preemption is not helpful for scheduling"
P_NO_VICTIMS = "No preemption victims found for incoming pod"
CORDON_TAINT = "node.kubernetes.io/unschedulable"

APP_NAMESPACES = (
    "default", "payments", "checkout", "catalog", "search", "orders",
    "inventory", "shipping", "identity", "notifications", "analytics",
    "data-pipeline", "observability", "ingress", "media", "recommendations",
    "ml-serving",
)
SYSTEM_NAMESPACES = ("kube-system", "karpenter", "kube-node-lease", "kube-public")
APP_NOUNS = (
    "api", "web", "worker", "gateway", "frontend", "backend", "consumer",
    "scheduler", "cache", "indexer", "renderer", "auth", "ledger", "router",
    "sync", "exporter", "processor", "publisher", "validator", "resizer",
)
APP_PREFIXES = (
    "order", "cart", "user", "price", "stock", "geo", "mail", "report",
    "event", "session", "token", "feed", "image", "video", "rank", "audit",
)
SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # Kubernetes' rand.SafeEncodeString set

# Pod overhead (cpu m, memory Mi) of the kata-qemu RuntimeClass some pods use.
KATA_OVERHEAD = (250, 160)
NODECLASS_HASH = "13529846153410395744"

PRIORITY_CLASSES = {
    "system-node-critical": 2000001000,
    "system-cluster-critical": 2000000000,
    "high-priority": 100000,
    "low-priority": -100,
}

NOT_READY_TOLERATIONS = (
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready",
     "operator": "Exists", "tolerationSeconds": 300},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable",
     "operator": "Exists", "tolerationSeconds": 300},
)


# --------------------------------------------------------------------------
# Instance catalog
# --------------------------------------------------------------------------

@dataclass
class InstanceType:
    name: str
    labels: dict          # karpenter.k8s.aws/instance-* etc., as Karpenter sets them
    allocatable: dict     # quantity strings, as the node reports them
    cpu_m: int
    mem_mi: int
    pods: int
    gpus: int
    vcpu: int
    mem_mib: int
    arch: str


def _cpu_m(q) -> int:
    q = str(q)
    return int(q[:-1]) if q.endswith("m") else int(round(float(q) * 1000))


_MEM_UNITS = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "Ti": 1024 * 1024}


def _mem_mi(q) -> int:
    q = str(q)
    for suffix, mult in _MEM_UNITS.items():
        if q.endswith(suffix):
            return int(float(q[:-2]) * mult)
    return int(float(q) / (1024 * 1024))


def _fmt_cpu(m: int) -> str:
    return str(m // 1000) if m % 1000 == 0 else f"{m}m"


def _fmt_mem(mi: int) -> str:
    return f"{mi // 1024}Gi" if mi and mi % 1024 == 0 else f"{mi}Mi"


BUILT_IN = "built-in"  # generate(catalog=BUILT_IN): the generator's own instance data, wherever it runs


def _catalog_path(explicit: str | None) -> str | None:
    """Find the shared EC2 data file; None means use the built-in fallback (``BUILT_IN`` asks for it:
    tests whose clusters must not depend on whether the shared data sits beside the checkout).

    Why a search: the bench runs from the repo checkout, where the shared data
    sits beside it, but CI may have neither, and the bench must still work.
    """
    if explicit == BUILT_IN:
        return None
    if explicit:
        if not os.path.isfile(explicit):
            raise FileNotFoundError(f"instance-type file not found: {explicit}")
        return explicit
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("KARPTUI_EC2_DATA"),
                  os.path.join(here, "..", "..", "shared", "data", "ec2-instance-types.json")]
    for path in candidates:
        if path and os.path.isfile(path):
            return path
    return None


def _wanted_names() -> list:
    fams = DEFAULT_FAMILIES + ARM_FAMILIES + GPU_FAMILIES
    return [f"{f}.{s}" for f in fams for s in SIZES]


def _from_record(rec: dict) -> InstanceType:
    res = rec["resources"]
    alloc = {k: v for k, v in res.items() if k != "vpc.amazonaws.com/pod-eni"}
    return InstanceType(
        name=rec["name"], labels=dict(rec["labels"]), allocatable=alloc,
        cpu_m=_cpu_m(res["cpu"]), mem_mi=_mem_mi(res["memory"]), pods=int(res["pods"]),
        gpus=int(res.get("nvidia.com/gpu", 0)), vcpu=int(rec["capacity"]["cpu"]),
        mem_mib=int(rec["capacity"]["memoryMiB"]), arch=rec["labels"]["kubernetes.io/arch"])


# Fallback: per-family facts and per-size facts, combined with Karpenter's
# overhead formula (VM overhead 7.5%, kube-reserved, 100Mi eviction), which
# reproduces the data file's allocatable for these families.
_FALLBACK_FAMILY = {  # family: (category, generation, arch, manufacturer, GiB per vCPU)
    "m5": ("m", 5, "amd64", "intel", 4), "c5": ("c", 5, "amd64", "intel", 2),
    "r5": ("r", 5, "amd64", "intel", 8), "m6i": ("m", 6, "amd64", "intel", 4),
    "c6i": ("c", 6, "amd64", "intel", 2), "r6i": ("r", 6, "amd64", "intel", 8),
    "m7i": ("m", 7, "amd64", "intel", 4), "m6g": ("m", 6, "arm64", "aws", 4),
    "c6g": ("c", 6, "arm64", "aws", 2), "r6g": ("r", 6, "arm64", "aws", 8),
    "m7g": ("m", 7, "arm64", "aws", 4), "g5": ("g", 5, "amd64", "amd", 4),
}
_FALLBACK_SIZE = {"large": (2, 70, 29), "xlarge": (4, 80, 58),
                  "2xlarge": (8, 90, 58), "4xlarge": (16, 110, 234)}


def _fallback_type(name: str) -> InstanceType | None:
    fam, size = name.split(".")
    if fam not in _FALLBACK_FAMILY or (fam == "g5" and size == "large"):
        return None
    cat, gen, arch, manu, gib = _FALLBACK_FAMILY[fam]
    vcpu, reserved_m, pods = _FALLBACK_SIZE[size]
    mem_mib = vcpu * gib * 1024
    mem_alloc = int(mem_mib * 0.925) - (255 + 11 * pods) - 100
    gpus = 1 if fam == "g5" else 0
    labels = {
        "karpenter.k8s.aws/instance-category": cat,
        "karpenter.k8s.aws/instance-cpu": str(vcpu),
        "karpenter.k8s.aws/instance-cpu-manufacturer": manu,
        "karpenter.k8s.aws/instance-family": fam,
        "karpenter.k8s.aws/instance-generation": str(gen),
        "karpenter.k8s.aws/instance-hypervisor": "nitro",
        "karpenter.k8s.aws/instance-memory": str(mem_mib),
        "karpenter.k8s.aws/instance-size": size,
        "kubernetes.io/arch": arch, "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": name,
    }
    res = {"cpu": f"{vcpu * 1000 - reserved_m}m", "ephemeral-storage": "17Gi",
           "memory": f"{mem_alloc}Mi", "pods": str(pods)}
    if gpus:
        res["nvidia.com/gpu"] = "1"
        labels["karpenter.k8s.aws/instance-gpu-count"] = "1"
    return _from_record({"name": name, "labels": labels, "resources": res,
                         "capacity": {"cpu": vcpu, "memoryMiB": mem_mib}})


def load_instance_types(path: str | None = None) -> dict:
    """name -> InstanceType for the families/sizes this generator uses."""
    path = _catalog_path(path)
    wanted = _wanted_names()
    if path is None:
        types = (_fallback_type(n) for n in wanted)
        return {t.name: t for t in types if t is not None}
    with open(path, encoding="utf-8") as fh:
        records = {r["name"]: r for r in json.load(fh)["instanceTypes"]}
    return {n: _from_record(records[n]) for n in wanted if n in records}


# --------------------------------------------------------------------------
# Deterministic identifiers, addresses and times
# --------------------------------------------------------------------------

class Ids:
    """All randomness and counters in one place, so output depends only on seed."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self._rv = 1000
        self._ip = {}  # zone index -> next host offset
        self._names = set()

    def uid(self) -> str:
        h = "%032x" % self.rng.getrandbits(128)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"

    def hex(self, n: int) -> str:
        return "%0*x" % (n, self.rng.getrandbits(4 * n))

    def suffix(self, n: int) -> str:
        return "".join(self.rng.choice(SAFE_ALPHABET) for _ in range(n))

    def name(self, prefix: str, n: int = 5) -> str:
        """prefix + random suffix, never repeated: 5,000 DaemonSet pods drawn from
        27**5 suffixes would otherwise collide (birthday problem)."""
        while True:
            name = prefix + self.suffix(n)
            if name not in self._names:
                self._names.add(name)
                return name

    def rv(self) -> str:
        self._rv += 1
        return str(self._rv)

    def ip(self, zone_idx: int) -> str:
        """Next VPC address in the zone's /12 (nodes and pods share subnets, as with VPC CNI)."""
        off = self._ip.get(zone_idx, 256)
        while off & 255 in (0, 255):
            off += 1
        self._ip[zone_idx] = off + 1
        v = (zone_idx << 20) + off
        return f"10.{(v >> 16) & 255}.{(v >> 8) & 255}.{v & 255}"


def ts(t: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def _zone_id_prefix(region: str) -> str:
    """us-east-1 -> use1, ap-northeast-2 -> apne2 (AWS zone-id naming)."""
    parts = region.split("-")
    short = {"northeast": "ne", "southeast": "se", "northwest": "nw", "southwest": "sw",
             "north": "n", "south": "s", "east": "e", "west": "w", "central": "c"}
    if len(parts) < 3:
        return region.replace("-", "")
    return parts[0] + short.get(parts[1], parts[1][:1]) + parts[-1]


def _dns_suffix(region: str) -> str:
    return "ec2.internal" if region == "us-east-1" else f"{region}.compute.internal"


# --------------------------------------------------------------------------
# Nodes
# --------------------------------------------------------------------------

@dataclass(eq=False)
class Node:
    idx: int
    name: str
    ip: str
    zone: str
    zone_idx: int
    itype: InstanceType
    pool: str | None          # Karpenter NodePool, or None for the managed node group
    nodegroup: str | None
    capacity_type: str
    taints: list              # [(key, value, effect)]
    unschedulable: bool
    created: int
    instance_id: str
    labels: dict = field(default_factory=dict)
    free_cpu: int = 0
    free_mem: int = 0
    free_pods: int = 0
    free_gpu: int = 0
    ports: set = field(default_factory=set)
    claim_name: str = ""
    claim_uid: str = ""


@dataclass
class Pool:
    name: str
    families: tuple
    capacity_types: tuple
    spot_share: float
    labels: dict
    taints: list
    weight: int
    uid: str = ""
    hash: str = ""


def _pools(ids: Ids) -> list:
    """The three NodePools: general amd64, Graviton, and a tainted GPU pool."""
    pools = [
        Pool("default", DEFAULT_FAMILIES, ("spot", "on-demand"), 0.55,
             {"node-role": "general"}, [], 50),
        Pool("arm64", ARM_FAMILIES, ("spot", "on-demand"), 0.5,
             {"node-role": "general-arm"}, [], 40),
        Pool("gpu", GPU_FAMILIES, ("on-demand",), 0.0,
             {"node-role": "gpu", "dedicated": "gpu"}, [("dedicated", "gpu", "NoSchedule")], 10),
    ]
    for p in pools:
        p.uid, p.hash = ids.uid(), str(ids.rng.getrandbits(62))
    return pools


def _node_counts(n: int) -> dict:
    """Split n nodes over the managed node group and the three pools."""
    mng = min(6, max(2, n // 200)) if n >= 3 else 0
    gpu = round(n * 0.03) if n >= 20 else 0
    arm = round((n - mng - gpu) * 0.2)
    return {"mng": mng, "gpu": gpu, "arm64": arm, "default": n - mng - gpu - arm}


def _pick_type(ids: Ids, types: dict, families: tuple) -> InstanceType:
    choices = [(t, SIZE_WEIGHTS[t.name.split(".")[1]]) for t in types.values()
               if t.name.split(".")[0] in families]
    if not choices:
        raise ValueError(f"instance catalog has none of families {families}")
    return ids.rng.choices([c[0] for c in choices], [c[1] for c in choices])[0]


def _base_labels(t: InstanceType, name: str, zone: str, zone_id: str, region: str) -> dict:
    """Labels every EKS node carries, Karpenter-managed or not."""
    return {
        "beta.kubernetes.io/arch": t.arch, "beta.kubernetes.io/instance-type": t.name,
        "beta.kubernetes.io/os": "linux",
        "failure-domain.beta.kubernetes.io/region": region,
        "failure-domain.beta.kubernetes.io/zone": zone,
        "k8s.io/cloud-provider-aws": "b69b5c0e3fa4e5d2f1c8b7a6d5e4f3a2",
        "kubernetes.io/arch": t.arch, "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": t.name,
        "topology.k8s.aws/zone-id": zone_id, "topology.kubernetes.io/region": region,
        "topology.kubernetes.io/zone": zone,
    }


def _karpenter_labels(node: Node, pool: Pool) -> dict:
    """Karpenter adds the instance-* labels, pool template labels and its own markers."""
    labels = dict(node.itype.labels)
    labels.update(pool.labels)
    labels.update({
        "karpenter.k8s.aws/ec2nodeclass": "default",
        "karpenter.sh/capacity-type": node.capacity_type,
        "karpenter.sh/initialized": "true", "karpenter.sh/nodepool": pool.name,
        "karpenter.sh/registered": "true",
    })
    return labels


def _mng_labels(node: Node) -> dict:
    return {
        "eks.amazonaws.com/capacityType": "ON_DEMAND",
        "eks.amazonaws.com/nodegroup": node.nodegroup,
        "eks.amazonaws.com/nodegroup-image": "ami-0a1b2c3d4e5f60718",
        "eks.amazonaws.com/sourceLaunchTemplateId": "lt-0123456789abcdef0",
        "eks.amazonaws.com/sourceLaunchTemplateVersion": "1",
    }


def _new_node(ids, idx, t, zones, zone_prefix, region, pool, nodegroup, ctype, age) -> Node:
    zi = ids.rng.randrange(len(zones))
    ip = ids.ip(zi)
    name = f"ip-{ip.replace('.', '-')}.{_dns_suffix(region)}"
    node = Node(idx=idx, name=name, ip=ip, zone=zones[zi], zone_idx=zi, itype=t,
                pool=pool.name if pool else None, nodegroup=nodegroup, capacity_type=ctype,
                taints=list(pool.taints) if pool else [("CriticalAddonsOnly", "true", "NoSchedule")],
                unschedulable=False, created=BASE_TIME - age,
                instance_id="i-0" + ids.hex(16),
                free_cpu=t.cpu_m, free_mem=t.mem_mi, free_pods=t.pods, free_gpu=t.gpus)
    labels = _base_labels(t, name, node.zone, f"{zone_prefix}-az{zi + 1}", region)
    labels.update(_karpenter_labels(node, pool) if pool else _mng_labels(node))
    node.labels = dict(sorted(labels.items()))  # kubectl prints labels sorted
    return node


def _make_nodes(ids: Ids, n: int, types: dict, pools: list, region: str) -> list:
    zones = [f"{region}{z}" for z in "abc"]
    prefix = _zone_id_prefix(region)
    counts = _node_counts(n)
    rng = ids.rng
    nodes = []
    mng_types = [t for t in (types.get("m5.xlarge"), types.get("m5.2xlarge")) if t] or \
        [_pick_type(ids, types, DEFAULT_FAMILIES)]
    for _ in range(counts["mng"]):
        # Managed node groups are long-lived: created when the cluster was.
        age = rng.randint(60 * DAY, 90 * DAY)
        nodes.append(_new_node(ids, len(nodes), rng.choice(mng_types), zones, prefix,
                               region, None, "system", "on-demand", age))
    for pool in pools:
        for _ in range(counts[pool.name]):
            spot = rng.random() < pool.spot_share
            # Spot nodes get interrupted, so they are younger on average.
            age = rng.randint(600, (7 if spot else 30) * DAY)
            t = _pick_type(ids, types, pool.families)
            nodes.append(_new_node(ids, len(nodes), t, zones, prefix, region, pool, None,
                                   "spot" if spot else "on-demand", age))
    _cordon_some(rng, nodes)
    return nodes


def _cordon_some(rng, nodes):
    """A few general nodes are cordoned (an operator draining them)."""
    general = [x for x in nodes if x.pool in ("default", "arm64")]
    k = max(1, len(general) // 250) if len(general) >= 50 else 0
    for node in rng.sample(general, k):
        node.unschedulable = True
        node.taints.append((CORDON_TAINT, "", "NoSchedule"))


# --------------------------------------------------------------------------
# Workload constraints and placement
# --------------------------------------------------------------------------

@dataclass
class Req:
    """What placement needs to know about a pod; the pod YAML is built from it too,
    so the dump and the placement can never disagree."""
    node_selector: dict = field(default_factory=dict)
    required: list = field(default_factory=list)      # [(key, op, values)] ANDed
    tolerate: tuple = ()                              # taint keys tolerated (NoSchedule)
    tolerate_all: bool = False
    cpu_m: int = 0
    mem_mi: int = 0
    gpus: int = 0
    host_ports: tuple = ()
    zone_spread: str | None = None                    # "DoNotSchedule" | "ScheduleAnyway"
    host_spread_hard: bool = False
    anti_affinity_hard: bool = False

    def static_key(self):
        return (tuple(sorted(self.node_selector.items())),
                tuple((k, o, tuple(v)) for k, o, v in self.required),
                tuple(sorted(self.tolerate)), self.tolerate_all)


def _match_expr(labels: dict, key: str, op: str, values) -> bool:
    if op == "In":
        return labels.get(key) in values
    if op == "NotIn":
        return labels.get(key) not in values
    if op == "Exists":
        return key in labels
    return key not in labels  # DoesNotExist


def _affinity_ok(node: Node, req: Req) -> bool:
    labels = node.labels
    if any(labels.get(k) != v for k, v in req.node_selector.items()):
        return False
    return all(_match_expr(labels, k, o, v) for k, o, v in req.required)


def _untolerated_taint(node: Node, req: Req, ignore: str = ""):
    """First NoSchedule/NoExecute taint the pod does not tolerate (TaintToleration order)."""
    if req.tolerate_all:
        return None
    for taint in node.taints:
        if taint[2] != "PreferNoSchedule" and taint[0] not in req.tolerate and taint[0] != ignore:
            return taint
    return None


def _resource_reasons(node: Node, req: Req) -> tuple:
    """NodeResourcesFit reports every insufficient resource, pods first.

    Recent kube-schedulers mark the node unresolvable when a request exceeds
    the node's whole allocatable (evicting pods cannot help), which flips the
    preemption half of the message to "Preemption is not helpful"."""
    t = node.itype
    out, unresolvable = [], False
    if node.free_pods < 1:
        out.append(R_TOO_MANY)
    for name, want, free, total in (("cpu", req.cpu_m, node.free_cpu, t.cpu_m),
                                    ("memory", req.mem_mi, node.free_mem, t.mem_mi),
                                    ("nvidia.com/gpu", req.gpus, node.free_gpu, t.gpus)):
        if want > free:
            out.append(f"Insufficient {name}")
            unresolvable = unresolvable or want > total
    return out, unresolvable


def _filter(node: Node, req: Req, taken: set, zone: str | None):
    """(reasons, unresolvable) for one node, in kube-scheduler's filter order.

    Like the scheduler, stop at the first failing plugin; `unresolvable` is
    what decides the preemption half of the message.
    """
    if node.unschedulable and CORDON_TAINT not in req.tolerate \
            and not req.tolerate_all:
        return [R_UNSCHEDULABLE], True
    taint = _untolerated_taint(node, req)
    if taint:
        return [f"node(s) had untolerated taint {{{taint[0]}: {taint[1]}}}"], True
    if not _affinity_ok(node, req):
        return [R_AFFINITY], True
    if req.host_ports and node.ports.intersection(req.host_ports):
        return [R_PORTS], False
    res, unresolvable = _resource_reasons(node, req)
    if res:
        return res, unresolvable
    if (req.host_spread_hard and node.idx in taken) or \
            (req.zone_spread == "DoNotSchedule" and zone and node.zone != zone):
        return [R_SPREAD], False
    if req.anti_affinity_hard and node.idx in taken:
        return [R_ANTI], False
    return [], False


class Placer:
    """Places pods on nodes, tracking free resources per node.

    Random probing among eligible nodes spreads load like kube-scheduler's
    LeastAllocated scoring would, at a fraction of the cost; a full scan is
    the fallback so that a pod is only left pending when nothing fits.
    """

    def __init__(self, rng, nodes):
        self.rng = rng
        self.nodes = nodes
        self._eligible = {}

    def eligible(self, req: Req) -> dict:
        """zone (or None for all) -> node indices passing labels and taints; cached
        because most workloads share a handful of constraint shapes."""
        key = req.static_key()
        hit = self._eligible.get(key)
        if hit is None:
            hit = {None: []}
            probe = Req(node_selector=req.node_selector, required=req.required,
                        tolerate=req.tolerate, tolerate_all=req.tolerate_all)
            for node in self.nodes:
                # Cordoning happened after these pods were placed, so cordoned
                # nodes keep their pods (as in a real cluster before a drain).
                if _untolerated_taint(node, probe, CORDON_TAINT) is None \
                        and _affinity_ok(node, probe):
                    hit[None].append(node.idx)
                    hit.setdefault(node.zone, []).append(node.idx)
            self._eligible[key] = hit
        return hit

    def fits(self, node: Node, req: Req, taken: set) -> bool:
        if node.free_pods < 1 or req.cpu_m > node.free_cpu or req.mem_mi > node.free_mem \
                or req.gpus > node.free_gpu:
            return False
        if (req.anti_affinity_hard or req.host_spread_hard) and node.idx in taken:
            return False
        return not (req.host_ports and node.ports.intersection(req.host_ports))

    def find(self, req: Req, zone: str | None, taken: set) -> Node | None:
        cands = self.eligible(req).get(zone, [])
        n = len(cands)
        if not n:
            return None
        nodes, rng = self.nodes, self.rng
        for _ in range(min(8, n)):
            node = nodes[cands[rng.randrange(n)]]
            if self.fits(node, req, taken):
                return node
        start = rng.randrange(n)
        for k in range(n):
            node = nodes[cands[(start + k) % n]]
            if self.fits(node, req, taken):
                return node
        return None

    @staticmethod
    def commit(node: Node, req: Req, taken: set):
        node.free_cpu -= req.cpu_m
        node.free_mem -= req.mem_mi
        node.free_pods -= 1
        node.free_gpu -= req.gpus
        node.ports.update(req.host_ports)
        taken.add(node.idx)


def _place_workload(placer: Placer, wl, zones: list) -> None:
    """Fill wl.placements with a Node (running) or None (pending) per replica.

    Zone-spread replicas go round-robin over zones, which keeps skew <= 1;
    ScheduleAnyway pods may fall back to any zone, DoNotSchedule ones may not.
    """
    req, rng = wl.req, placer.rng
    if wl.pending_kind:
        wl.placements = [None] * wl.replicas
        return
    off = rng.randrange(len(zones))
    taken = wl.taken
    for r in range(wl.replicas):
        zone = zones[(off + r) % len(zones)] if req.zone_spread else None
        node = placer.find(req, zone, taken)
        if node is None and req.zone_spread == "ScheduleAnyway":
            node = placer.find(req, None, taken)
        if node is not None:
            placer.commit(node, req, taken)
        wl.placements.append(node)
        if node is None and req.zone_spread == "DoNotSchedule":
            wl.pending_zone = zone


def fit_error(nodes: list, req: Req, taken: set, zone: str | None) -> str:
    """kube-scheduler's FitError text (histogram sorted as strings, as Go does)."""
    hist, pre = {}, {}
    for node in nodes:
        reasons, unresolvable = _filter(node, req, taken, zone)
        if not reasons:
            continue
        for r in reasons:
            hist[r] = hist.get(r, 0) + 1
        key = P_NOT_HELPFUL if unresolvable else P_NO_VICTIMS
        pre[key] = pre.get(key, 0) + 1
    n = len(nodes)
    filt = ", ".join(sorted(f"{c} {r}" for r, c in hist.items()))
    post = ", ".join(sorted(f"{c} {r}" for r, c in pre.items()))
    return (f"0/{n} nodes are available: {filt}. "
            f"preemption: 0/{n} nodes are available: {post}..")


# --------------------------------------------------------------------------
# Workload definitions
# --------------------------------------------------------------------------

@dataclass(eq=False)
class Workload:
    ns: str
    name: str
    replicas: int
    req: Req
    spec: dict                 # pod template spec (shared by Deployment, RS, pods)
    labels: dict               # pod labels incl. pod-template-hash
    annotations: dict
    init_kinds: list           # per init container: "sidecar" | "init"
    priority: int
    uid: str
    created: int
    rs_name: str = ""
    rs_uid: str = ""
    rs_created: int = 0
    hash: str = ""
    image_ids: dict = field(default_factory=dict)
    pending_kind: str | None = None
    pdb: dict | None = None
    placements: list = field(default_factory=list)
    taken: set = field(default_factory=set)
    pending_zone: str | None = None
    old_rs: bool = False
    team: str = ""
    kind: str = "Deployment"   # its controller: Deployment (via a ReplicaSet), StatefulSet or Job
    volumes: list = field(default_factory=list)  # template volumes besides the token (rich shapes)
    claims: bool = False       # StatefulSet pods with a bound EBS claim each
    hpa: bool = False          # a HorizontalPodAutoscaler scales it
    managed: dict | None = None  # managedFields' fieldsV1 per manager (shapes that keep them)


def effective_requests(containers, inits, overhead):
    """Kubernetes' effective pod request: max(sum(app)+sidecars, each init +
    sidecars started before it) + overhead.  inits: [(cpu, mem, is_sidecar)]."""
    side_cpu = side_mem = init_cpu = init_mem = 0
    for cpu, mem, sidecar in inits:
        if sidecar:
            side_cpu, side_mem = side_cpu + cpu, side_mem + mem
            init_cpu, init_mem = max(init_cpu, side_cpu), max(init_mem, side_mem)
        else:
            init_cpu, init_mem = max(init_cpu, side_cpu + cpu), max(init_mem, side_mem + mem)
    app_cpu = sum(c for c, _ in containers) + side_cpu
    app_mem = sum(m for _, m in containers) + side_mem
    return (max(app_cpu, init_cpu) + overhead[0], max(app_mem, init_mem) + overhead[1])


def _resources(cpu: int, mem: int, limit_style: str, gpus: int = 0) -> dict:
    """A container's resources block; limit_style picks the QoS flavour."""
    if limit_style == "none" and not gpus:
        return {}
    req = {"cpu": _fmt_cpu(cpu), "memory": _fmt_mem(mem)}
    if limit_style == "guaranteed":
        lim = dict(req)
    elif limit_style == "memory":
        lim = {"memory": _fmt_mem(mem * 2)}
    else:
        lim = {}
    if gpus:
        req["nvidia.com/gpu"] = lim["nvidia.com/gpu"] = str(gpus)
    return {"limits": lim, "requests": req} if lim else {"requests": req}


_ENV_POD_NAME = {"name": "POD_NAME",
                 "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}


def _container(name, image, res, port=None, host_port=None, env=None) -> dict:
    """Template-level container; per-pod copies only add the token volumeMount.

    Defaulted fields with no scheduling meaning (imagePullPolicy,
    terminationMessage*, probes) are left out to keep pods near the
    1.5-3 KB the benchmarks assume."""
    c = {"name": name, "image": image}
    if env:
        c["env"] = env
    c["resources"] = res
    if port:
        p = {"containerPort": port, "name": "http", "protocol": "TCP"}
        if host_port:
            p["hostPort"] = host_port
        c["ports"] = [p]
    return c


def _node_affinity(req: Req, preferred: list) -> dict:
    """Required terms from req (so placement matches the YAML) plus soft preferences."""
    na = {}
    if req.required:
        exprs = [{"key": k, "operator": o, **({"values": list(v)} if v else {})}
                 for k, o, v in req.required]
        na["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [{"matchExpressions": exprs}]}
    if preferred:
        na["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": w, "preference": {"matchExpressions": [
                {"key": k, "operator": "In", "values": list(v)}]}} for w, k, v in preferred]
    return na


def _pod_affinity_block(req: Req, app: str, soft_anti: bool, preferred: list) -> dict:
    aff = {}
    na = _node_affinity(req, preferred)
    if na:
        aff["nodeAffinity"] = na
    term = {"labelSelector": {"matchLabels": {"app": app}},
            "topologyKey": "kubernetes.io/hostname"}
    if req.anti_affinity_hard:
        aff["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
    elif soft_anti:
        aff["podAntiAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 100, "podAffinityTerm": term}]}
    return aff


def _spread(app: str, key: str, when: str, min_domains: int = 0, label_keys: bool = False) -> dict:
    c = {"labelSelector": {"matchLabels": {"app": app}}, "maxSkew": 1,
         "topologyKey": key, "whenUnsatisfiable": when}
    if min_domains:
        c["minDomains"] = min_domains
    if label_keys:
        c["matchLabelKeys"] = ["pod-template-hash"]
    return c


def _tolerations(req: Req) -> list:
    tol = []
    if req.tolerate_all:
        tol.append({"operator": "Exists"})
    for key in req.tolerate:
        if key == "dedicated":
            tol.append({"effect": "NoSchedule", "key": "dedicated", "operator": "Equal",
                        "value": "gpu"})
        else:
            tol.append({"key": key, "operator": "Exists"})
    return tol + list(NOT_READY_TOLERATIONS)


def _pod_spec(containers, inits, req, affinity, tsc, sa, priority_class, priority,
              overhead=None, runtime_class=None, host_network=False) -> dict:
    """Pod template spec, keys in the alphabetical order `kubectl -o yaml` prints."""
    spec = {}
    if affinity:
        spec["affinity"] = affinity
    spec["containers"] = containers
    spec["dnsPolicy"] = "ClusterFirstWithHostNet" if host_network else "ClusterFirst"
    spec["enableServiceLinks"] = True
    if host_network:
        spec["hostNetwork"] = True
    if inits:
        spec["initContainers"] = inits
    if req.node_selector:
        spec["nodeSelector"] = dict(req.node_selector)
    if overhead:
        spec["overhead"] = {"cpu": _fmt_cpu(overhead[0]), "memory": _fmt_mem(overhead[1])}
    spec["preemptionPolicy"] = "PreemptLowerPriority"
    spec["priority"] = priority
    if priority_class:
        spec["priorityClassName"] = priority_class
    spec["restartPolicy"] = "Always"
    if runtime_class:
        spec["runtimeClassName"] = runtime_class
    spec["schedulerName"] = "default-scheduler"
    spec["securityContext"] = {}
    spec["serviceAccountName"] = sa
    spec["terminationGracePeriodSeconds"] = 30
    spec["tolerations"] = _tolerations(req)
    if tsc:
        spec["topologySpreadConstraints"] = tsc
    return spec


# Request menus: millicores with weights; memory is a per-workload Mi-per-millicore ratio.
_CPU_MENU = ((10, 2), (50, 8), (100, 20), (200, 20), (250, 15), (500, 15),
             (1000, 10), (2000, 6), (4000, 2))
_MEM_RATIO = ((1, 2), (2, 4), (4, 3), (8, 1))


def _menu_mean(menu):
    total = sum(w for _, w in menu)
    return sum(v * w for v, w in menu) / total


@dataclass
class Sizing:
    """Scale factors keeping general workloads near 55% of general capacity, so
    nearly every pod finds a node and the cluster looks like a busy real one."""
    cpu: float
    mem: float


def _sizing(nodes: list, n_pods: int, menu=_CPU_MENU) -> Sizing:
    general = [x for x in nodes if x.pool in ("default", "arm64")]
    cap_cpu = sum(x.free_cpu for x in general)
    cap_mem = sum(x.free_mem for x in general)
    if not n_pods or not general:
        return Sizing(1.0, 1.0)
    mean_cpu = _menu_mean(menu) * 1.25  # ~1.25x for sidecars/second containers
    mean_mem = mean_cpu * _menu_mean(_MEM_RATIO)
    return Sizing(min(1.0, 0.55 * cap_cpu / n_pods / mean_cpu),
                  min(1.0, 0.55 * cap_mem / n_pods / mean_mem))


def _draw_size(rng, sizing: Sizing, ratio: int | None = None, menu=_CPU_MENU):
    cpu = rng.choices([v for v, _ in menu], [w for _, w in menu])[0]
    ratio = ratio or rng.choices([v for v, _ in _MEM_RATIO], [w for _, w in _MEM_RATIO])[0]
    mem = max(16, int(cpu * ratio * sizing.mem) // 16 * 16)
    cpu = max(5, int(cpu * sizing.cpu) // 5 * 5)
    return cpu, mem


def _general_req(rng, replicas: int) -> tuple:
    """Random node-level constraints for an app workload -> (Req, preferred, soft_anti, tsc_plan)."""
    req = Req()
    r = rng.random()
    if r < 0.10:
        req.node_selector["kubernetes.io/arch"] = "arm64"
    elif r < 0.40:
        req.node_selector["kubernetes.io/arch"] = "amd64"
    if rng.random() < 0.15:
        req.required.append(("karpenter.sh/capacity-type", "In", ("on-demand",)))
    elif rng.random() < 0.05:
        req.required.append(("karpenter.sh/nodepool", "In", ("default", "arm64")))
    if rng.random() < 0.03:
        req.tolerate = ("dedicated",)  # e.g. an agent also allowed on GPU nodes
    preferred = []
    if rng.random() < 0.15:
        preferred.append((50, "karpenter.sh/capacity-type", ("spot",)))
    if rng.random() < 0.10:
        preferred.append((20, "karpenter.k8s.aws/instance-category", ("c", "m")))
    if rng.random() < 0.40:
        req.zone_spread = rng.choice(("DoNotSchedule", "ScheduleAnyway"))
    host_spread = rng.random() < 0.20
    if host_spread and replicas <= 40 and rng.random() < 0.25:
        req.host_spread_hard = True
    if replicas <= 30 and not req.host_spread_hard and rng.random() < 0.08:
        req.anti_affinity_hard = True
    soft_anti = not req.anti_affinity_hard and rng.random() < 0.2
    return req, preferred, soft_anti, host_spread


def _tsc_list(rng, app: str, req: Req, host_spread: bool) -> list:
    tsc = []
    if req.zone_spread:
        hard = req.zone_spread == "DoNotSchedule"
        tsc.append(_spread(app, "topology.kubernetes.io/zone", req.zone_spread,
                           min_domains=3 if hard and rng.random() < 0.5 else 0,
                           label_keys=rng.random() < 0.5))
    if host_spread:
        when = "DoNotSchedule" if req.host_spread_hard else "ScheduleAnyway"
        tsc.append(_spread(app, "kubernetes.io/hostname", when, label_keys=rng.random() < 0.3))
    return tsc


class WorkloadFactory:
    """Builds Workload objects: templates, requests and the owner-chain ids."""

    def __init__(self, ids: Ids, sizing: Sizing, zones: list, region: str, shape=None):
        self.ids, self.rng, self.sizing, self.zones = ids, ids.rng, sizing, zones
        self.region = region
        self.shape = shape or SHAPES["classic"]
        self.names = set()
        self.n_general = 0  # general-purpose node count, bounds replica counts

    def unique_name(self, ns: str) -> str:
        for _ in range(50):
            name = f"{self.rng.choice(APP_PREFIXES)}-{self.rng.choice(APP_NOUNS)}"
            if (ns, name) not in self.names:
                break
        else:
            name = f"{name}-{len(self.names)}"
        self.names.add((ns, name))
        return name

    def _finish(self, wl: Workload) -> Workload:
        """Owner-chain ids and times common to every Deployment."""
        ids = self.ids
        wl.hash = ids.name("", 10 if self.rng.random() < 0.7 else 9)
        if wl.kind == "Deployment":
            wl.labels["pod-template-hash"] = wl.hash
        wl.rs_name, wl.rs_uid = f"{wl.name}-{wl.hash}", ids.uid()
        wl.rs_created = wl.created + self.rng.randint(0, max(1, BASE_TIME - wl.created - 3600))
        wl.old_rs = self.rng.random() < 0.3
        wl.image_ids = {c["image"]: f"{c['image'].split(':')[0]}@sha256:{ids.hex(64)}"
                        for c in wl.spec["containers"] + wl.spec.get("initContainers", [])}
        return wl

    def general(self, ns: str, replicas: int) -> Workload:
        """An application Deployment with a random but valid mix of constraints."""
        rng = self.rng
        name = self.unique_name(ns)
        req, preferred, soft_anti, host_spread = _general_req(rng, replicas)
        shape = self.shape
        kind = "Deployment"
        if shape.rich:
            kind = rng.choices([k for k, _ in shape.kinds], [w for _, w in shape.kinds])[0]
            if shape.name == "web":  # services behind spread and anti-affinity
                if not req.zone_spread and rng.random() < 0.6:
                    req.zone_spread = "ScheduleAnyway"
                host_spread = host_spread or rng.random() < 0.3
                soft_anti = soft_anti or (not req.anti_affinity_hard and rng.random() < 0.4)
        # QoS mix: a few BestEffort, mostly Burstable, some Guaranteed.
        style = rng.choices(("none", "requests", "memory", "guaranteed"), (3, 40, 40, 17))[0]
        if replicas <= 6 and rng.random() < 0.04:
            req.host_ports = (rng.choice((9100, 8443, 10254)),)
        containers, app_sizes = self._app_containers(ns, name, style, req)
        inits, init_sizes = self._inits(rng, app_sizes[0], style)
        if shape.rich:
            self._sidecars(containers, app_sizes, style, kind)
        overhead = runtime_class = None
        if style != "none" and rng.random() < 0.02:
            overhead, runtime_class = KATA_OVERHEAD, "kata-qemu"
        req.cpu_m, req.mem_mi = effective_requests(app_sizes, init_sizes, overhead or (0, 0))
        priority_class = rng.choices((None, "high-priority", "low-priority"), (80, 10, 10))[0]
        priority = PRIORITY_CLASSES.get(priority_class, 0)
        spec = _pod_spec(containers, inits, req, _pod_affinity_block(req, name, soft_anti, preferred),
                         _tsc_list(rng, name, req, host_spread),
                         "default" if rng.random() < 0.5 else name, priority_class, priority,
                         overhead, runtime_class)
        team = rng.choice(("core", "growth", "platform", "data", "edge"))
        labels = {"app": name, "app.kubernetes.io/name": name, "team": team}
        wl = Workload(ns, name, replicas, req, spec, labels, self._app_annotations(),
                      ["sidecar" if s else "init" for _, _, s in init_sizes], priority,
                      self.ids.uid(), BASE_TIME - rng.randint(2 * DAY, 200 * DAY), team=team)
        if shape.rich:
            wl.kind = kind
            _dress(self, wl)
        return self._finish(wl)

    def _sidecars(self, containers: list, sizes: list, style: str, kind: str) -> None:
        """Real services run beside a mesh proxy or a log router; their requests count
        (regular containers), so placement sees them."""
        rng = self.rng
        if style == "none" or kind == "Job" and rng.random() < 0.7:
            return
        if rng.random() < (0.7 if self.shape.name == "web" else 0.2):
            size = (rng.choice((50, 100, 200)), rng.choice((64, 128, 256)))
            c = _container("envoy", "envoyproxy/envoy:v1.31.2", _resources(*size, "memory"), 15090)
            c["args"] = ["--config-path", "/etc/envoy/envoy.yaml", "--log-level", "warn"]
            containers.append(c)
            sizes.append(size)
        if rng.random() < 0.25:
            size = (25, 48)
            containers.append(_container("log-router", "fluent/fluent-bit:3.0.7",
                                         _resources(*size, "memory")))
            sizes.append(size)

    def _app_containers(self, ns: str, name: str, style: str, req: Req) -> tuple:
        """Main container (plus, sometimes, a small metrics exporter) -> (containers,
        [(cpu, mem)]); sizes come back as ints so placement never re-parses strings."""
        rng = self.rng
        ratio = rng.choices([v for v, _ in _MEM_RATIO], [w for _, w in _MEM_RATIO])[0]
        sizes = [(0, 0) if style == "none" else _draw_size(rng, self.sizing, ratio, self.shape.cpu_menu)]
        image = f"{ns}/{name}:v{rng.randint(1, 4)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
        env = [{"name": "LOG_LEVEL", "value": rng.choice(("info", "warn", "debug"))},
               _ENV_POD_NAME]
        containers = [_container(name.split("-")[-1], image, _resources(*sizes[0], style), 8080,
                                 req.host_ports[0] if req.host_ports else None, env)]
        if style != "none" and rng.random() < 0.10:
            sizes.append((max(5, sizes[0][0] // 4), max(16, sizes[0][1] // 4)))
            containers.append(_container("metrics", "prom/statsd-exporter:v0.26.1",
                                         _resources(*sizes[1], style), 9102))
        return containers, sizes

    def _app_annotations(self) -> dict:
        """Pod annotations; do-not-disrupt matters to Karpenter consolidation."""
        rng, ann = self.rng, {}
        if rng.random() < 0.4:
            ann["kubectl.kubernetes.io/restartedAt"] = ts(BASE_TIME - rng.randint(DAY, 60 * DAY))
        if rng.random() < 0.03:
            ann["karpenter.sh/do-not-disrupt"] = "true"
        return ann

    def _inits(self, rng, app, style):
        """Sometimes a plain init container (occasionally bigger than the app,
        to exercise max(init)) and/or a restartable sidecar (restartPolicy Always)."""
        inits, sizes = [], []
        if style == "none":
            return inits, sizes
        if rng.random() < 0.15:
            big = rng.random() < 0.25
            size = (app[0] * 2, app[1] * 2) if big else (max(5, app[0] // 2), max(16, app[1] // 2))
            inits.append(_container("migrate" if big else "init-config", "busybox:1.36",
                                    _resources(*size, "requests")))
            sizes.append((size[0], size[1], False))
        if rng.random() < 0.12:
            size = (50, 64)
            c = _container("log-shipper", "fluent/fluent-bit:3.0.7",
                           _resources(*size, "memory"))
            c["restartPolicy"] = "Always"
            inits.append(c)
            sizes.append((size[0], size[1], True))
        return inits, sizes

    def gpu(self, ns: str, replicas: int) -> Workload:
        """Model servers on the tainted GPU pool (toleration + nodeSelector + GPU limit)."""
        rng = self.rng
        name = self.unique_name(ns)
        req = Req(node_selector={"karpenter.sh/nodepool": "gpu"}, tolerate=("dedicated",),
                  cpu_m=rng.choice((1000, 2000, 3000)), mem_mi=rng.choice((4096, 8192, 12288)),
                  gpus=1, zone_spread="ScheduleAnyway")
        image = f"{ns}/{name}:v{rng.randint(1, 9)}.{rng.randint(0, 20)}.0"
        containers = [_container("server", image, _resources(req.cpu_m, req.mem_mi,
                                 "guaranteed", gpus=1), 8000)]
        spec = _pod_spec(containers, [], req, {}, [_spread(name, "topology.kubernetes.io/zone",
                         "ScheduleAnyway")], name, "high-priority", PRIORITY_CLASSES["high-priority"])
        labels = {"app": name, "app.kubernetes.io/name": name, "team": "ml"}
        wl = Workload(ns, name, replicas, req, spec, labels, {}, [], spec["priority"],
                      self.ids.uid(), BASE_TIME - rng.randint(2 * DAY, 90 * DAY), team="ml")
        return self._finish(wl)

    def pending(self, kind: str, replicas: int) -> Workload:
        """Pending workloads in five common flavours: four no node or NodePool can
        take, and one ("awaiting-capacity") that only fits an empty 4xlarge, i.e.
        the pods waiting for Karpenter to launch a node."""
        rng, region = self.rng, self.region
        ns, base, req, gpus = {
            "oversized": ("analytics", "batch-reindex", Req(cpu_m=20000, mem_mi=49152), 0),
            "gpu-hungry": ("ml-serving", "llm-train", Req(
                node_selector={"karpenter.sh/nodepool": "gpu"}, tolerate=("dedicated",),
                cpu_m=8000, mem_mi=32768, gpus=4), 4),
            "zone-pinned": ("data-pipeline", "legacy-etl", Req(
                node_selector={"topology.kubernetes.io/zone": f"{region}d"},
                cpu_m=500, mem_mi=1024), 0),
            "gpu-untolerated": ("ml-serving", "embedder", Req(cpu_m=2000, mem_mi=8192, gpus=1), 1),
            "awaiting-capacity": ("search", "search-reindex", Req(cpu_m=12000, mem_mi=20480), 0),
        }[kind]
        name = base if (ns, base) not in self.names else f"{base}-{len(self.names)}"
        self.names.add((ns, name))
        image = f"{ns}/{base}:v{rng.randint(1, 5)}.{rng.randint(0, 9)}.0"
        containers = [_container("main", image, _resources(req.cpu_m, req.mem_mi, "guaranteed",
                                                           gpus=gpus), 8080)]
        spec = _pod_spec(containers, [], req, {}, [], "default", None, 0)
        labels = {"app": name, "app.kubernetes.io/name": name, "team": "data"}
        wl = Workload(ns, name, replicas, req, spec, labels, {}, [], 0, self.ids.uid(),
                      BASE_TIME - rng.randint(3600, 3 * DAY), pending_kind=kind, team="data")
        if self.shape.rich:
            wl.kind = "Job" if self.shape.name == "batch" else "Deployment"
            _dress(self, wl)
        return self._finish(wl)


def _system_workloads(factory: WorkloadFactory, budget: int, n_mng: int) -> list:
    """EKS add-ons and Karpenter itself, pinned to the managed node group."""
    if not n_mng or budget <= 0:
        return []
    rng, ids = factory.rng, factory.ids
    specs = [  # ns, name, replicas, cpu, mem, image, hard anti-affinity
        ("kube-system", "coredns", 2, 100, 70, "eks/coredns:v1.11.1-eksbuild.9", False),
        ("karpenter", "karpenter", 2, 1000, 1024, "karpenter/controller:1.1.1", True),
        ("kube-system", "metrics-server", 1, 100, 200, "eks/metrics-server:v0.7.1-eksbuild.1", False),
        ("kube-system", "aws-load-balancer-controller", 2, 100, 128,
         "eks/aws-load-balancer-controller:v2.8.1", False),
        ("kube-system", "ebs-csi-controller", 2, 60, 240, "ebs-csi-driver/aws-ebs-csi-driver:v1.32.0", False),
    ]
    out = []
    for ns, name, replicas, cpu, mem, image, hard in specs:
        replicas = min(replicas, budget - sum(w.replicas for w in out), n_mng if hard else replicas)
        if replicas <= 0:
            break
        req = Req(tolerate=("CriticalAddonsOnly",), cpu_m=cpu, mem_mi=mem,
                  zone_spread="ScheduleAnyway", anti_affinity_hard=hard,
                  required=[("karpenter.sh/nodepool", "DoesNotExist", ())])
        containers = [_container(name.split("-")[0], image, _resources(cpu, mem, "memory"), 8080)]
        affinity = _pod_affinity_block(req, name, not hard, [])
        tsc = [_spread(name, "topology.kubernetes.io/zone", "ScheduleAnyway")]
        spec = _pod_spec(containers, [], req, affinity, tsc, name, "system-cluster-critical",
                         PRIORITY_CLASSES["system-cluster-critical"])
        labels = {"app": name, "app.kubernetes.io/name": name}
        factory.names.add((ns, name))
        wl = Workload(ns, name, replicas, req, spec, labels, {}, [], spec["priority"], ids.uid(),
                      BASE_TIME - rng.randint(60 * DAY, 90 * DAY), team="platform")
        wl.pdb = {"maxUnavailable": 1} if replicas > 1 else None
        out.append(factory._finish(wl))
    return out


_REPLICA_MENU = (1, 2, 2, 3, 3, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 60, 80, 120, 200)


def _split(rng, total: int, menu=_REPLICA_MENU) -> list:
    """Heavy-tailed replica counts summing exactly to total."""
    out = []
    while total > 0:
        r = min(total, rng.choice(menu))
        out.append(r)
        total -= r
    return out


# --------------------------------------------------------------------------
# Shapes: what kind of cluster (issue 28: benchmarks that look like real ones)
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Shape:
    """A kind of cluster. ``classic`` is this generator's original output, byte for byte
    for a seed (old figures stay comparable); the others dress pods as real ones are."""
    name: str
    pods_per_node: int           # default --pods is nodes x this (DaemonSet pods included)
    pending_fraction: float      # default --pending-fraction
    replica_menu: tuple
    cpu_menu: tuple
    pending_kinds: tuple         # flavours of pending workloads, in turn
    pending_menu: tuple          # their replica counts
    rich: bool = False           # labels, annotations, sidecars, probes, volumes, owners, images
    managed_fields: bool = False  # metadata.managedFields (kubectl hides them unless --show-managed-fields)
    kinds: tuple = (("Deployment", 1.0),)
    spot: bool = False           # spot-heavy NodePools
    about: str = ""


SHAPES = {
    "classic": Shape("classic", 10, 0.02, _REPLICA_MENU, _CPU_MENU,
                     ("awaiting-capacity", "oversized", "gpu-hungry", "zone-pinned", "gpu-untolerated"),
                     (5, 10, 20, 30, 50), about="the original benchmark cluster"),
    "web": Shape("web", 12, 0.06, (3, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50),
                 _CPU_MENU,
                 ("awaiting-capacity", "awaiting-capacity", "awaiting-capacity", "oversized", "zone-pinned"),
                 (3, 5, 10, 20, 30), rich=True, managed_fields=True,
                 kinds=(("Deployment", 0.9), ("StatefulSet", 0.1)),
                 about="web services: Deployments of 3-50 behind spread and anti-affinity, sidecars, "
                       "HPAs, Helm/Argo CD/kapp metadata, StatefulSets with EBS claims, managedFields"),
    "batch": Shape("batch", 16, 0.10, (1, 2, 4, 8, 10, 16, 20, 25, 30),
                   ((100, 20), (250, 20), (500, 20), (1000, 15), (2000, 10), (4000, 10), (8000, 5)),
                   ("awaiting-capacity", "awaiting-capacity", "awaiting-capacity", "gpu-hungry", "oversized"),
                   (10, 20, 50, 100), rich=True, kinds=(("Job", 0.85), ("Deployment", 0.15)), spot=True,
                   about="batch: Jobs with large requests, few labels, many pods per node, spot NodePools"),
}

_ENV_NAMES = ("LOG_FORMAT", "HTTP_PORT", "GRPC_PORT", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SERVICE_NAME",
              "FEATURE_FLAGS", "CACHE_TTL", "REGION", "DB_HOST", "DB_PORT", "DB_NAME", "QUEUE_URL",
              "MAX_CONNECTIONS", "TIMEOUT_MS", "GOMAXPROCS", "JAVA_OPTS")


def _probe(port: int, path: str, period: int) -> dict:
    return {"failureThreshold": 3, "httpGet": {"path": path, "port": port, "scheme": "HTTP"},
            "periodSeconds": period, "successThreshold": 1, "timeoutSeconds": 1}


def _dress(f, wl) -> None:
    """Labels, annotations, env, probes and volumes as real deployers leave them on a pod
    (Helm's app.kubernetes.io/* and helm.sh/chart, Argo CD's tracking annotation, kapp's labels)."""
    rng, ids, name, ns = f.rng, f.ids, wl.name, wl.ns
    version = f"{rng.randint(1, 4)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
    labels, ann = {"app": name, "app.kubernetes.io/name": name}, dict(wl.annotations)
    few = wl.kind == "Job" and f.shape.name == "batch"
    if not few:
        labels.update({"app.kubernetes.io/component": rng.choice(("server", "worker", "api", "frontend")),
                       "app.kubernetes.io/instance": f"{ns}-{name}", "app.kubernetes.io/part-of": ns,
                       "app.kubernetes.io/version": version, "team": wl.team,
                       "tier": rng.choice(("critical", "standard", "best-effort")),
                       "cost-center": f"cc-{rng.randint(1000, 9999)}"})
        deployer = rng.choices(("helm", "argocd", "kapp"), (60, 25, 15))[0]
        if deployer in ("helm", "argocd"):
            labels["app.kubernetes.io/managed-by"] = "Helm"
            labels["helm.sh/chart"] = f"{name}-{version}"
        if deployer == "argocd":
            ann["argocd.argoproj.io/tracking-id"] = f"{ns}-{name}:apps/{wl.kind}:{ns}/{name}"
            ann["argocd.argoproj.io/sync-wave"] = str(rng.randint(-1, 3))
        if deployer == "kapp":
            labels["kapp.k14s.io/app"] = str(rng.getrandbits(60))
            labels["kapp.k14s.io/association"] = f"v1.{ids.hex(32)}"
        ann.update({"checksum/config": ids.hex(64), "checksum/secret": ids.hex(64),
                    "kubectl.kubernetes.io/default-container": wl.spec["containers"][0]["name"],
                    "prometheus.io/path": "/metrics", "prometheus.io/port": "9102",
                    "prometheus.io/scrape": "true"})
    wl.labels, wl.annotations = labels, dict(sorted(ann.items()))
    vols = [{"configMap": {"defaultMode": 420, "name": f"{name}-config"}, "name": "config"}]
    mounts = [{"mountPath": "/etc/app", "name": "config", "readOnly": True}]
    if not few:
        vols.append({"name": "secrets", "secret": {"defaultMode": 420, "secretName": f"{name}-secrets"}})
        mounts.append({"mountPath": "/etc/secrets", "name": "secrets", "readOnly": True})
    vols.append({"emptyDir": {"sizeLimit": rng.choice(("512Mi", "1Gi", "4Gi"))}, "name": "scratch"})
    mounts.append({"mountPath": "/tmp", "name": "scratch"})
    if wl.kind == "StatefulSet":
        wl.claims = True
        mounts.append({"mountPath": "/data", "name": "data"})
    wl.volumes = vols
    if f.shape.managed_fields:
        wl.managed = {}
    env = [{"name": n, "value": str(rng.randint(1, 9999))} for n in rng.sample(_ENV_NAMES, 4 if few else 10)]
    env.append({"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"key": "password", "name": f"{name}-secrets"}}})
    env.append({"name": "NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}})
    out = []
    for i, c in enumerate(wl.spec["containers"]):
        c = dict(c, imagePullPolicy="IfNotPresent", terminationMessagePath="/dev/termination-log",
                 terminationMessagePolicy="File")
        c["securityContext"] = {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                "runAsNonRoot": True}
        if i == 0:
            c["env"] = list(c.get("env", [])) + env
            c["envFrom"] = [{"configMapRef": {"name": f"{name}-env"}}]
            c["volumeMounts"] = mounts
            if wl.kind != "Job":
                c["livenessProbe"] = _probe(8080, "/healthz", 10)
                c["readinessProbe"] = _probe(8080, "/ready", 5)
        out.append(dict(sorted(c.items())))
    wl.spec["containers"][:] = out
    if wl.kind == "Job":
        wl.spec["restartPolicy"] = rng.choice(("Never", "OnFailure"))
    else:
        wl.hpa = wl.kind == "Deployment" and f.shape.name == "web" and rng.random() < 0.4


def _full_token_volume(name: str) -> dict:
    """The projected token volume as admission really writes it (token, ca.crt, namespace)."""
    return {"name": name, "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
        {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                                    "path": "namespace"}]}}]}}


def _keys(d: dict) -> dict:
    """fieldsV1 for a map: every key, as the API server records them."""
    return {".": {}, **{f"f:{k}": {} for k in d}}


def managed_fields(wl, owner_uid: str) -> dict:
    """fieldsV1 per writer of a workload's pods (shared by its pods; only times differ)."""
    spec = wl.spec
    containers = {f'k:{{"name":"{c["name"]}"}}': {".": {}, **{f"f:{k}": {} for k in c}} for c in spec["containers"]}
    meta = {"f:generateName": {}, "f:labels": _keys(wl.labels),
            "f:ownerReferences": {".": {}, f'k:{{"uid":"{owner_uid}"}}': {}}}
    if wl.annotations:
        meta["f:annotations"] = _keys(wl.annotations)
    ctrl = {"f:metadata": dict(sorted(meta.items())),
            "f:spec": {"f:containers": containers,
                       **{f"f:{k}": {} for k in spec if k not in ("containers", "initContainers")},
                       "f:volumes": {".": {}, **{f'k:{{"name":"{v["name"]}"}}': {} for v in wl.volumes}}}}
    kubelet = {"f:status": {"f:conditions": {f'k:{{"type":"{t}"}}': {
        ".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}
        for t in ("ContainersReady", "Initialized", "PodReadyToStartContainers", "Ready")},
        "f:containerStatuses": {}, "f:hostIP": {}, "f:hostIPs": {}, "f:phase": {}, "f:podIP": {},
        "f:podIPs": {".": {}}, "f:startTime": {}}}
    sched = {"f:status": {"f:conditions": {".": {}, 'k:{"type":"PodScheduled"}': {
        ".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:message": {}, "f:reason": {},
        "f:status": {}, "f:type": {}}}}}
    return {"kube-controller-manager": ctrl, "kubelet": kubelet, "kube-scheduler": sched}


def _managed_list(fields: dict, created: int, running: bool) -> list:
    def entry(manager, f, t, status):
        e = {"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": f, "manager": manager,
             "operation": "Update"}
        if status:
            e["subresource"] = "status"
        e["time"] = ts(t)
        return e
    second = ("kubelet", created + 6) if running else ("kube-scheduler", created + 1)
    return [entry("kube-controller-manager", fields["kube-controller-manager"], created, False),
            entry(second[0], fields[second[0]], second[1], True)]


# --- rich nodes ---------------------------------------------------------------

def image_catalog(ids: Ids, workloads: list, daemonsets: list) -> list:
    """Images nodes report in status.images: what runs there, with digests and sizes."""
    seen = {}
    for w in list(daemonsets) + list(workloads):
        for image, digest in w.image_ids.items():
            seen.setdefault(image, (digest, ids.rng.randint(5_000_000, 900_000_000)))
    return [{"names": [digest, image], "sizeBytes": size} for image, (digest, size) in seen.items()]


def dress_node(ids: Ids, obj: dict, node, images: list) -> None:
    """The ~40 labels and the status an EKS node really carries, beyond what placement reads."""
    meta, t = obj["metadata"], node.itype
    labels = dict(meta["labels"])
    labels.update({"topology.ebs.csi.aws.com/zone": node.zone,
                   "vpc.amazonaws.com/has-trunk-attached": "false",
                   "topology.k8s.aws/network-node-layer-1": f"nn-{ids.hex(17)}",
                   "topology.k8s.aws/network-node-layer-2": f"nn-{ids.hex(17)}",
                   "topology.k8s.aws/network-node-layer-3": f"nn-{ids.hex(17)}"})
    if node.pool:
        labels.update({"karpenter.k8s.aws/instance-ebs-bandwidth": str(4750 * max(1, t.vcpu // 4)),
                       "karpenter.k8s.aws/instance-network-bandwidth": str(750 * t.vcpu),
                       "karpenter.k8s.aws/instance-encryption-in-transit-supported": "true"})
    meta["labels"] = dict(sorted(labels.items()))
    ann = dict(meta["annotations"])
    ann["csi.volume.kubernetes.io/nodeid"] = json.dumps({"ebs.csi.aws.com": node.instance_id},
                                                        separators=(",", ":"))
    meta["annotations"] = dict(sorted(ann.items()))
    k = min(len(images), ids.rng.randint(15, 40))
    obj["status"]["images"] = sorted(ids.rng.sample(images, k), key=lambda i: -i["sizeBytes"])
    obj["status"]["volumesInUse"] = []


# --- objects of the rich shapes -------------------------------------------------

def statefulset_object(ids: Ids, wl) -> dict:
    running = sum(1 for n in wl.placements if n is not None)
    meta = _meta(ids, wl.name, wl.created, wl.ns, uid=wl.uid, generation=1, labels={"app": wl.name})
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "data"},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "20Gi"}},
                      "storageClassName": "gp3", "volumeMode": "Filesystem"}}
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta,
            "spec": {"podManagementPolicy": "OrderedReady", "replicas": wl.replicas, "revisionHistoryLimit": 10,
                     "selector": {"matchLabels": {"app": wl.name}}, "serviceName": wl.name,
                     "template": _template(wl.labels, wl.spec, wl.annotations),
                     "updateStrategy": {"rollingUpdate": {"partition": 0}, "type": "RollingUpdate"},
                     "volumeClaimTemplates": [claim]},
            "status": {"availableReplicas": running, "currentReplicas": wl.replicas, "currentRevision": wl.rs_name,
                       "observedGeneration": 1, "readyReplicas": running, "replicas": wl.replicas,
                       "updateRevision": wl.rs_name, "updatedReplicas": wl.replicas}}


def job_object(ids: Ids, wl) -> dict:
    running = sum(1 for n in wl.placements if n is not None)
    sel = {"batch.kubernetes.io/controller-uid": wl.uid}
    meta = _meta(ids, wl.name, wl.rs_created, wl.ns, uid=wl.uid, generation=1,
                 labels=dict(sel, **{"batch.kubernetes.io/job-name": wl.name, "controller-uid": wl.uid,
                                     "job-name": wl.name}))
    status = {"active": wl.replicas, "ready": running, "startTime": ts(wl.rs_created),
              "terminating": 0, "uncountedTerminatedPods": {}}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": {"backoffLimit": 6, "completionMode": "NonIndexed", "completions": wl.replicas,
                     "manualSelector": False, "parallelism": wl.replicas, "podReplacementPolicy": "TerminatingOrFailed",
                     "selector": {"matchLabels": sel}, "suspend": False,
                     "template": _template(wl.labels, wl.spec, wl.annotations)},
            "status": status}


def hpa_object(ids: Ids, wl) -> dict:
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": _meta(ids, wl.name, wl.created + 60, wl.ns, labels={"app": wl.name}),
            "spec": {"maxReplicas": wl.replicas * 3, "metrics": [{"resource": {"name": "cpu", "target": {
                "averageUtilization": 70, "type": "Utilization"}}, "type": "Resource"}],
                "minReplicas": max(1, wl.replicas // 2),
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": wl.name}},
            "status": {"currentMetrics": [{"resource": {"current": {"averageUtilization": 41}, "name": "cpu"},
                                           "type": "Resource"}],
                       "currentReplicas": wl.replicas, "desiredReplicas": wl.replicas}}


def storage_class_object(ids: Ids) -> dict:
    return {"allowVolumeExpansion": True, "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": _meta(ids, "gp3", BASE_TIME - 120 * DAY), "parameters": {"type": "gp3"},
            "provisioner": "ebs.csi.aws.com", "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer"}


def claim_objects(ids: Ids, pod: dict, node, created: int) -> list:
    """A StatefulSet pod's bound claim and its zonal EBS volume (so VolumeBinding has real work);
    a pending pod's claim waits unbound for its first consumer, as the StatefulSet controller
    creates it before the pod."""
    ns, pod_name = pod["metadata"]["namespace"], pod["metadata"]["name"]
    claim = f"data-{pod_name}"
    if node is None:
        return [{"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                 "metadata": _meta(ids, claim, created, ns, finalizers=["kubernetes.io/pvc-protection"],
                                   labels={"app": pod["metadata"]["labels"]["app"]}),
                 "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "20Gi"}},
                          "storageClassName": "gp3", "volumeMode": "Filesystem"},
                 "status": {"phase": "Pending"}}]
    pv = f"pvc-{ids.uid()}"
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": _meta(ids, claim, created, ns, annotations={
               "pv.kubernetes.io/bind-completed": "yes", "volume.kubernetes.io/selected-node": node.name,
               "volume.kubernetes.io/storage-provisioner": "ebs.csi.aws.com"},
               finalizers=["kubernetes.io/pvc-protection"], labels={"app": pod["metadata"]["labels"]["app"]}),
           "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "20Gi"}},
                    "storageClassName": "gp3", "volumeMode": "Filesystem", "volumeName": pv},
           "status": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "20Gi"}, "phase": "Bound"}}
    vol = {"apiVersion": "v1", "kind": "PersistentVolume",
           "metadata": _meta(ids, pv, created + 2, annotations={"pv.kubernetes.io/provisioned-by": "ebs.csi.aws.com"},
                             finalizers=["kubernetes.io/pv-protection"]),
           "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "20Gi"},
                    "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": claim,
                                 "namespace": ns, "uid": pvc["metadata"]["uid"]},
                    "csi": {"driver": "ebs.csi.aws.com", "fsType": "ext4", "volumeHandle": "vol-0" + ids.hex(16)},
                    "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [node.zone]}]}]}},
                    "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "gp3", "volumeMode": "Filesystem"},
           "status": {"phase": "Bound"}}
    return [pvc, vol]


def _pdb_for(rng, replicas: int):
    if replicas < 2 or rng.random() > 0.25:
        return None
    return rng.choice(({"minAvailable": 1}, {"minAvailable": "50%"}, {"maxUnavailable": 1},
                       {"maxUnavailable": "25%"}, {"minAvailable": "80%"},
                       {"maxUnavailable": 0}))


def _make_workloads(factory, n_app_pods: int, n_pending: int, n_gpu_nodes: int,
                    n_mng: int) -> list:
    """All Deployments: system add-ons, GPU servers, pending ones, then general apps."""
    rng = factory.rng
    wls = _system_workloads(factory, n_app_pods - n_pending, n_mng)
    left = n_app_pods - n_pending - sum(w.replicas for w in wls)
    gpu_pods = min(left, int(n_gpu_nodes * 0.8))
    for r in _split(rng, gpu_pods, (2, 4, 6, 10, 16)):
        wls.append(factory.gpu("ml-serving", r))
    left -= gpu_pods
    shape = factory.shape
    kinds = shape.pending_kinds
    for i, r in enumerate(_split(rng, n_pending, shape.pending_menu)):
        wls.append(factory.pending(kinds[i % len(kinds)], r))
    app_ns = [ns for ns in APP_NAMESPACES if ns != "ml-serving"]
    # Small clusters get small Deployments: 200 replicas on 20 nodes would
    # overflow the few nodes a constrained workload may use.
    cap = max(1, factory.n_general // 5)
    menu = tuple(r for r in shape.replica_menu if r <= cap) or (1,)
    for r in _split(rng, left, menu):
        wl = factory.general(rng.choice(app_ns), r)
        wl.pdb = None if wl.kind == "Job" else _pdb_for(rng, r)
        wls.append(wl)
    return wls


# --------------------------------------------------------------------------
# DaemonSets
# --------------------------------------------------------------------------

@dataclass
class DaemonSet:
    name: str
    req: Req
    spec: dict
    labels: dict
    uid: str
    revision: str
    image_ids: dict


def _daemonsets(ids: Ids) -> list:
    """aws-node (VPC CNI: an init container + 2 containers) and kube-proxy; both
    host-network and tolerating every taint, as on every EKS node."""
    out = []
    cni_req = Req(tolerate_all=True, cpu_m=50, mem_mi=0)
    cni = [_container("aws-node", "amazon-k8s-cni:v1.18.3-eksbuild.1",
                      {"requests": {"cpu": "25m"}}, 61678, host_port=61678),
           _container("aws-eks-nodeagent", "amazon/aws-network-policy-agent:v1.1.2-eksbuild.1",
                      {"requests": {"cpu": "25m"}})]
    init = [_container("aws-vpc-cni-init", "amazon-k8s-cni-init:v1.18.3-eksbuild.1",
                       {"requests": {"cpu": "25m"}})]
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
            {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64", "arm64"]},
            {"key": "eks.amazonaws.com/compute-type", "operator": "NotIn",
             "values": ["fargate", "hybrid", "auto"]}]}]}}}
    spec = _pod_spec(cni, init, cni_req, aff, [], "aws-node", "system-node-critical",
                     PRIORITY_CLASSES["system-node-critical"], host_network=True)
    out.append(DaemonSet("aws-node", cni_req, spec, {"app.kubernetes.io/name": "aws-node",
                         "k8s-app": "aws-node"}, ids.uid(), ids.suffix(10), {}))
    kp_req = Req(tolerate_all=True, cpu_m=100, mem_mi=0)
    kp = [_container("kube-proxy", "eks/kube-proxy:v1.32.0-minimal-eksbuild.2",
                     {"requests": {"cpu": "100m"}})]
    spec = _pod_spec(kp, [], kp_req, {}, [], "kube-proxy", "system-node-critical",
                     PRIORITY_CLASSES["system-node-critical"], host_network=True)
    out.append(DaemonSet("kube-proxy", kp_req, spec, {"k8s-app": "kube-proxy"}, ids.uid(),
                         ids.suffix(10), {}))
    for ds in out:
        ds.image_ids = {c["image"]: f"{c['image'].split(':')[0]}@sha256:{ids.hex(64)}"
                        for c in ds.spec["containers"] + ds.spec.get("initContainers", [])}
    return out


# --------------------------------------------------------------------------
# Object builders (Kubernetes JSON shapes)
# --------------------------------------------------------------------------

def _meta(ids: Ids, name: str, created: int, ns: str | None = None, **extra) -> dict:
    """metadata with keys in kubectl's (alphabetical) order; uid may be preassigned
    because owners are referenced before their objects are built."""
    m = dict(extra, creationTimestamp=ts(created), name=name, resourceVersion=ids.rv())
    m["uid"] = m.get("uid") or ids.uid()
    if ns:
        m["namespace"] = ns
    return dict(sorted(m.items()))


def _owner(api: str, kind: str, name: str, uid: str, controller: bool = True) -> list:
    ref = {"apiVersion": api, "blockOwnerDeletion": True, "controller": controller,
           "kind": kind, "name": name, "uid": uid}
    return [ref]


def node_object(ids: Ids, node: Node, kubelet: str, pool: Pool | None) -> dict:
    """A Node; Karpenter nodes carry the pool's current hash (i.e. not drifted)."""
    karp = pool is not None
    ann = {"alpha.kubernetes.io/provided-node-ip": node.ip,
           "node.alpha.kubernetes.io/ttl": "0",
           "volumes.kubernetes.io/controller-managed-attach-detach": "true"}
    if karp:
        ann.update({"karpenter.k8s.aws/ec2nodeclass-hash": NODECLASS_HASH,
                    "karpenter.k8s.aws/ec2nodeclass-hash-version": "v4",
                    "karpenter.sh/nodepool-hash": pool.hash,
                    "karpenter.sh/nodepool-hash-version": "v3"})
    extra = {}
    if karp:
        extra["finalizers"] = ["karpenter.sh/termination"]
        extra["ownerReferences"] = _owner("karpenter.sh/v1", "NodeClaim", node.claim_name,
                                          node.claim_uid, controller=False)
    meta = _meta(ids, node.name, node.created, annotations=dict(sorted(ann.items())),
                 labels=node.labels, **extra)
    spec = {"providerID": f"aws:///{node.zone}/{node.instance_id}"}
    if node.taints:
        spec["taints"] = [{"effect": e, "key": k, **({"value": v} if v else {})}
                          for k, v, e in node.taints]
    if node.unschedulable:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec,
            "status": _node_status(ids, node, kubelet)}


def _capacity(t: InstanceType) -> dict:
    # Kubelet-reported memory is a little below the nominal size (firmware/kernel).
    mem_ki = max(int(t.mem_mib * 1024 * 0.96), t.mem_mi * 1024)
    cap = {"cpu": str(t.vcpu), "ephemeral-storage": "20959212Ki", "hugepages-1Gi": "0",
           "hugepages-2Mi": "0", "memory": f"{mem_ki}Ki", "pods": str(t.pods)}
    if t.gpus:
        cap["nvidia.com/gpu"] = str(t.gpus)
    return cap


def _allocatable(t: InstanceType) -> dict:
    alloc = {"hugepages-1Gi": "0", "hugepages-2Mi": "0"}
    alloc.update(t.allocatable)
    return dict(sorted(alloc.items()))


def _node_status(ids: Ids, node: Node, kubelet: str) -> dict:
    t = node.itype
    beat = ts(BASE_TIME - ids.rng.randint(5, 240))
    born = ts(node.created + 30)
    conds = [{"lastHeartbeatTime": beat, "lastTransitionTime": born, "message": msg,
              "reason": reason, "status": status, "type": typ}
             for typ, status, reason, msg in (
                 ("MemoryPressure", "False", "KubeletHasSufficientMemory",
                  "kubelet has sufficient memory available"),
                 ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                 ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                 ("Ready", "True", "KubeletReady", "kubelet is posting ready status"))]
    arch = "x86_64" if t.arch == "amd64" else "aarch64"
    return {
        "addresses": [{"address": node.ip, "type": "InternalIP"},
                      {"address": node.name, "type": "InternalDNS"},
                      {"address": node.name, "type": "Hostname"}],
        "allocatable": _allocatable(t), "capacity": _capacity(t), "conditions": conds,
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {"architecture": t.arch, "bootID": ids.uid(),
                     "containerRuntimeVersion": "containerd://1.7.22",
                     "kernelVersion": f"6.1.131-143.221.amzn2023.{arch}",
                     "kubeProxyVersion": kubelet, "kubeletVersion": kubelet,
                     "machineID": "ec2" + ids.hex(29), "operatingSystem": "linux",
                     "osImage": "Amazon Linux 2023.7.20250331", "systemUUID": "ec2" + ids.hex(5)
                     + "-" + ids.hex(4) + "-" + ids.hex(4) + "-" + ids.hex(4) + "-" + ids.hex(12)},
    }


def _pool_requirements(pool: Pool, zones: list) -> list:
    reqs = [
        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": list(pool.capacity_types)},
        {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": list(pool.families)},
        {"key": "karpenter.k8s.aws/instance-size", "operator": "In", "values": list(SIZES)},
        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": list(zones)},
    ]
    arch = "arm64" if pool.name == "arm64" else "amd64"
    reqs.insert(0, {"key": "kubernetes.io/arch", "operator": "In", "values": [arch]})
    return reqs


def _taint_dicts(taints) -> list:
    return [{"effect": e, "key": k, **({"value": v} if v else {})} for k, v, e in taints]


def nodepool_object(ids: Ids, pool: Pool, nodes: list, zones: list) -> dict:
    mine = [x for x in nodes if x.pool == pool.name]
    cpu = sum(x.itype.vcpu for x in mine)
    mem_ki = sum(int(x.itype.mem_mib * 1024 * 0.96) for x in mine)
    spec_tpl = {"expireAfter": "720h",
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                 "name": "default"},
                "requirements": _pool_requirements(pool, zones)}
    if pool.taints:
        spec_tpl["taints"] = _taint_dicts(pool.taints)
    gpu = pool.name == "gpu"
    limits = {"cpu": str(max(1000, cpu * 2)), "memory": f"{max(4000, mem_ki * 2 // 1048576)}Gi"}
    if gpu:
        limits["nvidia.com/gpu"] = str(max(8, len(mine) * 2))
    res = {"cpu": str(cpu), "ephemeral-storage": f"{20959212 * len(mine)}Ki",
           "memory": f"{mem_ki}Ki", "nodes": str(len(mine)),
           "pods": str(sum(x.itype.pods for x in mine))}
    created = BASE_TIME - 120 * DAY
    meta = _meta(ids, pool.name, created, uid=pool.uid, generation=1, annotations={
        "karpenter.sh/nodepool-hash": pool.hash, "karpenter.sh/nodepool-hash-version": "v3"})
    return {
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": meta,
        "spec": {"disruption": {"budgets": [{"nodes": "10%"}],
                                "consolidateAfter": "10m" if gpu else "1m",
                                "consolidationPolicy": "WhenEmpty" if gpu else "WhenEmptyOrUnderutilized"},
                 "limits": limits,
                 "template": {"metadata": {"labels": dict(pool.labels)}, "spec": spec_tpl},
                 "weight": pool.weight},
        "status": {"conditions": _ready_conditions(created, ("NodeClassReady", "ValidationSucceeded", "Ready")),
                   "resources": res},
    }


def _ready_conditions(t: int, types) -> list:
    return [{"lastTransitionTime": ts(t + 30), "message": "", "observedGeneration": 1,
             "reason": typ, "status": "True", "type": typ} for typ in types]


def ec2nodeclass_object(ids: Ids, zones: list, zone_prefix: str) -> dict:
    created = BASE_TIME - 120 * DAY
    sel = [{"tags": {"karpenter.sh/discovery": CLUSTER}}]
    subnets = [{"id": "subnet-" + ids.hex(17), "zone": z, "zoneID": f"{zone_prefix}-az{i + 1}"}
               for i, z in enumerate(zones)]
    amis = [{"id": "ami-" + ids.hex(17), "name": f"amazon-eks-node-al2023-{a}-standard-{K8S_MINOR}-v20250403",
             "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": [arch]}]}
            for a, arch in (("x86_64", "amd64"), ("arm64", "arm64"))]
    return {
        "apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
        "metadata": _meta(ids, "default", created, generation=1,
                          annotations={"karpenter.k8s.aws/ec2nodeclass-hash": NODECLASS_HASH,
                                       "karpenter.k8s.aws/ec2nodeclass-hash-version": "v4"},
                          finalizers=["karpenter.k8s.aws/termination"]),
        "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}],
                 "metadataOptions": {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                                     "httpPutResponseHopLimit": 1, "httpTokens": "required"},
                 "role": f"KarpenterNodeRole-{CLUSTER}",
                 "securityGroupSelectorTerms": sel, "subnetSelectorTerms": sel,
                 "tags": {"team": "platform"}},
        "status": {"amis": amis, "conditions": _ready_conditions(created, (
            "AMIsReady", "SubnetsReady", "SecurityGroupsReady", "InstanceProfileReady", "Ready")),
                   "instanceProfile": f"{CLUSTER}_{ids.hex(16)}",
                   "securityGroups": [{"id": "sg-" + ids.hex(17), "name": f"eks-cluster-sg-{CLUSTER}"}],
                   "subnets": subnets},
    }


def nodeclaim_object(ids: Ids, node: Node, pool: Pool, zones: list) -> dict:
    t = node.itype
    labels = {k: v for k, v in node.labels.items() if not k.startswith(("beta.", "failure-domain",
              "kubernetes.io/hostname", "k8s.io/"))}
    meta = _meta(ids, node.claim_name, node.created - 5, uid=node.claim_uid, generation=1,
                 labels=labels, annotations={
                     "karpenter.k8s.aws/ec2nodeclass-hash": NODECLASS_HASH,
                     "karpenter.k8s.aws/ec2nodeclass-hash-version": "v4",
                     "karpenter.sh/nodepool-hash": pool.hash,
                     "karpenter.sh/nodepool-hash-version": "v3"},
                 finalizers=["karpenter.sh/termination"],
                 ownerReferences=_owner("karpenter.sh/v1", "NodePool", pool.name, pool.uid,
                                        controller=False))
    reqs = _pool_requirements(pool, zones) + [
        {"key": "karpenter.sh/nodepool", "operator": "In", "values": [pool.name]},
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": [t.name]}]
    spec = {"expireAfter": "720h",
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
            "requirements": reqs,
            "resources": {"requests": {"cpu": "150m", "pods": "3"}}}
    if pool.taints:
        spec["taints"] = _taint_dicts(pool.taints)
    conds = _ready_conditions(node.created, ("Launched", "Registered", "Initialized", "Ready"))
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": meta, "spec": spec,
            "status": {"allocatable": dict(t.allocatable), "capacity": _capacity(t),
                       "conditions": conds, "imageID": "ami-0f1e2d3c4b5a69788",
                       "lastPodEventTime": ts(BASE_TIME - ids.rng.randint(60, 6 * 3600)),
                       "nodeName": node.name, "providerID": f"aws:///{node.zone}/{node.instance_id}"}}


# --- pods ------------------------------------------------------------------

def _token_volume(name: str) -> dict:
    """The projected service-account token volume admission adds to every pod
    (its ca.crt / namespace sources are omitted to keep pods compact)."""
    return {"name": name, "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}


def _with_mount(containers: list, vol: str) -> list:
    mount = [{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": vol,
              "readOnly": True}]
    out = []
    for c in containers:
        c2 = dict(c)
        c2["volumeMounts"] = c["volumeMounts"] + mount if "volumeMounts" in c else mount
        out.append(c2)
    return out


def _qos(spec: dict) -> str:
    """Guaranteed when every container has limits == requests for cpu+memory."""
    cs = spec["containers"] + spec.get("initContainers", [])
    if not any(c["resources"] for c in cs):
        return "BestEffort"
    if all(c["resources"].get("limits", {}).get(r) and
           c["resources"]["limits"].get(r) == c["resources"].get("requests", {}).get(r)
           for c in cs for r in ("cpu", "memory")):
        return "Guaranteed"
    return "Burstable"


def _container_status(ids: Ids, c: dict, image_ids: dict, started: int, state: str) -> dict:
    cid = "containerd://" + ids.hex(64)
    if state == "done":
        st = {"terminated": {"containerID": cid, "exitCode": 0, "finishedAt": ts(started + 3),
                             "reason": "Completed", "startedAt": ts(started)}}
    else:
        st = {"running": {"startedAt": ts(started)}}
    return {"containerID": cid, "image": c["image"], "imageID": image_ids[c["image"]],
            "lastState": {}, "name": c["name"], "ready": state != "done",
            "restartCount": 0, "started": state != "done", "state": st}


def _running_status(ids: Ids, spec, node: Node, pod_ip: str, created: int, image_ids: dict,
                    init_kinds: list, qos: str) -> dict:
    t = [ts(created + d) for d in (1, 3, 6)]
    conds = [{"lastProbeTime": None, "lastTransitionTime": t[i], "status": "True", "type": typ}
             for i, typ in ((1, "Initialized"), (2, "Ready"), (2, "ContainersReady"),
                            (0, "PodScheduled"))]
    status = {"conditions": conds,
              "containerStatuses": [_container_status(ids, c, image_ids, created + 4, "run")
                                    for c in spec["containers"]],
              "hostIP": node.ip, "hostIPs": [{"ip": node.ip}]}
    if init_kinds:
        status["initContainerStatuses"] = [
            _container_status(ids, c, image_ids, created + 2, "run" if k == "sidecar" else "done")
            for c, k in zip(spec["initContainers"], init_kinds)]
    status.update({"phase": "Running", "podIP": pod_ip, "podIPs": [{"ip": pod_ip}],
                   "qosClass": qos, "startTime": t[0]})
    return status


def _pending_status(created: int, message: str, qos: str) -> dict:
    return {"conditions": [{"lastProbeTime": None, "lastTransitionTime": ts(created + 1),
                            "message": message, "reason": "Unschedulable", "status": "False",
                            "type": "PodScheduled"}],
            "phase": "Pending", "qosClass": qos}


def pod_object(ids: Ids, ctx: dict, name: str, ns: str, node: Node | None, created: int,
               message: str | None) -> dict:
    """One Pod. ctx holds everything shared by the workload's pods."""
    spec_t = ctx["spec"]
    vol = ids.name("kube-api-access-")
    spec = dict(spec_t)
    spec["containers"] = _with_mount(spec_t["containers"], vol)
    if "initContainers" in spec_t:
        spec["initContainers"] = _with_mount(spec_t["initContainers"], vol)
    if ctx.get("ds_affinity") and node is not None:
        spec["affinity"] = ctx["ds_affinity"](node.name)
    if node is not None:
        spec["nodeName"] = node.name
    if "volumes" in ctx:  # the rich shapes: the template's volumes, the token as admission writes it
        spec["volumes"] = ctx["volumes"] + [_full_token_volume(vol)]
        if ctx.get("claims"):
            spec["volumes"].append({"name": "data", "persistentVolumeClaim": {"claimName": f"data-{name}"}})
    else:
        spec["volumes"] = [_token_volume(vol)]
    spec = dict(sorted(spec.items()))  # nodeName/volumes in kubectl's key order
    extra = {}
    if ctx.get("managed"):
        extra["managedFields"] = _managed_list(ctx["managed"], created, node is not None)
    if ctx.get("finalizers"):
        extra["finalizers"] = ctx["finalizers"]
    labels = ctx["labels"]
    if ctx.get("ordinal") is not None:  # a StatefulSet pod names itself in its labels
        labels = dict(labels, **{"apps.kubernetes.io/pod-index": str(ctx["ordinal"]),
                                 "statefulset.kubernetes.io/pod-name": name})
    meta = _meta(ids, name, created, ns, annotations=ctx["annotations"],
                 generateName=ctx["generate_name"], labels=labels,
                 ownerReferences=ctx["owner"], **extra)
    if node is None:
        status = _pending_status(created, message, ctx["qos"])
    else:
        ip = node.ip if spec_t.get("hostNetwork") else ids.ip(node.zone_idx)
        status = _running_status(ids, spec, node, ip, created, ctx["image_ids"],
                                 ctx["init_kinds"], ctx["qos"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def _pod_time(rng, node: Node | None, floor: int) -> int:
    lo = max(floor, node.created + 40) if node else floor
    return rng.randint(min(lo, BASE_TIME - 60), BASE_TIME - 60)


def workload_pods(ids: Ids, wl: Workload, messages: dict) -> list:
    ctx = {"spec": wl.spec, "annotations": wl.annotations, "labels": wl.labels,
           "generate_name": wl.rs_name + "-", "image_ids": wl.image_ids,
           "owner": _owner("apps/v1", "ReplicaSet", wl.rs_name, wl.rs_uid),
           "init_kinds": wl.init_kinds, "qos": _qos(wl.spec)}
    if wl.kind != "Deployment" or wl.volumes:
        _rich_ctx(ctx, wl)
    out = []
    for i, node in enumerate(wl.placements):
        created = _pod_time(ids.rng, node, wl.rs_created)
        if wl.kind == "StatefulSet":
            ctx["ordinal"] = i
            name = f"{wl.name}-{i}"
        else:
            name = ids.name(ctx["generate_name"])
        out.append(pod_object(ids, ctx, name, wl.ns, node, created, None if node else messages[wl]))
    return out


def _rich_ctx(ctx: dict, wl) -> None:
    """Owner, labels and extras of a rich shape's pods (their controller's own marks)."""
    if wl.kind == "Job":
        ctx["owner"] = _owner("batch/v1", "Job", wl.name, wl.uid)
        ctx["generate_name"] = wl.name + "-"
        ctx["labels"] = dict(wl.labels, **{"batch.kubernetes.io/controller-uid": wl.uid,
                                           "batch.kubernetes.io/job-name": wl.name,
                                           "controller-uid": wl.uid, "job-name": wl.name})
        ctx["finalizers"] = ["batch.kubernetes.io/job-tracking"]
    elif wl.kind == "StatefulSet":
        ctx["owner"] = _owner("apps/v1", "StatefulSet", wl.name, wl.uid)
        ctx["generate_name"] = wl.name + "-"
        ctx["labels"] = dict(wl.labels, **{"controller-revision-hash": wl.rs_name})
        ctx["claims"] = wl.claims
    ctx["volumes"] = wl.volumes
    if wl.managed is not None:
        ctx["managed"] = managed_fields(wl, ctx["owner"][0]["uid"])


def _ds_affinity_factory(spec: dict):
    """DaemonSet controller pins each pod to its node with a metadata.name matchField."""
    base_terms = (spec.get("affinity", {}).get("nodeAffinity", {})
                  .get("requiredDuringSchedulingIgnoredDuringExecution", {})
                  .get("nodeSelectorTerms", [{}]))

    def make(node_name: str) -> dict:
        field_ = [{"key": "metadata.name", "operator": "In", "values": [node_name]}]
        terms = [dict(t, matchFields=field_) for t in base_terms]
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": terms}}}
    return make


def ds_pods(ids: Ids, ds: DaemonSet, nodes: list) -> list:
    labels = dict(ds.labels, **{"controller-revision-hash": ds.revision,
                                "pod-template-generation": "1"})
    ctx = {"spec": ds.spec, "annotations": {}, "labels": labels,
           "generate_name": ds.name + "-", "image_ids": ds.image_ids,
           "owner": _owner("apps/v1", "DaemonSet", ds.name, ds.uid),
           "init_kinds": ["init"] * len(ds.spec.get("initContainers", [])),
           "qos": _qos(ds.spec), "ds_affinity": _ds_affinity_factory(ds.spec)}
    out = []
    for node in nodes:
        Placer.commit(node, ds.req, set())
        created = _pod_time(ids.rng, node, node.created)
        out.append(pod_object(ids, ctx, ids.name(f"{ds.name}-"), "kube-system", node,
                              created, None))
    return out


# --- workloads' own objects ------------------------------------------------

def _template(labels: dict, spec: dict, annotations: dict) -> dict:
    md = {"creationTimestamp": None, "labels": labels}
    if annotations:
        md["annotations"] = annotations
    return {"metadata": md, "spec": spec}


def deployment_object(ids: Ids, wl: Workload) -> dict:
    running = sum(1 for n in wl.placements if n is not None)
    sel = {"app": wl.name}
    tpl_labels = {k: v for k, v in wl.labels.items() if k != "pod-template-hash"}
    rev = "2" if wl.old_rs else "1"
    meta = _meta(ids, wl.name, wl.created, wl.ns, uid=wl.uid, generation=int(rev),
                 annotations={"deployment.kubernetes.io/revision": rev},
                 labels={"app": wl.name, "team": wl.team} if wl.team else {"app": wl.name})
    cond_time = ts(wl.rs_created + 10)
    avail = running >= max(1, wl.replicas - max(1, wl.replicas // 4)) or wl.replicas == 0
    status = {"availableReplicas": running, "conditions": [
        {"lastTransitionTime": cond_time, "lastUpdateTime": cond_time,
         "message": "Deployment has minimum availability." if avail else
         "Deployment does not have minimum availability.",
         "reason": "MinimumReplicasAvailable" if avail else "MinimumReplicasUnavailable",
         "status": "True" if avail else "False", "type": "Available"},
        {"lastTransitionTime": ts(wl.created), "lastUpdateTime": cond_time,
         "message": f'ReplicaSet "{wl.rs_name}" has successfully progressed.',
         "reason": "NewReplicaSetAvailable", "status": "True", "type": "Progressing"}],
        "observedGeneration": int(rev), "readyReplicas": running, "replicas": wl.replicas}
    if wl.replicas - running:
        status["unavailableReplicas"] = wl.replicas - running
    status["updatedReplicas"] = wl.replicas
    if not running:
        del status["availableReplicas"], status["readyReplicas"]
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
            "spec": {"progressDeadlineSeconds": 600, "replicas": wl.replicas,
                     "revisionHistoryLimit": 10, "selector": {"matchLabels": sel},
                     "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"},
                                  "type": "RollingUpdate"},
                     "template": _template(tpl_labels, wl.spec, wl.annotations)},
            "status": status}


def _rs(ids: Ids, wl: Workload, name: str, uid: str, hash_: str, replicas: int, running: int,
        rev: str, created: int, spec: dict) -> dict:
    labels = dict(wl.labels, **{"pod-template-hash": hash_})
    meta = _meta(ids, name, created, wl.ns, uid=uid, generation=1, labels=labels,
                 annotations={"deployment.kubernetes.io/desired-replicas": str(wl.replicas),
                              "deployment.kubernetes.io/max-replicas": str(wl.replicas + math.ceil(wl.replicas / 4)),
                              "deployment.kubernetes.io/revision": rev},
                 ownerReferences=_owner("apps/v1", "Deployment", wl.name, wl.uid))
    status = {"observedGeneration": 1, "replicas": replicas}
    if running:
        status.update({"availableReplicas": running, "fullyLabeledReplicas": replicas,
                       "readyReplicas": running})
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta,
            "spec": {"replicas": replicas,
                     "selector": {"matchLabels": {"app": wl.name, "pod-template-hash": hash_}},
                     "template": _template(labels, spec, wl.annotations)},
            "status": status}


def replicaset_objects(ids: Ids, wl: Workload) -> list:
    """Current RS, plus (sometimes) a scaled-to-zero previous revision, as rollouts leave."""
    running = sum(1 for n in wl.placements if n is not None)
    out = []
    if wl.old_rs:
        old_hash = ids.name("", 10)
        old_spec = dict(wl.spec)
        old_spec["containers"] = [dict(c, image=c["image"].rsplit(":", 1)[0] + ":previous")
                                  for c in wl.spec["containers"]]
        out.append(_rs(ids, wl, f"{wl.name}-{old_hash}", ids.uid(), old_hash, 0, 0, "1",
                       wl.created, old_spec))
    out.append(_rs(ids, wl, wl.rs_name, wl.rs_uid, wl.hash, wl.replicas, running,
                   "2" if wl.old_rs else "1", wl.rs_created, wl.spec))
    return out


def daemonset_object(ids: Ids, ds: DaemonSet, n_nodes: int) -> dict:
    created = BASE_TIME - 120 * DAY
    meta = _meta(ids, ds.name, created, "kube-system", uid=ds.uid, generation=1,
                 annotations={"deprecated.daemonset.template.generation": "1"}, labels=ds.labels)
    n = n_nodes
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta,
            "spec": {"revisionHistoryLimit": 10, "selector": {"matchLabels": {
                k: v for k, v in ds.labels.items() if k == "k8s-app"}},
                "template": _template(ds.labels, ds.spec, {}),
                "updateStrategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": "10%"},
                                   "type": "RollingUpdate"}},
            "status": {"currentNumberScheduled": n, "desiredNumberScheduled": n,
                       "numberAvailable": n, "numberMisscheduled": 0, "numberReady": n,
                       "observedGeneration": 1, "updatedNumberScheduled": n}}


def _desired_healthy(spec: dict, expected: int) -> int:
    def scaled(v):
        return math.ceil(int(v[:-1]) * expected / 100) if isinstance(v, str) else v
    if "minAvailable" in spec:
        return scaled(spec["minAvailable"])
    return max(0, expected - scaled(spec["maxUnavailable"]))


def pdb_object(ids: Ids, wl: Workload) -> dict:
    running = sum(1 for n in wl.placements if n is not None)
    desired = _desired_healthy(wl.pdb, wl.replicas)
    allowed = max(0, running - desired)
    created = wl.created + 60
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": _meta(ids, f"{wl.name}-pdb", created, wl.ns, generation=1,
                              labels={"app": wl.name}),
            "spec": dict(wl.pdb, selector={"matchLabels": {"app": wl.name}}),
            "status": {"conditions": [{
                "lastTransitionTime": ts(created + 5), "message": "",
                "observedGeneration": 1,
                "reason": "SufficientPods" if allowed else "InsufficientPods",
                "status": "True" if allowed else "False", "type": "DisruptionAllowed"}],
                "currentHealthy": running, "desiredHealthy": desired,
                "disruptionsAllowed": allowed, "expectedPods": wl.replicas,
                "observedGeneration": 1}}


def _event(ids: Ids, pod: dict, reason: str, message: str, component: str, count: int) -> dict:
    pm = pod["metadata"]
    first = BASE_TIME - 3600 if count > 1 else BASE_TIME - 120
    return {"apiVersion": "v1", "kind": "Event", "count": count, "eventTime": None,
            "firstTimestamp": ts(first), "involvedObject": {
                "apiVersion": "v1", "kind": "Pod", "name": pm["name"], "namespace": pm["namespace"],
                "resourceVersion": pm["resourceVersion"], "uid": pm["uid"]},
            "lastTimestamp": ts(BASE_TIME - ids.rng.randint(5, 300)), "message": message,
            "metadata": _meta(ids, f"{pm['name']}.{ids.hex(16)}", first, pm["namespace"]),
            "reason": reason, "reportingComponent": component, "reportingInstance": "",
            "source": {"component": component}, "type": "Warning"}


def karpenter_message(req: Req, pools: list, ds_overhead: dict, types: dict, zones: list) -> str:
    """Karpenter's provisioner error for a pod no NodePool can take."""
    over = json.dumps(ds_overhead, separators=(",", ":"))
    parts = []
    for pool in pools:
        head = f'incompatible with nodepool "{pool.name}", daemonset overhead={over}'
        taint = next((t for t in pool.taints if t[0] not in req.tolerate), None)
        if taint:
            parts.append(f"{head}, did not tolerate {taint[0]}={taint[1]}:{taint[2]}")
            continue
        conflict = _requirement_conflict(req, pool, zones)
        if conflict:
            parts.append(f"{head}, incompatible requirements, {conflict}")
            continue
        parts.append(f"{head}, {_no_instance_type(req, pool, ds_overhead, types)}")
    return "Failed to schedule pod, " + "; ".join(parts)


def _requirement_conflict(req: Req, pool: Pool, zones: list) -> str | None:
    known = {r["key"]: r["values"] for r in _pool_requirements(pool, zones)}
    known["karpenter.sh/nodepool"] = [pool.name]
    for k, v in pool.labels.items():
        known[k] = [v]
    for key, want in req.node_selector.items():
        if key in known and want not in known[key]:
            return (f"key {key}, {key} In [{want}] not in "
                    f"{key} In [{' '.join(known[key])}]")
    return None


def _no_instance_type(req: Req, pool: Pool, over: dict, types: dict) -> str:
    cpu = req.cpu_m + _cpu_m(over.get("cpu", "0"))
    res = {"cpu": _fmt_cpu(cpu), "memory": _fmt_mem(req.mem_mi)}
    if req.gpus:
        res["nvidia.com/gpu"] = str(req.gpus)
    res["pods"] = str(int(over.get("pods", "0")) + 1)
    fams = " ".join(pool.families)
    return (f"no instance type satisfied resources {json.dumps(res, separators=(',', ':'))} "
            f"and requirements karpenter.k8s.aws/instance-family In [{fams}], "
            f"karpenter.k8s.aws/instance-size In [{' '.join(SIZES)}], "
            f"karpenter.sh/capacity-type In [{' '.join(pool.capacity_types)}], "
            f"karpenter.sh/nodepool In [{pool.name}] (no instance type has enough resources)")


# --------------------------------------------------------------------------
# Assembly
# --------------------------------------------------------------------------

def _static_objects(ids: Ids) -> list:
    """Namespaces, PriorityClasses and a RuntimeClass: small, but dumps include
    them and the simulator needs priorities and overheads."""
    out = []
    for ns in SYSTEM_NAMESPACES + APP_NAMESPACES:
        meta = _meta(ids, ns, BASE_TIME - 120 * DAY,
                     labels={"kubernetes.io/metadata.name": ns})
        out.append({"apiVersion": "v1", "kind": "Namespace", "metadata": meta,
                    "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})
    for name, value in PRIORITY_CLASSES.items():
        pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
              "metadata": _meta(ids, name, BASE_TIME - 120 * DAY),
              "preemptionPolicy": "Never" if value < 0 else "PreemptLowerPriority",
              "value": value}
        if name == "low-priority":
            pc["description"] = "Batch and best-effort work; never preempts."
        out.append(pc)
    # The RuntimeClass whose overhead admission copied into some pods' spec.overhead.
    out.append({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "handler": "kata-qemu",
                "metadata": _meta(ids, "kata-qemu", BASE_TIME - 120 * DAY),
                "overhead": {"podFixed": {"cpu": _fmt_cpu(KATA_OVERHEAD[0]),
                                          "memory": _fmt_mem(KATA_OVERHEAD[1])}}})
    return out


def _budget(nodes: int, pods: int, pending_fraction: float) -> dict:
    """How many pods of each origin: DaemonSets first (they are per node)."""
    ds = min(pods, 2 * nodes)
    pending = min(pods - ds, round(pods * pending_fraction))
    return {"ds": ds, "app": pods - ds, "pending": pending}


def _size_awaiting(wls: list, nodes: list) -> None:
    """Size "awaiting-capacity" pods just above the largest free cpu on any
    untainted node, once placement is final: then no current node fits them
    (the dump stays consistent) while an empty 4xlarge would."""
    free = max((x.free_cpu for x in nodes if not x.taints), default=0)
    cpu = (free // 100 + 1) * 100
    for wl in wls:
        if wl.pending_kind == "awaiting-capacity":
            wl.req.cpu_m = cpu
            # The containers list is shared with the Deployment/RS templates.
            wl.spec["containers"][0]["resources"] = _resources(cpu, wl.req.mem_mi, "guaranteed")


# Pending flavours Karpenter cannot provision for either (so it logs/events why).
IMPOSSIBLE_KINDS = ("oversized", "gpu-hungry", "zone-pinned", "gpu-untolerated")


def _pending_messages(nodes, wls, pools, types, zones, ds_overhead) -> tuple:
    """kube-scheduler message per workload with pending pods (from the final
    node state), and Karpenter's message for the deliberately pending ones."""
    sched, karp = {}, {}
    for wl in wls:
        if any(n is None for n in wl.placements):
            sched[wl] = fit_error(nodes, wl.req, wl.taken, wl.pending_zone)
            if wl.pending_kind in IMPOSSIBLE_KINDS:
                karp[wl] = karpenter_message(wl.req, pools, ds_overhead, types, zones)
    return sched, karp


def _events(ids: Ids, pods_by_wl: dict, sched: dict, karp: dict) -> list:
    """FailedScheduling events for the first few pending pods of each workload."""
    out = []
    for wl, pods in pods_by_wl.items():
        pending = [p for p in pods if "nodeName" not in p["spec"]][:5]
        for i, pod in enumerate(pending):
            out.append(_event(ids, pod, "FailedScheduling", sched[wl], "default-scheduler",
                              ids.rng.randint(1, 40)))
            if wl in karp and i < 3:
                out.append(_event(ids, pod, "FailedScheduling", karp[wl], "karpenter",
                                  ids.rng.randint(1, 20)))
    return out


def _assign_claims(ids: Ids, nodes: list):
    for node in nodes:
        if node.pool:
            node.claim_name = ids.name(f"{node.pool}-")
            node.claim_uid = ids.uid()


@dataclass
class Cluster:
    """Everything decided before objects are rendered (placement is final)."""
    ids: Ids
    types: dict
    region: str
    zones: list
    pools: list
    nodes: list
    daemonsets: list
    ds_pods: list
    workloads: list
    shape: Shape = None


def _plan(nodes: int, pods: int, seed: int, pending_fraction: float, region: str,
          catalog: str | None, shape: Shape) -> Cluster:
    """Nodes, then DaemonSet pods (they land on every node before any app
    pod), then Deployments placed one by one against the remaining capacity."""
    ids = Ids(seed)
    types = load_instance_types(catalog)
    zones = [f"{region}{z}" for z in "abc"]
    pools = _pools(ids)
    if shape.spot:  # batch: spot-heavy general pools, Graviton spot only
        for pool in pools:
            if pool.name == "default":
                pool.spot_share = 0.9
            elif pool.name == "arm64":
                pool.capacity_types, pool.spot_share = ("spot",), 1.0
    node_list = _make_nodes(ids, nodes, types, pools, region)
    _assign_claims(ids, node_list)
    budget = _budget(nodes, pods, pending_fraction)
    daemonsets = _daemonsets(ids)
    ds_pod_objs, left = [], budget["ds"]
    for ds in daemonsets:
        take = node_list[:min(left, len(node_list))]
        ds_pod_objs += ds_pods(ids, ds, take)
        left -= len(take)
    n_gpu = sum(1 for x in node_list if x.pool == "gpu")
    n_mng = sum(1 for x in node_list if x.nodegroup)
    general_pods = max(0, budget["app"] - budget["pending"] - int(n_gpu * 0.8))
    factory = WorkloadFactory(ids, _sizing(node_list, general_pods, shape.cpu_menu), zones, region, shape)
    factory.n_general = sum(1 for x in node_list if x.pool in ("default", "arm64"))
    wls = _make_workloads(factory, budget["app"], budget["pending"], n_gpu, n_mng)
    placer = Placer(ids.rng, node_list)
    for wl in wls:
        _place_workload(placer, wl, zones)
    _size_awaiting(wls, node_list)
    return Cluster(ids, types, region, zones, pools, node_list, daemonsets, ds_pod_objs, wls, shape)


def _assemble(c: Cluster) -> list:
    """Render every object, in the kind order a `kubectl get ... -A` dump has."""
    ids = c.ids
    ds_overhead = {"cpu": _fmt_cpu(sum(d.req.cpu_m for d in c.daemonsets)),
                   "pods": str(len(c.daemonsets))}
    sched, karp = _pending_messages(c.nodes, c.workloads, c.pools, c.types, c.zones, ds_overhead)
    pods_by_wl = {wl: workload_pods(ids, wl, sched) for wl in c.workloads}
    pools_by_name = {p.name: p for p in c.pools}
    items = _static_objects(ids)
    node_objs = [node_object(ids, x, KUBELET_VERSIONS[x.idx % len(KUBELET_VERSIONS)],
                             pools_by_name.get(x.pool)) for x in c.nodes]
    rich = c.shape is not None and c.shape.rich
    if rich:
        images = image_catalog(ids, c.workloads, c.daemonsets)
        for obj, x in zip(node_objs, c.nodes):
            dress_node(ids, obj, x, images)
        items.append(storage_class_object(ids))
    items += node_objs
    items.append(ec2nodeclass_object(ids, c.zones, _zone_id_prefix(c.region)))
    items += [nodepool_object(ids, p, c.nodes, c.zones) for p in c.pools]
    items += [nodeclaim_object(ids, x, pools_by_name[x.pool], c.zones) for x in c.nodes if x.pool]
    items += [daemonset_object(ids, ds, len(c.nodes)) for ds in c.daemonsets]
    items += [deployment_object(ids, wl) for wl in c.workloads if wl.kind == "Deployment"]
    items += [statefulset_object(ids, wl) for wl in c.workloads if wl.kind == "StatefulSet"]
    items += [job_object(ids, wl) for wl in c.workloads if wl.kind == "Job"]
    for wl in c.workloads:
        if wl.kind == "Deployment":
            items += replicaset_objects(ids, wl)
    items += [hpa_object(ids, wl) for wl in c.workloads if wl.hpa]
    items += c.ds_pods
    claims = []
    for wl in c.workloads:
        items += pods_by_wl[wl]
        if wl.claims:
            for pod, node in zip(pods_by_wl[wl], wl.placements):
                claims += claim_objects(ids, pod, node, wl.rs_created)
    items += claims
    items += [pdb_object(ids, wl) for wl in c.workloads if wl.pdb]
    items += _events(ids, pods_by_wl, sched, karp)
    return items


def generate(nodes: int, pods: int, seed: int = 1, pending_fraction: float = 0.02,
             region: str = "us-east-1", *, catalog: str | None = None, shape: str = "classic") -> dict:
    """Build the whole cluster as a `kind: List` dict (see module docstring).

    `pods` counts every pod, DaemonSet pods (two per node) included;
    `catalog` is an optional path to an EC2 instance-type data file; `shape` one of SHAPES."""
    if nodes < 1 or pods < 0 or not 0 <= pending_fraction <= 1:
        raise ValueError("need nodes >= 1, pods >= 0 and 0 <= pending_fraction <= 1")
    # Millions of small dicts and no reference cycles: the cyclic GC would
    # rescan the growing heap over and over (3x slower), so pause it.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        if shape not in SHAPES:
            raise ValueError(f"unknown shape {shape!r} (known: {', '.join(SHAPES)})")
        items = _assemble(_plan(nodes, pods, seed, pending_fraction, region, catalog, SHAPES[shape]))
    finally:
        if was_enabled:
            gc.enable()
    return {"apiVersion": "v1", "items": items, "kind": "List",
            "metadata": {"resourceVersion": ""}}


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------

def _open_out(path: str):
    """Binary sink; gzip with mtime=0 and no stored name so bytes stay deterministic."""
    if path == "-":
        return sys.stdout.buffer, False
    raw = open(path, "wb")
    if path.endswith(".gz"):
        return gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0), raw
    return raw, False


def write_json(doc: dict, fh) -> None:
    """Stream one item at a time: json.dumps per item uses the C encoder, while
    json.dump on the whole document would fall back to the slow Python one."""
    fh.write(b'{"apiVersion":"v1","items":[\n')
    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    first = True
    for item in doc["items"]:
        if not first:
            fh.write(b",\n")
        fh.write(dumps(item).encode("utf-8"))
        first = False
    fh.write(b'\n],"kind":"List","metadata":{"resourceVersion":""}}\n')


def _yaml_dumper():
    try:
        import yaml
    except ImportError as exc:
        raise RuntimeError("--format yaml needs PyYAML (pip install pyyaml)") from exc
    base = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

    class NoAliases(base):
        # Pods share sub-objects in memory; kubectl never prints YAML anchors.
        def ignore_aliases(self, data):
            return True
    return yaml, NoAliases


def write_yaml(doc: dict, fh) -> None:
    """Stream items as a block sequence under `items:` (valid YAML at the same indent)."""
    yaml, dumper = _yaml_dumper()
    fh.write(b"apiVersion: v1\nitems:\n")
    for item in doc["items"]:
        text = yaml.dump([item], Dumper=dumper, default_flow_style=False, sort_keys=False,
                         allow_unicode=True, width=4096)
        fh.write(text.encode("utf-8"))
    fh.write(b"kind: List\nmetadata:\n  resourceVersion: \"\"\n")


def _summary(doc: dict) -> dict:
    kinds = {}
    pending = 0
    for item in doc["items"]:
        kinds[item["kind"]] = kinds.get(item["kind"], 0) + 1
        if item["kind"] == "Pod" and "nodeName" not in item["spec"]:
            pending += 1
    return {"nodes": kinds.get("Node", 0), "pods": kinds.get("Pod", 0), "pending": pending,
            "objects": len(doc["items"])}


def _parse_args(argv):
    p = argparse.ArgumentParser(prog="gen_cluster.py",
                                description="Generate a synthetic EKS + Karpenter kubectl dump.")
    p.add_argument("--nodes", type=int, required=True)
    p.add_argument("--pods", type=int, help="all pods, DaemonSet pods included "
                   "(default: nodes x the shape's pods per node: " +
                   ", ".join(f"{s.name} {s.pods_per_node}" for s in SHAPES.values()) + ")")
    p.add_argument("--shape", choices=tuple(SHAPES), default="classic",
                   help="; ".join(f"{s.name}: {s.about}" for s in SHAPES.values()))
    p.add_argument("--format", choices=("json", "yaml"), default="json")
    p.add_argument("--out", required=True, help="output file ('.gz' = gzip, '-' = stdout)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--pending-fraction", type=float,
                   help="share of pods left pending (default: the shape's: " +
                   ", ".join(f"{s.name} {s.pending_fraction}" for s in SHAPES.values()) + ")")
    p.add_argument("--region", default="us-east-1")
    p.add_argument("--instance-types", help="EC2 data file (default: shared data, else built-in)")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = _parse_args(argv)
    shape = SHAPES[args.shape]
    pods = args.pods if args.pods is not None else args.nodes * shape.pods_per_node
    pending = args.pending_fraction if args.pending_fraction is not None else shape.pending_fraction
    start = time.perf_counter()
    try:
        doc = generate(args.nodes, pods, args.seed, pending, args.region,
                       catalog=args.instance_types, shape=args.shape)
        write = write_yaml if args.format == "yaml" else write_json
        if args.format == "yaml":
            _yaml_dumper()  # fail before creating the file
        fh, raw = _open_out(args.out)
        try:
            write(doc, fh)
        finally:
            if fh is not sys.stdout.buffer:
                fh.close()
            if raw:
                raw.close()
    except (ValueError, OSError, RuntimeError) as exc:
        print(f"gen_cluster.py: {exc}", file=sys.stderr)
        return 2
    s = _summary(doc)
    size = os.path.getsize(args.out) if args.out != "-" else 0
    print(f"gen_cluster: {s['nodes']} nodes, {s['pods']} pods ({s['pending']} pending), "
          f"{s['objects']} objects, {size / 1e6:.1f} MB -> {args.out} "
          f"in {time.perf_counter() - start:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

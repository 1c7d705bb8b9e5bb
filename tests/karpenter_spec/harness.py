"""Runs one Karpenter spec scenario (see README.md here) through ``karptui simulate``.

A scenario is turned into the files a user would have — a snapshot (a
``kind: List`` of Kubernetes objects) and an instance-type catalog (docs/catalog-files.md) — and each round runs ``karptui simulate ... --output json`` through the
command line's own entry point. The JSON answer is then checked against the
expectations, which say what Karpenter's own test asserts.

Between rounds the cluster moves on as Karpenter's test helper
``ExpectProvisioned`` moves it: each launched NodeClaim becomes a Node (and its
NodeClaim) and the pods placed are bound.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import yaml

from karptui.cli import main
from karptui.model.snapshot import SnapshotMeta
from karptui.sim.karpenter.versions import KarpenterVersion
from karptui.sources.snapshot_file import write_snapshot

HERE = Path(__file__).resolve().parent
NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=timezone.utc)
ZONE, CAPACITY_TYPE, INSTANCE_TYPE = "topology.kubernetes.io/zone", "karpenter.sh/capacity-type", \
    "node.kubernetes.io/instance-type"
HOSTNAME, NODEPOOL = "kubernetes.io/hostname", "karpenter.sh/nodepool"
GiB = 2**30

TOP_KEYS = {"name", "context", "source", "notes", "catalog", "instanceTypes", "addOfferings", "featureGates", "karpenterVersion", "settings",
            "repairPolicies", "nodePools", "nodes", "pods", "objects", "rounds"}
# ``settings:`` keys (test.OptionsFields' names) -> the karptui flag that sets Karpenter's option
SETTING_FLAGS = {"preferencePolicy": "--preference-policy", "minValuesPolicy": "--min-values-policy",
                 "schedulerConfig": "--scheduler-config", "legacyNodeRepair": "--legacy-node-repair"}
# the fake cloud provider's repair policies (pkg/cloudprovider/fake/cloudprovider.go, Reset): a scenario's
# ``repairPolicies:`` replaces them, as a test setting ``cloudProvider.RepairPolicy`` does
FAKE_REPAIR_POLICIES = [{"conditionType": "BadNode", "conditionStatus": "False", "tolerationDuration": "30m"}]
# the release the corpus was ported from: a scenario runs as that Karpenter (``karpenterVersion:`` for others)
UPSTREAM_VERSION = "v1.14.0"
RESERVATION_ID = "karpenter.k8s.aws/capacity-reservation-id"  # the AWS provider's; the fake's is karpenter.kwok.sh/...
ROUND_KEYS = {"pods", "consolidate", "expect", "apply", "deleteObjects", "deletePods", "deleteNodes", "markNodesOf", "evictPods",
              "advanceClock", "notes", "labelNodes", "deletePodsOnNodesWith"}
EXPECT_KEYS = {"scheduled", "notScheduled", "scheduledCount", "nodeLabels", "notNodeLabels", "presentNodeLabels",
               "absentNodeLabels", "sameLabel", "differentLabel", "nodeTaints", "nodeTaintCount", "onNode", "onNewNode", "sameNode",
               "differentNodes", "newNodes", "nodes", "everyNodeLabels", "skew", "nodeClaim", "command", "noCommand",
               "notDisrupted", "bufferPods", "buffers"}
POD_KEYS = {"name", "count", "namespace", "labels", "annotations", "requests", "limits", "nodeSelector",
            "tolerations", "affinity", "topologySpreadConstraints", "hostPorts", "initContainers", "overhead",
            "priority", "owner", "nodeName", "phase", "terminating", "started", "ready", "spec"}
NODE_KEYS = {"name", "instanceType", "zone", "capacityType", "nodepool", "labels", "annotations", "taints",
             "initialized", "unschedulable", "allocatable", "inflight", "created", "deleting", "conditions", "drifted",
             "driftedSince", "consolidatable"}


class ScenarioError(Exception):
    """The scenario file itself is malformed (not a disagreement with karptui)."""


# ---- the fake cloud provider's instance types, in our catalog format -------------------------

FAKE_OFFERINGS = (("spot", "test-zone-1"), ("spot", "test-zone-2"), ("on-demand", "test-zone-1"),
                  ("on-demand", "test-zone-2"), ("on-demand", "test-zone-3"))
GPU_RESOURCES = ("fake.com/vendor-a", "fake.com/vendor-b")


def _quantity_value(text) -> float:
    """A Kubernetes quantity as a float (enough for the fake provider's prices and sizes)."""
    text = str(text).strip()
    suffixes = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
                "m": 1e-3}
    for suffix in sorted(suffixes, key=len, reverse=True):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * suffixes[suffix]
    return float(text)


def fake_price(resources: dict) -> float:
    price = 0.0
    for name, value in resources.items():
        if name == "cpu":
            price += 0.1 * _quantity_value(value)
        elif name == "memory":
            price += 0.1 * _quantity_value(value) / 1e9
        elif name in GPU_RESOURCES:
            price += 1.0
    return round(price, 6)


def fake_type(spec: dict) -> dict:
    """One type as fake.NewInstanceType builds it, written as a catalog entry."""
    unknown = set(spec) - {"name", "resources", "arch", "os", "offerings", "labels", "volumeLimits"}
    if unknown:
        raise ScenarioError(f"instanceTypes[{spec.get('name')}]: unknown keys {sorted(unknown)}")
    resources = {str(k): str(v) for k, v in (spec.get("resources") or {}).items()}
    resources.setdefault("cpu", "4")
    resources.setdefault("memory", "4Gi")
    resources.setdefault("pods", "5")
    if _quantity_value(resources["cpu"]) == 0:
        resources["cpu"] = "4"
    if _quantity_value(resources["memory"]) == 0:
        resources["memory"] = "4Gi"
    if _quantity_value(resources["pods"]) == 0:
        resources["pods"] = "5"
    price = fake_price(resources)
    offerings = []
    for raw in spec.get("offerings") or [{"capacityType": c, "zone": z} for c, z in FAKE_OFFERINGS]:
        offer = {"zone": raw["zone"], "capacityType": raw["capacityType"],
                 "price": raw.get("price", price), "available": raw.get("available", True)}
        if "reservationId" in raw:  # the fake Offering's ReservationID / ReservationCapacity
            offer.update(reservationId=raw["reservationId"], reservationCapacity=raw.get("reservationCapacity", 1))
        for key in ("capacityOverride", "overheadOverride"):  # the Offering's CapacityOverride / OverheadOverride
            if raw.get(key) is not None:                        # (an overhead override: its Total())
                offer[key] = {str(k): str(v) for k, v in raw[key].items()}
        offerings.append(offer)
    cpu, memory = _quantity_value(resources["cpu"]), _quantity_value(resources["memory"])
    labels = {"integer": str(int(cpu)), "size": "small"}
    if cpu > 4 and memory > 8 * GiB:
        labels.update(size="large", special="optional")
    labels.update({str(k): str(v) for k, v in (spec.get("labels") or {}).items()})
    os_list = spec.get("os") or ["darwin", "linux", "windows"]
    extended = {k: v for k, v in resources.items() if k not in ("cpu", "memory", "pods")}
    entry = {"name": spec["name"], "cpu": resources["cpu"], "memory": resources["memory"], "pods": resources["pods"],
             "arch": spec.get("arch", "amd64"), "os": list(os_list), "labels": labels,
             "overhead": {"cpu": "100m", "memory": "10Mi"}, "offerings": offerings}
    if "ephemeral-storage" in extended:
        entry["ephemeralStorage"] = extended.pop("ephemeral-storage")
    if extended:
        entry["extendedResources"] = extended
    if spec.get("volumeLimits"):
        entry["volumeLimits"] = dict(spec["volumeLimits"])
    return entry


def named_catalog(name: str) -> list[dict]:
    if name == "fake-default":
        return [fake_type(t) for t in (
            {"name": "default-instance-type"},
            {"name": "small-instance-type", "resources": {"cpu": "2", "memory": "2Gi"}},
            {"name": "gpu-vendor-instance-type", "resources": {"fake.com/vendor-a": "2"}},
            {"name": "gpu-vendor-b-instance-type", "resources": {"fake.com/vendor-b": "2"}},
            {"name": "arm-instance-type", "arch": "arm64", "os": ["ios", "linux", "windows", "darwin"],
             "resources": {"cpu": "16", "memory": "128Gi"}},
            {"name": "single-pod-instance-type", "resources": {"pods": "1"}},
        )]
    if name == "fake-assorted":
        out = []
        for cpu in (1, 2, 4, 8, 16, 32, 64):
            for mem in (1, 2, 4, 8, 16, 32, 64, 128):
                for zone in ("test-zone-1", "test-zone-2", "test-zone-3"):
                    for ct in ("spot", "on-demand"):
                        for os_name in ("linux", "windows"):
                            for arch in ("amd64", "arm64"):
                                out.append(fake_type({
                                    "name": f"{cpu}-cpu-{mem}-mem-{arch}-{os_name}-{zone}-{ct}",
                                    "arch": arch, "os": [os_name],
                                    "resources": {"cpu": str(cpu), "memory": f"{mem}Gi"},
                                    "offerings": [{"zone": zone, "capacityType": ct}]}))
        return out
    if name.startswith("fake-sequence-"):
        total = int(name.removeprefix("fake-sequence-"))
        return [fake_type({"name": f"fake-it-{i}", "resources": {
            "cpu": str(i + 1), "memory": f"{(i + 1) * 2}Gi", "pods": str((i + 1) * 10)}}) for i in range(total)]
    raise ScenarioError(f"unknown catalog {name!r}")


# ---- building the cluster ---------------------------------------------------------------------

def _duration(text) -> timedelta:
    text = str(text)
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    return timedelta(seconds=float(text[:-1]) * units[text[-1]]) if text[-1] in units else \
        timedelta(seconds=float(text))


def _stamp(when: datetime) -> str:
    return when.isoformat().replace("+00:00", "Z")


def _conditions(raw: dict, ready: bool) -> list[dict]:
    """The node's status conditions: Ready, then the scenario's ``conditions:`` (``{type, status, since}``,
    ``since`` how long before the scenario's time the condition last changed; one of type Ready replaces it)."""
    out = {"Ready": {"type": "Ready", "status": "True" if ready else "False"}}
    for i, cond in enumerate(raw.get("conditions") or []):
        if set(cond) - {"type", "status", "since"} or "type" not in cond or "status" not in cond:
            raise ScenarioError(f"nodes[{raw.get('name')}].conditions[{i}]: expected type, status and since")
        entry = {"type": cond["type"], "status": str(cond["status"])}
        if cond.get("since") is not None:
            entry["lastTransitionTime"] = _stamp(NOW - _duration(cond["since"]))
        out[cond["type"]] = entry
    return list(out.values())


def nodepool_manifest(raw: dict) -> dict:
    """A NodePool with what test.NodePool() and the CRD defaults fill in."""
    pool = copy.deepcopy(raw)
    pool.setdefault("apiVersion", "karpenter.sh/v1")
    pool.setdefault("kind", "NodePool")
    meta = pool.setdefault("metadata", {})
    if "name" in pool and "name" not in meta:
        meta["name"] = pool.pop("name")
    meta.setdefault("uid", f"uid-nodepool-{meta['name']}")
    meta.setdefault("creationTimestamp", _stamp(NOW - timedelta(days=1)))
    spec = pool.setdefault("spec", {})
    if "limits" not in spec:
        spec["limits"] = {"cpu": "2000"}
    template = spec.setdefault("template", {})
    tspec = template.setdefault("spec", {})
    tspec.setdefault("nodeClassRef", {"group": "karpenter.test.sh", "kind": "TestNodeClass", "name": "default"})
    tspec.setdefault("requirements", [])
    disruption = spec.setdefault("disruption", {})
    disruption.setdefault("consolidationPolicy", "WhenEmptyOrUnderutilized")
    disruption.setdefault("consolidateAfter", "0s")
    if disruption["consolidateAfter"] is None:   # ``consolidateAfter: null``: left out of the manifest
        del disruption["consolidateAfter"]
    disruption.setdefault("budgets", [{"nodes": "10%"}])
    return pool


@dataclass
class Cluster:
    """The cluster between rounds: objects by kind, and what each node looks like."""

    catalog: dict[str, dict]
    nodepools: dict[str, dict] = field(default_factory=dict)
    nodes: dict[str, dict] = field(default_factory=dict)        # name -> Node manifest
    nodeclaims: dict[str, dict] = field(default_factory=dict)   # name -> NodeClaim manifest
    pods: dict[str, dict] = field(default_factory=dict)         # "ns/name" -> Pod manifest
    objects: list[dict] = field(default_factory=list)
    clock: int = 0

    def tick(self) -> datetime:
        """Creation times in the order things are written (Karpenter breaks ties on them)."""
        self.clock += 1
        return NOW - timedelta(minutes=30) + timedelta(seconds=self.clock)

    # -- nodes
    def add_node(self, raw: dict) -> None:
        unknown = set(raw) - NODE_KEYS
        if unknown:
            raise ScenarioError(f"nodes[{raw.get('name')}]: unknown keys {sorted(unknown)}")
        name = raw["name"]
        type_name = raw.get("instanceType")
        itype = self.catalog.get(type_name) if type_name else None
        if type_name and itype is None:
            raise ScenarioError(f"nodes[{name}]: instance type {type_name!r} is not in the catalog")
        zone = raw.get("zone")
        ctype = raw.get("capacityType")
        pool = raw.get("nodepool")
        labels = {HOSTNAME: name}
        if itype:
            labels.update({INSTANCE_TYPE: itype["name"], "kubernetes.io/arch": itype["arch"],
                           "kubernetes.io/os": "linux" if "linux" in itype["os"] else itype["os"][0]})
            labels.update(itype["labels"])
        if zone:
            labels[ZONE] = zone
        if ctype:
            labels[CAPACITY_TYPE] = ctype
        initialized = raw.get("initialized", True)
        taints = list(raw.get("taints") or [])
        if pool:
            manifest = self.nodepools.get(pool)
            template = (manifest or {}).get("spec", {}).get("template", {})
            labels.update(template.get("metadata", {}).get("labels") or {})
            labels[NODEPOOL] = pool
            labels["karpenter.sh/registered"] = "true"
            if initialized:
                labels["karpenter.sh/initialized"] = "true"
        labels.update({str(k): str(v) for k, v in (raw.get("labels") or {}).items()})
        created = NOW - _duration(raw.get("created", "1h"))
        capacity = allocatable = None
        if itype:
            capacity = {"cpu": itype["cpu"], "memory": itype["memory"], "pods": itype["pods"],
                        **itype.get("extendedResources", {})}
            allocatable = dict(capacity)
            allocatable["cpu"] = f"{int(_quantity_value(itype['cpu']) * 1000) - 100}m"
            allocatable["memory"] = f"{int(_quantity_value(itype['memory']) / 2**20) - 10}Mi"
        claim_allocatable = allocatable  # a NodeClaim reports what its instance type offers
        if raw.get("allocatable") is not None:  # exactly what the node reports, as upstream's test nodes
            allocatable = {str(k): str(v) for k, v in raw["allocatable"].items()}
            capacity = capacity or allocatable
            if raw.get("inflight") or not claim_allocatable:  # no Node: the NodeClaim is what reports it
                claim_allocatable = allocatable
        provider_id = f"fake:///{zone or 'none'}/{name}"
        if pool:
            tspec = (self.nodepools.get(pool) or {}).get("spec", {}).get("template", {}).get("spec", {})
            self.nodeclaims[name] = self._nodeclaim(name, pool, labels, taints, capacity, claim_allocatable, provider_id,
                                                    created, initialized, registered=not raw.get("inflight"),
                                                    startup=tspec.get("startupTaints") or [])
        if raw.get("drifted") is not None and pool:  # the NodeClaim's Drifted condition, True or False, set
            # ``driftedSince`` before the scenario's time (default: at it, as a test's SetTrue stamps it)
            self.nodeclaims[name]["status"]["conditions"].append(
                {"type": "Drifted", "status": "True" if raw["drifted"] else "False",
                 "lastTransitionTime": _stamp(NOW - _duration(raw.get("driftedSince", "0s")))})
        if raw.get("consolidatable") is not None and pool:  # its NodeClaim's Consolidatable condition, set as a
            # test's SetTrue does (the nodeclaim disruption controller's verdict, whatever the clock says)
            self.nodeclaims[name]["status"]["conditions"].append(
                {"type": "Consolidatable", "status": "True" if raw["consolidatable"] else "False",
                 "lastTransitionTime": _stamp(NOW)})
        if raw.get("deleting") and pool:  # being deleted: its NodeClaim (without one, the Node) has a deletionTimestamp
            self.mark_for_deletion(name)
        if raw.get("inflight"):
            return
        if pool and not initialized:
            # just launched: the kubelet is not ready yet, so kube-scheduler cannot use it while
            # Karpenter already counts on it (an in-flight node)
            taints = taints + [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]
        node = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "uid": f"uid-node-{name}", "labels": labels,
                             "annotations": dict(raw.get("annotations") or {}),
                             "creationTimestamp": _stamp(created)},
                "spec": {"providerID": provider_id, "taints": taints,
                         **({"unschedulable": True} if raw.get("unschedulable") else {})},
                "status": {"capacity": capacity or {}, "allocatable": allocatable or {},
                           "conditions": _conditions(raw, initialized or not pool)}}
        if raw.get("deleting") and not pool:
            node["metadata"]["deletionTimestamp"] = _stamp(NOW - timedelta(seconds=5))
            node["metadata"]["finalizers"] = ["karpenter.sh/termination"]
        self.nodes[name] = node

    def mark_for_deletion(self, name: str, node: bool = False) -> None:
        """cluster.MarkForDeletion as a user's cluster shows it: the NodeClaim is being deleted (its
        finalizer holds it while the node drains); ``node``: a node without NodeClaim, the Node is."""
        target = self.nodes.get(name) if node else self.nodeclaims.get(name)
        if target is None:
            raise ScenarioError(f"cannot mark {name} for deletion: no such {'node' if node else 'NodeClaim'}")
        target["metadata"]["deletionTimestamp"] = _stamp(NOW - timedelta(seconds=5))
        target["metadata"]["finalizers"] = ["karpenter.sh/termination"]

    def _nodeclaim(self, name, pool, labels, taints, capacity, allocatable, provider_id, created, initialized,
                   registered, startup=()) -> dict:
        """The node's NodeClaim; like one made from its NodePool's template, it carries the startup taints."""
        conditions = [{"type": "Launched", "status": "True"}]
        if registered:
            conditions.append({"type": "Registered", "status": "True"})
        if initialized and registered:  # initialized when it was created (ExpectMakeNodeClaimsInitialized
            # stamps the clock's now): consolidateAfter counts from it while no pod event is recorded
            conditions.append({"type": "Initialized", "status": "True", "lastTransitionTime": _stamp(created)})
        return {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
                "metadata": {"name": name, "uid": f"uid-nodeclaim-{name}", "labels": dict(labels),
                             "creationTimestamp": _stamp(created),
                             "ownerReferences": [{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "name": pool,
                                                  "uid": f"uid-nodepool-{pool}"}]},
                "spec": {"taints": taints, "startupTaints": list(startup), "requirements": [
                    {"key": k, "operator": "In", "values": [labels[k]]}
                    for k in (INSTANCE_TYPE, ZONE, CAPACITY_TYPE, NODEPOOL) if k in labels],
                    "nodeClassRef": {"group": "karpenter.test.sh", "kind": "TestNodeClass", "name": "default"}},
                "status": {"providerID": provider_id, "nodeName": name if registered else "",
                           "capacity": capacity or {}, "allocatable": allocatable or {},
                           "conditions": conditions}}

    # -- pods
    def pod_manifests(self, raw: dict, pending: bool) -> list[dict]:
        """``pending``: submitted this round, so kube-scheduler has marked it Unschedulable."""
        unknown = set(raw) - POD_KEYS
        if unknown:
            raise ScenarioError(f"pods[{raw.get('name')}]: unknown keys {sorted(unknown)}")
        count = raw.get("count")
        names = [f"{raw['name']}-{i}" for i in range(int(count))] if count is not None else [raw["name"]]
        return [self._pod(raw, name, pending) for name in names]

    def _pod(self, raw: dict, name: str, pending: bool) -> dict:
        namespace = raw.get("namespace", "default")
        container = {"name": "app", "image": "registry.example/app:1"}
        resources = {}
        if raw.get("requests"):
            resources["requests"] = {str(k): str(v) for k, v in raw["requests"].items()}
        if raw.get("limits"):
            resources["limits"] = {str(k): str(v) for k, v in raw["limits"].items()}
        if resources:
            container["resources"] = resources
        if raw.get("hostPorts"):
            container["ports"] = [{"containerPort": 80, "hostPort": int(p), "protocol": "TCP"}
                                  for p in raw["hostPorts"]]
        spec: dict = {"containers": [container]}
        for key in ("nodeSelector", "tolerations", "affinity", "topologySpreadConstraints", "initContainers",
                    "overhead", "priority"):
            if raw.get(key) is not None:
                spec[key] = copy.deepcopy(raw[key])
        for key, value in (raw.get("spec") or {}).items():
            spec[key] = copy.deepcopy(value)
        node_name = raw.get("nodeName")
        if node_name:
            spec["nodeName"] = node_name
        meta = {"name": name, "namespace": namespace, "uid": f"uid-pod-{namespace}-{name}",
                "labels": {str(k): str(v) for k, v in (raw.get("labels") or {}).items()},
                "annotations": {str(k): str(v) for k, v in (raw.get("annotations") or {}).items()},
                "creationTimestamp": _stamp(self.tick())}
        if raw.get("terminating"):
            meta["deletionTimestamp"] = _stamp(NOW - timedelta(seconds=5))
        owner = raw.get("owner")
        if owner:
            meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner["kind"], "name": owner["name"],
                                        "uid": f"uid-{owner['kind']}-{owner['name']}", "controller": True}]
        phase = raw.get("phase") or ("Running" if node_name else "Pending")
        status: dict = {"phase": phase}
        if raw.get("started") is not None:
            status["startTime"] = _stamp(NOW - _duration(raw["started"]))
        if raw.get("ready") is not None:  # its Ready condition, as a test writes it into the pod's status
            status["conditions"] = [{"type": "Ready", "status": "True" if raw["ready"] else "False",
                                     "lastTransitionTime": _stamp(NOW)}]
        if pending:
            status["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                     "message": "0/0 nodes are available"}]
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}

    def add_pods(self, manifests: list[dict]) -> None:
        for pod in manifests:
            meta = pod["metadata"]
            self.pods[f"{meta['namespace']}/{meta['name']}"] = pod

    def bind(self, key: str, node: str) -> None:
        pod = self.pods[key]
        pod["spec"]["nodeName"] = node
        pod["status"] = {"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True"}]}

    # -- objects
    def apply(self, raw: dict) -> None:
        kind = raw.get("kind", "NodePool")
        if kind == "NodePool":
            pool = nodepool_manifest(raw)
            self.nodepools[pool["metadata"]["name"]] = pool
            return
        name = raw.get("metadata", {}).get("name")
        self.objects = [o for o in self.objects
                        if not (o.get("kind") == kind and o.get("metadata", {}).get("name") == name)]
        self.objects.append(copy.deepcopy(raw))

    def delete_object(self, kind: str, name: str) -> None:
        """An object of ``objects:`` gone from the cluster (ExpectDeleted), by kind and name."""
        self.objects = [o for o in self.objects
                        if not (o.get("kind") == kind and o.get("metadata", {}).get("name") == name)]

    def delete_node(self, name: str) -> None:
        self.nodes.pop(name, None)
        self.nodeclaims.pop(name, None)
        self.pods = {k: p for k, p in self.pods.items() if p["spec"].get("nodeName") != name}

    def node_labels(self, name: str) -> dict[str, str]:
        node = self.nodes.get(name) or self.nodeclaims.get(name)
        return dict(node["metadata"]["labels"]) if node else {}

    def manifests(self) -> list[dict]:
        return [*self.nodepools.values(), *self.objects, *self.nodes.values(), *self.nodeclaims.values(),
                *self.pods.values()]


# ---- running a round ------------------------------------------------------------------------------

@dataclass
class RoundResult:
    doc: dict
    placed: dict[str, str]          # pod key -> node or nodeclaim name (this round's pods)
    new_nodes: set[str]
    pending: set[str]
    submitted: list[str]            # this round's pod keys, in order


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


class Scenario:
    def __init__(self, path: Path) -> None:
        self.path = path
        with open(path, encoding="utf-8") as handle:
            self.data = yaml.safe_load(handle)
        if not isinstance(self.data, dict):
            raise ScenarioError("not a mapping")
        unknown = set(self.data) - TOP_KEYS
        if unknown:
            raise ScenarioError(f"unknown top-level keys {sorted(unknown)}")
        if "instanceTypes" in self.data:
            self.catalog_entries = [fake_type(t) for t in self.data["instanceTypes"]]
        else:
            self.catalog_entries = named_catalog(self.data.get("catalog", "fake-default"))
        self._add_offerings(self.data.get("addOfferings") or {})
        self._catalog_at_start = copy.deepcopy(self.catalog_entries)  # each run starts from it (see run)
        for i, rnd in enumerate(self.data.get("rounds") or []):
            unknown = set(rnd) - ROUND_KEYS
            if unknown:
                raise ScenarioError(f"rounds[{i}]: unknown keys {sorted(unknown)}")
            unknown = set(rnd.get("expect") or {}) - EXPECT_KEYS
            if unknown:
                raise ScenarioError(f"rounds[{i}].expect: unknown keys {sorted(unknown)}")
        if not self.data.get("rounds"):
            raise ScenarioError("no rounds")

    def _add_offerings(self, extra: dict) -> None:
        """``addOfferings:`` (type name -> offerings) appended to those catalog types, as a test appends an
        Offering to one of the suite's instance types (the reserved offerings of the consolidation tests)."""
        by_name = {t["name"]: t for t in self.catalog_entries}
        for type_name, offerings in extra.items():
            entry = by_name.get(type_name)
            if entry is None:
                raise ScenarioError(f"addOfferings: instance type {type_name!r} is not in the catalog")
            spec = {"name": type_name, "resources": {"cpu": entry["cpu"], "memory": entry["memory"],
                                                     "pods": entry["pods"], **entry.get("extendedResources", {})},
                    "offerings": offerings}
            entry["offerings"] = entry["offerings"] + fake_type(spec)["offerings"]

    @property
    def name(self) -> str:
        return self.data.get("name", self.path.stem)

    def cluster(self) -> Cluster:
        cluster = Cluster({t["name"]: t for t in self.catalog_entries})
        for pool in self.data.get("nodePools") or []:
            cluster.apply({**pool, "kind": "NodePool"})
        for obj in self.data.get("objects") or []:
            cluster.apply(obj)
        for node in self.data.get("nodes") or []:
            cluster.add_node(node)
        for raw in self.data.get("pods") or []:
            cluster.add_pods(cluster.pod_manifests(raw, pending=False))
        return cluster

    @property
    def karpenter_versions(self) -> list[str]:
        """The Karpenter releases the scenario runs as: its upstream test's (``v1.14.0`` unless it says),
        or each of a list (a behaviour the lines share)."""
        given = self.data.get("karpenterVersion", UPSTREAM_VERSION)
        return [str(KarpenterVersion.parse(str(v))) for v in (given if isinstance(given, list) else [given])]

    @property
    def karpenter_version(self) -> str:
        """The (first) Karpenter release the scenario runs as."""
        return self.karpenter_versions[0]

    def run(self, workdir: Path, version: str | None = None) -> list[str]:
        """Every round, as Karpenter ``version`` (default: the first the scenario names); the list of
        disagreements (empty: Karpenter and karptui agree)."""
        version = version or self.karpenter_version
        cluster = self.cluster()
        # reservations are used up round by round, in a copy: every run (one per Karpenter version) starts
        # with the scenario's own
        self.catalog_entries = copy.deepcopy(self._catalog_at_start)
        catalog_path = workdir / "catalog.yaml"
        catalog_path.write_text(yaml.safe_dump({"instanceTypes": self.catalog_entries,
                                                "repairPolicies": self.data.get("repairPolicies", FAKE_REPAIR_POLICIES)},
                                               sort_keys=False))
        problems: list[str] = []
        clock = timedelta(0)  # how far the rounds have stepped the clock past NOW (env.Clock.Step)
        for number, rnd in enumerate(self.data["rounds"]):
            if rnd.get("advanceClock") is not None:
                clock += _duration(rnd["advanceClock"])
            for obj in rnd.get("apply") or []:
                cluster.apply(obj)
            for ref in rnd.get("deleteObjects") or []:   # {kind: PodTemplate, name: t}
                cluster.delete_object(ref["kind"], ref["name"])
            for name in rnd.get("deleteNodes") or []:
                cluster.delete_node(name)
            for name in rnd.get("deletePods") or []:
                key = name if "/" in name else f"default/{name}"
                cluster.pods.pop(key, None)
            for key, values in (rnd.get("deletePodsOnNodesWith") or {}).items():  # the pods on nodes whose label
                # ``key`` has one of ``values`` (upstream deleting pods by where they landed)
                wanted = {str(v) for v in (values if isinstance(values, list) else [values])}
                for pod_key, pod in list(cluster.pods.items()):
                    node = cluster.nodes.get(pod["spec"].get("nodeName") or "")
                    if node is not None and node["metadata"]["labels"].get(key) in wanted:
                        cluster.pods.pop(pod_key)
            for name, labels in (rnd.get("labelNodes") or {}).items():  # labels set on an existing Node (ExpectApplied)
                if name not in cluster.nodes:
                    raise ScenarioError(f"labelNodes: no node {name}")
                cluster.nodes[name]["metadata"]["labels"].update({str(k): str(v) for k, v in labels.items()})
            for name in rnd.get("markNodesOf") or []:  # the node this pod is on, marked for deletion
                pod = cluster.pods.get(name if "/" in name else f"default/{name}")
                node = pod and pod["spec"].get("nodeName")
                if not node:
                    raise ScenarioError(f"markNodesOf: pod {name} is on no node")
                cluster.mark_for_deletion(node, node=node not in cluster.nodeclaims)
            for name in rnd.get("evictPods") or []:  # evicted: deletionTimestamp set, the pod still there
                pod = cluster.pods.get(name if "/" in name else f"default/{name}")
                if pod is None:
                    raise ScenarioError(f"evictPods: no pod {name}")
                pod["metadata"]["deletionTimestamp"] = _stamp(NOW - timedelta(seconds=5))
            submitted = []
            for raw in rnd.get("pods") or []:
                manifests = cluster.pod_manifests(raw, pending=True)
                cluster.add_pods(manifests)
                submitted += [f"{m['metadata']['namespace']}/{m['metadata']['name']}" for m in manifests]
            # the reservations used up so far; the repair policies as the first write gave them
            catalog_path.write_text(yaml.safe_dump({"instanceTypes": self.catalog_entries,
                                                    "repairPolicies": self.data.get("repairPolicies",
                                                                                    FAKE_REPAIR_POLICIES)},
                                                   sort_keys=False))
            snapshot = workdir / f"round-{number}.yaml"
            write_snapshot(snapshot, cluster.manifests(), SnapshotMeta(name=self.path.stem, captured_at=NOW + clock))
            args = ["simulate", str(snapshot), "--instance-types", str(catalog_path), "--output", "json"]
            if rnd.get("consolidate"):
                args.append("--consolidate")
            gates = self.data.get("featureGates") or {}
            if gates:
                args += ["--feature-gates", ",".join(f"{k}={str(v).lower()}" for k, v in gates.items())]
            args += ["--karpenter-version", version]
            for key, value in (self.data.get("settings") or {}).items():  # Karpenter's options, as its flags
                if key not in SETTING_FLAGS:
                    raise ScenarioError(f"settings: unknown {key!r} (known: {', '.join(SETTING_FLAGS)})")
                text = (str(value).lower() if isinstance(value, bool) else value if isinstance(value, str)
                        else json.dumps(value))
                args += [f"{SETTING_FLAGS[key]}={text}"]
            code, out, err = run_cli(*args)
            if code != 0:
                return problems + [f"round {number}: karptui simulate exited {code}: {err.strip()}"]
            doc = json.loads(out)
            simulated = doc["karpenter_version"]["version"]
            if simulated != version:
                problems.append(f"round {number}: simulated Karpenter {simulated}, not {version}")
            result = self._advance(cluster, doc, submitted)
            if rnd.get("consolidate"):
                self._disrupt(cluster, doc)
            problems += [f"round {number}: {p}" for p in check(rnd.get("expect") or {}, result, cluster)]
        return problems

    def _use_reservation(self, type_name: str, reservation_id: str) -> None:
        for entry in self.catalog_entries:
            if entry["name"] != type_name:
                continue
            for offer in entry["offerings"]:
                if offer.get("reservationId") == reservation_id and offer["reservationCapacity"] > 0:
                    offer["reservationCapacity"] -= 1
                    if offer["reservationCapacity"] == 0:
                        offer["available"] = False
                    return

    def _disrupt(self, cluster: Cluster, doc: dict) -> None:
        """The first disruption command carried out: its nodes gone (their pods pending again,
        as evicted pods are), every NodeClaim it launches running (drift launches as many as the
        pods need)."""
        commands = doc.get("disruptions") or []
        if not commands:
            return
        command = commands[0]
        moves = command.get("moves") or {}
        for launch in command.get("replacements") or []:
            if launch.get("instance_type") in cluster.catalog:
                labels = {}
                if launch.get("reservation_id"):  # launched into a named reservation, as when provisioning
                    labels[RESERVATION_ID] = launch["reservation_id"]
                    self._use_reservation(launch["instance_type"], launch["reservation_id"])
                cluster.add_node({"name": launch["name"], "created": "1s", "instanceType": launch["instance_type"],
                                  "zone": launch.get("zone"), "capacityType": launch.get("capacity_type"),
                                  "nodepool": launch["nodepool"], "labels": labels})
        for name in command["nodes"]:
            for key, pod in list(cluster.pods.items()):
                if pod["spec"].get("nodeName") != name:
                    continue
                if moves.get(key) in cluster.nodes:
                    cluster.bind(key, moves[key])
                else:  # evicted, nowhere to go yet
                    pod["spec"].pop("nodeName")
                    pod["status"] = {"phase": "Pending", "conditions": [
                        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}
            cluster.nodes.pop(name, None)
            cluster.nodeclaims.pop(name, None)

    def _advance(self, cluster: Cluster, doc: dict, submitted: list[str]) -> RoundResult:
        """The cluster after the round, as ExpectProvisioned leaves it: NodeClaims launched as
        Nodes, placed pods bound."""
        claims = {c["name"]: c for c in doc.get("nodeclaims", [])}
        for name, claim in claims.items():
            launch = claim.get("launch") or {}
            itype = cluster.catalog.get(launch.get("instance_type"))
            if itype is None:
                continue
            pool = cluster.nodepools.get(claim["nodepool"], {})
            tspec = pool.get("spec", {}).get("template", {}).get("spec", {})
            # the instance type's and offering's labels (single-valued requirements), then the
            # NodeClaim's own, as the cloud provider and Karpenter write them on the NodeClaim
            labels = {k: v[0] for k, v in claim.get("requirements", {}).items() if len(v) == 1}
            labels.update(claim.get("labels") or {})
            if launch.get("reservation_id"):
                # as the fake cloud provider's Create: the offering's reservation id labels the node, and the
                # reservation has one instance fewer (none left: its offering unavailable)
                labels[RESERVATION_ID] = launch["reservation_id"]
                self._use_reservation(itype["name"], launch["reservation_id"])
            cluster.add_node({"name": name, "instanceType": itype["name"], "zone": launch.get("zone"),
                              "capacityType": launch.get("capacity_type"), "nodepool": claim["nodepool"],
                              # the NodeClaim's taints and startup taints, as test.NodeClaimLinkedNode makes its Node
                              "labels": labels, "taints": [*(tspec.get("taints") or []), *(tspec.get("startupTaints") or [])],
                              "created": "1s",
                              "initialized": False})
        placed, pending = {}, set()
        for attempt in doc["pods"]:
            key = attempt["pod"]
            if attempt["node"]:
                placed[key] = attempt["node"]
                if key in cluster.pods:
                    cluster.bind(key, attempt["node"])
            else:
                pending.add(key)
        return RoundResult(doc, placed, set(claims), pending, submitted)


# ---- expectations -------------------------------------------------------------------------------

def _key(name: str) -> str:
    return name if "/" in name else f"default/{name}"


def _values(expected) -> set[str]:
    return {str(v) for v in expected} if isinstance(expected, list) else {str(expected)}


def check(expect: dict, result: RoundResult, cluster: Cluster) -> list[str]:
    problems: list[str] = []
    where = {key: cluster.pods[key]["spec"].get("nodeName") for key in cluster.pods}
    claims = {c["name"]: c for c in result.doc.get("nodeclaims", [])}
    by_name: dict[str, list[str]] = {}
    for key in cluster.pods:
        by_name.setdefault(key.split("/", 1)[1], []).append(key)

    def node_of(name: str) -> str | None:
        """A pod by ``namespace/name``, or by its bare name when one namespace has it."""
        if "/" not in name and len(by_name.get(name, ())) == 1:
            return where.get(by_name[name][0])
        return where.get(_key(name))

    for name in expect.get("scheduled") or []:
        if not node_of(name):
            problems.append(f"{name} should be scheduled but stays pending")
    for name in expect.get("notScheduled") or []:
        if node_of(name):
            problems.append(f"{name} should stay pending but goes to {node_of(name)}")
    def labelled(expectation: str):
        """(pod, node, node labels, what is expected) for each pod an expectation names."""
        for name, wanted in (expect.get(expectation) or {}).items():
            node = node_of(name)
            if node:
                yield name, node, cluster.node_labels(node), wanted
            else:
                problems.append(f"{name}: no node to check labels on")

    for label_key, negate in (("nodeLabels", False), ("notNodeLabels", True)):
        for name, node, labels, wanted in labelled(label_key):
            for key, values in wanted.items():
                have = labels.get(key)
                allowed = _values(values)
                if negate and have in allowed:
                    problems.append(f"{name}: node {node} has {key}={have}, which it should not")
                elif not negate and have not in allowed:
                    problems.append(f"{name}: node {node} has {key}={have}, expected {sorted(allowed)}")
    for label_key, present in (("presentNodeLabels", True), ("absentNodeLabels", False)):
        for name, node, labels, keys in labelled(label_key):
            for key in keys:
                if (key in labels) != present:
                    problems.append(f"{name}: node {node} {'lacks' if present else 'has'} label {key}")
    for entry in expect.get("scheduledCount") or []:
        count = sum(1 for n in _names(entry["pods"], cluster) if node_of(n))
        if count != entry["count"]:
            problems.append(f"{entry['count']} of {entry['pods']} should schedule, {count} do")
    for label_key, same in (("sameLabel", True), ("differentLabel", False)):
        for first, second, key in expect.get(label_key) or []:
            values = [cluster.node_labels(node_of(n)).get(key) if node_of(n) else None for n in (first, second)]
            if None in values or (values[0] == values[1]) != same:
                problems.append(f"{first} and {second} should be on nodes with {'the same' if same else 'different'} "
                                f"{key}, are on {values}")
    for name, taints in (expect.get("nodeTaints") or {}).items():
        node = node_of(name)
        have = (cluster.nodes.get(node) or {}).get("spec", {}).get("taints") or [] if node else []
        for taint in taints:
            if not any(all(t.get(k) == v for k, v in taint.items()) for t in have):
                problems.append(f"{name}: node {node} lacks taint {taint} (has {have})")
    for name, count in (expect.get("nodeTaintCount") or {}).items():
        node = node_of(name)
        have = (cluster.nodes.get(node) or {}).get("spec", {}).get("taints") or [] if node else []
        if not node or len(have) != count:
            problems.append(f"{name}: node {node} should carry {count} taint(s), has {have}")
    for name, node in (expect.get("onNode") or {}).items():
        if node_of(name) != node:
            problems.append(f"{name} should land on {node}, lands on {node_of(name)}")
    for name in expect.get("onNewNode") or []:
        if node_of(name) not in result.new_nodes:
            problems.append(f"{name} should land on a new node, lands on {node_of(name)}")
    for group in expect.get("sameNode") or []:
        nodes = {node_of(n) for n in group}
        if len(nodes) != 1 or None in nodes:
            problems.append(f"{group} should share one node, are on {sorted(map(str, nodes))}")
    for group in expect.get("differentNodes") or []:
        nodes = [node_of(n) for n in group]
        if None in nodes or len(set(nodes)) != len(nodes):
            problems.append(f"{group} should each be on a different node, are on {nodes}")
    if "newNodes" in expect and len(result.new_nodes) != expect["newNodes"]:
        problems.append(f"{expect['newNodes']} new node(s) expected, {len(result.new_nodes)} launched")
    buffers = {b["buffer"]: b for b in result.doc.get("capacity_buffers") or []}
    if "bufferPods" in expect:   # the virtual pods the provisioner schedules (its virtual pod cache)
        held = sum(b["on_existing_nodes"] + b["on_new_nodeclaims"] + b["failed"] for b in buffers.values())
        if held != expect["bufferPods"]:
            problems.append(f"{expect['bufferPods']} buffer virtual pod(s) expected, the provisioner schedules {held}")
    for name, wanted in (expect.get("buffers") or {}).items():
        got = buffers.get(name)
        if got is None:
            problems.append(f"CapacityBuffer {name}: not in the simulation's capacity_buffers")
            continue
        seen = {"replicas": got["replicas"], "ready": got["ready_for_provisioning"], "reason": got["reason"],
                "provisioning": (got["provisioning"] or {}).get("reason")}
        for key, value in wanted.items():
            if key not in seen:
                raise ScenarioError(f"buffers.{name}: unknown {key!r} (known: {', '.join(seen)})")
            if seen[key] != value:
                problems.append(f"CapacityBuffer {name}: {key} {seen[key]!r}, expected {value!r}")
    if "nodes" in expect and len(cluster.nodes) != expect["nodes"]:
        problems.append(f"{expect['nodes']} node(s) expected in the cluster, {len(cluster.nodes)} there")
    for key, wanted in (expect.get("everyNodeLabels") or {}).items():
        for node in cluster.nodes:
            if cluster.node_labels(node).get(key) not in _values(wanted):
                problems.append(f"node {node} has {key}={cluster.node_labels(node).get(key)}, expected {wanted}")
    for skew in expect.get("skew") or []:
        counts = _skew(cluster, skew)
        if "counts" in skew and sorted(counts) != sorted(skew["counts"]):
            problems.append(f"skew on {skew['topologyKey']}: expected {sorted(skew['counts'])}, got {sorted(counts)}")
        if "max" in skew and counts and max(counts) > skew["max"]:
            problems.append(f"skew on {skew['topologyKey']}: a domain holds {max(counts)} > {skew['max']}")
        if "maxSkew" in skew and counts and max(counts) - min(counts) > skew["maxSkew"]:
            problems.append(f"skew on {skew['topologyKey']}: {sorted(counts)} differ by more than {skew['maxSkew']}")
    for name, wanted in (expect.get("nodeClaim") or {}).items():
        node = node_of(name)
        claim = claims.get(node)
        if claim is None:
            problems.append(f"{name}: not on a NodeClaim launched this round (on {node})")
            continue
        problems += _check_claim(name, claim, wanted)
    problems += _check_disruption(expect, result.doc)
    return problems


def _names(pods, cluster: Cluster) -> list[str]:
    """Pod names, or a ``prefix-*`` pattern for every pod whose name starts so."""
    out = []
    for name in [pods] if isinstance(pods, str) else pods:
        if name.endswith("*"):
            out += sorted(k.split("/", 1)[1] for k in cluster.pods if k.split("/", 1)[1].startswith(name[:-1]))
        else:
            out.append(name)
    return out


def _check_claim(name: str, claim: dict, wanted: dict) -> list[str]:
    problems = []
    types = set(claim.get("instance_types") or [])
    for key, values in (wanted.get("requirements") or {}).items():
        have = set(claim.get("requirements", {}).get(key, []))
        if have != _values(values):
            problems.append(f"{name}: NodeClaim requirement {key} allows {sorted(have)}, expected "
                            f"{sorted(_values(values))}")
    for key, count in (wanted.get("minValues") or {}).items():
        have = (claim.get("min_values") or {}).get(key)
        if have != count:
            problems.append(f"{name}: NodeClaim requirement {key} has minValues {have}, expected {count}")
    for key, value in (wanted.get("annotations") or {}).items():
        have = (claim.get("annotations") or {}).get(key)
        if have != value:
            problems.append(f"{name}: NodeClaim annotation {key}={have}, expected {value}")
    if "instanceTypes" in wanted and types != set(wanted["instanceTypes"]):
        problems.append(f"{name}: NodeClaim instance types {sorted(types)}, expected {sorted(wanted['instanceTypes'])}")
    problems += _check_options(f"{name}: NodeClaim", wanted, types)
    if "instanceType" in wanted and (claim.get("launch") or {}).get("instance_type") != wanted["instanceType"]:
        problems.append(f"{name}: launches {(claim.get('launch') or {}).get('instance_type')}, "
                        f"expected {wanted['instanceType']}")
    return problems


def _check_disruption(expect: dict, doc: dict) -> list[str]:
    problems = []
    commands = doc.get("disruptions", [])
    first = commands[0] if commands else None
    if expect.get("noCommand") and first is not None:
        problems.append(f"no disruption expected, karptui would {first['action']} {first['nodes']}")
    wanted = expect.get("command")
    if wanted:
        if first is None:
            problems.append(f"expected a {wanted.get('action')} of {wanted.get('nodes')}, karptui does nothing")
        else:
            if "action" in wanted and first["action"] != wanted["action"]:
                problems.append(f"expected action {wanted['action']}, karptui would {first['action']} {first['nodes']}")
            if "nodeCount" in wanted and len(first["nodes"]) != wanted["nodeCount"]:
                problems.append(f"expected {wanted['nodeCount']} node(s) disrupted, karptui disrupts {first['nodes']}")
            if "minNodeCount" in wanted and len(first["nodes"]) < wanted["minNodeCount"]:
                problems.append(f"expected at least {wanted['minNodeCount']} node(s) disrupted, "
                                f"karptui disrupts {first['nodes']}")
            if "nodes" in wanted and set(first["nodes"]) != set(wanted["nodes"]):
                problems.append(f"expected nodes {sorted(wanted['nodes'])}, karptui disrupts {sorted(first['nodes'])}")
            if "podCount" in wanted and first["pods"] != wanted["podCount"]:
                problems.append(f"expected the command to move {wanted['podCount']} pod(s), karptui's moves {first['pods']}")
            for key, field_ in (("method", "method"), ("reason", "reason"), ("forceful", "forceful"),
                                ("terminateFirst", "terminate_first")):
                if key in wanted and first.get(field_) != wanted[key]:
                    problems.append(f"expected {key} {wanted[key]!r}, karptui's command has {first.get(field_)!r}")
            if "replaced" in wanted and bool(first.get("replacement")) != wanted["replaced"]:
                problems.append(f"expected {'a' if wanted['replaced'] else 'no'} replacement, karptui's command "
                                f"launches {first.get('replacement')}")
            if "estimatedSavings" in wanted and abs(first["estimated_savings_per_hour"] - wanted["estimatedSavings"]) > 0.001:
                problems.append(f"expected Karpenter's estimated savings ${wanted['estimatedSavings']}/h, karptui "
                                f"estimates ${first['estimated_savings_per_hour']}/h")
            replacement = wanted.get("replacement")
            if replacement:
                problems += _check_replacement(replacement, first)
            problems += _check_scores(wanted, first, doc.get("consolidation_scores") or [])
    for node in expect.get("notDisrupted") or []:
        if first is not None and node in first["nodes"]:
            problems.append(f"{node} should not be disrupted, karptui would {first['action']} it")
    return problems


SCORE_FIELDS = {"score": "score", "approved": "approved", "nodepoolCost": "nodepool_cost_per_hour",
                "nodepoolDisruptionCost": "nodepool_disruption_cost", "savings": "savings_per_hour"}


def _check_scores(wanted: dict, command: dict, scores: list[dict]) -> list[str]:
    """``scores`` (each Balanced NodePool's score of the first command, numbers within 0.05 as upstream's
    BeNumerically) and ``unscored`` (NodePools that must have no score of it)."""
    nodes = set(command["nodes"])
    # the score of exactly the command's nodes, else (a move over several pools) of this pool's share of them
    mine = {s["nodepool"]: s for s in scores if set(s["nodes"]) < nodes}
    mine.update({s["nodepool"]: s for s in scores if set(s["nodes"]) == nodes})
    problems = []
    for pool, fields in (wanted.get("scores") or {}).items():
        found = mine.get(pool)
        if found is None:
            problems.append(f"expected NodePool {pool} to score the command, karptui has no score of it")
            continue
        for key, value in fields.items():
            got = found[SCORE_FIELDS[key]]
            if isinstance(value, bool) and got is not value or not isinstance(value, bool) and (
                    got is None or abs(got - value) > 0.05):
                problems.append(f"NodePool {pool}'s {key}: expected {value}, karptui has {got}")
    for pool in wanted.get("unscored") or []:
        if pool in mine:
            problems.append(f"NodePool {pool} should not score the command, karptui scored it {mine[pool]['score']}")
    return problems


def _check_replacement(wanted: dict, command: dict) -> list[str]:
    launch = command.get("replacement") or {}
    types = set(command.get("replacement_types") or [])
    problems = []
    if not launch:
        return [f"expected a replacement, karptui would {command['action']} without one"]
    if "capacityType" in wanted and launch.get("capacity_type") not in _values(wanted["capacityType"]):
        problems.append(f"replacement capacity type {launch.get('capacity_type')}, expected {wanted['capacityType']}")
    if "instanceType" in wanted and launch.get("instance_type") not in _values(wanted["instanceType"]):
        problems.append(f"replacement {launch.get('instance_type')}, expected {wanted['instanceType']}")
    return problems + _check_options("replacement", wanted, types)


def _check_options(what: str, wanted: dict, types: set[str]) -> list[str]:
    """instanceTypesInclude / instanceTypesExclude / instanceTypeCount against the offered types."""
    problems = []
    missing = set(wanted.get("instanceTypesInclude") or []) - types
    if missing:
        problems.append(f"{what} lacks instance types {sorted(missing)}")
    extra = set(wanted.get("instanceTypesExclude") or []) & types
    if wanted.get("instanceTypesExclude") and not types:  # upstream asserts the requirement is there first
        problems.append(f"{what} has no instance type options to check")
    if extra:
        problems.append(f"{what} should not offer {sorted(extra)}")
    if "instanceTypeCount" in wanted and len(types) != wanted["instanceTypeCount"]:
        problems.append(f"{what} has {len(types)} instance types, expected {wanted['instanceTypeCount']}")
    return problems


def _selects(selector: dict | None, labels: dict) -> bool:
    """A label selector; none at all lists every pod, as ExpectSkew's list options do."""
    if selector is None:
        return True
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != str(value):
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr["key"], expr["operator"], {str(v) for v in expr.get("values") or []}
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and labels.get(key) in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def _skew(cluster: Cluster, skew: dict) -> list[int]:
    """ExpectSkew: bound pods the selector picks in the namespace, per domain of the key."""
    counts: dict[str, int] = {}
    namespace = skew.get("namespace", "default")
    key = skew["topologyKey"]
    for pod in cluster.pods.values():
        node = pod["spec"].get("nodeName")
        meta = pod["metadata"]
        if not node or meta["namespace"] != namespace or "deletionTimestamp" in meta:
            continue
        if pod["status"].get("phase") in ("Succeeded", "Failed"):
            continue
        if not _selects(skew.get("labelSelector"), meta.get("labels") or {}):
            continue
        if key == HOSTNAME:
            domain = node
        else:
            domain = cluster.node_labels(node).get(key)
            if domain is None:
                continue
        counts[domain] = counts.get(domain, 0) + 1
    return list(counts.values())


def scenario_files() -> list[Path]:
    return sorted(p for p in HERE.glob("*/*.yaml") if not p.name.startswith("skipped"))

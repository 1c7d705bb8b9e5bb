"""Edits as data: what an operator changed, small enough to save, diff and replay.

Each edit is a frozen dataclass that checks itself on construction (a bad
value raises ``ValueError`` with a one-line reason), so the TUI, a test and a
what-if file all build edits the same way and none can hold nonsense.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from .. import limits
from ..model.build import KINDS
from ..model.errors import ModelError
from ..model.taints import parse_taints
from ..sim.karpenter.featuregates import gate_values
from ..sim.karpenter.versions import KarpenterVersion
from .patch import JSON, PATCH_TYPES, STRATEGIC, PatchError, check_patch

# Every kind the model reads, as a target names it.
TARGET_KINDS: tuple[str, ...] = tuple(sorted({kind for _, kind in KINDS}))
CLUSTER_SCOPED = frozenset({
    "Node", "Namespace", "PersistentVolume", "PriorityClass", "StorageClass",
    "NodePool", "Provisioner", "NodeClaim", "Machine", "NodeOverlay", "EC2NodeClass", "AWSNodeTemplate",
})
# What ``scale`` sets: replicas, or a Job's parallelism. DaemonSets have no count.
SCALABLE = {"Deployment": "replicas", "StatefulSet": "replicas", "ReplicaSet": "replicas", "Job": "parallelism"}
WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job")
# Besides nodes, what ``remove`` can take away with a clear meaning.
REMOVABLE = frozenset({"PodDisruptionBudget", *WORKLOAD_KINDS})
CAPACITY_TYPES = ("on-demand", "spot", "reserved")

_BY_LOWER = {k.lower(): k for k in TARGET_KINDS}
_NODE_NAME = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")


@dataclass(frozen=True)
class Target:
    """``Kind/namespace/name``, or ``Kind/name`` for a cluster-scoped kind."""

    kind: str
    name: str
    namespace: str = ""

    def __post_init__(self) -> None:
        if self.kind not in TARGET_KINDS:
            raise ValueError(f"unknown kind {self.kind!r} (one of {', '.join(TARGET_KINDS)})")
        if not self.name:
            raise ValueError(f"{self.kind}: name missing")
        if self.kind in CLUSTER_SCOPED and self.namespace:
            raise ValueError(f"{self.kind} is cluster-scoped: write {self.kind}/<name>")
        if self.kind not in CLUSTER_SCOPED and not self.namespace:
            raise ValueError(f"{self.kind} is namespaced: write {self.kind}/<namespace>/<name>")

    @classmethod
    def parse(cls, text: object) -> Target:
        if not isinstance(text, str) or not text.strip():
            raise ValueError("target must be Kind/namespace/name or Kind/name")
        parts = text.strip().split("/")
        if len(parts) not in (2, 3) or not all(parts):
            raise ValueError(f"target {text!r} is not Kind/namespace/name or Kind/name")
        kind = _BY_LOWER.get(parts[0].lower())
        if kind is None:
            raise ValueError(f"target {text!r}: unknown kind {parts[0]!r} (one of {', '.join(TARGET_KINDS)})")
        if len(parts) == 2:
            return cls(kind, parts[1])
        return cls(kind, parts[2], parts[1])

    def __str__(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name}" if self.namespace else f"{self.kind}/{self.name}"


@dataclass(frozen=True)
class Patch:
    """A strategic, merge or JSON patch of any object the snapshot keeps whole."""

    target: Target
    patch: Any
    patch_type: str = STRATEGIC

    def __post_init__(self) -> None:
        if self.patch_type not in PATCH_TYPES:
            raise ValueError(f"unknown patchType {self.patch_type!r} ({', '.join(PATCH_TYPES)})")
        if self.patch_type == JSON and not isinstance(self.patch, list):
            raise ValueError("a json patch is a list of operations (op, path, value)")
        if self.patch_type != JSON and not isinstance(self.patch, Mapping):
            raise ValueError(f"a {self.patch_type} patch is a mapping")
        try:
            check_patch(self.patch, self.patch_type)
        except PatchError as exc:
            raise ValueError(f"patch: {exc}") from None
        object.__setattr__(self, "patch", copy.deepcopy(self.patch))  # nobody else holds it

    def to_dict(self) -> dict:
        out: dict = {"target": str(self.target), "patch": copy.deepcopy(self.patch)}
        if self.patch_type != STRATEGIC:
            out["patchType"] = self.patch_type
        return out

    def describe(self) -> str:
        return f"{self.patch_type} patch of {self.target}"


@dataclass(frozen=True)
class Scale:
    """Set replicas (a Job's parallelism): pods are added from the template or deleted, none moved."""

    target: Target
    replicas: int

    def __post_init__(self) -> None:
        if self.target.kind not in SCALABLE:
            why = " (it runs one pod per eligible node)" if self.target.kind == "DaemonSet" else ""
            raise ValueError(f"cannot scale a {self.target.kind}{why}; scale takes {', '.join(SCALABLE)}")
        if isinstance(self.replicas, bool) or not isinstance(self.replicas, int) or self.replicas < 0:
            raise ValueError(f"scale must be a whole number >= 0, got {self.replicas!r}")
        if self.replicas > limits.MAX_WHATIF_REPLICAS:
            raise ValueError(f"scale {self.replicas} is over karptui's cap of {limits.MAX_WHATIF_REPLICAS:,} "
                             "pods for one workload (the largest real clusters run ~150,000 pods in all)")

    def to_dict(self) -> dict:
        return {"target": str(self.target), "scale": self.replicas}

    def describe(self) -> str:
        return f"scale {self.target} to {self.replicas}"


@dataclass(frozen=True)
class Cordon:
    """Mark a node unschedulable (``cordon=False``: uncordon), as ``kubectl cordon``."""

    node: str
    cordon: bool = True

    def __post_init__(self) -> None:
        _check_node_name(self.node)
        if not isinstance(self.cordon, bool):
            raise ValueError(f"cordon must be true or false, got {self.cordon!r}")

    @property
    def target(self) -> Target:
        return Target("Node", self.node)

    def to_dict(self) -> dict:
        return {"target": str(self.target), "cordon": self.cordon}

    def describe(self) -> str:
        return f"{'cordon' if self.cordon else 'uncordon'} {self.target}"


@dataclass(frozen=True)
class RemoveNode:
    """Take a node away: its DaemonSet pods go with it, the others wait for a new home."""

    node: str

    def __post_init__(self) -> None:
        _check_node_name(self.node)

    @property
    def target(self) -> Target:
        return Target("Node", self.node)

    def to_dict(self) -> dict:
        return {"target": str(self.target), "remove": True}

    def describe(self) -> str:
        return f"remove {self.target}"


@dataclass(frozen=True)
class Remove:
    """Delete a PodDisruptionBudget or a workload (with its pods) from the picture."""

    target: Target

    def __post_init__(self) -> None:
        if self.target.kind == "Node":
            raise ValueError("use RemoveNode for nodes")
        if self.target.kind not in REMOVABLE:
            raise ValueError(f"cannot remove a {self.target.kind}; remove takes Node, {', '.join(sorted(REMOVABLE))}")

    def to_dict(self) -> dict:
        return {"target": str(self.target), "remove": True}

    def describe(self) -> str:
        return f"remove {self.target}"


@dataclass(frozen=True)
class AddNodes:
    """Nodes of one instance type in one zone, as if Karpenter (or a node group) launched them.

    ``nodepool`` names the NodePool they belong to: its template labels and
    taints land on them, as Karpenter does. Names are ``names`` when given, else
    ``<namePrefix>-<n>`` (default prefix ``whatif-<instanceType>``), skipping names already taken.
    """

    instance_type: str
    zone: str
    count: int = 1
    capacity_type: str = "on-demand"
    nodepool: str = ""
    name_prefix: str = ""
    region: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Mapping, ...] = ()
    names: tuple[str, ...] = ()   # the nodes' own names (count is their number): nodes a log names

    def __post_init__(self) -> None:
        if self.names:
            if isinstance(self.names, str) or not all(isinstance(n, str) and _NODE_NAME.match(n) for n in self.names):
                raise ValueError("names must be a list of node names (lowercase letters, digits, '-' and '.')")
            if len(set(self.names)) != len(self.names):
                raise ValueError("names must not repeat a name")
            object.__setattr__(self, "names", tuple(self.names))
            object.__setattr__(self, "count", len(self.names))
        for name in ("instance_type", "zone", "nodepool", "name_prefix", "region"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise ValueError(f"{_camel(name)} must be a string, got {value!r}")
        if not self.instance_type:
            raise ValueError("instanceType missing")
        if not self.zone:
            raise ValueError("zone missing")
        if self.name_prefix and not _NODE_NAME.match(self.name_prefix):
            raise ValueError(f"namePrefix {self.name_prefix!r} cannot start a node name "
                             "(lowercase letters, digits, '-' and '.')")
        if isinstance(self.count, bool) or not isinstance(self.count, int) or self.count < 1:
            raise ValueError(f"count must be a whole number >= 1, got {self.count!r}")
        if self.count > limits.MAX_WHATIF_ADD_NODES:
            raise ValueError(f"count {self.count} is over karptui's cap of {limits.MAX_WHATIF_ADD_NODES:,} "
                             "nodes for one edit (the largest real clusters run ~15,000 nodes)")
        if self.capacity_type not in CAPACITY_TYPES:
            raise ValueError(f"capacityType must be one of {', '.join(CAPACITY_TYPES)}, got {self.capacity_type!r}")
        if not isinstance(self.labels, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in self.labels.items()
        ):
            raise ValueError("labels must map strings to strings (quote numbers and booleans)")
        if isinstance(self.taints, (str, Mapping)) or not isinstance(self.taints, (list, tuple)):
            raise ValueError("taints must be a list of {key, value, effect}")
        try:
            parse_taints(list(self.taints), "taints")
        except ModelError as exc:
            raise ValueError(str(exc)) from None
        object.__setattr__(self, "labels", dict(self.labels))
        object.__setattr__(self, "taints", tuple(dict(t) for t in self.taints))

    @property
    def prefix(self) -> str:
        return self.name_prefix or f"whatif-{self.instance_type}"

    def to_dict(self) -> dict:
        spec: dict = {"instanceType": self.instance_type, "zone": self.zone, "count": self.count,
                      "capacityType": self.capacity_type}
        for key, value in (("nodepool", self.nodepool), ("namePrefix", self.name_prefix),
                           ("region", self.region)):
            if value:
                spec[key] = value
        if self.labels:
            spec["labels"] = dict(self.labels)
        if self.taints:
            spec["taints"] = [dict(t) for t in self.taints]
        if self.names:
            spec["names"] = list(self.names)
        return {"addNodes": spec}

    def describe(self) -> str:
        pool = f" in NodePool {self.nodepool}" if self.nodepool else ""
        return f"add {self.count} {self.capacity_type} {self.instance_type} node(s) in {self.zone}{pool}"


@dataclass(frozen=True)
class SetFeatureGates:
    """Karpenter's ``--feature-gates`` for this what-if (``featureGates: {NodeOverlay: true}``).

    Gates are controller flags, not cluster objects: the edit keeps them on the snapshot,
    and the simulation applies them over the caller's (the CLI flag, else v1.14's defaults).
    """

    gates: Mapping[str, bool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.gates, Mapping) or not self.gates:
            raise ValueError("featureGates must map gate names to true or false, e.g. {NodeOverlay: true}")
        object.__setattr__(self, "gates", gate_values(self.gates))

    def to_dict(self) -> dict:
        return {"featureGates": dict(self.gates)}

    def describe(self) -> str:
        return "feature gates " + ",".join(f"{k}={str(v).lower()}" for k, v in self.gates.items())


@dataclass(frozen=True)
class SetKarpenterVersion:
    """Which Karpenter release this what-if simulates (``karpenterVersion: v1.14``): "what if we
    upgraded to v1.15", "what does our v1.9 LTS do". Like feature gates it is no cluster object: the
    edit keeps it on the snapshot, and every version-gated rule reads it there
    (karptui.sim.karpenter.versions; docs/karpenter-versions.md lists them)."""

    version: str

    def __post_init__(self) -> None:
        if not isinstance(self.version, str):  # YAML reads 1.10 as the number 1.1
            raise ValueError(f"karpenterVersion must be text such as v1.14, got {self.version!r} "
                             "(write it with a v, or quoted)")
        object.__setattr__(self, "version", str(KarpenterVersion.parse(self.version)))

    def to_dict(self) -> dict:
        return {"karpenterVersion": self.version}

    def describe(self) -> str:
        return f"Karpenter {self.version}"


# What ``create`` can make: objects whose arrival changes where pods go or what Karpenter does.
# Nodes come from ``addNodes`` (with an instance type's capacity); Pods, NodeClaims and Events
# are made by controllers, not applied.
CREATABLE = frozenset({
    *WORKLOAD_KINDS, "PodDisruptionBudget", "NodePool", "Provisioner", "NodeOverlay", "EC2NodeClass",
    "AWSNodeTemplate", "PriorityClass", "StorageClass", "Service", "Namespace", "PersistentVolume",
    "PersistentVolumeClaim",
})


@dataclass(frozen=True)
class Create:
    """A new object from its whole manifest, as ``kubectl apply`` (or ``create``) of an object the
    cluster does not hold: a NodePool, an EC2NodeClass, a PDB, a workload (its controller then
    makes its pods, pending). ``manifest`` keeps ``metadata.namespace`` for a namespaced kind."""

    manifest: Mapping

    def __post_init__(self) -> None:
        m = self.manifest
        if not isinstance(m, Mapping):
            raise ValueError("create takes an object's manifest (apiVersion, kind, metadata, spec)")
        kind, api_version = m.get("kind"), m.get("apiVersion")
        if not isinstance(kind, str) or not isinstance(api_version, str) or not kind or not api_version:
            raise ValueError("create: the manifest needs apiVersion and kind")
        if kind not in CREATABLE:
            raise ValueError(f"create: cannot create a {kind} ({', '.join(sorted(CREATABLE))})")
        meta = m.get("metadata")
        if not isinstance(meta, Mapping) or not isinstance(meta.get("name"), str) or not meta.get("name"):
            raise ValueError(f"create: the {kind} has no metadata.name")
        self.target  # checks the namespace against the kind's scope
        object.__setattr__(self, "manifest", copy.deepcopy(dict(m)))

    @property
    def target(self) -> Target:
        meta = self.manifest["metadata"]
        namespace = meta.get("namespace") or ""
        if not isinstance(namespace, str):
            raise ValueError("create: metadata.namespace must be a string")
        return Target(self.manifest["kind"], meta["name"], "" if self.manifest["kind"] in CLUSTER_SCOPED else namespace)

    def to_dict(self) -> dict:
        return {"create": copy.deepcopy(self.manifest)}

    def describe(self) -> str:
        return f"create {self.target}"


Edit = Union[Patch, Scale, Cordon, RemoveNode, Remove, AddNodes, SetFeatureGates, SetKarpenterVersion, Create]


@dataclass(frozen=True)
class WhatIf:
    """A named, ordered list of edits; each edit sees the result of the ones before it.

    ``source`` is the file it came from (for error messages), not part of its identity.
    """

    name: str
    edits: tuple[Edit, ...] = ()
    description: str = ""
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "edits", tuple(self.edits))

    def to_dict(self) -> dict:
        out: dict = {"apiVersion": API_VERSION, "kind": KIND, "name": self.name}
        if self.description:
            out["description"] = self.description
        out["edits"] = [edit.to_dict() for edit in self.edits]
        return out


API_VERSION = "karptui/v1"
KIND = "WhatIf"


def edits_over_cap(count: int) -> str | None:
    """Why ``count`` edits are too many for one what-if (:data:`karptui.limits.MAX_WHATIF_EDITS`), or None."""
    if count <= limits.MAX_WHATIF_EDITS:
        return None
    return (f"{count:,} edits, more than karptui's cap of {limits.MAX_WHATIF_EDITS:,} for one what-if "
            "(each is applied to the whole cluster in turn)")


def _check_node_name(name: object) -> None:
    if not isinstance(name, str) or not name or "/" in name:
        raise ValueError(f"node name {name!r} is not valid")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)
